//! Approval of tool calls: the inline approver of `run` (and failing closed without one), the
//! paused runs of `start` / `resume` and their stored form, the decisions in the run record,
//! and a property: no stored state, however damaged, makes a resume panic.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentError, AgentEvent, AgentResult, Approval, ApprovalRequest, PausedRun,
    PhiAgent, RunOutcome, ToolContext, base_agent_builder, phi_tool, tools,
};
use proptest::prelude::*;
use serde_json::{Value, json};

/// What the file tools did, shared by every agent a test builds.
#[derive(Default)]
struct Files {
    reads: AtomicUsize,
    deleted: Mutex<Vec<String>>,
}

impl Files {
    fn deletes(&self) -> usize {
        self.deleted.lock().unwrap().len()
    }
}

/// Read a file.
#[phi_tool(read_only)]
async fn read_file(path: String, ctx: &ToolContext) -> AgentResult<String> {
    ctx.state::<Arc<Files>>()?
        .reads
        .fetch_add(1, Ordering::SeqCst);
    Ok(format!("contents of {path}"))
}

/// Delete a file.
#[phi_tool(needs_approval, destructive)]
async fn delete_file(path: String, ctx: &ToolContext) -> AgentResult<String> {
    ctx.state::<Arc<Files>>()?
        .deleted
        .lock()
        .unwrap()
        .push(path.clone());
    Ok(format!("deleted {path}"))
}

fn outside_tmp(args: &RemoveArgs, _ctx: &ToolContext) -> bool {
    !args.path.starts_with("/tmp/")
}

async fn outside_tmp_async(args: &PruneArgs, _ctx: &ToolContext) -> bool {
    tokio::task::yield_now().await;
    !args.path.starts_with("/tmp/")
}

/// Remove a file; only files outside /tmp need approval.
#[phi_tool(needs_approval = outside_tmp)]
fn remove(path: String) -> String {
    format!("removed {path}")
}

/// Prune a file; only files outside /tmp need approval (an async predicate).
#[phi_tool(needs_approval = outside_tmp_async)]
async fn prune(path: String) -> String {
    format!("pruned {path}")
}

fn read_then_delete() -> LlmResponse {
    LlmResponse::tool_calls(vec![
        ToolCall::new("c1", "read_file", json!({"path": "notes.txt"})),
        ToolCall::new("c2", "delete_file", json!({"path": "notes.txt"})),
    ])
}

fn agent(llm: ScriptedLlm, files: &Arc<Files>) -> PhiAgent {
    let builder = base_agent_builder(llm)
        .register_tools(tools![read_file, delete_file, remove, prune])
        .state(files.clone());
    PhiAgent::build(builder, AgentConfig::default()).unwrap()
}

/// The tool results of a request's messages: (call id, text, is_error), in order.
fn tool_results(messages: &[Message]) -> Vec<(String, String, bool)> {
    messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                ..
            } => Some((tool_call_id.clone(), content[0].to_model_text(), *is_error)),
            _ => None,
        })
        .collect()
}

/// Starts the read-then-delete turn and returns the paused run.
async fn paused_run(files: &Arc<Files>) -> PausedRun {
    let llm = ScriptedLlm::new([read_then_delete()]);
    match agent(llm, files).start("tidy up").await.unwrap() {
        RunOutcome::Paused(paused) => paused,
        RunOutcome::Done(output) => panic!("the run should pause, but answered {output:?}"),
    }
}

/// Resumes `paused` on an agent built anew, whose model answers "done"; returns the output and
/// the model.
async fn resume_anew(paused: PausedRun, files: &Arc<Files>) -> (phi_agent::RunOutput, ScriptedLlm) {
    let llm = ScriptedLlm::new([LlmResponse::text("done")]);
    let outcome = agent(llm.clone(), files).resume(paused).await.unwrap();
    (outcome.done().expect("the run should be done"), llm)
}

#[tokio::test]
async fn start_pauses_on_the_call_that_needs_approval_after_running_the_other() {
    let files = Arc::new(Files::default());
    let paused = paused_run(&files).await;
    let pending = paused.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].id(), "c2");
    assert_eq!(pending[0].tool(), "delete_file");
    assert_eq!(pending[0].arguments(), &json!({"path": "notes.txt"}));
    assert_eq!(pending[0].decision(), None);
    assert_eq!(files.reads.load(Ordering::SeqCst), 1, "read_file ran once");
    assert_eq!(files.deletes(), 0);
    assert_eq!(paused.turn(), 1);
}

