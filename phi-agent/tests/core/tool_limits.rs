//! Per-tool limits ([`ToolLimits`]) in the agent loop, on tokio's paused clock: a sequential
//! call is a barrier in its turn's batch, `concurrency` bounds the calls at once, `rate`
//! refuses the call past it with when to retry and the session goes on, and read-only tools
//! run together. Each call records when it started and finished, and the tests assert the
//! order of those instants.

use std::num::{NonZeroU32, NonZeroUsize};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentResult, Content, PhiAgent, Rate, Tool, ToolAnnotations, ToolContext,
    ToolLimits, ToolOptions, base_agent_builder,
};
use serde_json::{Value, json};
use tokio::time::Instant;

/// When each call ran: its id, start and end.
type Timeline = Arc<Mutex<Vec<(String, Instant, Instant)>>>;

/// A tool named `name` with `options` that works for 100 ms of (virtual) time, recording when.
struct Timed {
    name: &'static str,
    options: ToolOptions,
    timeline: Timeline,
}

#[async_trait]
impl Tool for Timed {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "Work for a while"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let started = Instant::now();
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.timeline.lock().unwrap().push((
            ctx.tool_call_id().to_string(),
            started,
            Instant::now(),
        ));
        Ok(vec![Content::text("done")])
    }
    fn options(&self) -> ToolOptions {
        self.options.clone()
    }
}

/// An agent with the tools `plain` (no limits) and `name` with `options`, answering `turns`.
fn agent(
    turns: impl IntoIterator<Item = LlmResponse>,
    name: &'static str,
    options: ToolOptions,
) -> (PhiAgent, Timeline) {
    let timeline = Timeline::default();
    let tool = |name, options| Timed {
        name,
        options,
        timeline: timeline.clone(),
    };
    let builder = base_agent_builder(ScriptedLlm::new(turns))
        .register_tool(tool("plain", ToolOptions::default()))
        .register_tool(tool(name, options));
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    (agent, timeline)
}

fn calls(names: &[(&str, &str)]) -> LlmResponse {
    LlmResponse::tool_calls(
        names
            .iter()
            .map(|(id, name)| ToolCall::new(*id, *name, json!({})))
            .collect(),
    )
}

/// The span of the call `id` in `timeline`.
fn span(timeline: &Timeline, id: &str) -> (Instant, Instant) {
    let timeline = timeline.lock().unwrap();
    let (_, start, end) = timeline
        .iter()
        .find(|(call, ..)| call == id)
        .unwrap_or_else(|| panic!("call {id} did not run"));
    (*start, *end)
}

