//! Streamed runs (`run_stream`) on the scripted model, on tokio's paused clock: the events a run
//! yields and their order, deltas that add up to the reply, approvals, back-pressure, and
//! cancellation when the stream is dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse, ScriptedLlm, ToolCall, Usage};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Approval, ApprovalRequest, Content, PhiAgent, RunOutcome,
    RunOutput, StreamEvent, Tool, ToolContext, base_agent_builder,
};
use serde_json::{Value, json};

/// Echoes its arguments back as text.
struct Echo;

#[async_trait]
impl Tool for Echo {
    fn name(&self) -> &'static str {
        "echo"
    }
    fn description(&self) -> &'static str {
        "Echo the arguments"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"say": {"type": "string"}}, "required": ["say"]})
    }
    async fn call(&self, args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(
            args["say"].as_str().unwrap_or("").to_string(),
        )])
    }
}

/// Sleeps an hour (virtual), noting that it started and whether it saw its cancellation.
struct Slow {
    started: Arc<AtomicBool>,
    cancelled: Arc<AtomicBool>,
}

#[async_trait]
impl Tool for Slow {
    fn name(&self) -> &'static str {
        "slow"
    }
    fn description(&self) -> &'static str {
        "Take an hour"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        self.started.store(true, Ordering::SeqCst);
        let token = ctx.cancellation().clone();
        let cancelled = self.cancelled.clone();
        // Watches the token from a task of its own: the tool's future is dropped on cancel.
        tokio::spawn(async move {
            token.cancelled().await;
            cancelled.store(true, Ordering::SeqCst);
        });
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok(vec![Content::text("woke up")])
    }
}

fn say(id: &str, text: &str) -> ToolCall {
    ToolCall::new(id, "echo", json!({ "say": text }))
}

fn usage(input: u64, output: u64) -> Usage {
    Usage::new(input, output)
}

fn two_turns() -> Vec<LlmResponse> {
    let mut first = LlmResponse::tool_calls(vec![say("c1", "héllo, wörld"), say("c2", "{\"x\"}")])
        .with_usage(usage(10, 5));
    first.text = "Let me check.".into();
    vec![
        first,
        LlmResponse::text("All done: héllo and {\"x\"}.").with_usage(usage(20, 7)),
    ]
}

async fn collect(
    mut events: impl futures_util::Stream<Item = AgentResult<StreamEvent>> + Unpin,
) -> (Vec<StreamEvent>, AgentResult<RunOutput>) {
    let mut seen = Vec::new();
    while let Some(event) = events.next().await {
        match event {
            Ok(StreamEvent::Finished(output)) => {
                assert!(events.next().await.is_none(), "nothing follows Finished");
                return (seen, Ok(*output));
            }
            Ok(event) => seen.push(event),
            Err(error) => {
                assert!(events.next().await.is_none(), "nothing follows an error");
                return (seen, Err(error));
            }
        }
    }
    panic!("the stream ended without Finished or an error");
}

/// Per turn: the model's text and calls (per call: started, its deltas, ready), then the tools,
/// then turn finished. A call runs only once ready; no piece of a call follows its ready.
fn check_order<O: std::fmt::Debug>(events: &[StreamEvent<O>]) {
    check_order_of(events, false)
}