#[tokio::test]
async fn the_json_round_trips_into_an_agent_built_anew() {
    let files = Arc::new(Files::default());
    let paused = paused_run(&files).await;
    let stored = serde_json::to_string(&paused).unwrap();
    assert!(stored.starts_with(r#"{"version":2,"#), "{stored}");
    let mut restored: PausedRun = serde_json::from_str(&stored).unwrap();
    assert_eq!(restored, paused);

    restored.approve("c2").unwrap();
    let (output, llm) = resume_anew(restored, &files).await;
    assert_eq!(output.text, "done");
    assert_eq!(
        files.reads.load(Ordering::SeqCst),
        1,
        "read_file did not run again"
    );
    assert_eq!(*files.deleted.lock().unwrap(), ["notes.txt"]);
    assert_eq!(
        tool_results(&llm.requests()[0].messages),
        [
            ("c1".into(), "contents of notes.txt".into(), false),
            ("c2".into(), "deleted notes.txt".into(), false),
        ],
        "both results, in call order"
    );
    let approvals: Vec<_> = output
        .tool_calls
        .iter()
        .map(|r| r.approval.clone())
        .collect();
    assert_eq!(approvals, [None, Some(Approval::Approve)]);
    assert_eq!(output.turns, 2);
    assert_eq!(
        output.messages.len(),
        5,
        "input, calls, two results, answer"
    );
}

#[tokio::test]
async fn results_keep_call_order_when_the_pending_call_comes_first() {
    let files = Arc::new(Files::default());
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![
        ToolCall::new("d", "delete_file", json!({"path": "a"})),
        ToolCall::new("r1", "read_file", json!({"path": "b"})),
        ToolCall::new("r2", "read_file", json!({"path": "c"})),
    ])]);
    let mut paused = agent(llm, &files)
        .start("go")
        .await
        .unwrap()
        .paused()
        .unwrap();
    assert_eq!(
        files.reads.load(Ordering::SeqCst),
        2,
        "both reads ran before the pause"
    );
    paused.approve("d").unwrap();
    let (output, llm) = resume_anew(paused, &files).await;
    let order: Vec<String> = tool_results(&llm.requests()[0].messages)
        .into_iter()
        .map(|(id, _, _)| id)
        .collect();
    assert_eq!(order, ["d", "r1", "r2"]);
    let records: Vec<&str> = output.tool_calls.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(records, ["d", "r1", "r2"]);
}

#[tokio::test]
async fn a_denial_is_the_result_the_model_reads() {
    let files = Arc::new(Files::default());
    let mut paused = paused_run(&files).await;
    paused.deny("c2", "keep notes.txt").unwrap();
    let (output, llm) = resume_anew(paused, &files).await;
    assert_eq!(files.deletes(), 0);
    let results = tool_results(&llm.requests()[0].messages);
    assert_eq!(results[0].0, "c1");
    let (id, text, is_error) = &results[1];
    assert_eq!(id, "c2");
    assert!(is_error);
    assert!(
        text.contains("denied") && text.contains("keep notes.txt"),
        "{text}"
    );
    assert_eq!(
        output.tool_calls[1].approval,
        Some(Approval::deny("keep notes.txt"))
    );
}

#[tokio::test]
async fn an_edited_call_runs_with_the_edited_arguments() {
    let files = Arc::new(Files::default());
    let mut paused = paused_run(&files).await;
    paused
        .approve_with("c2", json!({"path": "/tmp/notes.txt"}))
        .unwrap();
    let (output, _) = resume_anew(paused, &files).await;
    assert_eq!(*files.deleted.lock().unwrap(), ["/tmp/notes.txt"]);
    let record = &output.tool_calls[1];
    assert_eq!(
        record.arguments,
        json!({"path": "notes.txt"}),
        "the model's"
    );
    assert_eq!(
        record.approval,
        Some(Approval::approve_with(json!({"path": "/tmp/notes.txt"}))),
        "the edited ones"
    );
}

