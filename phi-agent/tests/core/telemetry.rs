//! `tracing` output: spans named after the OpenTelemetry GenAI conventions, and no API key in any
//! span or event, even when requests are retried.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use phi_agent::llm::{
    HttpConfig, LlmClient, LlmRequest, LlmResponse, OpenAiClient, ScriptedLlm, ToolCall, Usage,
};
use phi_agent::{
    AgentConfig, AgentResult, Content, PhiAgent, Tool, ToolContext, base_agent_builder,
};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

type Fields = BTreeMap<String, String>;

/// Records every span (name and fields, including fields recorded later) and every event (with
/// the name of the span it happened in as `in_span`).
#[derive(Clone, Default)]
struct Recorder {
    spans: Arc<Mutex<Vec<(String, Fields)>>>,
    events: Arc<Mutex<Vec<Fields>>>,
    /// The spans entered and not yet exited, innermost last.
    entered: Arc<Mutex<Vec<u64>>>,
}

/// Makes `recorder` this thread's subscriber until the guard drops.
///
/// While a single dispatcher is alive, `tracing` decides whether a callsite is enabled with
/// whichever subscriber the thread that first reaches it has: a test without one (another test
/// running an agent at the same time) then switches a span off for every thread, and this test
/// misses it (`cargo test search` failed so, `cargo test` did not). A second dispatcher kept
/// alive for the whole process makes `tracing` ask every live subscriber instead.
fn record(recorder: &Recorder) -> tracing::subscriber::DefaultGuard {
    static SECOND: std::sync::OnceLock<tracing::Dispatch> = std::sync::OnceLock::new();
    SECOND.get_or_init(|| tracing::Dispatch::new(tracing::subscriber::NoSubscriber::default()));
    tracing::subscriber::set_default(recorder.clone())
}

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut fields = Fields::new();
        span.record(&mut Collect(&mut fields));
        let mut spans = self.spans.lock().unwrap();
        spans.push((span.metadata().name().to_string(), fields));
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().unwrap();
        let index = span.into_u64() as usize - 1;
        values.record(&mut Collect(&mut spans[index].1));
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields::new();
        event.record(&mut Collect(&mut fields));
        fields.insert("level".to_string(), event.metadata().level().to_string());
        if let Some(&span) = self.entered.lock().unwrap().last() {
            let name = self.spans.lock().unwrap()[span as usize - 1].0.clone();
            fields.insert("in_span".to_string(), name);
        }
        self.events.lock().unwrap().push(fields);
    }
    fn enter(&self, span: &Id) {
        self.entered.lock().unwrap().push(span.into_u64());
    }
    fn exit(&self, span: &Id) {
        let mut entered = self.entered.lock().unwrap();
        if let Some(at) = entered.iter().rposition(|id| *id == span.into_u64()) {
            entered.remove(at);
        }
    }
}

struct Echo;

#[async_trait]
impl Tool for Echo {
    fn name(&self) -> &'static str {
        "echo"
    }
    fn description(&self) -> &'static str {
        "Echo the text"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"text": {"type": "string"}}})
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(
            args["text"].as_str().unwrap_or_default(),
        )])
    }
}