/// As [`check_order`]; with `early`, a call that is ready may start before the model's reply
/// is complete.
fn check_order_of<O: std::fmt::Debug>(events: &[StreamEvent<O>], early: bool) {
    let mut turn = 1;
    let mut tools_began = false;
    let mut started_calls = Vec::new();
    let mut ready: Vec<ToolCall> = Vec::new();
    // Calls put to a person this turn, and those decided.
    let mut requested: Vec<&str> = Vec::new();
    let mut resolved: Vec<&str> = Vec::new();
    for event in events {
        match event {
            StreamEvent::TextDelta { turn: t, .. }
            | StreamEvent::ToolCallStarted { turn: t, .. }
            | StreamEvent::ToolArgumentsDelta { turn: t, .. }
            | StreamEvent::ToolCallReady { turn: t, .. } => {
                assert_eq!(*t, turn, "{event:?}");
                assert!(
                    early || !tools_began,
                    "the model writes before tools run: {event:?}"
                );
                match event {
                    StreamEvent::ToolCallStarted { index, .. } => started_calls.push(*index),
                    StreamEvent::ToolArgumentsDelta { index, id, .. } => {
                        assert!(
                            started_calls.contains(index),
                            "deltas of a call after its start"
                        );
                        assert!(
                            !ready.iter().any(|call| &call.id == id),
                            "no delta after its call is ready: {event:?}"
                        );
                    }
                    StreamEvent::ToolCallReady { call, .. } => ready.push(call.clone()),
                    _ => {}
                }
            }
            StreamEvent::ApprovalRequested { turn: t, call }
            | StreamEvent::ApprovalResolved { turn: t, call, .. }
            | StreamEvent::ToolStarted { turn: t, call }
            | StreamEvent::ToolFinished { turn: t, call, .. } => {
                assert_eq!(*t, turn);
                assert!(
                    ready.contains(call),
                    "a call is ready before it runs: {event:?}"
                );
                match event {
                    StreamEvent::ApprovalRequested { .. } => requested.push(&call.id),
                    StreamEvent::ApprovalResolved { .. } => {
                        assert!(
                            requested.contains(&call.id.as_str()),
                            "a call is decided after it is put to a person: {event:?}"
                        );
                        resolved.push(&call.id);
                    }
                    StreamEvent::ToolStarted { .. } => assert!(
                        !requested.contains(&call.id.as_str())
                            || resolved.contains(&call.id.as_str()),
                        "a call that awaits approval starts once decided: {event:?}"
                    ),
                    _ => {}
                }
                tools_began = true;
            }
            StreamEvent::ToolsFound { turn: t, .. } => assert_eq!(*t, turn, "{event:?}"),
            StreamEvent::ToolsActivated { .. } => {}
            StreamEvent::TurnFinished { turn: t, .. } => {
                assert_eq!(*t, turn);
                turn += 1;
                tools_began = false;
                started_calls.clear();
                ready.clear();
                requested.clear();
                resolved.clear();
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[tokio::test(start_paused = true)]
async fn deltas_add_up_to_the_text_and_arguments_the_plain_run_sees() {
    for piece in [1, 3, usize::MAX] {
        let plain = PhiAgent::build(
            base_agent_builder(ScriptedLlm::new(two_turns())).register_tool(Echo),
            AgentConfig::default(),
        )
        .unwrap()
        .run("go")
        .await
        .unwrap();
        let llm = ScriptedLlm::new(two_turns()).with_pieces(piece);
        let agent = PhiAgent::build(
            base_agent_builder(llm).register_tool(Echo),
            AgentConfig::default(),
        )
        .unwrap();
        let (events, output) = collect(agent.run_stream("go")).await;
        let output = output.unwrap();
        assert_eq!(output, plain.clone().with_durations_of(&output));
        check_order(&events);

        let mut texts = [String::new(), String::new()];
        let mut arguments = vec![String::new(); 2];
        let mut ready = Vec::new();
        let mut finished = Vec::new();
        let mut turns = Vec::new();
        for event in &events {
            match event {
                StreamEvent::TextDelta { turn, text } => {
                    if piece != usize::MAX {
                        assert!(text.chars().count() <= piece);
                    }
                    texts[turn - 1].push_str(text);
                }
                StreamEvent::ToolArgumentsDelta {
                    index,
                    id,
                    fragment,
                    ..
                } => {
                    assert_eq!(id, &format!("c{}", index + 1));
                    arguments[*index].push_str(fragment);
                }
                StreamEvent::ToolCallReady { call, .. } => ready.push(call.clone()),
                StreamEvent::ToolFinished { call, result, .. } => {
                    assert!(!result.is_error);
                    finished.push((call.id.clone(), result.content[0].to_model_text()));
                }
                StreamEvent::TurnFinished { turn, usage } => turns.push((*turn, *usage)),
                _ => {}
            }
        }
        assert_eq!(texts[0], "Let me check.");
        assert_eq!(texts[1], output.text);
        for (json, call) in arguments.iter().zip(&ready) {
            assert_eq!(
                &serde_json::from_str::<Value>(json).unwrap(),
                &call.arguments
            );
        }
        assert_eq!(ready, vec![say("c1", "héllo, wörld"), say("c2", "{\"x\"}")]);
        assert_eq!(
            finished,
            vec![
                ("c1".to_string(), "héllo, wörld".to_string()),
                ("c2".to_string(), "{\"x\"}".to_string())
            ]
        );
        assert_eq!(turns, vec![(1, usage(10, 5)), (2, usage(20, 7))]);
    }
}

/// Plain and streamed outputs agree but for the tools' measured durations.
trait SameBut {
    fn with_durations_of(self, other: &RunOutput) -> RunOutput;
}

impl SameBut for RunOutput {
    fn with_durations_of(mut self, other: &RunOutput) -> RunOutput {
        for (mine, theirs) in self.tool_calls.iter_mut().zip(&other.tool_calls) {
            mine.duration = theirs.duration;
        }
        self
    }
}

/// A model that cannot stream: only `complete`, so it streams through the trait's default.
struct Plain;

#[async_trait]
impl LlmClient for Plain {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        Ok(if request.messages.len() == 1 {
            LlmResponse::tool_calls(vec![say("p1", "hi")])
        } else {
            LlmResponse::text("plain answer")
        })
    }
}

#[tokio::test(start_paused = true)]
async fn a_model_with_only_complete_streams_through_the_default() {
    let agent = PhiAgent::build(
        base_agent_builder(Plain).register_tool(Echo),
        AgentConfig::default(),
    )
    .unwrap();
    let (events, output) = collect(agent.run_stream("hi")).await;
    check_order(&events);
    assert_eq!(output.unwrap().text, "plain answer");
    let texts: Vec<_> = events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["plain answer"], "one piece: the whole text");
    assert!(events.iter().any(|event| matches!(
        event,
        StreamEvent::ToolArgumentsDelta { fragment, .. } if fragment == r#"{"say":"hi"}"#
    )));
}

/// Needs approval for every call.
struct Guarded;

#[async_trait]
impl Tool for Guarded {
    fn name(&self) -> &'static str {
        "guarded"
    }
    fn description(&self) -> &'static str {
        "A call a person approves"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_approval(phi_agent::ToolApproval::Always)
    }
    async fn call(&self, _args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("guarded ran")])
    }
}