#[tokio::test]
async fn an_invalid_edit_is_an_argument_error_the_model_reads() {
    let files = Arc::new(Files::default());
    let mut paused = paused_run(&files).await;
    paused.approve_with("c2", json!({"path": 5})).unwrap();
    let (output, llm) = resume_anew(paused, &files).await;
    assert_eq!(files.deletes(), 0);
    let (_, text, is_error) = &tool_results(&llm.requests()[0].messages)[1];
    assert!(is_error);
    assert!(
        text.contains("invalid arguments for tool `delete_file`"),
        "{text}"
    );
    assert!(output.tool_calls[1].is_error);
}

#[tokio::test]
async fn run_without_an_approver_fails_closed() {
    let files = Arc::new(Files::default());
    let llm = ScriptedLlm::new([read_then_delete(), LlmResponse::text("could not")]);
    let output = agent(llm.clone(), &files).run("tidy up").await.unwrap();
    assert_eq!(files.deletes(), 0);
    assert_eq!(files.reads.load(Ordering::SeqCst), 1);
    let (_, text, is_error) = &tool_results(&llm.requests()[1].messages)[1];
    assert!(is_error);
    assert!(text.contains("needs a person's approval"), "{text}");
    assert!(matches!(
        &output.tool_calls[1].approval,
        Some(Approval::Deny { message }) if message.contains("approval")
    ));
}

#[tokio::test]
async fn run_asks_the_approver_and_reports_it_as_events() {
    let files = Arc::new(Files::default());
    let llm = ScriptedLlm::new([read_then_delete(), LlmResponse::text("done")]);
    let asked = Arc::new(Mutex::new(Vec::new()));
    let events = Arc::new(Mutex::new(Vec::new()));
    let builder = base_agent_builder(llm)
        .register_tools(tools![read_file, delete_file])
        .state(files.clone())
        .approver({
            let asked = asked.clone();
            move |request: ApprovalRequest| {
                let asked = asked.clone();
                async move {
                    asked.lock().unwrap().push((
                        request.tool.clone(),
                        request.call_id.clone(),
                        request.arguments.clone(),
                    ));
                    Approval::approve_with(json!({"path": "trash/notes.txt"}))
                }
            }
        })
        .observer({
            let events = events.clone();
            move |event: &AgentEvent<'_>| match event {
                AgentEvent::ApprovalRequested { call, .. } => events
                    .lock()
                    .unwrap()
                    .push(format!("requested {}", call.id)),
                AgentEvent::ApprovalResolved { call, approval, .. } => events.lock().unwrap().push(
                    format!("resolved {} approved={}", call.id, approval.is_approved()),
                ),
                _ => {}
            }
        });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let output = agent.run("tidy up").await.unwrap();
    assert_eq!(
        *asked.lock().unwrap(),
        [(
            "delete_file".to_string(),
            "c2".to_string(),
            json!({"path": "notes.txt"})
        )]
    );
    assert_eq!(*files.deleted.lock().unwrap(), ["trash/notes.txt"]);
    assert_eq!(
        *events.lock().unwrap(),
        ["requested c2", "resolved c2 approved=true"]
    );
    assert_eq!(output.text, "done");
}

#[tokio::test]
async fn start_never_asks_the_approver() {
    let files = Arc::new(Files::default());
    let llm = ScriptedLlm::new([read_then_delete()]);
    let builder = base_agent_builder(llm)
        .register_tools(tools![read_file, delete_file])
        .state(files.clone())
        .approver(|_: ApprovalRequest| async {
            panic!("start must not ask the approver") as Approval
        });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    assert!(agent.start("tidy up").await.unwrap().paused().is_some());
}

#[tokio::test]
async fn the_macro_predicates_decide_per_call() {
    let files = Arc::new(Files::default());
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![
        ToolCall::new("a", "remove", json!({"path": "/tmp/x"})),
        ToolCall::new("b", "remove", json!({"path": "/etc/x"})),
        ToolCall::new("c", "prune", json!({"path": "/tmp/y"})),
        ToolCall::new("d", "prune", json!({"path": "/etc/y"})),
        // Bad arguments: the usual argument error, and no one is asked.
        ToolCall::new("e", "prune", json!({"path": 1})),
    ])]);
    let paused = agent(llm, &files)
        .start("clean")
        .await
        .unwrap()
        .paused()
        .unwrap();
    let pending: Vec<&str> = paused.pending().iter().map(|call| call.id()).collect();
    assert_eq!(pending, ["b", "d"]);
}

