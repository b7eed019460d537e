//! Argument repair in a run: almost-JSON arguments are repaired where the call enters the run,
//! and the record and the events say so; with repair off, or for ambiguous input, the call is
//! refused as before.

use std::sync::{Arc, Mutex};

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentEvent, ArgumentRepair, PhiAgent, RunOutput, base_agent_builder, phi_tool,
    tools,
};
use serde_json::{Value, json};

/// Add two integers.
#[phi_tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

async fn run_with(arguments: &str, config: AgentConfig) -> (RunOutput, Vec<Vec<ArgumentRepair>>) {
    let llm = ScriptedLlm::new(vec![
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            "add",
            Value::String(arguments.to_string()),
        )]),
        LlmResponse::text("done"),
    ]);
    let started = Arc::new(Mutex::new(Vec::new()));
    let seen = started.clone();
    let builder = base_agent_builder(llm)
        .register_tools(tools![add])
        .observer(move |event: &AgentEvent| {
            if let AgentEvent::ToolStarted { call, .. } = event {
                seen.lock().unwrap().push(call.repaired.clone());
            }
        });
    let agent = PhiAgent::build(builder, config).unwrap();
    let output = agent.run("add").await.unwrap();
    let started = started.lock().unwrap().clone();
    (output, started)
}

#[tokio::test]
async fn python_style_arguments_are_repaired_and_the_call_says_so() {
    let (output, started) =
        run_with("```json\n{'a': 2, 'b': 3,}\n```", AgentConfig::default()).await;
    let record = &output.tool_calls[0];
    assert!(!record.is_error, "{:?}", record.result);
    assert_eq!(record.result[0].to_model_text(), "5");
    assert_eq!(record.arguments, json!({"a": 2, "b": 3}));
    let repairs = vec![
        ArgumentRepair::CodeFence,
        ArgumentRepair::SingleQuotes,
        ArgumentRepair::TrailingComma,
    ];
    assert_eq!(record.repaired, repairs);
    assert_eq!(
        started,
        vec![repairs],
        "the ToolStarted event shows the repair"
    );
    // The record keeps it through serialization.
    let stored = serde_json::to_value(record).unwrap();
    assert_eq!(
        stored["repaired"],
        json!(["code_fence", "single_quotes", "trailing_comma"])
    );
}

#[tokio::test]
async fn a_cut_off_object_is_closed() {
    let (output, _) = run_with(r#"{"a": 2, "b": 3, "#, AgentConfig::default()).await;
    assert_eq!(output.tool_calls[0].result[0].to_model_text(), "5");
    assert_eq!(output.tool_calls[0].repaired, vec![ArgumentRepair::Closed]);
}

#[tokio::test]
async fn with_repair_off_or_ambiguous_input_the_call_is_refused_as_before() {
    let off = AgentConfig::default().with_argument_repair(false);
    let (output, started) = run_with("{'a': 2, 'b': 3}", off).await;
    let record = &output.tool_calls[0];
    assert!(record.is_error);
    assert!(record.repaired.is_empty());
    assert_eq!(started, vec![vec![]]);

    // A number at the very end may have been cut short: no guess.
    let (output, _) = run_with(r#"{"a": 2, "b": 3"#, AgentConfig::default()).await;
    let record = &output.tool_calls[0];
    assert!(record.is_error, "{:?}", record.result);
    assert!(record.repaired.is_empty());
    assert_eq!(record.arguments, json!(r#"{"a": 2, "b": 3"#));
}

#[tokio::test]
async fn valid_arguments_are_not_marked() {
    let (output, started) = run_with(r#"{"a": 2, "b": 3}"#, AgentConfig::default()).await;
    // Adapters parse valid JSON themselves; a string that parses is still read as it is.
    assert!(output.tool_calls[0].repaired.is_empty());
    assert_eq!(started, vec![vec![]]);
}