#[tokio::test(start_paused = true)]
async fn streamed_runs_ask_the_builders_approver() {
    let asked = Arc::new(AtomicUsize::new(0));
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("g1", "guarded", json!({}))]),
        LlmResponse::text("ok"),
    ]);
    let counter = asked.clone();
    let builder =
        base_agent_builder(llm)
            .register_tool(Guarded)
            .approver(move |_: ApprovalRequest| {
                counter.fetch_add(1, Ordering::SeqCst);
                async { Approval::Approve }
            });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let (events, output) = collect(agent.run_stream("go")).await;
    check_order(&events);
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    let output = output.unwrap();
    assert_eq!(output.tool_calls[0].approval, Some(Approval::Approve));
    let requested = events
        .iter()
        .position(
            |event| matches!(event, StreamEvent::ApprovalRequested { call, .. } if call.id == "g1"),
        )
        .expect("approval requested");
    let started = events
        .iter()
        .position(|event| matches!(event, StreamEvent::ToolStarted { call, .. } if call.id == "g1"))
        .expect("tool started after approval");
    let resolved = events
        .iter()
        .position(|event| {
            matches!(event, StreamEvent::ApprovalResolved { call, approval: Approval::Approve, .. }
                if call.id == "g1")
        })
        .expect("the approver's decision is streamed");
    assert!(requested < resolved && resolved < started);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_stream_cancels_the_running_tool_and_keeps_the_history() {
    let started = Arc::new(AtomicBool::new(false));
    let cancelled = Arc::new(AtomicBool::new(false));
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("s1", "slow", json!({}))]),
        LlmResponse::text("never"),
    ]);
    let builder = base_agent_builder(llm.clone()).register_tool(Slow {
        started: started.clone(),
        cancelled: cancelled.clone(),
    });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let mut session = agent.session();
    {
        let mut events = session.prompt("go").stream();
        loop {
            match events.next().await {
                Some(Ok(StreamEvent::ToolStarted { .. })) => break,
                Some(Ok(_)) => {}
                other => panic!("{other:?}"),
            }
        }
        // The tool runs only while the stream is polled; give it its first poll.
        let pending = tokio::time::timeout(Duration::from_secs(1), events.next()).await;
        assert!(pending.is_err(), "the tool sleeps an hour");
        assert!(started.load(Ordering::SeqCst));
        assert!(!cancelled.load(Ordering::SeqCst));
    }
    tokio::task::yield_now().await;
    assert!(cancelled.load(Ordering::SeqCst), "the tool's token fired");
    assert!(
        session.history().is_empty(),
        "a dropped run leaves the history as it was"
    );
    assert_eq!(llm.requests().len(), 1, "the model was not asked again");
}

