//! The run request, in each of its 16 shapes: plain or typed, awaited or streamed, asking the
//! approver (inline) or pausing, fresh or resuming a paused run. Every test runs the same model:
//! turn 1 reads `a.txt` and deletes it, turn 2 deletes `b.txt`, turn 3 answers; both deletes need
//! approval. A resumed run starts from turn 1 paused on the first delete and approved by a person
//! (its state stored as JSON and read back); "inline + resumed" is such a run resumed without
//! `.pausing()`, whose second delete then goes to the approver.

use std::sync::{Arc, Mutex};

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentSession, Approval, ApprovalRequest, PausedRun, PhiAgent, RunOutcome,
    RunOutput, RunStream, StreamEvent, ToolCallRecord, TypedOutcome, TypedOutput,
    base_agent_builder, phi_tool,
};
use serde_json::json;

/// Read a file.
#[phi_tool(read_only)]
async fn read_file(path: String) -> String {
    format!("contents of {path}")
}

/// Delete a file.
#[phi_tool(needs_approval)]
async fn delete_file(path: String) -> String {
    format!("deleted {path}")
}

#[derive(serde::Deserialize, schemars::JsonSchema, Debug, PartialEq)]
struct Report {
    deleted: Vec<String>,
}

const ANSWER: &str = "Deleted a.txt and b.txt.";

fn report() -> Report {
    Report {
        deleted: vec!["a.txt".into(), "b.txt".into()],
    }
}

/// The model's three turns; the last answers as text (plain) or with the final answer (typed).
fn script(typed: bool) -> ScriptedLlm {
    let answer = if typed {
        LlmResponse::tool_calls(vec![ToolCall::new(
            "f1",
            "final_answer",
            json!({"deleted": ["a.txt", "b.txt"]}),
        )])
    } else {
        LlmResponse::text(ANSWER)
    };
    ScriptedLlm::new([
        LlmResponse::tool_calls(vec![
            ToolCall::new("r1", "read_file", json!({"path": "a.txt"})),
            ToolCall::new("d1", "delete_file", json!({"path": "a.txt"})),
        ]),
        LlmResponse::tool_calls(vec![ToolCall::new(
            "d2",
            "delete_file",
            json!({"path": "b.txt"}),
        )]),
        answer,
    ])
    .with_pieces(3)
}

/// An agent whose approver approves every call and notes its id.
fn agent(typed: bool) -> (PhiAgent, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let noted = asked.clone();
    let builder = base_agent_builder(script(typed))
        .register_tool(ReadFile)
        .register_tool(DeleteFile)
        .approver(move |request: ApprovalRequest| {
            noted.lock().unwrap().push(request.call_id);
            async { Approval::Approve }
        });
    let agent = PhiAgent::build(builder, AgentConfig::default()).expect("valid agent");
    (agent, asked)
}

fn asked(approver: &Mutex<Vec<String>>) -> Vec<String> {
    approver.lock().unwrap().clone()
}

/// The state a person stored, decided and read back.
fn approved(paused: PausedRun, id: &str) -> PausedRun {
    let stored = serde_json::to_string(&paused).expect("serializes");
    let mut paused: PausedRun = serde_json::from_str(&stored).expect("deserializes");
    paused.approve(id).expect("pending");
    paused
}

fn pending_ids(paused: &PausedRun) -> Vec<&str> {
    paused.pending().iter().map(|call| call.id()).collect()
}

/// Turn 1 paused on `d1`, approved by a person (a plain run).
async fn paused_plain(agent: &PhiAgent) -> PausedRun {
    let outcome = agent.prompt("Clean up").pausing().await.expect("runs");
    approved(outcome.paused().expect("pauses on d1"), "d1")
}

/// Turn 1 paused on `d1`, approved by a person (a typed run).
async fn paused_typed(agent: &PhiAgent) -> PausedRun {
    let outcome = agent
        .prompt("Clean up")
        .typed::<Report>()
        .pausing()
        .await
        .expect("runs");
    let paused = outcome.paused().expect("pauses on d1");
    assert_eq!(paused.answer_tool(), Some("final_answer"));
    approved(paused, "d1")
}

