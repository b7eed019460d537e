//! A model client of the user's own, written outside the crate: every type it builds comes from
//! a constructor or a `with_*` setter, never a struct literal, so the fields phi-agent adds to
//! `LlmRequest`, `LlmResponse`, `Usage`, `ToolCall`, the configuration types and the stream's
//! deltas (all `#[non_exhaustive]`) break no one.

use phi_agent::llm::{
    LlmClient, LlmRequest, LlmResponse, Message, StopReason, StreamDelta, ToolCall, ToolSearchCall,
    Usage,
};
use phi_agent::{AgentConfig, AgentResult, PhiAgent, ToolConfig, base_agent_builder, phi_tool};
// A user's crate depends on async-trait and serde_json; this one depends on phi-agent alone
// (so that the macro cases prove the generated code needs nothing else), and borrows them.
use phi_agent::__private::async_trait;
use phi_agent::__private::serde_json::json;

/// Add two integers.
#[phi_tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// First a turn with text and a tool call, then the answer.
struct TwoTurns;

#[async_trait]
impl LlmClient for TwoTurns {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        let answered = request
            .messages
            .iter()
            .any(|message| matches!(message, Message::Tool { .. }));
        let reply = if !answered {
            let call = ToolCall::new("call_1", "add", json!({"a": 2, "b": 3}));
            LlmResponse::new("Let me add that.", vec![call])
        } else {
            LlmResponse::text("2 + 3 = 5")
                .with_stop_reason(StopReason::EndTurn)
                .with_tool_searches(Vec::<ToolSearchCall>::new())
        };
        Ok(reply.with_usage(Usage::new(10, 2).with_output_tokens(4)))
    }
}

fn main() {
    let llm = TwoTurns;
    // The deltas a streaming client of one's own yields, from their constructors.
    let call = ToolCall::new("call_1", "add", json!({"a": 2, "b": 3}));
    let deltas = [
        StreamDelta::tool_call_started(0, "call_1", "add"),
        StreamDelta::tool_arguments(0, call.arguments.to_string()),
        StreamDelta::tool_call_ready(0, call.clone()),
        StreamDelta::Done(LlmResponse::new("Let me add that.", vec![call])),
    ];
    assert!(matches!(
        &deltas[1],
        StreamDelta::ToolArguments { index: 0, .. }
    ));
    assert!(
        matches!(&deltas[3], StreamDelta::Done(reply) if reply.stop_reason == StopReason::ToolUse)
    );

    let request = LlmRequest::new(vec![Message::user("2 + 3?")]).with_system("Be brief.");
    assert_eq!(request.system.as_deref(), Some("Be brief."));

    let config = AgentConfig::default()
        .with_max_turns(4)
        .with_max_parallel_tools(2)
        .with_tools(ToolConfig {
            default_tool_timeout_ms: 5_000,
            ..ToolConfig::default()
        });
    let builder = base_agent_builder(llm)
        .system_prompt("Be brief.")
        .register_tool(Add);
    let agent = PhiAgent::build(builder, config).expect("the agent builds");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let output = runtime
        .block_on(agent.run("2 + 3?"))
        .expect("the run ends with an answer");
    assert_eq!(output.text, "2 + 3 = 5");
    assert_eq!(output.turns, 2);
    assert_eq!(output.tool_calls[0].result[0].to_model_text(), "5");
    assert_eq!(output.usage, Usage::new(20, 8));
}