/// Counts requests; never answers.
struct Hangs(Arc<AtomicUsize>, Arc<AtomicBool>);

struct Flag(Arc<AtomicBool>);
impl Drop for Flag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[async_trait]
impl LlmClient for Hangs {
    async fn complete(&self, _: &LlmRequest) -> AgentResult<LlmResponse> {
        self.0.fetch_add(1, Ordering::SeqCst);
        let _dropped = Flag(self.1.clone());
        std::future::pending().await
    }
}

#[tokio::test(start_paused = true)]
async fn dropping_the_stream_abandons_the_model_request() {
    let asked = Arc::new(AtomicUsize::new(0));
    let dropped = Arc::new(AtomicBool::new(false));
    let agent = PhiAgent::build(
        base_agent_builder(Hangs(asked.clone(), dropped.clone())),
        AgentConfig::default(),
    )
    .unwrap();
    let mut events = agent.run_stream("hello?");
    assert!(
        tokio::time::timeout(Duration::from_secs(5), events.next())
            .await
            .is_err()
    );
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert!(!dropped.load(Ordering::SeqCst));
    drop(events);
    assert!(
        dropped.load(Ordering::SeqCst),
        "the request's future is dropped with the stream"
    );
}

#[tokio::test(start_paused = true)]
async fn a_slow_consumer_holds_the_run_back() {
    // One long text in one-character pieces: far more deltas than the buffer holds.
    let text = "x".repeat(1000);
    let llm = ScriptedLlm::new([LlmResponse::text(text.clone())]).with_pieces(1);
    let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default()).unwrap();
    let mut events = agent.run_stream("talk");
    let first = events.next().await.unwrap().unwrap();
    assert_eq!(
        first,
        StreamEvent::TextDelta {
            turn: 1,
            text: "x".into()
        }
    );
    let buffered = format!("{events:?}");
    let held: usize = buffered
        .split("buffered: ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .expect("the Debug form shows the buffer");
    assert!(held <= 64, "{held} events held ahead of the consumer");
    let (rest, output) = collect(events).await;
    assert_eq!(rest.len(), 1000, "999 deltas and the turn's end");
    assert_eq!(output.unwrap().text, text);
}

#[tokio::test(start_paused = true)]
async fn a_failing_model_ends_the_stream_with_its_error() {
    let llm = ScriptedLlm::from_fn(|_| {
        Err(AgentError::InvalidResponse {
            provider: "scripted",
            message: "broken".into(),
        })
    });
    let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default()).unwrap();
    let (events, output) = collect(agent.run_stream("hi")).await;
    assert!(events.is_empty());
    assert!(matches!(output, Err(AgentError::InvalidResponse { .. })));
}

#[tokio::test(start_paused = true)]
async fn a_session_keeps_a_streamed_runs_conversation() {
    let llm = ScriptedLlm::new([LlmResponse::text("one"), LlmResponse::text("two")]);
    let agent = PhiAgent::build(base_agent_builder(llm.clone()), AgentConfig::default()).unwrap();
    let mut session = agent.session();
    let (_, first) = collect(session.prompt("a").stream()).await;
    assert_eq!(first.unwrap().text, "one");
    session.prompt("b").await.unwrap();
    assert_eq!(session.history().len(), 4);
    assert_eq!(llm.requests()[1].messages.len(), 3);
}

/// Deferred: visible once `unlock` has run.
struct Secret(Arc<AtomicBool>);

#[async_trait]
impl Tool for Secret {
    fn name(&self) -> &'static str {
        "secret"
    }
    fn description(&self) -> &'static str {
        "Tell the secret"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn exposure(&self) -> phi_agent::ToolExposure {
        phi_agent::ToolExposure::Deferred
    }
    async fn should_activate(&self, _: &phi_agent::ActivationContext) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("7")])
    }
}

struct Unlock(Arc<AtomicBool>);

#[async_trait]
impl Tool for Unlock {
    fn name(&self) -> &'static str {
        "unlock"
    }
    fn description(&self) -> &'static str {
        "Unlock the secret"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        self.0.store(true, Ordering::SeqCst);
        Ok(vec![Content::text("unlocked")])
    }
}

