//! The early start of tool calls (`AgentConfig::early_tool_start`) on the scripted model with a
//! delay per streamed piece, on tokio's paused clock: how much earlier the first call of a
//! multi-call turn starts, and what early start keeps as it was: results in call order and equal
//! to a plain run's, approvals, the limit of calls at once, cancellation, the journal's keys.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use phi_agent::llm::{
    DeltaStream, LlmClient, LlmRequest, LlmResponse, ScriptedLlm, StreamDelta, ToolCall,
};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Approval, ApprovalRequest, Content, JournalExecutor,
    PhiAgent, RunOutput, StreamEvent, Tool, ToolContext, base_agent_builder,
};
use serde_json::{Value, json};
use tokio::time::Instant;

const PIECE: usize = 4;
const PACE: Duration = Duration::from_millis(10);
const WORK: Duration = Duration::from_millis(50);

/// Works for `WORK`, noting when each call started and how many ran at once.
#[derive(Clone, Default)]
struct Stamp {
    starts: Arc<Mutex<Vec<(String, Instant)>>>,
    running: Arc<AtomicUsize>,
    most: Arc<AtomicUsize>,
    cancelled: Arc<AtomicBool>,
    guarded: bool,
}

#[async_trait]
impl Tool for Stamp {
    fn name(&self) -> &'static str {
        if self.guarded { "guarded" } else { "stamp" }
    }
    fn description(&self) -> &'static str {
        "Stamp the time"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"n": {"type": "integer"}, "note": {"type": "string"}}})
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_approval(if self.guarded {
            phi_agent::ToolApproval::Always
        } else {
            phi_agent::ToolApproval::Never
        })
    }
    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        self.starts
            .lock()
            .unwrap()
            .push((args["n"].to_string(), Instant::now()));
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        let token = ctx.cancellation().clone();
        let cancelled = self.cancelled.clone();
        tokio::spawn(async move {
            token.cancelled().await;
            cancelled.store(true, Ordering::SeqCst);
        });
        tokio::time::sleep(WORK).await;
        self.running.fetch_sub(1, Ordering::SeqCst);
        Ok(vec![Content::text(format!("stamped {}", args["n"]))])
    }
}

fn stamp(id: &str, n: u64) -> ToolCall {
    ToolCall::new(
        id,
        "stamp",
        json!({"n": n, "note": "a note long enough for several pieces"}),
    )
}

/// Three calls, then an answer.
fn script() -> Vec<LlmResponse> {
    let mut calls = LlmResponse::tool_calls(vec![stamp("c1", 1), stamp("c2", 2), stamp("c3", 3)]);
    calls.text = "Stamping three times.".into();
    vec![calls, LlmResponse::text("Stamped.")]
}

fn paced(responses: Vec<LlmResponse>) -> ScriptedLlm {
    ScriptedLlm::new(responses)
        .with_pieces(PIECE)
        .with_piece_delay(PACE)
}

fn agent(llm: impl LlmClient + 'static, tool: Stamp, config: AgentConfig) -> PhiAgent {
    PhiAgent::build(base_agent_builder(llm).register_tool(tool), config).unwrap()
}

async fn collect(
    mut events: impl futures_util::Stream<Item = AgentResult<StreamEvent>> + Unpin,
) -> (Vec<StreamEvent>, AgentResult<RunOutput>) {
    let mut seen = Vec::new();
    while let Some(event) = events.next().await {
        match event {
            Ok(StreamEvent::Finished(output)) => return (seen, Ok(*output)),
            Ok(event) => seen.push(event),
            Err(error) => return (seen, Err(error)),
        }
    }
    panic!("no Finished");
}

/// When (after the run began) each call started, by its `n`.
fn starts(tool: &Stamp, began: Instant) -> Vec<(String, Duration)> {
    let mut starts: Vec<_> = tool
        .starts
        .lock()
        .unwrap()
        .iter()
        .map(|(n, at)| (n.clone(), *at - began))
        .collect();
    starts.sort_by_key(|(_, at)| *at);
    starts
}

/// The position in the first reply's stream of the delta that makes call 0 ready, and how many
/// deltas the reply has: with one delta each `PACE` after the first, the times they arrive.
async fn first_reply_shape() -> (usize, usize) {
    let llm = ScriptedLlm::new(script()).with_pieces(PIECE);
    let request = LlmRequest::default();
    let deltas: Vec<StreamDelta> = llm.stream(&request).map(Result::unwrap).collect().await;
    let ready = deltas
        .iter()
        .position(|delta| matches!(delta, StreamDelta::ToolCallReady { index: 0, .. }))
        .unwrap();
    (ready, deltas.len())
}