#[tokio::test]
async fn sessions_start_and_resume_too() {
    let files = Arc::new(Files::default());
    let llm = ScriptedLlm::new([read_then_delete(), LlmResponse::text("done")]);
    let agent = agent(llm.clone(), &files);
    let mut session = agent.session();
    let mut paused = session
        .prompt("tidy up")
        .pausing()
        .await
        .unwrap()
        .paused()
        .unwrap();
    assert!(
        session.history().is_empty(),
        "a paused run commits nothing yet"
    );
    assert_eq!(paused.session_id(), session.id());
    paused.approve("c2").unwrap();
    let output = session
        .prompt(paused)
        .pausing()
        .await
        .unwrap()
        .done()
        .unwrap();
    assert_eq!(output.text, "done");
    assert_eq!(session.history().len(), 5);
    assert_eq!(files.deletes(), 1);
}

#[tokio::test]
async fn resuming_a_state_that_cannot_be_resumed_is_a_clear_error() {
    let files = Arc::new(Files::default());
    let paused = paused_run(&files).await;
    let resume = |paused: PausedRun| {
        let files = files.clone();
        async move {
            let llm = ScriptedLlm::new([LlmResponse::text("done")]);
            agent(llm, &files).resume(paused).await
        }
    };
    let reason = |result: AgentResult<RunOutcome>| match result {
        Err(AgentError::Resume { reason }) => reason,
        other => panic!("expected a resume error, got {other:?}"),
    };

    let undecided = reason(resume(paused.clone()).await);
    assert!(
        undecided.contains("`c2` (delete_file) are not decided"),
        "{undecided}"
    );

    let mut unknown = paused.clone();
    let error = unknown.approve("c9").unwrap_err().to_string();
    assert!(
        error.contains("no pending call has the id `c9`") && error.contains("`c2`"),
        "{error}"
    );
    let error = unknown.deny("c1", "ran already").unwrap_err().to_string();
    assert!(error.contains("`c1`"), "{error}");

    let mut gone = paused.clone();
    gone.approve("c2").unwrap();
    let without_delete = PhiAgent::build(
        base_agent_builder(ScriptedLlm::new([LlmResponse::text("done")]))
            .register_tools(tools![read_file])
            .state(files.clone()),
        AgentConfig::default(),
    )
    .unwrap();
    let missing = reason(without_delete.resume(gone).await);
    assert!(missing.contains("does not have"), "{missing}");
    assert_eq!(files.deletes(), 0);

    let mut stored = serde_json::to_value(&paused).unwrap();
    stored["version"] = json!(1);
    let error = serde_json::from_value::<PausedRun>(stored)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("format version 1") && error.contains("reads only version 2"),
        "{error}"
    );
}

#[tokio::test]
async fn the_paused_state_holds_no_secret() {
    let files = Arc::new(Files::default());
    let paused = paused_run(&files).await;
    let stored = serde_json::to_string(&paused).unwrap();
    // The agent's system prompt, model client and configuration are not in it; the keys are
    // the documented ones.
    let value: Value = serde_json::from_str(&stored).unwrap();
    let keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "version",
            "id",
            "session_id",
            "run_start",
            "transcript",
            "turn",
            "active_tools",
            "usage",
            "tool_calls",
            "assistant_text",
            "calls"
        ]
    );
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        "[a-z0-9_ ]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{0,10}", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// A valid paused state, decided, as JSON: the starting point of the mutations.
fn valid_state() -> Value {
    static STATE: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    STATE
        .get_or_init(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap();
            let files = Arc::new(Files::default());
            let mut paused = runtime.block_on(paused_run(&files));
            paused.approve("c2").unwrap();
            serde_json::to_value(paused).unwrap()
        })
        .clone()
}

/// How one node of a valid state is damaged.
#[derive(Debug, Clone)]
enum Damage {
    /// Replaced by any JSON (mostly breaks the types: tests deserialization).
    Replace(Value),
    /// Changed within its type, so the state still deserializes and the resume logic is hit:
    /// a number to `seed`, a string to a name or id of the state, a bool flipped, an array
    /// element removed or duplicated, an object key removed.
    Twist(u64),
}

