//! Loop detection: a model that repeats one call is told so (and an event says so), and with
//! `end_run` the run ends within the configured bound.

use std::sync::{Arc, Mutex};

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentError, AgentEvent, LoopDetection, PhiAgent, base_agent_builder, phi_tool,
    tools,
};
use serde_json::json;

/// Look the weather up.
#[phi_tool]
fn weather(city: String) -> String {
    format!("sunny in {city}")
}

/// A model that sends the same call every turn (keys in a changing order), for `turns` turns.
fn repeating(turns: usize) -> ScriptedLlm {
    let mut replies: Vec<LlmResponse> = (0..turns)
        .map(|turn| {
            let args = if turn % 2 == 0 {
                json!({"city": "Rome"})
            } else {
                serde_json::from_str(r#"{"city":"Rome"}"#).unwrap()
            };
            LlmResponse::tool_calls(vec![ToolCall::new(format!("c{turn}"), "weather", args)])
        })
        .collect();
    replies.push(LlmResponse::text("it is sunny"));
    ScriptedLlm::new(replies)
}

fn agent(llm: ScriptedLlm, detection: LoopDetection, seen: Arc<Mutex<Vec<usize>>>) -> PhiAgent {
    let builder = base_agent_builder(llm)
        .register_tools(tools![weather])
        .observer(move |event: &AgentEvent| {
            if let AgentEvent::RepeatDetected { repeats, call, .. } = event {
                assert_eq!(call.name, "weather");
                seen.lock().unwrap().push(*repeats);
            }
        });
    let config = AgentConfig::default().with_loop_detection(detection);
    PhiAgent::build(builder, config).unwrap()
}

#[tokio::test]
async fn five_repeats_get_the_note_and_the_run_ends_within_the_bound() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let detection = LoopDetection::on().with_repeats(5).with_end_run(true);
    let agent = agent(repeating(12), detection, seen.clone());
    let error = agent.run("weather?").await.unwrap_err();
    let AgentError::RepeatedToolCall {
        tool,
        repeats,
        transcript,
    } = &error
    else {
        panic!("{error}");
    };
    assert_eq!(tool, "weather");
    assert_eq!(*repeats, 6, "ended at the first repeat after the note");
    assert_eq!(
        *seen.lock().unwrap(),
        vec![5],
        "one note, at the fifth call"
    );
    let noted = transcript
        .iter()
        .filter(|message| {
            format!("{message:?}").contains("You have sent this same call of `weather` 5 times")
        })
        .count();
    assert_eq!(noted, 1);
    assert!(error.to_string().contains("LoopDetection::repeats"));
}

#[tokio::test]
async fn without_end_run_the_note_alone_and_the_run_goes_on() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let agent = agent(
        repeating(6),
        LoopDetection::on().with_repeats(5),
        seen.clone(),
    );
    let output = agent.run("weather?").await.unwrap();
    assert_eq!(output.text, "it is sunny");
    assert_eq!(*seen.lock().unwrap(), vec![5, 6]);
    let last = output
        .tool_calls
        .last()
        .unwrap()
        .result
        .last()
        .unwrap()
        .to_model_text();
    assert!(last.contains("6 times in your last 6 calls"), "{last}");
}

#[tokio::test]
async fn off_by_default() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let agent = agent(repeating(8), LoopDetection::default(), seen.clone());
    let output = agent.run("weather?").await.unwrap();
    assert_eq!(output.tool_calls.len(), 8);
    assert!(seen.lock().unwrap().is_empty());
}