#[tokio::test]
async fn spans_carry_the_gen_ai_attribute_names() {
    let recorder = Recorder::default();
    let _default = record(&recorder);
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("call-7", "echo", json!({"text": "hi"}))]),
        LlmResponse::text("hi").with_usage(
            Usage::new(1200, 4)
                .with_cache_read_input_tokens(1000)
                .with_cache_creation_input_tokens(150),
        ),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tool(Echo),
        AgentConfig::default(),
    )
    .unwrap();
    let mut session = agent.session();
    session.prompt("say hi").await.unwrap();

    let spans = recorder.spans.lock().unwrap().clone();
    let named = |name: &str| -> Vec<Fields> {
        spans
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, f)| f.clone())
            .collect()
    };
    let agent_spans = named("invoke_agent");
    assert_eq!(agent_spans.len(), 1);
    assert_eq!(agent_spans[0]["gen_ai.conversation.id"], session.id());
    // The run's usage, summed over its two requests.
    assert_eq!(agent_spans[0]["gen_ai.usage.input_tokens"], "1200");
    assert_eq!(
        agent_spans[0]["gen_ai.usage.cache_read.input_tokens"],
        "1000"
    );
    assert_eq!(
        agent_spans[0]["gen_ai.usage.cache_creation.input_tokens"],
        "150"
    );

    let chats = named("chat");
    assert_eq!(chats.len(), 2, "one chat span per model turn");
    assert_eq!(chats[0]["gen_ai.operation.name"], "chat");
    assert_eq!(chats[0]["gen_ai.provider.name"], "scripted");
    assert_eq!(
        chats[0]["gen_ai.usage.input_tokens"], "0",
        "usage is recorded after the reply"
    );
    assert_eq!(chats[1]["gen_ai.usage.input_tokens"], "1200");
    assert_eq!(chats[1]["gen_ai.usage.output_tokens"], "4");
    assert_eq!(chats[1]["gen_ai.usage.cache_read.input_tokens"], "1000");
    assert_eq!(chats[1]["gen_ai.usage.cache_creation.input_tokens"], "150");

    let tools = named("execute_tool");
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["gen_ai.operation.name"], "execute_tool");
    assert_eq!(tools[0]["gen_ai.tool.name"], "echo");
    assert_eq!(tools[0]["gen_ai.tool.call.id"], "call-7");
    assert_eq!(tools[0]["otel.name"], "execute_tool echo");
    assert_eq!(tools[0]["gen_ai.tool.type"], "function");
    assert_eq!(tools[0]["gen_ai.tool.description"], "Echo the text");
    // Content is opt-in: off by default.
    assert!(!tools[0].contains_key("gen_ai.tool.call.arguments"));
    assert!(!tools[0].contains_key("gen_ai.tool.call.result"));
}

/// Log in somewhere; its password is write-only.
struct Login;

#[async_trait]
impl Tool for Login {
    fn name(&self) -> &'static str {
        "login"
    }
    fn description(&self) -> &'static str {
        "Log in to the service"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {
            "user": {"type": "string"},
            "password": {"type": "string", "writeOnly": true}
        }})
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_output_schema(
            json!({"type": "object", "properties": {
                "session": {"type": "string", "writeOnly": true},
                "user": {"type": "string"}
            }}),
        )
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::json(
            json!({"session": "s3cr3t-session", "user": args["user"]}),
        )])
    }
}

#[tokio::test]
async fn tool_content_is_recorded_when_asked_without_write_only_values() {
    let recorder = Recorder::default();
    let _default = record(&recorder);
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![
            ToolCall::new("c1", "login", json!({"user": "ada", "password": "hunter2"})),
            ToolCall::new("c2", "echo", json!({"text": "hi"})),
        ]),
        LlmResponse::text("in"),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm)
            .register_tool(Login)
            .register_tool(Echo),
        AgentConfig::default().with_trace_tool_content(true),
    )
    .unwrap();
    agent.run("log in").await.unwrap();
    let spans = recorder.spans.lock().unwrap().clone();
    let tools: Vec<&Fields> = spans
        .iter()
        .filter(|(name, _)| name == "execute_tool")
        .map(|(_, fields)| fields)
        .collect();
    let login = tools
        .iter()
        .find(|f| f["gen_ai.tool.name"] == "login")
        .unwrap();
    assert_eq!(
        login["gen_ai.tool.call.arguments"],
        r#"{"user":"ada","password":"<redacted>"}"#
    );
    assert_eq!(
        login["gen_ai.tool.call.result"],
        r#"{"session":"<redacted>","user":"ada"}"#
    );
    assert_eq!(login["gen_ai.tool.description"], "Log in to the service");
    let echo = tools
        .iter()
        .find(|f| f["gen_ai.tool.name"] == "echo")
        .unwrap();
    assert_eq!(echo["gen_ai.tool.call.arguments"], r#"{"text":"hi"}"#);
    assert_eq!(echo["gen_ai.tool.call.result"], "hi");
    let everything = format!("{spans:?}{:?}", recorder.events.lock().unwrap());
    assert!(!everything.contains("hunter2"), "{everything}");
    assert!(!everything.contains("s3cr3t-session"), "{everything}");
}

/// Deferred: found by tool search only.
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

