//! Long sessions: usage with cache counts summed per run and per session, the prefix a prompt
//! cache serves kept byte-stable (and a change of it reported as a cache bust), and the request
//! bytes each adapter sends for it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use phi_agent::llm::{
    AnthropicClient, LlmClient, LlmRequest, LlmResponse, Message, OpenAiClient, PromptCache,
    ResponsesClient, ScriptedLlm, ToolCall, ToolSearchCall, Usage,
};
use phi_agent::{
    ActivationContext, AgentConfig, AgentEvent, AgentResult, Content, ContextPolicy,
    MemoryResultStore, PhiAgent, PrefixChange, READ_RESULT_TOOL_NAME, ResultStore, Steering,
    StreamEvent, Tool, ToolContext, ToolExposure, ToolSearch, base_agent_builder,
};
use serde_json::{Value, json};

use crate::tool_search::Listed;

/// The prefix changes the agent's observer saw, per turn.
type Busts = Arc<Mutex<Vec<(usize, Vec<PrefixChange>)>>>;

fn watched(builder: phi_agent::AgentBuilder, config: AgentConfig) -> (PhiAgent, Busts) {
    let busts = Busts::default();
    let seen = busts.clone();
    let builder = builder.observer(move |event: &AgentEvent<'_>| {
        if let AgentEvent::PrefixChanged { turn, changes } = event {
            seen.lock().unwrap().push((*turn, changes.to_vec()));
        }
    });
    (PhiAgent::build(builder, config).unwrap(), busts)
}

fn tool(name: &'static str, exposure: ToolExposure) -> Listed {
    Listed {
        name,
        description: "A tool of the test",
        schema: json!({"type": "object", "properties": {}}),
        exposure,
    }
}

fn cached(input: u64, output: u64, read: u64, written: u64) -> Usage {
    Usage::new(input, output)
        .with_cache_read_input_tokens(read)
        .with_cache_creation_input_tokens(written)
}

#[tokio::test]
async fn usage_with_cache_counts_is_summed_per_run_and_per_session() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "look", json!({}))])
            .with_usage(cached(1000, 10, 0, 900)),
        LlmResponse::text("first").with_usage(cached(1100, 5, 900, 150)),
        LlmResponse::text("second").with_usage(cached(1200, 7, 1050, 100)),
    ]);
    let builder = base_agent_builder(llm).register_tool(tool("look", ToolExposure::Direct));
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let mut session = agent.session();
    let first = session.prompt("one").await.unwrap();
    assert_eq!(first.usage, cached(2100, 15, 900, 1050));
    let second = session.prompt("two").await.unwrap();
    assert_eq!(second.usage, cached(1200, 7, 1050, 100));
    assert_eq!(session.usage(), cached(3300, 22, 1950, 1150));
    assert_eq!(session.usage().uncached_input_tokens(), 200);
}

#[tokio::test]
async fn a_system_prompt_changed_mid_session_is_reported_once() {
    let llm = ScriptedLlm::new(["a", "b", "c", "d"].map(LlmResponse::text));
    let builder = base_agent_builder(llm.clone()).system_prompt("You are terse.");
    let (agent, busts) = watched(builder, AgentConfig::default());
    let mut session = agent.session();
    session.prompt("one").await.unwrap();
    session.prompt("two").await.unwrap();
    assert!(busts.lock().unwrap().is_empty(), "an unchanged prefix");
    session.set_system_prompt(Some("You are terse. Today is Friday.".into()));
    session.prompt("three").await.unwrap();
    session.prompt("four").await.unwrap();
    assert_eq!(
        *busts.lock().unwrap(),
        [(1, vec![PrefixChange::SystemPrompt])],
        "reported on the request that changed it, not after"
    );
    let requests = llm.requests();
    assert_eq!(
        requests[2].system.as_deref(),
        Some("You are terse. Today is Friday.")
    );
}

/// A scripted model whose provider searches tools itself, as Anthropic's does.
struct NativeSearching(ScriptedLlm);

#[async_trait]
impl LlmClient for NativeSearching {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        self.0.complete(request).await
    }
    fn native_tool_search(&self) -> bool {
        true
    }
}

/// `body` without its cache breakpoints, which mark the prefix and are not part of it.
fn unmarked(mut body: Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(fields) => {
                fields.shift_remove("cache_control");
                fields.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut body);
    body
}

fn marked(block: &Value) -> bool {
    block.get("cache_control").is_some()
}