/// The events of a stream before its last, and the output its last event holds.
async fn drain<O: std::fmt::Debug>(mut stream: RunStream<'_, O>) -> (Vec<StreamEvent<O>>, O) {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        match event.expect("the run succeeds") {
            StreamEvent::Finished(output) => {
                assert!(stream.next().await.is_none(), "nothing follows the end");
                return (events, *output);
            }
            event => events.push(event),
        }
    }
    panic!("the stream ended without its output: {events:?}")
}

/// The calls that started, in order.
fn started<O>(events: &[StreamEvent<O>]) -> Vec<String> {
    let ids = events.iter().filter_map(|event| match event {
        StreamEvent::ToolStarted { call, .. } => Some(call.id.clone()),
        _ => None,
    });
    ids.collect()
}

/// The calls put to a person, in order.
fn requested<O>(events: &[StreamEvent<O>]) -> Vec<String> {
    let ids = events.iter().filter_map(|event| match event {
        StreamEvent::ApprovalRequested { call, .. } => Some(call.id.clone()),
        _ => None,
    });
    ids.collect()
}

/// The text the model wrote in the stream.
fn text<O>(events: &[StreamEvent<O>]) -> String {
    let pieces = events.iter().filter_map(|event| match event {
        StreamEvent::TextDelta { text, .. } => Some(text.as_str()),
        _ => None,
    });
    pieces.collect()
}

/// A whole run's records: the read, both deletes with their decisions and results, and (typed)
/// the accepted answer.
fn check_records(records: &[ToolCallRecord], typed: bool) {
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    let expected: &[&str] = if typed {
        &["r1", "d1", "d2", "f1"]
    } else {
        &["r1", "d1", "d2"]
    };
    assert_eq!(ids, expected);
    assert_eq!(records[1].result[0].as_text(), Some("deleted a.txt"));
    assert_eq!(records[2].result[0].as_text(), Some("deleted b.txt"));
    assert_eq!(records[1].approval, Some(Approval::Approve));
    assert_eq!(records[2].approval, Some(Approval::Approve));
    assert!(records[0].approval.is_none(), "the read needs no approval");
}

fn check_plain(output: &RunOutput) {
    assert_eq!(output.text, ANSWER);
    assert_eq!(output.turns, 3);
    check_records(&output.tool_calls, false);
}