#[tokio::test]
async fn a_tool_search_is_a_span_and_an_event_naming_query_and_tools() {
    let recorder = Recorder::default();
    let _default = record(&recorder);
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "s-1",
            phi_agent::search::SEARCH_TOOL_NAME,
            json!({"query": "calendar event"}),
        )]),
        LlmResponse::text("found"),
    ]);
    let config = AgentConfig::default().with_tool_search(phi_agent::ToolSearch::Local);
    let agent = PhiAgent::build(
        base_agent_builder(llm)
            .register_tool(Echo)
            .register_tool(Calendar),
        config,
    )
    .unwrap();
    agent.run("plan").await.unwrap();

    let spans = recorder.spans.lock().unwrap().clone();
    assert!(spans.iter().any(|(name, fields)| name == "execute_tool"
        && fields["gen_ai.tool.name"] == "search_tools"
        && fields["gen_ai.tool.call.id"] == "s-1"));
    let events = recorder.events.lock().unwrap().clone();
    let search = events
        .iter()
        .find(|fields| fields.get("message").map(String::as_str) == Some("tool search"))
        .expect("a tool search event");
    assert_eq!(search["query"], "calendar event");
    assert_eq!(search["tools"], r#"["create_calendar_event"]"#);
}

#[test]
fn tool_search_with_nothing_to_find_is_a_warning() {
    let warnings = |tools: Vec<Arc<dyn Tool>>| {
        let recorder = Recorder::default();
        let _default = record(&recorder);
        let config = AgentConfig::default().with_tool_search(phi_agent::ToolSearch::Local);
        PhiAgent::build(
            base_agent_builder(ScriptedLlm::new([])).register_tools(tools),
            config,
        )
        .expect("searching with nothing to find still builds");
        let events = recorder.events.lock().unwrap().clone();
        events
            .into_iter()
            .filter_map(|fields| fields.get("message").cloned())
            .filter(|message| message.starts_with("tool search is on, but no tool is Deferred"))
            .count()
    };
    assert_eq!(warnings(vec![Arc::new(Echo)]), 1, "every tool Direct");
    assert_eq!(warnings(vec![Arc::new(Echo), Arc::new(Calendar)]), 0);
}

#[tokio::test]
async fn a_cache_bust_is_a_warning_naming_what_changed() {
    let recorder = Recorder::default();
    let _default = record(&recorder);
    let llm = ScriptedLlm::new(["a", "b"].map(LlmResponse::text));
    let builder = base_agent_builder(llm).system_prompt("You are terse.");
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let mut session = agent.session();
    session.prompt("one").await.unwrap();
    session.set_system_prompt(Some("You are verbose.".into()));
    session.prompt("two").await.unwrap();
    let busts: Vec<Fields> = recorder
        .events
        .lock()
        .unwrap()
        .iter()
        .filter(|fields| {
            fields
                .get("message")
                .is_some_and(|m| m.starts_with("prompt cache bust"))
        })
        .cloned()
        .collect();
    assert_eq!(busts.len(), 1, "{busts:?}");
    assert_eq!(busts[0]["level"], "WARN");
    assert_eq!(busts[0]["changes"], "the system prompt changed");
    assert_eq!(busts[0]["turn"], "1");
}

#[tokio::test]
async fn retries_are_logged_without_the_key() {
    use wiremock::matchers::method;
    use wiremock::{Mock, MockServer, ResponseTemplate};
    const KEY: &str = "sk-log-secret-4242";

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_string("busy"))
        .mount(&server)
        .await;
    let recorder = Recorder::default();
    let _default = record(&recorder);
    let client = OpenAiClient::new(KEY, "gpt-test")
        .unwrap()
        .with_base_url(format!("{}/v1", server.uri()))
        .with_http_config(
            HttpConfig::default()
                .with_max_retries(2)
                .with_initial_backoff(Duration::from_millis(5)),
        );
    let error = client.complete(&LlmRequest::default()).await.unwrap_err();
    assert!(error.to_string().contains("HTTP 503: busy"), "{error}");

    let events = recorder.events.lock().unwrap().clone();
    let retries: Vec<_> = events
        .iter()
        .filter(|e| e.get("message").is_some_and(|m| m.contains("retrying")))
        .collect();
    assert_eq!(retries.len(), 2, "{events:?}");
    let everything = format!("{events:?} {:?}", recorder.spans.lock().unwrap());
    assert!(!everything.contains(KEY), "{everything}");
}