/// The blocks that carry a breakpoint, anywhere in `body`.
fn breakpoints(body: &Value) -> usize {
    let system = body["system"]
        .as_array()
        .map_or(0, |blocks| blocks.iter().filter(|b| marked(b)).count());
    let messages = body["messages"].as_array().unwrap();
    let blocks = messages
        .iter()
        .flat_map(|m| m["content"].as_array().unwrap())
        .filter(|b| marked(b))
        .count();
    let tools = body["tools"]
        .as_array()
        .map_or(0, |tools| tools.iter().filter(|t| marked(t)).count());
    system + blocks + tools
}

#[tokio::test]
async fn a_tool_found_by_the_native_search_keeps_every_byte_before_the_last_breakpoint() {
    let mut found = LlmResponse::tool_calls(vec![ToolCall::new("c1", "book_room", json!({}))]);
    found.tool_searches = vec![ToolSearchCall::new(
        "srvtoolu_1",
        json!({"query": "book a room"}),
        ["book_room"],
    )];
    let llm = ScriptedLlm::new([found, LlmResponse::text("booked")]);
    let builder = base_agent_builder(NativeSearching(llm.clone()))
        .system_prompt("You book rooms.")
        .register_tool(tool("get_time", ToolExposure::Direct))
        .register_tool(tool("book_room", ToolExposure::Deferred))
        .register_tool(tool("cancel_room", ToolExposure::Deferred));
    let config = AgentConfig::default().with_tool_search(ToolSearch::Native);
    let (agent, busts) = watched(builder, config);
    agent.run("Book me a room").await.unwrap();
    assert!(
        busts.lock().unwrap().is_empty(),
        "nothing reported: {busts:?}"
    );

    let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5").unwrap();
    let requests = llm.requests();
    let [first, second] = [&requests[0], &requests[1]].map(|r| client.request_body(r));
    assert_eq!(
        first["tools"], second["tools"],
        "the tools array is unchanged"
    );
    assert_eq!(
        unmarked(first["system"].clone()),
        unmarked(second["system"].clone())
    );
    let before = first["messages"].as_array().unwrap();
    let after = second["messages"].as_array().unwrap();
    assert_eq!(
        unmarked(json!(before)),
        unmarked(json!(after[..before.len()])),
        "the first request's messages open the second's"
    );
    // The second request marks where the first one's last breakpoint was: it reads what the
    // first wrote.
    let last = |message: &Value| message["content"].as_array().unwrap().last().cloned();
    assert!(marked(&last(&before[before.len() - 1]).unwrap()));
    assert!(marked(&last(&after[before.len() - 1]).unwrap()));
    assert!(breakpoints(&second) <= 4);
}

/// Deferred: shown once `unlock` has run.
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
        json!({"type": "object", "properties": {}})
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Deferred
    }
    async fn should_activate(&self, _: &ActivationContext) -> bool {
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
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        self.0.store(true, Ordering::SeqCst);
        Ok(vec![Content::text("unlocked")])
    }
}

/// Without a native search, an activated tool joins the tools array, which comes first in
/// every provider's prefix: the report says so, naming the tool and nothing else.
#[tokio::test]
async fn a_tool_activated_without_a_native_search_is_reported_as_added_and_appended() {
    let unlocked = Arc::new(AtomicBool::new(false));
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "unlock", json!({}))]),
        LlmResponse::text("unlocked it"),
    ]);
    let builder = base_agent_builder(llm.clone())
        .system_prompt("You keep secrets.")
        .register_tool(Unlock(unlocked.clone()))
        .register_tool(Secret(unlocked));
    let (agent, busts) = watched(builder, AgentConfig::default());
    agent.run("unlock it").await.unwrap();
    assert_eq!(
        *busts.lock().unwrap(),
        [(2, vec![PrefixChange::ToolsAdded(vec!["secret".into()])])]
    );
    // Registered last, it is appended: the tools before it keep their bytes, but the system
    // prompt and the messages come after the tools, so the cache serves only the tools before it.
    let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5").unwrap();
    let requests = llm.requests();
    let [first, second] = [&requests[0], &requests[1]].map(|r| client.request_body(r));
    assert_eq!(second["tools"][0], first["tools"][0]);
    assert_eq!(second["tools"][1]["name"], "secret");
}

