//! Code mode: the model writes one program that loops over records and calls two tools, instead
//! of a turn per call; only the program's value goes back to it.
//!
//! Run: `cargo run -p phi-agent-code --example code-mode`
//!
//! Offline: a scripted model sends one `run_code` program over five orders. For each, the
//! program calls `customer` (who placed it) and `shipping` (what it costs to ship there), and
//! adds up the cost per country. Ten tool calls, one model turn; the model reads one small map.

use std::collections::BTreeMap;

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentEvent, AgentResult, PhiAgent, base_agent_builder, phi_tool, tools,
};
use phi_agent_code::RunCode;
use serde::Serialize;
use serde_json::json;

/// Who placed an order.
#[derive(Serialize)]
struct Buyer {
    name: String,
    country: String,
}

/// The customer who placed an order.
#[phi_tool]
async fn customer(
    /// The order's id, e.g. "o-1".
    order: String,
) -> AgentResult<Buyer> {
    let countries = ["DE", "FR", "DE", "JP", "FR"];
    let index: usize = order
        .trim_start_matches("o-")
        .parse()
        .map_err(|_| phi_agent::AgentError::tool(format!("no order `{order}`")))?;
    let country = countries
        .get(index.wrapping_sub(1))
        .ok_or_else(|| phi_agent::AgentError::tool(format!("no order `{order}`")))?;
    Ok(Buyer {
        name: format!("customer {index}"),
        country: country.to_string(),
    })
}

/// The cost of shipping one parcel to a country, in cents.
#[phi_tool]
async fn shipping(
    /// An ISO country code, e.g. "DE".
    country: String,
) -> u64 {
    let table = BTreeMap::from([("DE", 490), ("FR", 650), ("JP", 2400)]);
    table.get(country.as_str()).copied().unwrap_or(1500)
}

const PROGRAM: &str = r#"
let cost = #{};
for order in ["o-1", "o-2", "o-3", "o-4", "o-5"] {
    let who = customer(#{ order: order });
    let cents = shipping(#{ country: who.country });
    cost[who.country] = (cost[who.country] ?? 0) + cents;
}
cost
"#;

#[tokio::main]
async fn main() -> AgentResult<()> {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "call_1",
            "run_code",
            json!({ "code": PROGRAM }),
        )]),
        LlmResponse::text("Shipping per country: DE 9.80, FR 13.00, JP 24.00."),
    ]);
    let tools = tools![customer, shipping];
    let builder = base_agent_builder(llm.clone())
        .system_prompt("Answer questions about orders.")
        .register_tools(tools.clone())
        .register_tool(RunCode::new(&tools))
        .observer(|event: &AgentEvent<'_>| {
            if let AgentEvent::ToolFinished { call, result, .. } = event {
                println!("  {} {} -> {}", call.id, call.name, result.to_model_text());
            }
        });
    let agent = PhiAgent::build(builder, AgentConfig::default())?;
    println!("program:{PROGRAM}");
    let output = agent
        .run("What does shipping the five open orders cost, per country?")
        .await?;
    println!(
        "\nthe model read: {}",
        output.tool_calls[0].result[0].to_model_text()
    );
    println!("answer: {}", output.text);
    println!(
        "model turns: {}, tool calls in the program: 10",
        llm.requests().len()
    );
    Ok(())
}