fn check_typed(output: &TypedOutput<Report>) {
    assert_eq!(output.value, report());
    assert_eq!(output.run.text, r#"{"deleted":["a.txt","b.txt"]}"#);
    assert_eq!(output.run.turns, 3);
    check_records(&output.run.tool_calls, true);
}

/// The session holds the run's conversation, under the paused run's id when it resumed one.
fn check_session(session: &AgentSession, run: &RunOutput, id: &str) {
    assert_eq!(session.history(), run.messages.as_slice());
    assert_eq!(session.id(), id);
}

// Plain, awaited.

#[tokio::test]
async fn plain_awaited_inline_fresh() {
    let (agent, approver) = agent(false);
    let mut session = agent.session();
    let output: RunOutput = session.prompt("Clean up").await.unwrap();
    check_plain(&output);
    assert_eq!(asked(&approver), ["d1", "d2"]);
    let id = session.id().to_string();
    check_session(&session, &output, &id);
}

#[tokio::test]
async fn plain_awaited_inline_resumed() {
    let (agent, approver) = agent(false);
    let paused = paused_plain(&agent).await;
    let output: RunOutput = agent.prompt(paused).await.unwrap();
    check_plain(&output);
    assert_eq!(asked(&approver), ["d2"], "d1 was decided by a person");
}

#[tokio::test]
async fn plain_awaited_pausing_fresh() {
    let (agent, approver) = agent(false);
    let mut session = agent.session();
    let outcome: RunOutcome = session.prompt("Clean up").pausing().await.unwrap();
    let RunOutcome::Paused(paused) = outcome else {
        panic!("the run pauses on d1");
    };
    assert_eq!(pending_ids(&paused), ["d1"]);
    assert_eq!(paused.session_id(), session.id());
    assert!(session.history().is_empty(), "a paused run commits nothing");
    assert!(asked(&approver).is_empty(), "a pausing run asks no one");
}

#[tokio::test]
async fn plain_awaited_pausing_resumed() {
    let (agent, approver) = agent(false);
    let paused = paused_plain(&agent).await;
    let again = agent
        .resume(paused)
        .await
        .unwrap()
        .paused()
        .expect("d2 pauses");
    assert_eq!(pending_ids(&again), ["d2"]);
    let output = agent
        .resume(approved(again, "d2"))
        .await
        .unwrap()
        .done()
        .expect("answers");
    check_plain(&output);
    assert!(asked(&approver).is_empty(), "a pausing run asks no one");
}

// Plain, streamed.

#[tokio::test]
async fn plain_streamed_inline_fresh() {
    let (agent, approver) = agent(false);
    let (events, output): (_, RunOutput) = drain(agent.prompt("Clean up").stream()).await;
    check_plain(&output);
    assert_eq!(text(&events), ANSWER);
    assert_eq!(started(&events), ["r1", "d1", "d2"]);
    assert_eq!(requested(&events), ["d1", "d2"]);
    assert_eq!(asked(&approver), ["d1", "d2"]);
}

#[tokio::test]
async fn plain_streamed_inline_resumed() {
    let (agent, approver) = agent(false);
    let paused = paused_plain(&agent).await;
    let id = paused.session_id().to_string();
    let mut session = agent.session();
    let (events, output) = drain(session.prompt(paused).stream()).await;
    check_plain(&output);
    assert_eq!(started(&events), ["d1", "d2"], "r1 ran before the pause");
    assert_eq!(requested(&events), ["d2"]);
    assert_eq!(asked(&approver), ["d2"]);
    check_session(&session, &output, &id);
}

#[tokio::test]
async fn plain_streamed_pausing_fresh() {
    let (agent, approver) = agent(false);
    let (events, outcome): (_, RunOutcome) =
        drain(agent.prompt("Clean up").pausing().stream()).await;
    let paused = outcome.paused().expect("the run pauses on d1");
    assert_eq!(pending_ids(&paused), ["d1"]);
    assert_eq!(started(&events), ["r1"]);
    assert_eq!(requested(&events), ["d1"]);
    assert!(asked(&approver).is_empty());
}

#[tokio::test]
async fn plain_streamed_pausing_resumed() {
    let (agent, approver) = agent(false);
    let paused = paused_plain(&agent).await;
    let mut session = agent.session();
    let (events, outcome) = drain(session.prompt(paused).pausing().stream()).await;
    let again = outcome.paused().expect("d2 pauses");
    assert_eq!(started(&events), ["d1"]);
    assert_eq!(requested(&events), ["d2"]);
    assert!(
        session.history().is_empty(),
        "paused again: nothing committed"
    );
    let id = again.session_id().to_string();
    let (events, outcome) = drain(session.prompt(approved(again, "d2")).pausing().stream()).await;
    let output = outcome.done().expect("answers");
    check_plain(&output);
    assert_eq!(started(&events), ["d2"]);
    assert_eq!(text(&events), ANSWER);
    assert!(asked(&approver).is_empty());
    check_session(&session, &output, &id);
}

// Typed, awaited.

#[tokio::test]
async fn typed_awaited_inline_fresh() {
    let (agent, approver) = agent(true);
    let mut session = agent.session();
    let output: TypedOutput<Report> = session.prompt("Clean up").typed().await.unwrap();
    check_typed(&output);
    assert_eq!(asked(&approver), ["d1", "d2"]);
    let id = session.id().to_string();
    check_session(&session, &output.run, &id);
}

#[tokio::test]
async fn typed_awaited_inline_resumed() {
    let (agent, approver) = agent(true);
    let paused = paused_typed(&agent).await;
    let output = agent.prompt(paused).typed::<Report>().await.unwrap();
    check_typed(&output);
    assert_eq!(asked(&approver), ["d2"]);
}

#[tokio::test]
async fn typed_awaited_pausing_fresh() {
    let (agent, approver) = agent(true);
    let outcome: TypedOutcome<Report> = agent.prompt("Clean up").typed().pausing().await.unwrap();
    let TypedOutcome::Paused(paused) = outcome else {
        panic!("the run pauses on d1");
    };
    assert_eq!(pending_ids(&paused), ["d1"]);
    assert_eq!(paused.answer_tool(), Some("final_answer"));
    assert!(asked(&approver).is_empty());
}

#[tokio::test]
async fn typed_awaited_pausing_resumed() {
    let (agent, approver) = agent(true);
    let paused = paused_typed(&agent).await;
    let again = agent
        .resume(paused)
        .typed::<Report>()
        .await
        .unwrap()
        .paused()
        .expect("d2 pauses");
    assert_eq!(pending_ids(&again), ["d2"]);
    assert_eq!(again.answer_tool(), Some("final_answer"));
    let output = agent
        .resume(approved(again, "d2"))
        .typed::<Report>()
        .await
        .unwrap()
        .done()
        .expect("answers");
    check_typed(&output);
    assert!(asked(&approver).is_empty());
}

// Typed, streamed: the last event holds the decoded answer.

#[tokio::test]
async fn typed_streamed_inline_fresh() {
    let (agent, approver) = agent(true);
    let (events, output): (_, TypedOutput<Report>) =
        drain(agent.prompt("Clean up").typed().stream()).await;
    check_typed(&output);
    assert_eq!(
        started(&events),
        ["r1", "d1", "d2"],
        "the answer never runs"
    );
    assert_eq!(requested(&events), ["d1", "d2"]);
    assert_eq!(asked(&approver), ["d1", "d2"]);
}

#[tokio::test]
async fn typed_streamed_inline_resumed() {
    let (agent, approver) = agent(true);
    let paused = paused_typed(&agent).await;
    let id = paused.session_id().to_string();
    let mut session = agent.session();
    let (events, output) = drain(session.prompt(paused).typed::<Report>().stream()).await;
    check_typed(&output);
    assert_eq!(started(&events), ["d1", "d2"]);
    assert_eq!(requested(&events), ["d2"]);
    assert_eq!(asked(&approver), ["d2"]);
    check_session(&session, &output.run, &id);
}

#[tokio::test]
async fn typed_streamed_pausing_fresh() {
    let (agent, approver) = agent(true);
    let mut session = agent.session();
    let (events, outcome): (_, TypedOutcome<Report>) =
        drain(session.prompt("Clean up").typed().pausing().stream()).await;
    let paused = outcome.paused().expect("the run pauses on d1");
    assert_eq!(pending_ids(&paused), ["d1"]);
    assert_eq!(paused.answer_tool(), Some("final_answer"));
    assert_eq!(started(&events), ["r1"]);
    assert_eq!(requested(&events), ["d1"]);
    assert!(session.history().is_empty());
    assert!(asked(&approver).is_empty());
}

/// The combination no method had before the request: a typed, streamed, pausing resume.
#[tokio::test]
async fn typed_streamed_pausing_resumed() {
    let (agent, approver) = agent(true);
    let paused = paused_typed(&agent).await;
    let (events, outcome) = drain(agent.resume(paused).typed::<Report>().stream()).await;
    let again = outcome.paused().expect("d2 pauses");
    assert_eq!(started(&events), ["d1"]);
    assert_eq!(requested(&events), ["d2"]);
    let resumed = agent.resume(approved(again, "d2")).typed::<Report>();
    let (events, outcome) = drain(resumed.stream()).await;
    let output = outcome.done().expect("answers");
    check_typed(&output);
    assert_eq!(started(&events), ["d2"]);
    assert!(asked(&approver).is_empty());
}