/// Damages the `pick`-th node (in document order, wrapping) of `state`.
fn damage(state: &mut Value, pick: usize, damage: &Damage) {
    fn count(value: &Value) -> usize {
        1 + match value {
            Value::Array(items) => items.iter().map(count).sum(),
            Value::Object(map) => map.values().map(count).sum(),
            _ => 0,
        }
    }
    fn node(value: &mut Value, mut pick: usize) -> Option<&mut Value> {
        if pick == 0 {
            return Some(value);
        }
        pick -= 1;
        let children: Vec<&mut Value> = match value {
            Value::Array(items) => items.iter_mut().collect(),
            Value::Object(map) => map.values_mut().collect(),
            _ => return None,
        };
        for child in children {
            let size = count(child);
            if pick < size {
                return node(child, pick);
            }
            pick -= size;
        }
        None
    }
    let nodes = count(state);
    let Some(target) = node(state, pick % nodes) else {
        return;
    };
    match damage {
        Damage::Replace(value) => *target = value.clone(),
        Damage::Twist(seed) => {
            let seed = *seed;
            let names = [
                "c1",
                "c2",
                "read_file",
                "delete_file",
                "nope",
                "",
                "pending",
                "ran",
            ];
            match target {
                Value::Number(_) => *target = json!(seed),
                Value::String(text) => *text = names[seed as usize % names.len()].to_string(),
                Value::Bool(flag) => *flag = !*flag,
                Value::Array(items) if !items.is_empty() => {
                    let index = seed as usize % items.len();
                    if seed % 2 == 0 {
                        items.remove(index);
                    } else {
                        let copy = items[index].clone();
                        items.insert(index, copy);
                    }
                }
                Value::Object(map) if !map.is_empty() => {
                    let key = map.keys().nth(seed as usize % map.len()).unwrap().clone();
                    map.remove(&key);
                }
                _ => {}
            }
        }
    }
}

/// Deserializes `state` and, when that works, approves what is pending and resumes it on an
/// agent whose model always answers; returns nothing, it must only not panic.
fn resume_whatever(state: Value) {
    let Ok(mut paused) = serde_json::from_value::<PausedRun>(state) else {
        return;
    };
    let ids: Vec<String> = paused
        .pending()
        .iter()
        .map(|call| call.id().to_string())
        .collect();
    for id in ids {
        let _ = paused.approve_with(&id, json!({"path": "x"}));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let files = Arc::new(Files::default());
    let llm = ScriptedLlm::from_fn(|_| Ok(LlmResponse::text("done")));
    let _ = runtime.block_on(agent(llm, &files).resume(paused).into_future());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_never_makes_a_resume_panic(value in json_value()) {
        resume_whatever(value);
    }

    #[test]
    fn mutated_valid_states_never_make_a_resume_panic(
        mutations in prop::collection::vec(
            (
                any::<usize>(),
                prop_oneof![
                    1 => json_value().prop_map(Damage::Replace),
                    3 => any::<u64>().prop_map(Damage::Twist),
                ],
            ),
            1..4,
        ),
    ) {
        let mut state = valid_state();
        for (pick, how) in &mutations {
            damage(&mut state, *pick, how);
        }
        resume_whatever(state);
    }

    #[test]
    fn numbers_at_their_limits_never_make_a_resume_panic(
        field in prop::sample::select(vec!["run_start", "turn", "usage"]),
        number in prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()],
    ) {
        let mut state = valid_state();
        state[field] = if field == "usage" {
            json!({"input_tokens": number, "output_tokens": number})
        } else {
            json!(number)
        };
        resume_whatever(state);
    }
}

/// Answers with 1 KB of text.
#[phi_tool(read_only)]
fn kilobyte(part: u32) -> String {
    format!("{part:04}").repeat(256)
}

