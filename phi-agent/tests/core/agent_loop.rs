//! The rules of the agent loop, on tokio's paused clock: concurrency within a turn, results in
//! call order, the turn budget, cancellation on drop, activation between turns, sessions.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall, Usage};
use phi_agent::{
    ActivationContext, AgentConfig, AgentError, AgentEvent, AgentResult, Content, PhiAgent, Tool,
    ToolContext, ToolExposure, base_agent_builder,
};
use serde_json::{Value, json};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Sleeps `ms` milliseconds of (virtual) time, then answers `slept <ms>`.
struct Sleep;

#[async_trait]
impl Tool for Sleep {
    fn name(&self) -> &'static str {
        "sleep"
    }
    fn description(&self) -> &'static str {
        "Sleep for ms milliseconds"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"]})
    }
    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let ms = args["ms"].as_u64().unwrap_or(0);
        if let Ok(seen) = ctx.state::<Mutex<Vec<(String, String)>>>() {
            seen.lock()
                .unwrap()
                .push((ctx.session_id().to_string(), ctx.tool_call_id().to_string()));
        }
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok(vec![Content::text(format!("slept {ms}"))])
    }
}

fn sleep_call(id: &str, ms: u64) -> ToolCall {
    ToolCall::new(id, "sleep", json!({ "ms": ms }))
}

fn agent_with(llm: ScriptedLlm, config: AgentConfig) -> PhiAgent {
    let builder = base_agent_builder(llm).register_tool(Sleep);
    PhiAgent::build(builder, config).unwrap()
}

fn tool_results(messages: &[Message]) -> Vec<(String, String)> {
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
async fn four_one_second_tools_in_one_turn_take_one_second() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(
            (1..=4)
                .map(|i| sleep_call(&format!("c{i}"), 1000))
                .collect(),
        ),
        LlmResponse::text("done"),
    ]);
    let agent = agent_with(llm, AgentConfig::default());
    let started = Instant::now();
    let output = agent.run("sleep four times").await.unwrap();
    assert_eq!(started.elapsed(), Duration::from_secs(1));
    assert_eq!(output.tool_calls.len(), 4);
    for record in &output.tool_calls {
        assert_eq!(record.duration, Duration::from_secs(1));
        assert!(!record.is_error);
    }
}

#[tokio::test(start_paused = true)]
async fn concurrency_is_bounded_by_max_parallel_tools() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(
            (1..=4)
                .map(|i| sleep_call(&format!("c{i}"), 1000))
                .collect(),
        ),
        LlmResponse::text("done"),
    ]);
    let config = AgentConfig::default().with_max_parallel_tools(2);
    let agent = agent_with(llm, config);
    let started = Instant::now();
    agent.run("sleep four times, two at a time").await.unwrap();
    assert_eq!(started.elapsed(), Duration::from_secs(2));
}

#[tokio::test(start_paused = true)]
async fn results_go_back_in_call_order_whatever_order_they_finish_in() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![
            sleep_call("slow", 3000),
            sleep_call("medium", 1000),
            sleep_call("fast", 0),
        ]),
        LlmResponse::text("done"),
    ]);
    let finished = Arc::new(Mutex::new(Vec::new()));
    let seen = finished.clone();
    let builder = base_agent_builder(llm.clone())
        .register_tool(Sleep)
        .observer(move |event: &AgentEvent<'_>| {
            if let AgentEvent::ToolFinished { call, .. } = event {
                seen.lock().unwrap().push(call.id.clone());
            }
        });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let output = agent.run("three sleeps").await.unwrap();

    assert_eq!(*finished.lock().unwrap(), ["fast", "medium", "slow"]);
    let expected = [
        ("slow", "slept 3000"),
        ("medium", "slept 1000"),
        ("fast", "slept 0"),
    ]
    .map(|(id, text)| (id.to_string(), text.to_string()));
    assert_eq!(tool_results(&output.messages), expected);
    assert_eq!(tool_results(&llm.requests()[1].messages), expected);
    let order: Vec<_> = output.tool_calls.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(order, ["slow", "medium", "fast"]);
}

#[tokio::test(start_paused = true)]
async fn max_turns_ends_the_run_with_the_transcript() {
    let llm = ScriptedLlm::from_fn(|request| {
        let turn = request.messages.len() / 2 + 1;
        Ok(LlmResponse::tool_calls(vec![sleep_call(
            &format!("t{turn}"),
            10,
        )]))
    });
    let config = AgentConfig::default().with_max_turns(3);
    let agent = agent_with(llm.clone(), config);
    let mut session = agent.session();
    let error = session.prompt("never stop").await.unwrap_err();
    let AgentError::MaxTurns { turns, transcript } = &error else {
        panic!("expected MaxTurns, got {error:?}");
    };
    assert_eq!(*turns, 3);
    assert_eq!(llm.requests().len(), 3);
    // The input, then an assistant turn and a result for each of the three turns.
    assert_eq!(transcript.len(), 7);
    assert_eq!(transcript[0], Message::user("never stop"));
    assert_eq!(tool_results(transcript).last().unwrap().0, "t3");
    assert!(error.to_string().contains("3 turns"), "{error}");
    assert!(
        session.history().is_empty(),
        "a failed run leaves the history as it was"
    );
}

