//! A zero-latency model and a trivial tool, for the loop and concurrency benchmarks.

use async_trait::async_trait;
use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse, ToolCall};
use phi_agent::{AgentConfig, AgentResult, PhiAgent, ToolContext, TypedTool, base_agent_builder};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Arguments of [`Add`].
#[derive(Deserialize, JsonSchema)]
pub struct AddArgs {
    a: i64,
    b: i64,
}

/// The trivial tool every turn calls.
pub struct Add;

#[async_trait]
impl TypedTool for Add {
    type Args = AddArgs;
    type Output = i64;
    fn name(&self) -> &'static str {
        "add"
    }
    fn description(&self) -> &'static str {
        "Add two integers"
    }
    async fn call_typed(&self, args: AddArgs, _ctx: &ToolContext) -> AgentResult<i64> {
        Ok(args.a + args.b)
    }
}

/// A model that answers at once: it calls `add` on every turn but the last, then answers. It
/// keeps no record of requests (a recording model would copy the growing transcript every turn
/// and measure itself rather than the loop).
pub struct InstantModel {
    pub turns: usize,
}

#[async_trait]
impl LlmClient for InstantModel {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        // The user's input, then a call and its result per earlier turn.
        let turn = request.messages.len().div_ceil(2);
        if turn >= self.turns {
            return Ok(LlmResponse::text("done"));
        }
        Ok(LlmResponse::tool_calls(vec![ToolCall::new(
            format!("call_{turn}"),
            "add",
            json!({"a": turn, "b": 1}),
        )]))
    }
}

/// An agent whose runs take `turns` turns, each but the last calling `add` once.
pub fn agent(turns: usize) -> PhiAgent {
    let builder = base_agent_builder(InstantModel { turns }).register_tool(Add);
    let config = AgentConfig::default().with_max_turns(turns);
    PhiAgent::build(builder, config).expect("valid agent")
}
