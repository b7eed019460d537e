//! Typed runs that pause: the paused JSON resumes into the typed answer in a freshly built agent,
//! streamed or not, and a typed paused run refuses to resume as a plain one (and the reverse).

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentError, AnswerOptions, PausedRun, PhiAgent, RunOutcome, StreamEvent,
    TypedOutcome, base_agent_builder, phi_tool,
};
use serde_json::json;

/// Delete a file.
#[phi_tool(needs_approval)]
async fn delete_file(path: String) -> String {
    format!("deleted {path}")
}

/// Read a file.
#[phi_tool]
async fn read_file(path: String) -> String {
    format!("contents of {path}")
}

#[derive(serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
struct Report {
    deleted: Vec<String>,
    note: String,
}

/// A model that reads and deletes in turn 1, then answers with a `Report` in turn 2.
fn script() -> ScriptedLlm {
    ScriptedLlm::new([
        LlmResponse::tool_calls(vec![
            ToolCall::new("r1", "read_file", json!({"path": "a.txt"})),
            ToolCall::new("d1", "delete_file", json!({"path": "a.txt"})),
        ]),
        LlmResponse::tool_calls(vec![ToolCall::new(
            "f1",
            "final_answer",
            json!({"deleted": ["a.txt"], "note": "read, then deleted"}),
        )]),
    ])
    .with_pieces(3)
}

fn agent(llm: ScriptedLlm) -> PhiAgent {
    let builder = base_agent_builder(llm)
        .register_tool(DeleteFile)
        .register_tool(ReadFile);
    PhiAgent::build(builder, AgentConfig::default()).expect("valid agent")
}

fn expected() -> Report {
    Report {
        deleted: vec!["a.txt".into()],
        note: "read, then deleted".into(),
    }
}

/// The model's second turn alone, for the agent that resumes.
fn second_turn() -> ScriptedLlm {
    ScriptedLlm::new([LlmResponse::tool_calls(vec![ToolCall::new(
        "f1",
        "final_answer",
        json!({"deleted": ["a.txt"], "note": "read, then deleted"}),
    )])])
}

#[tokio::test]
async fn a_typed_run_pauses_goes_to_json_and_resumes_into_the_typed_answer_in_a_new_agent() {
    let first = agent(script());
    let outcome = first
        .prompt("Clean up a.txt")
        .typed::<Report>()
        .pausing()
        .await
        .expect("the run starts");
    let TypedOutcome::Paused(paused) = outcome else {
        panic!("the run must pause on delete_file");
    };
    assert_eq!(paused.answer_tool(), Some("final_answer"));
    let stored = serde_json::to_string(&paused).expect("serializes");
    assert!(
        stored.contains("\"answer\""),
        "the typed state is written down: {stored}"
    );
    drop(first);

    let mut paused: PausedRun = serde_json::from_str(&stored).expect("deserializes");
    paused.approve("d1").expect("pending");
    let llm = second_turn();
    let done = agent(llm.clone())
        .resume(paused)
        .typed::<Report>()
        .await
        .expect("the run resumes")
        .done()
        .expect("the run answers");
    assert_eq!(done.value, expected());
    assert_eq!(done.run.turns, 2);
    let names: Vec<&str> = done
        .run
        .tool_calls
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["read_file", "delete_file", "final_answer"]);
    assert_eq!(
        done.run.tool_calls[1].result[0].as_text(),
        Some("deleted a.txt")
    );
    let request = &llm.requests()[0];
    assert!(
        request.tools.iter().any(|tool| tool.name == "final_answer"),
        "the resumed run offers the answer tool again"
    );
}

#[tokio::test]
async fn a_typed_streamed_run_pauses_and_its_resumed_stream_finishes_with_the_answer() {
    let first = agent(script());
    let mut events = first
        .prompt("Clean up a.txt")
        .typed::<Report>()
        .pausing()
        .stream();
    let (mut requested, mut paused) = (Vec::new(), None);
    while let Some(event) = events.next().await {
        match event.expect("the stream reads") {
            StreamEvent::ApprovalRequested { call, .. } => requested.push(call.id),
            StreamEvent::Finished(outcome) => match *outcome {
                TypedOutcome::Paused(run) => paused = Some(run),
                _ => panic!("the run must pause, not finish"),
            },
            _ => {}
        }
    }
    assert_eq!(requested, ["d1"]);
    let stored = serde_json::to_string(&paused.expect("the stream ends paused")).unwrap();

    let mut paused: PausedRun = serde_json::from_str(&stored).unwrap();
    paused.deny("d1", "keep it").unwrap();
    let mut events = agent(second_turn())
        .resume(paused)
        .typed::<Report>()
        .stream();
    let mut finished = None;
    while let Some(event) = events.next().await {
        if let StreamEvent::Finished(outcome) = event.expect("the stream reads") {
            finished = outcome.done();
        }
    }
    let output = finished.expect("the resumed stream finishes");
    assert_eq!(
        output.value,
        expected(),
        "the last event holds the typed answer"
    );
    let report: Report = serde_json::from_str(&output.run.text).expect("the text is the answer");
    assert_eq!(report, expected());
    assert!(
        output.run.tool_calls[1].is_error,
        "the denied call reads as an error"
    );
}

#[tokio::test]
async fn typed_and_plain_paused_runs_resume_only_as_what_they_are() {
    let RunOutcome::Paused(mut plain) = agent(script()).start("x").await.unwrap() else {
        panic!("pauses");
    };
    plain.approve("d1").unwrap();
    let error = agent(second_turn())
        .resume(plain)
        .typed::<Report>()
        .await
        .expect_err("a plain paused run is no typed one");
    assert!(matches!(error, AgentError::Resume { .. }), "{error}");

    let TypedOutcome::Paused(mut typed) = agent(script())
        .prompt("x")
        .typed::<Report>()
        .pausing()
        .await
        .unwrap()
    else {
        panic!("pauses");
    };
    typed.approve("d1").unwrap();
    let error = agent(second_turn())
        .resume(typed.clone())
        .await
        .expect_err("a typed paused run resumes typed");
    assert!(error.to_string().contains(".typed::<T>()"), "{error}");
    let renamed = AnswerOptions::default().with_tool_name("report");
    let error = agent(second_turn())
        .resume(typed)
        .typed::<Report>()
        .options(renamed)
        .await
        .expect_err("another answer tool");
    assert!(error.to_string().contains("final_answer"), "{error}");
}

#[tokio::test]
async fn a_typed_stream_needs_no_options() {
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![ToolCall::new(
        "f1",
        "final_answer",
        json!({"deleted": [], "note": "nothing to do"}),
    )])]);
    let mut session = agent(llm).session();
    let mut events = session
        .prompt("Anything to delete?")
        .typed::<Report>()
        .stream();
    let mut last = None;
    while let Some(event) = events.next().await {
        if let StreamEvent::Finished(output) = event.unwrap() {
            last = Some(*output);
        }
    }
    drop(events);
    let last = last.expect("the stream finishes");
    assert_eq!(last.run.text, r#"{"deleted":[],"note":"nothing to do"}"#);
    assert_eq!(last.value.note, "nothing to do");
    assert_eq!(
        session.history().len(),
        3,
        "input, the answer call, its result"
    );
}