#[tokio::test(start_paused = true)]
async fn activation_is_streamed_at_the_end_of_its_turn() {
    let unlocked = Arc::new(AtomicBool::new(false));
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("u1", "unlock", json!({}))]),
        LlmResponse::text("unlocked it"),
    ]);
    let builder = base_agent_builder(llm.clone())
        .register_tool(Unlock(unlocked.clone()))
        .register_tool(Secret(unlocked));
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let (events, output) = collect(agent.run_stream("unlock")).await;
    output.unwrap();
    check_order(&events);
    let at = |wanted: fn(&StreamEvent) -> bool| events.iter().position(wanted).unwrap();
    let finished = at(|e| matches!(e, StreamEvent::ToolFinished { turn: 1, .. }));
    let activated =
        at(|e| matches!(e, StreamEvent::ToolsActivated { turn: 1, names } if names == &["secret"]));
    let turn_end = at(|e| matches!(e, StreamEvent::TurnFinished { turn: 1, .. }));
    assert!(finished < activated && activated < turn_end);
    let offered: Vec<_> = llm.requests()[1].tools.iter().map(|t| t.name).collect();
    assert!(offered.contains(&"secret"), "{offered:?}");
}

#[tokio::test(start_paused = true)]
async fn without_an_approver_a_streamed_run_denies_and_says_so() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("g1", "guarded", json!({}))]),
        LlmResponse::text("denied, fine"),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tool(Guarded),
        AgentConfig::default(),
    )
    .unwrap();
    let (events, output) = collect(agent.run_stream("go")).await;
    check_order(&events);
    let output = output.unwrap();
    assert!(output.tool_calls[0].is_error);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::ApprovalRequested { .. }))
    );
    assert!(
        events.iter().any(|e| matches!(
            e,
            StreamEvent::ApprovalResolved {
                approval: Approval::Deny { .. },
                ..
            }
        )),
        "the denial is streamed: {events:?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, StreamEvent::ToolStarted { .. })),
        "the call never ran"
    );
}

/// The events of a run that may pause, and how it ended.
async fn collect_outcome(
    mut events: impl futures_util::Stream<Item = AgentResult<StreamEvent<RunOutcome>>> + Unpin,
) -> (Vec<StreamEvent<RunOutcome>>, AgentResult<RunOutcome>) {
    let mut seen = Vec::new();
    while let Some(event) = events.next().await {
        let end = match event {
            Ok(StreamEvent::Finished(outcome)) => Ok(*outcome),
            Ok(event) => {
                seen.push(event);
                continue;
            }
            Err(error) => Err(error),
        };
        assert!(events.next().await.is_none(), "nothing follows the end");
        return (seen, end);
    }
    panic!("the stream ended without Finished or an error");
}

/// Turn 1: a guarded call and a free one; turn 2: another guarded call; then the answer.
fn guarded_script() -> Vec<LlmResponse> {
    let mut first = LlmResponse::tool_calls(vec![
        ToolCall::new("g1", "guarded", json!({})),
        say("e1", "free"),
    ]);
    first.text = "Two calls.".into();
    vec![
        first,
        LlmResponse::tool_calls(vec![ToolCall::new("g2", "guarded", json!({}))]),
        LlmResponse::text("All approved."),
    ]
}