#[tokio::test]
async fn a_failed_model_call_marks_its_chat_span() {
    let recorder = Recorder::default();
    let _default = record(&recorder);
    let agent = PhiAgent::build(
        base_agent_builder(ScriptedLlm::new([])),
        AgentConfig::default(),
    )
    .unwrap();
    agent.run("hello?").await.unwrap_err();
    let spans = recorder.spans.lock().unwrap().clone();
    let (_, chat) = spans.iter().find(|(name, _)| name == "chat").unwrap();
    assert_eq!(chat["error.type"], "invalid_response");
}

/// [`Echo`], but every call needs a person's approval.
struct GuardedEcho;

#[async_trait]
impl Tool for GuardedEcho {
    fn name(&self) -> &'static str {
        "guarded_echo"
    }
    fn description(&self) -> &'static str {
        "Echo the text, once a person allows it"
    }
    fn schema(&self) -> Value {
        Echo.schema()
    }
    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        Echo.call(args, ctx).await
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_approval(phi_agent::ToolApproval::Always)
    }
}

#[tokio::test]
async fn approvals_are_spans_and_events() {
    let recorder = Recorder::default();
    let _default = record(&recorder);
    let call = || ToolCall::new("call-9", "guarded_echo", json!({"text": "hi"}));
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![call()]),
        LlmResponse::text("hi"),
        LlmResponse::tool_calls(vec![call()]),
    ]);
    let builder = base_agent_builder(llm)
        .register_tool(GuardedEcho)
        .approver(|_: phi_agent::ApprovalRequest| async { phi_agent::Approval::Approve });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    agent.run("say hi").await.unwrap();
    assert!(
        agent
            .start("say hi again")
            .await
            .unwrap()
            .paused()
            .is_some()
    );

    let spans = recorder.spans.lock().unwrap().clone();
    let approvals: Vec<&Fields> = spans
        .iter()
        .filter(|(name, _)| name == "approve_tool")
        .map(|(_, fields)| fields)
        .collect();
    assert_eq!(approvals.len(), 1, "one span per approver question");
    assert_eq!(approvals[0]["gen_ai.tool.name"], "guarded_echo");
    assert_eq!(approvals[0]["gen_ai.tool.call.id"], "call-9");
    assert_eq!(approvals[0]["approval.decision"], "approve");

    let events = recorder.events.lock().unwrap().clone();
    let messages: Vec<&str> = events
        .iter()
        .filter(|fields| {
            fields
                .get("gen_ai.tool.call.id")
                .is_some_and(|id| id == "call-9")
        })
        .map(|fields| fields["message"].as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "tool call approval resolved",
            "tool finished",
            "tool call awaits approval; the run pauses"
        ]
    );
}

/// Reports progress and writes a log message.
struct Chatty;

#[async_trait]
impl Tool for Chatty {
    fn name(&self) -> &'static str {
        "chatty"
    }
    fn description(&self) -> &'static str {
        "Say how far it got"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        ctx.progress(1.0, Some(2.0), Some("half")).await;
        ctx.log(phi_agent::LogLevel::Info, "note").await;
        Ok(vec![Content::text("done")])
    }
}

#[tokio::test]
async fn a_tools_progress_and_log_are_events_of_its_execute_tool_span() {
    let recorder = Recorder::default();
    let _default = record(&recorder);
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c-1", "chatty", json!({}))]),
        LlmResponse::text("ok"),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tool(Chatty),
        AgentConfig::default(),
    )
    .unwrap();
    agent.run("go").await.unwrap();

    let events = recorder.events.lock().unwrap().clone();
    let said: Vec<(&str, &str, &str)> = events
        .iter()
        .filter(|fields| fields.get("tool_call_id").map(String::as_str) == Some("c-1"))
        .map(|fields| {
            (
                fields["message"].as_str(),
                fields.get("in_span").map_or("", String::as_str),
                fields.get("progress_message").map_or("", String::as_str),
            )
        })
        .collect();
    assert_eq!(
        said,
        [
            ("tool progress", "execute_tool", "half"),
            ("tool log", "execute_tool", "")
        ],
        "{events:?}"
    );
}
