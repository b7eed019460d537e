//! Property: whatever a scripted model answers (any text, any number of calls of any name with
//! any arguments and ids, a script that runs out early), a run ends within `max_turns` model
//! requests, with an answer or a clear error, and no tool panics or runs while hidden.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Content, PhiAgent, Tool, ToolContext, ToolExposure,
    base_agent_builder,
};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Succeeds or fails depending on its arguments (`{"fail": true}` fails).
struct Sometimes;

#[async_trait]
impl Tool for Sometimes {
    fn name(&self) -> &'static str {
        "sometimes"
    }
    fn description(&self) -> &'static str {
        "fails when asked to"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"fail": {"type": "boolean"}}})
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        if args["fail"] == true {
            return Err(phi_agent::AgentError::tool("asked to fail"));
        }
        Ok(vec![Content::text("ok")])
    }
}

/// A hidden tool that counts the times it ran (it never should, for the model).
struct Hidden(Arc<AtomicUsize>);

#[async_trait]
impl Tool for Hidden {
    fn name(&self) -> &'static str {
        "hidden"
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
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(vec![])
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("fail".to_string()),
                        "[a-z]{1,4}".prop_map(String::from)
                    ],
                    inner
                ),
                0..4
            )
            .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn tool_call() -> impl Strategy<Value = ToolCall> {
    let name = prop_oneof![
        3 => Just("sometimes".to_string()),
        1 => Just("hidden".to_string()),
        1 => ".{0,10}".prop_map(String::from),
    ];
    let arguments = prop_oneof![
        2 => Just(json!({"fail": true})),
        1 => Just(json!({})),
        2 => json_value(),
    ];
    let id = prop_oneof![
        Just("same".to_string()),
        "[a-z0-9]{0,6}".prop_map(String::from)
    ];
    (id, name, arguments).prop_map(|(id, name, arguments)| ToolCall::new(id, name, arguments))
}

fn response() -> impl Strategy<Value = LlmResponse> {
    prop_oneof![
        1 => ".{0,20}".prop_map(LlmResponse::text),
        4 => (prop::collection::vec(tool_call(), 0..12), ".{0,8}").prop_map(|(calls, text)| {
            let mut reply = LlmResponse::tool_calls(calls);
            reply.text = text;
            reply
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_scripted_run_always_ends_within_max_turns(
        script in prop::collection::vec(response(), 0..10),
        repeat_last in any::<bool>(),
        max_turns in 1usize..8,
        max_repeated_failures in 1usize..4,
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .unwrap();
        let hidden_runs = Arc::new(AtomicUsize::new(0));
        // Either the script as is (it may run out), or its last answer repeated for ever.
        let llm = match (repeat_last, script.last().cloned()) {
            (true, Some(last)) => {
                let script = script.clone();
                ScriptedLlm::from_fn(move |request| {
                    let turn = request.messages.iter().filter(|m| matches!(m, phi_agent::llm::Message::Assistant { .. })).count();
                    Ok(script.get(turn).cloned().unwrap_or_else(|| last.clone()))
                })
            }
            _ => ScriptedLlm::new(script.clone()),
        };
        let config = AgentConfig::default()
            .with_max_turns(max_turns)
            .with_max_repeated_failures(max_repeated_failures);
        let agent = PhiAgent::build(
            base_agent_builder(llm.clone()).register_tool(Sometimes).register_tool(Hidden(hidden_runs.clone())),
            config,
        ).unwrap();
        let outcome = runtime.block_on(agent.run("go"));
        let asked = llm.requests().len();
        prop_assert!(asked <= max_turns, "{} requests for max_turns {}", asked, max_turns);
        prop_assert_eq!(hidden_runs.load(Ordering::SeqCst), 0);
        match outcome {
            Ok(output) => {
                prop_assert!(output.turns <= max_turns);
                prop_assert_eq!(output.turns, asked);
                for call in &output.tool_calls {
                    let text: String = call.result.iter().map(Content::to_model_text).collect();
                    prop_assert!(!text.contains("failed unexpectedly"), "{}", text);
                    prop_assert_eq!(call.is_error, call.name != "sometimes" || !text.starts_with("ok"));
                }
            }
            Err(AgentError::MaxTurns { turns, .. }) => {
                prop_assert_eq!(turns, max_turns);
                prop_assert_eq!(asked, max_turns);
            }
            Err(AgentError::RepeatedToolFailure { failures, limit, .. }) => {
                prop_assert_eq!(limit, max_repeated_failures);
                prop_assert!(failures > limit);
            }
            Err(AgentError::InvalidResponse { provider: "scripted", message }) => {
                prop_assert!(!repeat_last || script.is_empty(), "{}", message);
                prop_assert!(message.contains("no response left"));
            }
            Err(other) => prop_assert!(false, "unexpected error: {}", other),
        }
    }
}