#[tokio::test(start_paused = true)]
async fn the_first_call_of_a_turn_starts_as_soon_as_it_is_whole() {
    let (ready_at, deltas) = first_reply_shape().await;
    let mut firsts = Vec::new();
    let mut outputs = Vec::new();
    for early in [false, true] {
        let tool = Stamp::default();
        let config = AgentConfig::default().with_early_tool_start(early);
        let agent = agent(paced(script()), tool.clone(), config);
        let began = Instant::now();
        let (events, output) = collect(agent.run_stream("stamp")).await;
        let output = output.unwrap();
        let starts = starts(&tool, began);
        assert_eq!(starts.len(), 3);
        firsts.push(starts[0].1);
        // Once the reply is in, the calls not started yet start together.
        if !early {
            assert!(
                starts.iter().all(|(_, at)| *at == starts[0].1),
                "{starts:?}"
            );
        }
        let last_model_event = events
            .iter()
            .rposition(|e| matches!(e, StreamEvent::ToolCallReady { turn: 1, .. }))
            .unwrap();
        let first_tool = events
            .iter()
            .position(|e| matches!(e, StreamEvent::ToolStarted { .. }))
            .unwrap();
        assert_eq!(
            first_tool < last_model_event,
            early,
            "early: the first tool starts while the model still writes"
        );
        outputs.push((output, began.elapsed()));
    }
    // Without early start the first call waits for the whole reply (its last delta); with it,
    // it starts when the delta that makes it whole arrives.
    assert_eq!(firsts[0], PACE * (deltas as u32 - 1));
    assert_eq!(firsts[1], PACE * ready_at as u32);
    assert!(firsts[1] < firsts[0]);
    eprintln!(
        "first tool start: {:?} plain, {:?} early ({:?} earlier); run: {:?} plain, {:?} early",
        firsts[0],
        firsts[1],
        firsts[0] - firsts[1],
        outputs[0].1,
        outputs[1].1
    );
    let (plain, early) = (&outputs[0].0, &outputs[1].0);
    assert_eq!(early.text, plain.text);
    assert_eq!(
        early.messages, plain.messages,
        "the same results, in call order"
    );
    let ids = |output: &RunOutput| -> Vec<String> {
        output.tool_calls.iter().map(|c| c.id.clone()).collect()
    };
    assert_eq!(ids(early), ["c1", "c2", "c3"]);
    assert_eq!(ids(early), ids(plain));
    assert!(outputs[1].1 < outputs[0].1, "the run ends sooner too");
}

