//! rig's side: rig-agent's `Agent` with rig-core's own scripted `MockCompletionModel`, and the
//! same three tools as rig `Tool`s.

use std::sync::OnceLock;

use rig_agent::prelude::*;
use rig_agent::test_utils::{MockCompletionModel, MockTurn};
use rig_core::completion::AssistantContent;
use rig_core::message::{ToolCall, ToolFunction, ToolName};
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

/// The tools never fail.
#[derive(Debug)]
pub struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for Never {}

/// The schema of `T`, derived once per process: rig asks a tool for its parameters on every
/// request and takes an owned `Value`, so the cheapest a rig tool can answer is a clone.
fn schema<T: JsonSchema>(cell: &'static OnceLock<serde_json::Value>) -> serde_json::Value {
    cell.get_or_init(|| serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default())
        .clone()
}

static PAIR: OnceLock<serde_json::Value> = OnceLock::new();
static TEXT: OnceLock<serde_json::Value> = OnceLock::new();

struct Add;
struct Mul;
struct Upper;

impl Tool for Add {
    const NAME: &'static str = "add";
    type Args = Pair;
    type Output = i64;
    type Error = Never;
    fn description(&self) -> String {
        "Add two integers".to_string()
    }
    fn parameters(&self) -> serde_json::Value {
        schema::<Pair>(&PAIR)
    }
    async fn call(
        &self,
        _ctx: &mut rig_agent::tool::ToolContext,
        args: Pair,
    ) -> Result<i64, Never> {
        Ok(args.a.wrapping_add(args.b))
    }
}

impl Tool for Mul {
    const NAME: &'static str = "mul";
    type Args = Pair;
    type Output = i64;
    type Error = Never;
    fn description(&self) -> String {
        "Multiply two integers".to_string()
    }
    fn parameters(&self) -> serde_json::Value {
        schema::<Pair>(&PAIR)
    }
    async fn call(
        &self,
        _ctx: &mut rig_agent::tool::ToolContext,
        args: Pair,
    ) -> Result<i64, Never> {
        Ok(args.a.wrapping_mul(args.b))
    }
}

impl Tool for Upper {
    const NAME: &'static str = "upper";
    type Args = Text;
    type Output = String;
    type Error = Never;
    fn description(&self) -> String {
        "Upper-case a text".to_string()
    }
    fn parameters(&self) -> serde_json::Value {
        schema::<Text>(&TEXT)
    }
    async fn call(
        &self,
        _ctx: &mut rig_agent::tool::ToolContext,
        args: Text,
    ) -> Result<String, Never> {
        Ok(args.text.to_uppercase())
    }
}

fn script(runs: usize) -> Vec<MockTurn> {
    let mut turns = Vec::with_capacity(runs * MODEL_CALLS);
    for _ in 0..runs {
        for turn in 0..TURNS {
            turns.push(MockTurn::from_contents((0..CALLS).map(|k| {
                let (name, args) = call_of(turn, k);
                let name = ToolName::new(name).expect("valid tool name");
                AssistantContent::ToolCall(ToolCall::from_wire(
                    format!("c{turn}_{k}"),
                    ToolFunction::new(name, args),
                ))
            })));
        }
        turns.push(MockTurn::text("done"));
    }
    turns
}

/// One agent whose model holds a script for `runs` runs.
pub struct Side(Agent);

impl Side {
    /// An agent with rig's defaults (one tool call at a time).
    pub fn new(runs: usize) -> Self {
        let model = MockCompletionModel::from_turns(script(runs));
        Self(
            AgentBuilder::new(model)
                .tool(Add)
                .tool(Mul)
                .tool(Upper)
                .build(),
        )
    }

    /// One run.
    pub async fn run(&self) -> Option<usize> {
        self.0
            .prompt("go")
            .max_turns(MODEL_CALLS)
            .await
            .ok()
            .map(|out| out.messages.len())
    }

    /// Panics unless one run makes every call and ends with the final answer.
    pub fn check(&self, rt: &tokio::runtime::Runtime) {
        let out = rt
            .block_on(self.0.prompt("go").max_turns(MODEL_CALLS).into_future())
            .expect("rig run");
        let all = format!("{:?}", out.messages);
        assert!(
            all.contains("WORD 29"),
            "the last upper result is in the transcript"
        );
        assert!(format!("{:?}", out.messages.last()).contains("done"));
        assert_eq!(out.completion_calls.len(), MODEL_CALLS);
    }
}