/// The size of a paused state after 10 turns of 2 calls with 1 KB results each (then a turn
/// that pauses on one call), and the time to write and read it back: printed for
/// `BENCHMARKS.md`, asserted only loosely.
#[tokio::test]
async fn size_and_speed_of_a_paused_state_after_ten_turns() {
    let files = Arc::new(Files::default());
    let mut script: Vec<LlmResponse> = (0..10)
        .map(|turn| {
            LlmResponse::tool_calls(vec![
                ToolCall::new(format!("t{turn}a"), "kilobyte", json!({"part": 2 * turn})),
                ToolCall::new(
                    format!("t{turn}b"),
                    "kilobyte",
                    json!({"part": 2 * turn + 1}),
                ),
            ])
        })
        .collect();
    script.push(LlmResponse::tool_calls(vec![ToolCall::new(
        "del",
        "delete_file",
        json!({"path": "notes.txt"}),
    )]));
    let builder = base_agent_builder(ScriptedLlm::new(script))
        .register_tools(tools![kilobyte, delete_file])
        .state(files.clone());
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let paused = agent.start("go").await.unwrap().paused().unwrap();
    assert_eq!(paused.turn(), 11);

    let json = serde_json::to_string(&paused).unwrap();
    let rounds = 200;
    let started = std::time::Instant::now();
    for _ in 0..rounds {
        let json = serde_json::to_string(&paused).unwrap();
        let back: PausedRun = serde_json::from_str(&json).unwrap();
        std::hint::black_box(back);
    }
    let each = started.elapsed() / rounds;
    let results = 20 * 1024;
    println!(
        "paused state after 10 turns x 2 calls x 1 KB: {} bytes ({:.2} x the {results} bytes of results); serialize + deserialize: {each:?}",
        json.len(),
        json.len() as f64 / results as f64,
    );
    // Each result is held once (in the transcript; the records are read back from it).
    assert!(json.len() < results * 3 / 2, "{} bytes", json.len());

    // The records of the earlier turns come back whole.
    let mut paused = paused;
    paused.approve("del").unwrap();
    let llm = ScriptedLlm::new([LlmResponse::text("done")]);
    let builder = base_agent_builder(llm)
        .register_tools(tools![kilobyte, delete_file])
        .state(files.clone());
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let output = agent.resume(paused).await.unwrap().done().unwrap();
    assert_eq!(output.tool_calls.len(), 21);
    let first = &output.tool_calls[0];
    assert_eq!((first.id.as_str(), first.turn), ("t0a", 1));
    assert_eq!(first.arguments, json!({"part": 0}));
    assert_eq!(first.result[0].as_text(), Some("0000".repeat(256).as_str()));
    assert_eq!(output.tool_calls[20].approval, Some(Approval::Approve));
    assert_eq!(output.turns, 12);
}

/// Its approval check panics; it counts the calls that ran.
struct BrokenCheck(Arc<AtomicUsize>);

#[async_trait::async_trait]
impl phi_agent::Tool for BrokenCheck {
    fn name(&self) -> &'static str {
        "broken_check"
    }
    fn description(&self) -> &'static str {
        "A tool whose approval check panics"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<phi_agent::Content>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(vec![phi_agent::Content::text("ran")])
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_approval(phi_agent::ToolApproval::when(|_, _| {
            panic!("the check is broken")
        }))
    }
}

#[tokio::test]
async fn a_panicking_check_or_approver_never_lets_a_call_through() {
    let ran = Arc::new(AtomicUsize::new(0));
    let call = || LlmResponse::tool_calls(vec![ToolCall::new("b1", "broken_check", json!({}))]);

    // The check panics: the call needs approval, and without an approver it is denied.
    let llm = ScriptedLlm::new([call(), LlmResponse::text("ok")]);
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tool(BrokenCheck(ran.clone())),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("go").await.unwrap();
    assert!(output.tool_calls[0].is_error);
    assert_eq!(ran.load(Ordering::SeqCst), 0);

    // The approver panics too: denied.
    let llm = ScriptedLlm::new([call(), LlmResponse::text("ok")]);
    let builder = base_agent_builder(llm)
        .register_tool(BrokenCheck(ran.clone()))
        .approver(|_: ApprovalRequest| async { panic!("the approver is broken") as Approval });
    let output = PhiAgent::build(builder, AgentConfig::default())
        .unwrap()
        .run("go")
        .await
        .unwrap();
    assert!(matches!(
        &output.tool_calls[0].approval,
        Some(Approval::Deny { message }) if message.contains("panicked")
    ));
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}
