//! A whole run on a hostile reply: the body a server might send is read by an adapter, and the
//! reply (its text, its tool calls of any name, id and arguments) is played by the scripted
//! model on every turn. The run must end within `max_turns` with an answer or an error, with
//! no panic, no contained tool panic and no hidden tool run.
#![no_main]

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use libfuzzer_sys::fuzz_target;
use phi_agent::llm::{LlmResponse, ScriptedLlm, parse_response_body};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Content, PhiAgent, Tool, ToolContext, ToolExposure,
    base_agent_builder,
};
use serde_json::{Value, json};

static HIDDEN_RAN: AtomicBool = AtomicBool::new(false);

/// Echoes its arguments; fails when they hold `"fail": true`.
struct Echo;

#[async_trait]
impl Tool for Echo {
    fn name(&self) -> &'static str {
        "echo"
    }
    fn description(&self) -> &'static str {
        "echo"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        if args["fail"] == true {
            return Err(AgentError::tool("asked to fail"));
        }
        Ok(vec![
            Content::text(args.to_string()),
            Content::json(args.clone()),
        ])
    }
}

struct Hidden;

#[async_trait]
impl Tool for Hidden {
    fn name(&self) -> &'static str {
        "vault"
    }
    fn description(&self) -> &'static str {
        "hidden"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Hidden
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        HIDDEN_RAN.store(true, Ordering::SeqCst);
        Ok(vec![])
    }
}

const MAX_TURNS: usize = 4;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let provider = ["openai", "anthropic", "gemini", "openai-responses"][usize::from(selector % 4)];
    let Ok(reply) = parse_response_body(provider, body) else {
        return;
    };
    let script: LlmResponse = reply;
    let llm = ScriptedLlm::from_fn(move |_| Ok(script.clone()));
    let config = AgentConfig::default()
        .with_max_turns(MAX_TURNS)
        .with_max_repeated_failures(1 + usize::from(selector % 3));
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone())
            .register_tool(Echo)
            .register_tool(Hidden),
        config,
    )
    .unwrap();
    let outcome = runtime().block_on(agent.run("go"));
    assert!(llm.requests().len() <= MAX_TURNS);
    assert!(!HIDDEN_RAN.load(Ordering::SeqCst), "the hidden tool ran");
    match outcome {
        Ok(output) => {
            for call in &output.tool_calls {
                let text: String = call.result.iter().map(Content::to_model_text).collect();
                assert!(!text.contains("failed unexpectedly"), "{text}");
            }
        }
        Err(AgentError::MaxTurns { .. } | AgentError::RepeatedToolFailure { .. }) => {}
        Err(other) => panic!("unexpected error: {other}"),
    }
});