fn two_turns() -> LlmRequest {
    LlmRequest::new(vec![
        phi_agent::llm::Message::user("hi"),
        phi_agent::llm::Message::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall::new("c1", "look", json!({}))],
        },
        phi_agent::llm::Message::Tool {
            tool_call_id: "c1".into(),
            name: "look".into(),
            content: vec![Content::text("seen")],
            is_error: false,
        },
    ])
    .with_system("Be brief.")
    .with_cache_key("session-1")
}

#[test]
fn anthropic_marks_the_system_prompt_and_the_last_two_user_turns() {
    let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5").unwrap();
    assert_eq!(client.prompt_cache(), PromptCache::FiveMinutes);
    let body = client.request_body(&two_turns());
    let ephemeral = json!({"type": "ephemeral"});
    assert_eq!(
        body["system"],
        json!([{"type": "text", "text": "Be brief.", "cache_control": ephemeral}])
    );
    assert_eq!(
        body["messages"][0]["content"][0]["cache_control"],
        ephemeral
    );
    assert_eq!(body["messages"][2]["content"][0]["type"], "tool_result");
    assert_eq!(
        body["messages"][2]["content"][0]["cache_control"],
        ephemeral
    );
    assert!(
        !marked(&body["messages"][1]["content"][0]),
        "not an assistant turn"
    );
    assert_eq!(breakpoints(&body), 3);

    let long = client.clone().with_prompt_cache(PromptCache::OneHour);
    let body = long.request_body(&two_turns());
    assert_eq!(
        body["system"][0]["cache_control"],
        json!({"type": "ephemeral", "ttl": "1h"})
    );

    let off = client.with_prompt_cache(PromptCache::Off);
    let body = off.request_body(&two_turns());
    assert_eq!(body["system"], "Be brief.");
    assert_eq!(breakpoints(&body), 0);
}

#[test]
fn anthropic_never_sends_more_than_four_breakpoints() {
    let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5").unwrap();
    let mut messages = Vec::new();
    for turn in 0..30 {
        messages.push(phi_agent::llm::Message::user(format!("question {turn}")));
        messages.push(phi_agent::llm::Message::assistant(format!("answer {turn}")));
    }
    messages.push(phi_agent::llm::Message::user("last"));
    let body = client.request_body(&LlmRequest::new(messages).with_system("s"));
    assert_eq!(breakpoints(&body), 3);
}

#[test]
fn openai_sends_the_session_as_prompt_cache_key_against_the_public_api_only() {
    let chat = OpenAiClient::new("sk-not-real", "gpt-4o-mini").unwrap();
    assert_eq!(
        chat.request_body(&two_turns())["prompt_cache_key"],
        "session-1"
    );
    let responses = ResponsesClient::new("sk-not-real", "gpt-4o-mini").unwrap();
    assert_eq!(
        responses.request_body(&two_turns())["prompt_cache_key"],
        "session-1"
    );
    // Another server may refuse a field it does not know: asked for, not assumed.
    let local = chat.clone().with_base_url("http://127.0.0.1:8000/v1");
    assert_eq!(local.prompt_cache(), PromptCache::Off);
    assert!(
        local
            .request_body(&two_turns())
            .get("prompt_cache_key")
            .is_none()
    );
    let asked = local.with_prompt_cache(PromptCache::FiveMinutes);
    assert_eq!(
        asked.request_body(&two_turns())["prompt_cache_key"],
        "session-1"
    );
    let off = chat.with_prompt_cache(PromptCache::Off);
    assert!(
        off.request_body(&two_turns())
            .get("prompt_cache_key")
            .is_none()
    );
    // A key longer than the API takes goes as a digest, the same every time.
    let long_key = two_turns().with_cache_key("k".repeat(100));
    let sent = responses.request_body(&long_key)["prompt_cache_key"].clone();
    assert_eq!(sent.as_str().unwrap().len(), 20, "{sent}");
    assert_eq!(responses.request_body(&long_key)["prompt_cache_key"], sent);
}

#[tokio::test]
async fn an_agent_run_keys_its_requests_with_its_session_id() {
    let llm = ScriptedLlm::new([LlmResponse::text("hi")]);
    let agent = PhiAgent::build(base_agent_builder(llm.clone()), AgentConfig::default()).unwrap();
    let mut session = agent.session();
    session.prompt("hello").await.unwrap();
    assert_eq!(llm.requests()[0].cache_key.as_deref(), Some(session.id()));
}

/// One row of the long-session figure: a request's bytes and what its input costs in units of
/// the plain input price per byte, without and with Anthropic's prompt cache.
struct Costs {
    bytes: Vec<usize>,
    /// Each request's bytes that match the previous request's from the start (tools, system,
    /// then whole messages, breakpoints left out): what the cache serves.
    cached: Vec<usize>,
}

