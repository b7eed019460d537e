//! A run with its logs: a tracing subscriber that prints each turn (`chat`) and each tool call
//! (`execute_tool`) as it ends, with its fields and how long it took, then the run (`invoke_agent`).
//!
//! Run: `cargo run --example tracing` (offline, on a scripted model).
//!
//! The spans are where a run's story is; a subscriber prints a span only when asked for span
//! events, hence `with_span_events(FmtSpan::CLOSE)`.

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{AgentConfig, AgentResult, PhiAgent, base_agent_builder, phi_tool, tools};
use serde_json::json;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::format::FmtSpan;

/// Add two numbers.
#[phi_tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[tokio::main]
async fn main() -> AgentResult<()> {
    tracing_subscriber::fmt()
        .with_max_level(LevelFilter::DEBUG)
        .with_span_events(FmtSpan::CLOSE)
        .init();

    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![
            ToolCall::new("call_1", "add", json!({"a": 6, "b": 7})),
            ToolCall::new("call_2", "add", json!({"a": 2, "b": 3})),
        ]),
        LlmResponse::text("6 plus 7 is 13, and 2 plus 3 is 5."),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tools(tools![add]),
        AgentConfig::default(),
    )?;
    let output = agent.run("What are 6 plus 7 and 2 plus 3?").await?;
    println!("answer: {}", output.text);
    Ok(())
}