#[tokio::test(start_paused = true)]
async fn early_start_keeps_the_limit_of_calls_at_once() {
    let tool = Stamp::default();
    let config = AgentConfig::default()
        .with_early_tool_start(true)
        .with_max_parallel_tools(1);
    // No pause between pieces: every call is ready at once, so the limit is what holds them.
    let llm = ScriptedLlm::new(script()).with_pieces(PIECE);
    let (_, output) = collect(agent(llm, tool.clone(), config).run_stream("stamp")).await;
    assert_eq!(output.unwrap().tool_calls.len(), 3);
    assert_eq!(tool.most.load(Ordering::SeqCst), 1);
    let starts = starts(&tool, Instant::now() - Duration::from_secs(3600));
    for pair in starts.windows(2) {
        assert!(
            pair[1].1 - pair[0].1 >= WORK,
            "one after the other: {starts:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_call_that_needs_approval_does_not_start_before_the_reply_and_its_decision() {
    let tool = Stamp::default();
    let guarded = Stamp {
        guarded: true,
        starts: tool.starts.clone(),
        ..Stamp::default()
    };
    let mut first = LlmResponse::tool_calls(vec![
        ToolCall::new(
            "g1",
            "guarded",
            json!({"n": 0, "note": "needs a person first"}),
        ),
        stamp("c1", 1),
    ]);
    first.text = "One guarded, one not.".into();
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    let builder = base_agent_builder(paced(vec![first, LlmResponse::text("ok")]))
        .register_tool(tool.clone())
        .register_tool(guarded)
        .approver(move |_: ApprovalRequest| {
            counter.fetch_add(1, Ordering::SeqCst);
            async { Approval::Approve }
        });
    let agent =
        PhiAgent::build(builder, AgentConfig::default().with_early_tool_start(true)).unwrap();
    let (events, output) = collect(agent.run_stream("go")).await;
    let output = output.unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 1, "asked once");
    assert_eq!(output.tool_calls[0].approval, Some(Approval::Approve));
    let position = |wanted: &dyn Fn(&StreamEvent) -> bool| events.iter().position(wanted).unwrap();
    let last_ready = events
        .iter()
        .rposition(|e| matches!(e, StreamEvent::ToolCallReady { turn: 1, .. }))
        .unwrap();
    let free_started =
        position(&|e| matches!(e, StreamEvent::ToolStarted { call, .. } if call.id == "c1"));
    let asked_at = position(&|e| matches!(e, StreamEvent::ApprovalRequested { .. }));
    let guarded_started =
        position(&|e| matches!(e, StreamEvent::ToolStarted { call, .. } if call.id == "g1"));
    assert!(
        last_ready < asked_at && asked_at < guarded_started,
        "{events:?}"
    );
    // The free call is the last one written, so it starts as the reply ends; the guarded one
    // (written first) had to wait for it and for its decision.
    assert!(free_started < guarded_started);
}

#[tokio::test(start_paused = true)]
async fn an_early_call_goes_through_the_journal_under_its_usual_key() {
    let mut entries = Vec::new();
    let mut outputs = Vec::new();
    for early in [false, true] {
        let journal = JournalExecutor::new();
        let builder = base_agent_builder(paced(script()))
            .register_tool(Stamp::default())
            .step_executor(journal.clone());
        let config = AgentConfig::default().with_early_tool_start(early);
        let agent = PhiAgent::build(builder, config).unwrap();
        let (_, output) = collect(agent.run_stream("stamp")).await;
        outputs.push(output.unwrap());
        let mut keys: Vec<String> = journal.entries().into_iter().map(|(key, _)| key).collect();
        keys.sort();
        entries.push((keys, journal));
    }
    assert_eq!(entries[0].0, entries[1].0, "the same keys");
    // Replayed with early start on: no model, no tool runs, the same output.
    let tool = Stamp::default();
    let replay = JournalExecutor::from_entries(entries[1].1.entries());
    let builder = base_agent_builder(ScriptedLlm::new([]))
        .register_tool(tool.clone())
        .step_executor(replay);
    let agent =
        PhiAgent::build(builder, AgentConfig::default().with_early_tool_start(true)).unwrap();
    let (_, again) = collect(agent.run_stream("stamp")).await;
    assert_eq!(again.unwrap(), outputs[1]);
    assert!(tool.starts.lock().unwrap().is_empty(), "replayed, not run");
}

/// Streams the first call whole, then breaks (or, with `lie`, says the reply's call is another).
struct Breaks {
    lie: bool,
}

#[async_trait]
impl LlmClient for Breaks {
    async fn complete(&self, _: &LlmRequest) -> AgentResult<LlmResponse> {
        unreachable!("streamed only")
    }
    fn stream<'a>(&'a self, _: &'a LlmRequest) -> DeltaStream<'a> {
        let call = stamp("c1", 1);
        let mut deltas = vec![
            Ok(StreamDelta::tool_call_started(0, "c1", "stamp")),
            Ok(StreamDelta::tool_arguments(0, call.arguments.to_string())),
            Ok(StreamDelta::tool_call_ready(0, call.clone())),
        ];
        deltas.push(if self.lie {
            Ok(StreamDelta::Done(LlmResponse::tool_calls(vec![stamp(
                "c1", 9,
            )])))
        } else {
            Err(AgentError::Http {
                provider: "test",
                message: "the stream broke off".into(),
            })
        });
        let stream: BoxStream<'a, _> = futures_util::stream::iter(deltas)
            .then(|delta| async move {
                // Long enough for the early call to start, not to finish.
                tokio::time::sleep(WORK / 2).await;
                delta
            })
            .boxed();
        stream
    }
}

#[tokio::test(start_paused = true)]
async fn a_reply_that_fails_after_an_early_start_cancels_the_call_and_ends_the_run() {
    for lie in [false, true] {
        let tool = Stamp::default();
        let config = AgentConfig::default().with_early_tool_start(true);
        let agent = agent(Breaks { lie }, tool.clone(), config);
        let (events, output) = collect(agent.run_stream("stamp")).await;
        assert!(
            events
                .iter()
                .any(|e| matches!(e, StreamEvent::ToolStarted { .. })),
            "the call started early"
        );
        let error = output.unwrap_err();
        match lie {
            false => assert!(matches!(error, AgentError::Http { .. }), "{error}"),
            true => assert!(
                matches!(&error, AgentError::InvalidResponse { message, .. } if message.contains("another call")),
                "{error}"
            ),
        }
        tokio::task::yield_now().await;
        assert!(
            tool.cancelled.load(Ordering::SeqCst),
            "the early call was cancelled"
        );
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, StreamEvent::ToolFinished { .. })),
            "and never finished"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn dropping_the_stream_cancels_a_call_started_early() {
    let tool = Stamp::default();
    let config = AgentConfig::default().with_early_tool_start(true);
    let agent = agent(paced(script()), tool.clone(), config);
    {
        let mut events = agent.run_stream("stamp");
        while let Some(event) = events.next().await {
            if matches!(event.unwrap(), StreamEvent::ToolStarted { .. }) {
                break;
            }
        }
    }
    tokio::task::yield_now().await;
    assert_eq!(
        tool.starts.lock().unwrap().len(),
        1,
        "dropped while the model wrote"
    );
    assert!(tool.cancelled.load(Ordering::SeqCst));
}

#[tokio::test(start_paused = true)]
async fn a_run_that_may_pause_starts_free_calls_early_and_pauses_on_the_others() {
    let tool = Stamp::default();
    let guarded = Stamp {
        guarded: true,
        ..Stamp::default()
    };
    let first = LlmResponse::tool_calls(vec![
        stamp("c1", 1),
        ToolCall::new(
            "g1",
            "guarded",
            json!({"n": 0, "note": "waits for a person"}),
        ),
    ]);
    let builder = base_agent_builder(paced(vec![first, LlmResponse::text("ok")]))
        .register_tool(tool.clone())
        .register_tool(guarded.clone());
    let agent =
        PhiAgent::build(builder, AgentConfig::default().with_early_tool_start(true)).unwrap();
    let mut events = agent.prompt("go").pausing().stream();
    let mut seen = Vec::new();
    let mut paused = None;
    while let Some(event) = events.next().await {
        match event.unwrap() {
            StreamEvent::Finished(outcome) => paused = outcome.paused(),
            event => seen.push(event),
        }
    }
    let mut paused = paused.expect("paused on g1");
    let started = seen
        .iter()
        .position(|e| matches!(e, StreamEvent::ToolStarted { call, .. } if call.id == "c1"))
        .unwrap();
    let g1_ready = seen
        .iter()
        .position(|e| matches!(e, StreamEvent::ToolCallReady { call, .. } if call.id == "g1"))
        .unwrap();
    assert!(started < g1_ready, "c1 started while g1 was written");
    assert!(
        matches!(seen.last(), Some(StreamEvent::ApprovalRequested { call, .. }) if call.id == "g1")
    );
    assert!(guarded.starts.lock().unwrap().is_empty());
    paused.approve("g1").unwrap();
    let output = agent.resume(paused).await.unwrap().done().unwrap();
    assert_eq!(output.tool_calls.len(), 2);
    assert_eq!(
        tool.starts.lock().unwrap().len(),
        1,
        "c1 ran once, before the pause"
    );
    assert_eq!(guarded.starts.lock().unwrap().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_call_started_early_keeps_its_timeout() {
    let tool = Stamp::default();
    let config = AgentConfig::default()
        .with_early_tool_start(true)
        .with_tools(phi_agent::ToolConfig {
            default_tool_timeout_ms: 20,
            ..phi_agent::ToolConfig::default()
        });
    let (events, output) =
        collect(agent(paced(script()), tool.clone(), config).run_stream("go")).await;
    let output = output.unwrap();
    let last_ready = events
        .iter()
        .rposition(|e| matches!(e, StreamEvent::ToolCallReady { turn: 1, .. }))
        .unwrap();
    let first_finished = events
        .iter()
        .position(|e| matches!(e, StreamEvent::ToolFinished { .. }))
        .unwrap();
    assert!(
        first_finished < last_ready,
        "the first call ended while the model wrote"
    );
    for record in &output.tool_calls {
        assert!(record.is_error, "{record:?}");
        assert_eq!(
            record.duration,
            Duration::from_millis(20),
            "cut at its timeout"
        );
        assert!(
            record.result[0].to_model_text().contains("20"),
            "{:?}",
            record.result
        );
    }
}