impl Costs {
    fn of(requests: &[LlmRequest]) -> Self {
        let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5").unwrap();
        let parts = |request: &LlmRequest| -> Vec<String> {
            let body = unmarked(client.request_body(request));
            let mut parts = vec![body["tools"].to_string(), body["system"].to_string()];
            parts.extend(
                body["messages"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(Value::to_string),
            );
            parts
        };
        let mut bytes = Vec::new();
        let mut cached = Vec::new();
        let mut previous: Vec<String> = Vec::new();
        for request in requests {
            let now = parts(request);
            bytes.push(client.request_bytes(request).len());
            let same = now
                .iter()
                .zip(&previous)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a.len())
                .sum();
            cached.push(same);
            previous = now;
        }
        Self { bytes, cached }
    }

    /// The input billed over the session, relative to the plain price: without a cache every
    /// byte at 1; with a cache, a read and a write at the provider's ratios.
    fn billed(&self, prices: Option<CachePrices>) -> f64 {
        self.bytes
            .iter()
            .zip(&self.cached)
            .map(|(&all, &read)| match prices {
                None => all as f64,
                Some(prices) => read as f64 * prices.read + (all - read) as f64 * prices.write,
            })
            .sum()
    }
}

/// A provider's cached-input prices, as ratios of its plain input price.
#[derive(Clone, Copy)]
struct CachePrices {
    read: f64,
    write: f64,
}

/// The providers' published ratios (2026-12): Anthropic's 5-minute cache reads at 0.1 and
/// writes at 1.25; OpenAI's cached input (GPT-5 family) and Gemini 2.5's implicit cache read at
/// 0.1 and write at the plain price.
const PROVIDER_PRICES: [(&str, CachePrices); 3] = [
    (
        "Anthropic",
        CachePrices {
            read: 0.1,
            write: 1.25,
        },
    ),
    (
        "OpenAI",
        CachePrices {
            read: 0.1,
            write: 1.0,
        },
    ),
    (
        "Gemini",
        CachePrices {
            read: 0.1,
            write: 1.0,
        },
    ),
];

impl Costs {
    /// `billed` at Anthropic's prices, the ones the bounds below are asserted at.
    fn billed_anthropic(&self, caching: bool) -> f64 {
        self.billed(caching.then_some(PROVIDER_PRICES[0].1))
    }
}

