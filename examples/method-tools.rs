//! Tools that hold state: the methods of a struct, made tools with `#[phi_tools]` and `#[tool]`.
//!
//! An inventory (behind a `Mutex`, as a database pool or a cache would be behind their own
//! handles) with its read tools in one impl block and its write tools in another module's, both
//! registered together; a scripted model drives one run.
//!
//! Run: `cargo run --example method-tools` (offline: no network calls)

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentEvent, AgentResult, PhiAgent, ToolContext, base_agent_builder, phi_tools,
    tools,
};
use serde_json::json;

/// Stock per item, shared by every tool of the inventory.
pub struct Inventory {
    stock: Mutex<BTreeMap<String, u32>>,
    warehouse: String,
}

#[phi_tools]
impl Inventory {
    /// How many of an item are in stock.
    #[tool(read_only)]
    async fn stock_of(
        &self,
        /// The item, e.g. "bolt"
        item: String,
    ) -> String {
        let count = self.stock.lock().expect("not poisoned").get(&item).copied();
        match count {
            Some(count) => format!("{count} {item} in {}", self.warehouse),
            None => format!(
                "no {item} in {}; `list_items` shows what there is",
                self.warehouse
            ),
        }
    }

    /// Every item in stock, with its count.
    #[tool(read_only)]
    async fn list_items(&self) -> BTreeMap<String, u32> {
        self.stock.lock().expect("not poisoned").clone()
    }

    /// Not a tool: the program's own view.
    pub fn total(&self) -> u32 {
        self.stock.lock().expect("not poisoned").values().sum()
    }
}

/// The write tools, in a module of their own (a second `#[phi_tools]` block of the same type).
mod writes {
    use phi_agent::{AgentError, AgentResult, ToolContext, phi_tools};

    #[phi_tools(tools_fn = "write_tools")]
    impl super::Inventory {
        /// Take items out of stock; fails when there are not enough.
        #[tool(destructive, name = "take_items")]
        async fn take(
            &self,
            /// The item
            item: String,
            /// How many
            #[phi(default = 1)]
            count: u32,
            ctx: &ToolContext,
        ) -> AgentResult<String> {
            let mut stock = self.stock.lock().expect("not poisoned");
            let left = stock
                .get_mut(&item)
                .ok_or_else(|| AgentError::tool(format!("no {item} in stock")))?;
            if *left < count {
                return Err(AgentError::tool(format!("only {left} {item} left")));
            }
            *left -= count;
            Ok(format!(
                "took {count} {item} (session {})",
                ctx.session_id()
            ))
        }
    }
}

/// Takes two bolts, checks what is left, then answers.
fn model() -> ScriptedLlm {
    ScriptedLlm::from_fn(|request| {
        let turn = request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count()
            + 1;
        Ok(match turn {
            1 => LlmResponse::tool_calls(vec![ToolCall::new(
                "c1",
                "take_items",
                json!({"item": "bolt", "count": 2}),
            )]),
            2 => LlmResponse::tool_calls(vec![ToolCall::new(
                "c2",
                "stock_of",
                json!({"item": "bolt"}),
            )]),
            _ => LlmResponse::text("Took 2 bolts; 3 are left."),
        })
    })
}

fn print_event(event: &AgentEvent<'_>) {
    if let AgentEvent::ToolFinished { call, result, .. } = event {
        let status = if result.is_error { "error" } else { "ok" };
        println!("  {} -> {status}: {}", call.name, result.to_model_text());
    }
}

#[tokio::main]
async fn main() -> AgentResult<()> {
    println!("offline: a scripted model drives this run (no network calls)");
    let inventory = Arc::new(Inventory {
        stock: Mutex::new(BTreeMap::from([("bolt".into(), 5), ("nut".into(), 8)])),
        warehouse: "north".into(),
    });
    // Every tool of the first block, and one of the second, listed by name.
    let mut all = Arc::clone(&inventory).tools();
    all.extend(tools![inventory.take]);
    let builder = base_agent_builder(model())
        .register_tools(all)
        .observer(print_event);
    let agent = PhiAgent::build(builder, AgentConfig::default())?;
    let output = agent
        .run("Take two bolts and tell me what is left.")
        .await?;
    println!("answer: {}", output.text);
    println!("the program sees {} items in stock", inventory.total());
    assert_eq!(
        inventory.total(),
        11,
        "the tools changed the shared inventory"
    );
    let _ = (Arc::clone(&inventory).write_tools(), ToolContext::default());
    Ok(())
}