/// The text of each tool result in `messages`, by call id.
fn results(messages: &[Message]) -> Vec<(String, String)> {
    messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool {
                tool_call_id,
                content,
                ..
            } => Some((tool_call_id.clone(), content[0].to_model_text())),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_sequential_call_is_a_barrier_in_its_batch() {
    let sequential = ToolOptions::default().with_limits(ToolLimits::default().sequential());
    let batch = calls(&[
        ("a1", "plain"),
        ("a2", "plain"),
        ("s", "commit"),
        ("b1", "plain"),
        ("b2", "plain"),
    ]);
    let (agent, timeline) = agent([batch, LlmResponse::text("ok")], "commit", sequential);
    agent.run("go").await.unwrap();

    let (a1, a2, s) = (
        span(&timeline, "a1"),
        span(&timeline, "a2"),
        span(&timeline, "s"),
    );
    let (b1, b2) = (span(&timeline, "b1"), span(&timeline, "b2"));
    assert_eq!(a1.0, a2.0, "the calls before the barrier run together");
    assert!(
        a1.1 <= s.0 && a2.1 <= s.0,
        "the barrier starts once they finish"
    );
    assert!(s.1 <= b1.0 && s.1 <= b2.0, "the calls after it wait for it");
    assert_eq!(b1.0, b2.0, "the calls after the barrier run together");
}

#[tokio::test(start_paused = true)]
async fn concurrency_one_never_overlaps() {
    let one = ToolLimits::default().with_concurrency(NonZeroUsize::new(1).unwrap());
    let batch = calls(&[
        ("w1", "write"),
        ("w2", "write"),
        ("p", "plain"),
        ("w3", "write"),
    ]);
    let options = ToolOptions::default().with_limits(one);
    let (agent, timeline) = agent([batch, LlmResponse::text("ok")], "write", options);
    agent.run("go").await.unwrap();

    let mut writes: Vec<_> = ["w1", "w2", "w3"]
        .iter()
        .map(|id| span(&timeline, id))
        .collect();
    writes.sort();
    for pair in writes.windows(2) {
        assert!(pair[0].1 <= pair[1].0, "two calls overlapped: {pair:?}");
    }
    assert_eq!(
        span(&timeline, "p").0,
        writes[0].0,
        "a tool without limits does not wait on the bounded one"
    );
}

#[tokio::test(start_paused = true)]
async fn the_call_past_the_rate_is_refused_with_when_to_retry() {
    let rate = ToolLimits::default().with_rate(Rate::per_second(NonZeroU32::new(10).unwrap()));
    let ids: Vec<String> = (1..=11).map(|i| format!("q{i}")).collect();
    let batch: Vec<_> = ids.iter().map(|id| (id.as_str(), "quote")).collect();
    let turns = [
        calls(&batch),
        LlmResponse::text("ten quotes"),
        calls(&[("later", "quote")]),
        LlmResponse::text("one more"),
    ];
    let options = ToolOptions::default().with_limits(rate);
    let (agent, timeline) = agent(turns, "quote", options);
    let mut session = agent.session();
    let output = session.prompt("eleven quotes").await.unwrap();

    let results = results(&output.messages);
    assert_eq!(results.len(), 11);
    assert_eq!(timeline.lock().unwrap().len(), 10, "the 11th did not run");
    assert!(results[..10].iter().all(|(_, text)| text == "done"));
    let (id, refusal) = &results[10];
    assert_eq!(id, "q11");
    assert!(
        refusal.starts_with("rate_limited: tool `quote`"),
        "{refusal}"
    );
    assert!(refusal.contains("rate of 10/s"), "{refusal}");
    let retry_ms: u64 = refusal
        .split("call it again in ")
        .nth(1)
        .and_then(|rest| rest.split(" ms").next())
        .and_then(|ms| ms.parse().ok())
        .unwrap_or_else(|| panic!("no retry-after in {refusal}"));
    assert!((1..=1_000).contains(&retry_ms), "{retry_ms}");

    // The session goes on: once the window has passed, the tool runs again.
    tokio::time::advance(Duration::from_millis(retry_ms)).await;
    let output = session.prompt("one more").await.unwrap();
    assert_eq!(results_of_last_turn(&output.messages), ["done"]);
}

/// The texts of the tool results after the last user message.
fn results_of_last_turn(messages: &[Message]) -> Vec<String> {
    let last_user = messages
        .iter()
        .rposition(|message| matches!(message, Message::User { .. }))
        .unwrap_or(0);
    results(&messages[last_user..])
        .into_iter()
        .map(|(_, text)| text)
        .collect()
}

#[tokio::test(start_paused = true)]
async fn each_session_has_its_own_rate() {
    let rate = ToolLimits::default().with_rate(Rate::per_minute(NonZeroU32::new(1).unwrap()));
    let turns = [
        calls(&[("first", "quote")]),
        LlmResponse::text("one"),
        calls(&[("second", "quote")]),
        LlmResponse::text("one"),
    ];
    let options = ToolOptions::default().with_limits(rate);
    let (agent, timeline) = agent(turns, "quote", options);
    agent.session().prompt("a quote").await.unwrap();
    agent.session().prompt("a quote").await.unwrap();
    assert_eq!(
        timeline.lock().unwrap().len(),
        2,
        "one call in each session"
    );
}

#[tokio::test(start_paused = true)]
async fn read_only_tools_run_together_beside_a_sequential_tool() {
    let read_only =
        ToolOptions::default().with_annotations(ToolAnnotations::default().with_read_only(true));
    let timeline = Timeline::default();
    let tool = |name, options| Timed {
        name,
        options,
        timeline: timeline.clone(),
    };
    let batch = calls(&[("r1", "read"), ("r2", "read"), ("r3", "look")]);
    let builder = base_agent_builder(ScriptedLlm::new([batch, LlmResponse::text("ok")]))
        .register_tool(tool("read", read_only.clone()))
        .register_tool(tool("look", read_only))
        .register_tool(tool(
            "commit",
            ToolOptions::default().with_limits(ToolLimits::default().sequential()),
        ));
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let started = Instant::now();
    agent.run("read").await.unwrap();

    for id in ["r1", "r2", "r3"] {
        assert_eq!(span(&timeline, id).0, started, "{id} waited");
    }
}