/// Records its call's cancellation token and whether its future was dropped.
struct Forever {
    token: Arc<Mutex<Option<CancellationToken>>>,
    dropped: Arc<AtomicBool>,
}

struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[async_trait]
impl Tool for Forever {
    fn name(&self) -> &'static str {
        "forever"
    }
    fn description(&self) -> &'static str {
        "Never finishes"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(&self, _: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        *self.token.lock().unwrap() = Some(ctx.cancellation().clone());
        let _guard = SetOnDrop(self.dropped.clone());
        std::future::pending::<()>().await;
        unreachable!()
    }
}

#[tokio::test(start_paused = true)]
async fn dropping_the_run_cancels_its_tools() {
    let token = Arc::new(Mutex::new(None));
    let dropped = Arc::new(AtomicBool::new(false));
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![ToolCall::new(
        "c1",
        "forever",
        json!({}),
    )])]);
    let tool = Forever {
        token: token.clone(),
        dropped: dropped.clone(),
    };
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tool(tool),
        AgentConfig::default(),
    )
    .unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(5), agent.run("go")).await;
    assert!(outcome.is_err(), "the run cannot finish on its own");

    assert!(
        dropped.load(Ordering::SeqCst),
        "the tool's future was dropped"
    );
    let token = token.lock().unwrap().clone().expect("the tool ran");
    assert!(token.is_cancelled(), "the tool's cancellation token fired");
}

/// Deferred: becomes visible once `unlock` has run.
struct Secret {
    unlocked: Arc<AtomicBool>,
}

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
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Deferred
    }
    async fn should_activate(&self, _: &ActivationContext) -> bool {
        self.unlocked.load(Ordering::SeqCst)
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("the secret is 7")])
    }
}

struct Unlock {
    unlocked: Arc<AtomicBool>,
}

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
        self.unlocked.store(true, Ordering::SeqCst);
        Ok(vec![Content::text("unlocked")])
    }
}

struct Internal;

#[async_trait]
impl Tool for Internal {
    fn name(&self) -> &'static str {
        "internal"
    }
    fn description(&self) -> &'static str {
        "Framework only"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Hidden
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("should never run for the model")])
    }
}

fn names(tools: &[phi_agent::llm::ToolSpec]) -> Vec<&str> {
    tools.iter().map(|tool| tool.name).collect()
}

#[tokio::test(start_paused = true)]
async fn activation_is_evaluated_between_turns() {
    let unlocked = Arc::new(AtomicBool::new(false));
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![
            ToolCall::new("a", "secret", json!({})),
            ToolCall::new("b", "internal", json!({})),
            ToolCall::new("c", "unlock", json!({})),
        ]),
        LlmResponse::tool_calls(vec![ToolCall::new("d", "secret", json!({}))]),
        LlmResponse::text("7"),
        LlmResponse::text("still 7"),
    ]);
    let activations = Arc::new(Mutex::new(Vec::new()));
    let seen = activations.clone();
    let builder = base_agent_builder(llm.clone())
        .register_tool(Secret {
            unlocked: unlocked.clone(),
        })
        .register_tool(Internal)
        .register_tool(Unlock { unlocked })
        .observer(move |event: &AgentEvent<'_>| {
            if let AgentEvent::ToolsActivated { turn, names } = event {
                seen.lock().unwrap().push((*turn, names.to_vec()));
            }
        });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let mut session = agent.session();
    let output = session.prompt("what is the secret?").await.unwrap();

    let requests = llm.requests();
    assert_eq!(names(&requests[0].tools), ["unlock"]);
    assert_eq!(names(&requests[1].tools), ["secret", "unlock"]);
    assert_eq!(*activations.lock().unwrap(), [(1, vec!["secret"])]);
    let results = &output.tool_calls;
    assert!(results[0].is_error, "not active yet in turn 1");
    assert!(results[1].is_error, "hidden");
    assert_eq!(
        results[0].result[0]
            .to_model_text()
            .replace("secret", "internal"),
        results[1].result[0].to_model_text(),
        "an inactive and a hidden tool get the same answer"
    );
    assert!(!results[3].is_error);
    assert_eq!(results[3].result, [Content::text("the secret is 7")]);

    // The tool list is rebuilt only when the set changes, and activation stays for the session.
    assert!(Arc::ptr_eq(&requests[1].tools, &requests[2].tools));
    session.prompt("again?").await.unwrap();
    assert!(Arc::ptr_eq(&requests[2].tools, &llm.requests()[3].tools));
}