/// 50 model requests in one session with 20 tools, each turn calling one tool whose result is
/// 2 KB: the request size per turn with and without a context policy, and the input billed
/// with and without Anthropic's prompt cache. Printed for BENCHMARKS.md
/// (`cargo test -p phi-agent --test core fifty_turns -- --nocapture`) and asserted.
#[tokio::test]
async fn fifty_turns_with_twenty_tools_stay_bounded_with_a_context_policy() {
    async fn session(policy: Option<ContextPolicy>) -> Vec<LlmRequest> {
        let mut replies: Vec<LlmResponse> = (0..49)
            .map(|turn| {
                let name = TOOL_NAMES[turn % TOOL_NAMES.len()];
                LlmResponse::tool_calls(vec![ToolCall::new(
                    format!("call_{turn}"),
                    name,
                    json!({}),
                )])
            })
            .collect();
        replies.push(LlmResponse::text("done"));
        let llm = ScriptedLlm::new(replies);
        let mut builder = base_agent_builder(llm.clone()).system_prompt("You run errands.");
        for name in TOOL_NAMES {
            builder = builder.register_tool(Report(name));
        }
        let mut config = AgentConfig::default().with_max_turns(50);
        if let Some(policy) = policy {
            config = config.with_context_policy(policy);
        }
        let agent = PhiAgent::build(builder, config).unwrap();
        agent.run("Run the errands.").await.unwrap();
        llm.requests()
    }
    let policy = ContextPolicy::keep_tool_results(4).with_batch_turns(8);
    let plain = Costs::of(&session(None).await);
    let policed = Costs::of(&session(Some(policy)).await);
    assert_eq!(plain.bytes.len(), 50);

    println!("| turn | request bytes, all results kept | with keep 4, batch 8 |");
    println!("|---|---|---|");
    for turn in [1, 10, 12, 13, 20, 21, 30, 40, 50] {
        println!(
            "| {turn} | {} | {} |",
            plain.bytes[turn - 1],
            policed.bytes[turn - 1]
        );
    }
    let ratio =
        |costs: &Costs, caching| costs.billed_anthropic(caching) / plain.billed_anthropic(false);
    for (provider, prices) in PROVIDER_PRICES {
        let at = |costs: &Costs| costs.billed(Some(prices)) / plain.billed(None);
        println!(
            "input billed at {provider}'s ratios, relative to all results kept without a cache: cached {:.3}, policy {:.3}, policy and cache {:.3}",
            at(&plain),
            policed.billed(None) / plain.billed(None),
            at(&policed),
        );
        // At every provider's prices, the cache and the policy together bill least.
        assert!(at(&policed) < at(&plain), "{provider}");
        assert!(
            at(&policed) < policed.billed(None) / plain.billed(None),
            "{provider}"
        );
    }

    // Without a policy each turn adds its 2 KB result: growth without end.
    assert!(plain.bytes[49] > plain.bytes[9] + 35 * 2_000);
    // With it, results older than the last keep + batch - 1 turns are gone: what still grows
    // is each turn's call and the one-line placeholder of its result, never the results.
    let (first, kept_results) = (policed.bytes[0], 4 + 8 - 1);
    for (turn, &bytes) in policed.bytes.iter().enumerate() {
        let bound = first + kept_results * 2_200 + turn * 400;
        assert!(bytes <= bound, "request {turn}: {bytes} bytes > {bound}");
    }
    assert!(policed.bytes[49] * 3 < plain.bytes[49]);
    // The cache serves all but each turn's new part, and the policy busts it only once per
    // batch: both together bill less than either alone.
    assert!(ratio(&plain, true) < 0.25);
    assert!(ratio(&policed, true) < ratio(&policed, false));
    assert!(ratio(&policed, true) < ratio(&plain, true));
    let busts = policed
        .cached
        .iter()
        .zip(&policed.bytes)
        .skip(1)
        .filter(|(read, all)| (**read as f64) < 0.5 * **all as f64)
        .count();
    println!(
        "requests with the policy that read less than half their bytes from the cache: {busts}"
    );
    assert!(busts <= 50 / 8, "{busts} requests mostly uncached");
}

const TOOL_NAMES: [&str; 20] = [
    "check_mail",
    "read_calendar",
    "book_room",
    "order_lunch",
    "pay_invoice",
    "file_expense",
    "call_taxi",
    "track_parcel",
    "renew_permit",
    "water_plants",
    "feed_cat",
    "buy_stamps",
    "print_report",
    "scan_receipt",
    "update_wiki",
    "close_ticket",
    "plan_trip",
    "check_weather",
    "reserve_table",
    "send_flowers",
];

/// A tool whose result is 2 KB of report.
struct Report(&'static str);

#[async_trait]
impl Tool for Report {
    fn name(&self) -> &'static str {
        self.0
    }
    fn description(&self) -> &'static str {
        "Do one errand and report on it in detail"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"note": {"type": "string", "description": "Anything to mention"}}})
    }
    async fn call(&self, _: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let line = format!("{} for {}: all went as planned. ", self.0, ctx.session_id());
        Ok(vec![Content::text(
            line.repeat(2_000 / line.len() + 1)[..2_000].to_string(),
        )])
    }
}

/// Steers its session while it runs (as a person would, from elsewhere), then takes a while to
/// finish: the message must wait for it.
struct Measure {
    steering: Arc<Mutex<Option<Steering>>>,
    finished: Arc<AtomicBool>,
}

#[async_trait]
impl Tool for Measure {
    fn name(&self) -> &'static str {
        "measure"
    }
    fn description(&self) -> &'static str {
        "Measure the room"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        let steering = self.steering.lock().unwrap().clone().unwrap();
        steering.send("Use metric units.");
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        self.finished.store(true, Ordering::SeqCst);
        Ok(vec![Content::text("12 by 15 feet")])
    }
}

