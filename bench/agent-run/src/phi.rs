//! phi-agent's side: three typed tools and a scripted model that pops prepared replies.

use std::collections::VecDeque;
use std::sync::Mutex;

use async_trait::async_trait;
use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse, ToolCall};
use phi_agent::{AgentConfig, AgentResult, PhiAgent, ToolContext, TypedTool, base_agent_builder};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{CALLS, MODEL_CALLS, TURNS, call_of};

/// Two integers.
#[derive(Deserialize, JsonSchema)]
pub struct Pair {
    a: i64,
    b: i64,
}

/// A text.
#[derive(Deserialize, JsonSchema)]
pub struct Text {
    text: String,
}

struct Add;
struct Mul;
struct Upper;

#[async_trait]
impl TypedTool for Add {
    type Args = Pair;
    type Output = i64;
    fn name(&self) -> &'static str {
        "add"
    }
    fn description(&self) -> &'static str {
        "Add two integers"
    }
    async fn call_typed(&self, args: Pair, _ctx: &ToolContext) -> AgentResult<i64> {
        Ok(args.a.wrapping_add(args.b))
    }
}

#[async_trait]
impl TypedTool for Mul {
    type Args = Pair;
    type Output = i64;
    fn name(&self) -> &'static str {
        "mul"
    }
    fn description(&self) -> &'static str {
        "Multiply two integers"
    }
    async fn call_typed(&self, args: Pair, _ctx: &ToolContext) -> AgentResult<i64> {
        Ok(args.a.wrapping_mul(args.b))
    }
}

#[async_trait]
impl TypedTool for Upper {
    type Args = Text;
    type Output = String;
    fn name(&self) -> &'static str {
        "upper"
    }
    fn description(&self) -> &'static str {
        "Upper-case a text"
    }
    async fn call_typed(&self, args: Text, _ctx: &ToolContext) -> AgentResult<String> {
        Ok(args.text.to_uppercase())
    }
}

/// Replies prepared before the run, handed out in order (as rig's `MockCompletionModel` does).
struct Script(Mutex<VecDeque<LlmResponse>>);

#[async_trait]
impl LlmClient for Script {
    async fn complete(&self, _request: &LlmRequest) -> AgentResult<LlmResponse> {
        let next = self.0.lock().ok().and_then(|mut q| q.pop_front());
        Ok(next.unwrap_or_else(|| LlmResponse::text("script exhausted")))
    }
}

fn script(runs: usize) -> VecDeque<LlmResponse> {
    let mut replies = VecDeque::with_capacity(runs * MODEL_CALLS);
    for _ in 0..runs {
        for turn in 0..TURNS {
            let calls = (0..CALLS)
                .map(|k| {
                    let (name, args) = call_of(turn, k);
                    ToolCall::new(format!("c{turn}_{k}"), name, args)
                })
                .collect();
            replies.push_back(LlmResponse::tool_calls(calls));
        }
        replies.push_back(LlmResponse::text("done"));
    }
    replies
}

/// One agent with a script for `runs` runs.
pub struct Side(PhiAgent);

impl Side {
    /// An agent that runs up to `parallel` tool calls at once.
    pub fn new(runs: usize, parallel: usize) -> Self {
        let builder = base_agent_builder(Script(Mutex::new(script(runs))))
            .register_tool(Add)
            .register_tool(Mul)
            .register_tool(Upper);
        let config = AgentConfig::default()
            .with_max_turns(MODEL_CALLS)
            .with_max_parallel_tools(parallel);
        Self(PhiAgent::build(builder, config).expect("valid agent"))
    }

    /// One run.
    pub async fn run(&self) -> Option<usize> {
        self.0.run("go").await.ok().map(|out| out.tool_calls.len())
    }

    /// Panics unless one run makes every call and ends with the final answer.
    pub fn check(&self, rt: &tokio::runtime::Runtime) {
        let out = rt.block_on(self.0.run("go")).expect("phi run");
        assert_eq!(out.text, "done");
        assert_eq!(out.turns, MODEL_CALLS);
        assert_eq!(out.tool_calls.len(), TURNS * CALLS);
        let last = format!("{:?}", out.messages.last());
        assert!(last.contains("done"), "{last}");
        let all = format!("{:?}", out.messages);
        assert!(
            all.contains("WORD 29"),
            "the last upper result is in the transcript"
        );
    }
}