fn guarded_agent(llm: ScriptedLlm) -> PhiAgent {
    PhiAgent::build(
        base_agent_builder(llm)
            .register_tool(Guarded)
            .register_tool(Echo),
        AgentConfig::default(),
    )
    .unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_run_that_may_pause_streams_to_each_pause_and_on_from_it() {
    // The same run, plain, for comparison.
    let plain_agent = guarded_agent(ScriptedLlm::new(guarded_script()));
    let mut paused = plain_agent.start("go").await.unwrap().paused().unwrap();
    paused.approve("g1").unwrap();
    let mut paused = plain_agent.resume(paused).await.unwrap().paused().unwrap();
    paused.approve("g2").unwrap();
    let plain = plain_agent.resume(paused).await.unwrap().done().unwrap();

    let agent = guarded_agent(ScriptedLlm::new(guarded_script()).with_pieces(3));
    let mut session = agent.session();
    let (events, outcome) = collect_outcome(session.prompt("go").pausing().stream()).await;
    check_order(&events);
    let RunOutcome::Paused(mut paused) = outcome.unwrap() else {
        panic!("paused on g1")
    };
    assert!(
        session.history().is_empty(),
        "a paused run keeps the history"
    );
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Two calls.");
    let requested: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ApprovalRequested { call, .. } => Some(call.id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(requested, ["g1"]);
    assert!(matches!(
        events.last(),
        Some(StreamEvent::ApprovalRequested { .. })
    ));
    let ran: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolFinished { call, .. } => Some(call.id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ran, ["e1"], "the free call ran before the pause");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, StreamEvent::TurnFinished { .. })),
        "the paused turn is not over"
    );
    assert_eq!(paused.pending()[0].id(), "g1");

    paused.approve("g1").unwrap();
    let (events, outcome) = collect_outcome(session.prompt(paused).pausing().stream()).await;
    let RunOutcome::Paused(mut paused) = outcome.unwrap() else {
        panic!("paused on g2")
    };
    // The rest of turn 1 (g1 runs), then turn 2 up to its pause.
    let kinds: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolStarted { turn, call } => Some(format!("start {turn} {}", call.id)),
            StreamEvent::ToolFinished { turn, call, .. } => {
                Some(format!("finish {turn} {}", call.id))
            }
            StreamEvent::TurnFinished { turn, .. } => Some(format!("end {turn}")),
            StreamEvent::ToolCallReady { turn, call } => Some(format!("ready {turn} {}", call.id)),
            StreamEvent::ApprovalRequested { turn, call } => {
                Some(format!("ask {turn} {}", call.id))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "start 1 g1",
            "finish 1 g1",
            "end 1",
            "ready 2 g2",
            "ask 2 g2"
        ]
    );

    paused.approve("g2").unwrap();
    let (events, outcome) = collect_outcome(session.prompt(paused).pausing().stream()).await;
    let RunOutcome::Done(output) = outcome.unwrap() else {
        panic!("done")
    };
    let answer: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { turn: 3, text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(answer, "All approved.");
    assert_eq!(output, plain.clone().with_durations_of(&output));
    assert_eq!(
        session.history(),
        &output.messages[..],
        "the session goes on from it"
    );
}

#[tokio::test(start_paused = true)]
async fn a_run_that_may_pause_and_does_not_ends_with_finished() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![say("e1", "hi")]),
        LlmResponse::text("no pause"),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tool(Echo),
        AgentConfig::default(),
    )
    .unwrap();
    let (events, outcome) = collect_outcome(agent.prompt("go").pausing().stream()).await;
    check_order(&events);
    assert_eq!(outcome.unwrap().done().unwrap().text, "no pause");
}

#[tokio::test(start_paused = true)]
async fn resuming_an_undecided_run_as_a_stream_is_an_error_before_any_event() {
    let agent = guarded_agent(ScriptedLlm::new(guarded_script()));
    let paused = agent.start("go").await.unwrap().paused().unwrap();
    let (events, outcome) = collect_outcome(agent.resume(paused).stream()).await;
    assert!(events.is_empty());
    assert!(outcome.is_err());
}

struct Calendar;

#[async_trait]
impl Tool for Calendar {
    fn name(&self) -> &'static str {
        "create_calendar_event"
    }
    fn description(&self) -> &'static str {
        "Create an event on a calendar"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn exposure(&self) -> phi_agent::ToolExposure {
        phi_agent::ToolExposure::Deferred
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("created")])
    }
}

#[tokio::test(start_paused = true)]
async fn a_search_streams_what_it_found_before_the_tools_are_activated() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "s1",
            phi_agent::search::SEARCH_TOOL_NAME,
            json!({"query": "calendar event"}),
        )]),
        LlmResponse::text("found it"),
    ]);
    let config = AgentConfig::default().with_tool_search(phi_agent::ToolSearch::Local);
    let agent = PhiAgent::build(base_agent_builder(llm).register_tool(Calendar), config).unwrap();
    let (events, output) = collect(agent.run_stream("plan a meeting")).await;
    output.unwrap();
    check_order(&events);
    let at = |wanted: fn(&StreamEvent) -> bool| {
        events
            .iter()
            .position(wanted)
            .unwrap_or_else(|| panic!("missing event in {events:?}"))
    };
    let searched = at(|e| matches!(e, StreamEvent::ToolFinished { turn: 1, .. }));
    let found = at(|e| {
        matches!(e, StreamEvent::ToolsFound { turn: 1, query, names }
            if query == "calendar event" && names == &["create_calendar_event"])
    });
    let turn_end = at(|e| matches!(e, StreamEvent::TurnFinished { turn: 1, .. }));
    assert!(searched < found && found < turn_end, "{events:?}");
}