#[tokio::test]
async fn a_steering_message_lands_in_the_next_request_after_the_running_tool_completes() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "measure", json!({}))]),
        LlmResponse::text("3.7 by 4.6 metres"),
    ]);
    let slot = Arc::new(Mutex::new(None));
    let finished = Arc::new(AtomicBool::new(false));
    let steered = Arc::new(Mutex::new(Vec::new()));
    let seen = steered.clone();
    let builder = base_agent_builder(llm.clone())
        .register_tool(Measure {
            steering: slot.clone(),
            finished: finished.clone(),
        })
        .observer(move |event: &AgentEvent<'_>| {
            if let AgentEvent::Steered { turn, text } = event {
                seen.lock().unwrap().push((*turn, text.to_string()));
            }
        });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let mut session = agent.session();
    *slot.lock().unwrap() = Some(session.steering());

    let mut events = session.prompt("How big is the room?").stream();
    let mut order = Vec::new();
    while let Some(event) = events.next().await {
        match event.unwrap() {
            StreamEvent::ToolFinished { result, .. } => {
                assert!(!result.is_error, "the running tool was not cancelled");
                order.push("tool finished".to_string());
            }
            StreamEvent::Steered { turn, text } => order.push(format!("steered {turn}: {text}")),
            StreamEvent::Finished(output) => assert_eq!(output.text, "3.7 by 4.6 metres"),
            _ => {}
        }
    }
    drop(events);
    assert!(finished.load(Ordering::SeqCst));
    assert_eq!(order, ["tool finished", "steered 2: Use metric units."]);
    assert_eq!(
        *steered.lock().unwrap(),
        [(2, "Use metric units.".to_string())]
    );

    let requests = llm.requests();
    let next = &requests[1].messages;
    assert!(
        matches!(&next[next.len() - 2], Message::Tool { tool_call_id, .. } if tool_call_id == "c1"),
        "the call keeps its result, first: {next:?}"
    );
    assert_eq!(next[next.len() - 1], Message::user("Use metric units."));
    assert_eq!(
        requests[0].messages.len(),
        1,
        "nothing queued before the run"
    );
    assert_eq!(session.steering().pending(), 0);
    assert_eq!(session.history()[3], Message::user("Use metric units."));
}

#[tokio::test]
async fn a_cleared_result_is_read_back_with_read_result_offered_once_something_was_cleared() {
    let look = |id: &str| LlmResponse::tool_calls(vec![ToolCall::new(id, "look", json!({}))]);
    let llm = ScriptedLlm::new([
        look("c1"),
        look("c2"),
        look("c3"),
        LlmResponse::tool_calls(vec![ToolCall::new(
            "r1",
            READ_RESULT_TOOL_NAME,
            json!({"id": "c1", "length": 40}),
        )]),
        LlmResponse::text("read it"),
    ]);
    let store = Arc::new(MemoryResultStore::default());
    let policy = ContextPolicy::keep_tool_results(1)
        .with_batch_turns(1)
        .with_result_store(store.clone());
    let builder = base_agent_builder(llm.clone()).register_tool(Report("look"));
    let agent =
        PhiAgent::build(builder, AgentConfig::default().with_context_policy(policy)).unwrap();
    let mut session = agent.session();
    let output = session.prompt("Look around.").await.unwrap();
    assert_eq!(output.text, "read it");

    let requests = llm.requests();
    let offered = |n: usize| {
        requests[n]
            .tools
            .iter()
            .any(|t| t.name == READ_RESULT_TOOL_NAME)
    };
    assert!(
        !offered(0) && !offered(1) && !offered(2),
        "nothing cleared yet"
    );
    assert!(offered(3), "offered once c1 was cleared (before request 3)");
    let result_of = |n: usize, id: &str| {
        requests[n].messages.iter().find_map(|m| match m {
            Message::Tool {
                tool_call_id,
                content,
                ..
            } if tool_call_id == id => Some(content[0].as_text().unwrap().to_string()),
            _ => None,
        })
    };
    let placeholder = result_of(2, "c1").unwrap();
    assert!(
        placeholder.contains("read it back with `read_result`"),
        "{placeholder}"
    );
    let read = result_of(4, "r1").unwrap();
    assert!(
        read.starts_with("characters 0..40 of 2000:\nlook for session-"),
        "{read}"
    );
    assert!(store.holds_any(session.id()));
    let kept = store.get(session.id(), "c1").unwrap();
    assert_eq!(kept[0].as_text().unwrap().len(), 2_000, "the whole result");
}

#[test]
fn a_tool_named_read_result_is_refused_when_the_policy_has_a_store() {
    let policy = ContextPolicy::keep_tool_results(2)
        .with_result_store(Arc::new(MemoryResultStore::default()));
    let builder =
        base_agent_builder(ScriptedLlm::new([])).register_tool(Report(READ_RESULT_TOOL_NAME));
    let error =
        PhiAgent::build(builder, AgentConfig::default().with_context_policy(policy)).unwrap_err();
    assert!(error.to_string().contains(READ_RESULT_TOOL_NAME), "{error}");
}