#[tokio::test(start_paused = true)]
async fn sessions_keep_history_and_their_own_id() {
    let llm = ScriptedLlm::from_fn(|request| {
        let last = request.messages.last().unwrap();
        Ok(match last {
            Message::User { .. } => LlmResponse::tool_calls(vec![sleep_call("s", 1)]),
            _ => LlmResponse::text(format!("seen {} messages", request.messages.len()))
                .with_usage(Usage::new(10, 2)),
        })
    });
    let calls = Mutex::new(Vec::<(String, String)>::new());
    let builder = base_agent_builder(llm.clone())
        .register_tool(Sleep)
        .state(calls);
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let mut first = agent.session();
    let second = agent.session();
    assert_ne!(first.id(), second.id());

    let one = first.prompt("one").await.unwrap();
    let two = first.prompt("two").await.unwrap();
    assert_eq!(one.text, "seen 3 messages");
    assert_eq!(two.text, "seen 7 messages");
    assert_eq!(two.messages.len(), 4, "the messages of this run only");
    assert_eq!(first.history().len(), 8);
    assert_eq!(two.turns, 2);
    assert_eq!(two.usage, Usage::new(10, 2));
    let seen = agent
        .shared_state()
        .get::<Mutex<Vec<(String, String)>>>()
        .unwrap()
        .lock()
        .unwrap()
        .clone();
    assert_eq!(seen, vec![(first.id().to_string(), "s".to_string()); 2]);
}

#[tokio::test(start_paused = true)]
async fn bad_calls_become_results_and_the_run_goes_on() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![
            ToolCall::new("a", "sleep", json!("{\"ms\": 1")),
            ToolCall::new("b", "no_such_tool", json!({})),
            ToolCall::new("c", "sleep", json!([1])),
        ]),
        LlmResponse::text("sorry"),
    ]);
    let agent = agent_with(llm, AgentConfig::default());
    let output = agent.run("go").await.unwrap();
    assert_eq!(output.text, "sorry");
    let texts: Vec<String> = output
        .tool_calls
        .iter()
        .map(|record| {
            assert!(record.is_error, "{record:?}");
            record.result[0].to_model_text()
        })
        .collect();
    assert!(texts[0].contains("not a JSON object"), "{}", texts[0]);
    assert!(
        texts[1].contains("not available; available tools: sleep"),
        "{}",
        texts[1]
    );
    assert!(texts[2].contains("expected a JSON object"), "{}", texts[2]);
    assert_eq!(texts.len(), 3);
}

#[tokio::test(start_paused = true)]
async fn events_arrive_in_order() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![sleep_call("c", 500)]),
        LlmResponse::text("done"),
    ]);
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    let builder =
        base_agent_builder(llm)
            .register_tool(Sleep)
            .observer(move |event: &AgentEvent<'_>| {
                let line = match event {
                    AgentEvent::TurnStarted { turn, tools, .. } => {
                        format!("turn {turn} ({} tools)", tools.len())
                    }
                    AgentEvent::ModelReplied { response, .. } => {
                        format!("reply ({} calls)", response.tool_calls.len())
                    }
                    AgentEvent::ToolStarted { call, .. } => format!("start {}", call.id),
                    AgentEvent::ToolFinished { call, duration, .. } => {
                        format!("finish {} {}ms", call.id, duration.as_millis())
                    }
                    AgentEvent::ToolsActivated { names, .. } => format!("activated {names:?}"),
                    AgentEvent::Finished { turns, text, .. } => format!("finished {turns} {text}"),
                    _ => "other".to_string(),
                };
                sink.lock().unwrap().push(line);
            });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    agent.run("go").await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "turn 1 (1 tools)",
            "reply (1 calls)",
            "start c",
            "finish c 500ms",
            "turn 2 (1 tools)",
            "reply (0 calls)",
            "finished 2 done",
        ]
    );
}

#[test]
fn zero_limits_are_refused_at_build() {
    let config = AgentConfig::default().with_max_parallel_tools(0);
    let error = PhiAgent::build(base_agent_builder(ScriptedLlm::new([])), config).unwrap_err();
    assert!(error.to_string().contains("max_parallel_tools"), "{error}");
}

#[tokio::test(start_paused = true)]
async fn runs_can_be_spawned() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![sleep_call("c", 10)]),
        LlmResponse::text("spawned"),
        LlmResponse::text("again"),
    ]);
    let agent = agent_with(llm, AgentConfig::default());
    let one_shot = tokio::spawn({
        let agent = agent.clone();
        async move { agent.run("go").await }
    });
    assert_eq!(one_shot.await.unwrap().unwrap().text, "spawned");
    let mut session = agent.session();
    let in_session = tokio::spawn(async move {
        let output = session.prompt("again").await;
        (output, session)
    });
    let (output, session) = in_session.await.unwrap();
    assert_eq!(output.unwrap().text, "again");
    assert_eq!(session.history().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_dropped_run_leaves_the_session_history_as_it_was() {
    let llm = ScriptedLlm::new([
        LlmResponse::text("first answer"),
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "forever", json!({}))]),
    ]);
    let tool = Forever {
        token: Arc::new(Mutex::new(None)),
        dropped: Arc::new(AtomicBool::new(false)),
    };
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tool(tool),
        AgentConfig::default(),
    )
    .unwrap();
    let mut session = agent.session();
    session.prompt("first").await.unwrap();
    let before = session.history().to_vec();
    let outcome = tokio::time::timeout(Duration::from_secs(1), session.prompt("second")).await;
    assert!(outcome.is_err());
    assert_eq!(session.history(), before);
}
