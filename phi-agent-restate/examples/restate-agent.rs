//! Serves a payment agent as the Restate virtual object `Agent`, on a deterministic demo model,
//! so that a run can be killed and resumed without an API key.
//!
//! Turn 1 the model calls `pay` (the amount is the first number in the latest input, 42 without one)
//! and then `ship`; turn 2 it answers. A payment above `PHI_DEMO_APPROVAL_ABOVE` waits for a
//! person's approval (a Restate awakeable). Every side effect is appended to a file in
//! `PHI_DEMO_DIR` (default `.`): `asks.log` gets a line per model request, `effects.log` a line per
//! tool execution with its session and step key, so that what happened across processes can be
//! counted afterwards.
//!
//! ```text
//! PHI_RESTATE_ADDR=127.0.0.1:9080   where to serve (Restate's deployment address)
//! PHI_DEMO_DIR=.                    where the logs go
//! PHI_DEMO_SHIP_MILLIS=0            how long `ship` takes
//! PHI_DEMO_APPROVAL_ABOVE=1000      payments above this wait for a person
//! ```

use std::fs::OpenOptions;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse, Message, ToolCall};
use phi_agent::{
    AgentConfig, AgentResult, Content, Tool, ToolApproval, ToolContext, ToolOptions,
    base_agent_builder,
};
use phi_agent_restate::AgentObject;
use restate_sdk::prelude::*;
use serde_json::{Value, json};

/// Appends `line` to `file` in the demo directory: the side effect a crash must not repeat.
fn record(file: &str, line: &str) {
    let dir = PathBuf::from(std::env::var("PHI_DEMO_DIR").unwrap_or_else(|_| ".".into()));
    let mut log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(file))
        .expect("the demo directory is writable");
    writeln!(log, "{line}").expect("log written");
}

/// Pays, once per idempotency key (a real payment service would be told the key).
struct Pay {
    approval_above: u64,
}

#[async_trait]
impl Tool for Pay {
    fn name(&self) -> &'static str {
        "pay"
    }
    fn description(&self) -> &'static str {
        "Pay an invoice"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"amount": {"type": "integer"}}})
    }
    fn options(&self) -> ToolOptions {
        // Anything but a small whole amount needs a person.
        let above = self.approval_above;
        ToolOptions::default().with_approval(ToolApproval::when(move |args, _| {
            args["amount"].as_u64().is_none_or(|amount| amount > above)
        }))
    }
    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        record(
            "effects.log",
            &format!("pay {} {}", ctx.session_id(), ctx.step_key()),
        );
        Ok(vec![Content::text(format!("paid {}", args["amount"]))])
    }
}

/// Ships the order, slowly if asked to (so a test can kill the process meanwhile).
struct Ship {
    millis: u64,
}

#[async_trait]
impl Tool for Ship {
    fn name(&self) -> &'static str {
        "ship"
    }
    fn description(&self) -> &'static str {
        "Ship an order"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"order": {"type": "string"}}})
    }
    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let key = format!("{} {}", ctx.session_id(), ctx.step_key());
        record("effects.log", &format!("ship-start {key}"));
        tokio::time::sleep(Duration::from_millis(self.millis)).await;
        record("effects.log", &format!("ship {key}"));
        Ok(vec![Content::text(format!("shipped {}", args["order"]))])
    }
}

/// Calls `pay` and `ship` on the first turn and answers on the second; its reply depends only
/// on the request, as a replayed run needs of any process.
struct DemoModel;

#[async_trait]
impl LlmClient for DemoModel {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        let turn = 1 + request
            .messages
            .iter()
            .filter(|message| matches!(message, Message::Assistant { .. }))
            .count();
        record("asks.log", &format!("turn {turn}"));
        let input = request
            .messages
            .iter()
            .rev()
            .find_map(|message| match message {
                Message::User { text } => Some(text.as_str()),
                _ => None,
            })
            .unwrap_or_default();
        let amount = input
            .split(|c: char| !c.is_ascii_digit())
            .find_map(|word| word.parse::<u64>().ok())
            .unwrap_or(42);
        if turn == 1 {
            return Ok(LlmResponse::tool_calls(vec![
                ToolCall::new("call_pay", "pay", json!({"amount": amount})),
                ToolCall::new("call_ship", "ship", json!({"order": "A-1"})),
            ]));
        }
        Ok(LlmResponse::text(format!("Paid {amount} and shipped A-1.")))
    }

    fn model(&self) -> &str {
        "demo"
    }
}

#[tokio::main]
async fn main() {
    let addr: SocketAddr = std::env::var("PHI_RESTATE_ADDR")
        .unwrap_or_else(|_| "127.0.0.1:9080".into())
        .parse()
        .expect("PHI_RESTATE_ADDR is host:port");
    let millis = std::env::var("PHI_DEMO_SHIP_MILLIS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(0);
    let approval_above = std::env::var("PHI_DEMO_APPROVAL_ABOVE")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(1000);
    let object = AgentObject::new(
        move || {
            base_agent_builder(DemoModel)
                .system_prompt("You pay invoices and ship orders.")
                .register_tool(Pay { approval_above })
                .register_tool(Ship { millis })
        },
        AgentConfig::default(),
    );
    eprintln!("restate-agent: serving the `Agent` object on {addr}");
    HttpServer::new(Endpoint::builder().bind(object).build())
        .listen_and_serve(addr)
        .await;
}
