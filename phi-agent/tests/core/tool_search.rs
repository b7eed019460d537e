//! Tool search: the ranking's quality on a fixture of realistic tools and queries
//! (`tool_search_fixture.txt`), and the agent loop with thousands of Deferred tools on the
//! scripted model.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use phi_agent::llm::{
    LlmClient, LlmRequest, LlmResponse, Message, ScriptedLlm, ToolCall, ToolSearchCall, definition,
};
use phi_agent::registry::ToolRegistry;
use phi_agent::search::{SEARCH_TOOL_NAME, ToolIndex};
use phi_agent::{
    AgentConfig, AgentError, AgentEvent, AgentResult, Content, PhiAgent, Tool, ToolContext,
    ToolExposure, ToolSearch, base_agent_builder,
};
use serde_json::{Map, Value, json};

const FIXTURE: &str = include_str!("tool_search_fixture.txt");

/// A tool of the fixture (or a filler, or a held-out catalogue's): answers `ran <name>`.
pub(crate) struct Listed {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) schema: Value,
    pub(crate) exposure: ToolExposure,
}

#[async_trait]
impl Tool for Listed {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn schema(&self) -> Value {
        self.schema.clone()
    }
    fn exposure(&self) -> ToolExposure {
        self.exposure
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(format!("ran {}", self.name))])
    }
}

pub(crate) struct Query {
    pub(crate) kind: &'static str,
    pub(crate) text: &'static str,
    pub(crate) expected: &'static str,
}

/// The fixture's tools (Deferred) and queries.
pub(crate) fn fixture() -> (Vec<Listed>, Vec<Query>) {
    let mut tools = Vec::new();
    let mut queries = Vec::new();
    for line in FIXTURE.lines() {
        if let Some(record) = line.strip_prefix("T ") {
            let parts: Vec<&'static str> = record.split(" | ").map(str::trim).collect();
            let mut properties = Map::new();
            for parameter in parts.get(2).unwrap_or(&"").split("; ") {
                let (name, doc) = parameter.split_once(": ").unwrap_or((parameter, ""));
                if !name.trim().is_empty() {
                    properties.insert(
                        name.trim().to_string(),
                        json!({"type": "string", "description": doc.trim()}),
                    );
                }
            }
            tools.push(Listed {
                name: parts[0],
                description: parts[1],
                schema: json!({"type": "object", "properties": properties}),
                exposure: ToolExposure::Deferred,
            });
        } else if let Some(record) = line.strip_prefix("Q ") {
            let parts: Vec<&'static str> = record.split(" | ").map(str::trim).collect();
            queries.push(Query {
                kind: parts[0],
                text: parts[1],
                expected: parts[2],
            });
        }
    }
    (tools, queries)
}

#[test]
fn the_fixture_is_large_and_varied() {
    let (tools, queries) = fixture();
    assert!(tools.len() >= 300, "{} tools", tools.len());
    let domains = FIXTURE
        .lines()
        .skip_while(|line| !line.starts_with("T "))
        .filter(|line| line.starts_with("# ") && !line.starts_with("# queries"))
        .count()
        + 1;
    assert!(domains >= 25, "{domains} domains");
    assert!(queries.len() >= 100, "{} queries", queries.len());
    for query in &queries {
        assert!(
            tools.iter().any(|tool| tool.name == query.expected),
            "{}",
            query.expected
        );
    }
}

/// Recall@5 and mean reciprocal rank per kind of query and overall; fails below 0.85 recall
/// overall or 0.70 on paraphrases. `cargo test -p phi-agent --test core recall -- --nocapture`
/// prints the table that BENCHMARKS.md reports.
#[test]
fn recall_at_5_and_mrr_on_the_fixture() {
    let (tools, queries) = fixture();
    let mut registry = ToolRegistry::default();
    for tool in tools {
        registry.register(tool).unwrap();
    }
    let index = ToolIndex::build(&registry);
    assert_eq!(index.len(), registry.len());

    // kind → (queries, found in the top 5, sum of reciprocal ranks)
    let mut table: BTreeMap<&str, (usize, usize, f64)> = BTreeMap::new();
    let mut misses = Vec::new();
    for query in &queries {
        let hits = index.search(query.text, 5);
        let rank = hits.iter().position(|hit| hit.name == query.expected);
        for kind in [query.kind, "overall"] {
            let row = table.entry(kind).or_default();
            row.0 += 1;
            if let Some(rank) = rank {
                row.1 += 1;
                row.2 += 1.0 / (rank + 1) as f64;
            }
        }
        if rank.is_none() {
            let got: Vec<&str> = hits.iter().map(|hit| hit.name).collect();
            misses.push(format!(
                "  [{}] {:?}: want {}, got {got:?}",
                query.kind, query.text, query.expected
            ));
        }
    }
    println!("| Queries | n | recall@5 | MRR |\n|---|---|---|---|");
    let mut figures = BTreeMap::new();
    for (kind, (n, found, reciprocal)) in &table {
        let recall = *found as f64 / *n as f64;
        let mrr = reciprocal / *n as f64;
        println!("| {kind} | {n} | {recall:.3} | {mrr:.3} |");
        figures.insert(*kind, recall);
    }
    println!("misses:\n{}", misses.join("\n"));
    assert!(
        figures["overall"] >= 0.85,
        "recall@5 overall {:.3} < 0.85",
        figures["overall"]
    );
    assert!(
        figures["paraphrase"] >= 0.70,
        "recall@5 on paraphrases {:.3} < 0.70",
        figures["paraphrase"]
    );
}

/// 5,000 Deferred tools (the fixture's, then fillers) and 3 Direct ones.
fn large_agent(llm: ScriptedLlm, search: ToolSearch) -> PhiAgent {
    large_agent_on(llm, search)
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

fn large_agent_on(llm: impl LlmClient + 'static, search: ToolSearch) -> PhiAgent {
    let (fixture_tools, _) = fixture();
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    for name in ["get_time", "ask_user", "finish"] {
        tools.push(Arc::new(Listed {
            name,
            description: "Always at hand",
            schema: json!({"type": "object", "properties": {}}),
            exposure: ToolExposure::Direct,
        }));
    }
    let fillers = 5_000 - fixture_tools.len();
    tools.extend(
        fixture_tools
            .into_iter()
            .map(|tool| Arc::new(tool) as Arc<dyn Tool>),
    );
    for i in 0..fillers {
        let name: &'static str = Box::leak(format!("inventory_widget_{i}").into_boxed_str());
        tools.push(Arc::new(Listed {
            name,
            description: "Report the stock level of one warehouse widget.",
            schema: json!({"type": "object", "properties": {"bin": {"type": "string", "description": "Shelf bin"}}}),
            exposure: ToolExposure::Deferred,
        }));
    }
    let config = AgentConfig::default().with_tool_search(search);
    PhiAgent::build(base_agent_builder(llm).register_tools(tools), config).unwrap()
}

fn names(tools: &[phi_agent::llm::ToolSpec]) -> Vec<&'static str> {
    tools.iter().map(|tool| tool.name).collect()
}

fn tool_texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool { content, .. } => Some(content[0].to_model_text()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_found_tool_is_callable_from_the_next_turn_and_the_list_only_grows_at_its_end() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "s1",
            SEARCH_TOOL_NAME,
            json!({"query": "create calendar event"}),
        )]),
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            "create_calendar_event",
            json!({"title": "sync"}),
        )]),
        LlmResponse::text("booked"),
    ]);
    let agent = large_agent(llm.clone(), ToolSearch::Local);
    assert_eq!(agent.registry().len(), 5_003);
    let mut session = agent.session();
    let output = session.prompt("Put a sync on my calendar").await.unwrap();
    assert_eq!(output.text, "booked");

    let requests = llm.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        names(&requests[0].tools),
        ["get_time", "ask_user", "finish", SEARCH_TOOL_NAME],
        "the first request carries the Direct tools and the search tool only"
    );
    let second = names(&requests[1].tools);
    assert_eq!(&second[..4], &names(&requests[0].tools)[..]);
    assert!(second[4..].contains(&"create_calendar_event"), "{second:?}");
    assert!(
        second.len() <= 4 + 5,
        "at most the default limit of 5 found: {second:?}"
    );

    // The earlier entries are the very same definitions, byte for byte, in every turn.
    for request in &requests[1..] {
        for (before, after) in requests[0].tools.iter().zip(request.tools.iter()) {
            assert_eq!(
                definition::openai(before).to_string(),
                definition::openai(after).to_string()
            );
            assert_eq!(
                definition::anthropic(before).to_string(),
                definition::anthropic(after).to_string()
            );
        }
    }
    let texts = tool_texts(&output.messages);
    assert!(
        texts[0].contains("- create_calendar_event: "),
        "{}",
        texts[0]
    );
    assert_eq!(texts[1], "ran create_calendar_event");
    assert!(
        session
            .active_tools()
            .names()
            .contains(&"create_calendar_event".to_string()),
        "found tools stay active for the session"
    );
}

#[tokio::test]
async fn sessions_that_found_nothing_share_one_tool_list() {
    let llm = ScriptedLlm::new([LlmResponse::text("one"), LlmResponse::text("two")]);
    let agent = large_agent(llm.clone(), ToolSearch::Local);
    agent.run("first").await.unwrap();
    agent.run("second").await.unwrap();
    let requests = llm.requests();
    assert!(
        Arc::ptr_eq(&requests[0].tools, &requests[1].tools),
        "one list, so the adapter serializes it once"
    );
}

#[tokio::test]
async fn a_tool_not_yet_found_is_not_available() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "delete_branch", json!({}))]),
        LlmResponse::text("could not"),
    ]);
    let agent = large_agent(llm.clone(), ToolSearch::Local);
    let output = agent.run("Delete the old branch").await.unwrap();
    let texts = tool_texts(&output.messages);
    assert!(
        texts[0].starts_with("tool `delete_branch` is not available"),
        "{}",
        texts[0]
    );
    // The list of available tools names only those found so far; the model is told how to
    // find more, in the same words for a tool that does not exist (nothing leaks).
    assert!(
        texts[0].ends_with(
            "to find more, call `search_tools` with words of what the tool does, then call a tool it finds"
        ),
        "{}",
        texts[0]
    );
    assert_eq!(llm.requests()[1].tools.len(), 4, "nothing was revealed");

    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "no_such_tool", json!({}))]),
        LlmResponse::text("could not"),
    ]);
    let output = large_agent(llm, ToolSearch::Local)
        .run("Delete the old branch")
        .await
        .unwrap();
    let unknown = tool_texts(&output.messages)[0].clone();
    assert_eq!(
        unknown.replace("no_such_tool", "delete_branch"),
        texts[0],
        "an unknown tool is told the same"
    );

    // Without tool search there is nothing to search with, and no hint.
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "no_such_tool", json!({}))]),
        LlmResponse::text("could not"),
    ]);
    let output = large_agent(llm, ToolSearch::Off)
        .run("Delete the old branch")
        .await
        .unwrap();
    let without = tool_texts(&output.messages)[0].clone();
    assert!(!without.contains("search_tools"), "{without}");
}

/// A search as an observer saw it: turn, query, tools found.
type Search = (usize, String, Vec<&'static str>);

#[tokio::test]
async fn searches_are_reported_to_observers_and_found_tools_accumulate() {
    let (tools, _) = fixture();
    let events: Arc<Mutex<Vec<Search>>> = Arc::default();
    let sink = events.clone();
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "s1",
            SEARCH_TOOL_NAME,
            json!({"query": "delete git branch", "limit": 1}),
        )]),
        LlmResponse::tool_calls(vec![ToolCall::new(
            "s2",
            SEARCH_TOOL_NAME,
            json!({"query": "track package", "limit": 2}),
        )]),
        LlmResponse::text("done"),
    ]);
    let builder = base_agent_builder(llm.clone())
        .register_tools(
            tools
                .into_iter()
                .map(|t| Arc::new(t) as Arc<dyn Tool>)
                .collect(),
        )
        .observer(move |event: &AgentEvent<'_>| {
            if let AgentEvent::ToolsFound { turn, query, names } = event {
                sink.lock()
                    .unwrap()
                    .push((*turn, query.to_string(), names.to_vec()));
            }
        });
    let config = AgentConfig::default().with_tool_search(ToolSearch::Native);
    let agent = PhiAgent::build(builder, config).unwrap();
    agent.run("clean up").await.unwrap();

    let events = events.lock().unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!(
        events[0],
        (1, "delete git branch".into(), vec!["delete_branch"])
    );
    assert_eq!(events[1].0, 2);
    assert_eq!(events[1].2[0], "track_package");
    let requests = llm.requests();
    assert_eq!(
        names(&requests[1].tools),
        [SEARCH_TOOL_NAME, "delete_branch"]
    );
    let third = names(&requests[2].tools);
    assert_eq!(&third[..2], [SEARCH_TOOL_NAME, "delete_branch"]);
    assert_eq!(third[2], "track_package", "appended in the order found");
}

#[tokio::test]
async fn automatic_mode_searches_only_above_its_threshold() {
    let small = || {
        fixture()
            .0
            .into_iter()
            .take(20)
            .map(|t| Arc::new(t) as Arc<dyn Tool>)
            .collect::<Vec<_>>()
    };
    for (threshold, expected) in [(50, 20), (19, 1)] {
        let llm = ScriptedLlm::new([LlmResponse::text("hi")]);
        let config = AgentConfig::default().with_tool_search(ToolSearch::Auto { threshold });
        let agent = PhiAgent::build(
            base_agent_builder(llm.clone()).register_tools(small()),
            config,
        )
        .unwrap();
        agent.run("hello").await.unwrap();
        let tools = names(&llm.requests()[0].tools);
        assert_eq!(tools.len(), expected, "threshold {threshold}: {tools:?}");
        assert_eq!(tools.contains(&SEARCH_TOOL_NAME), expected == 1);
    }
}

#[tokio::test]
async fn search_off_sends_deferred_tools_as_before() {
    let llm = ScriptedLlm::new([LlmResponse::text("hi")]);
    let tools: Vec<Arc<dyn Tool>> = fixture()
        .0
        .into_iter()
        .take(3)
        .map(|t| Arc::new(t) as Arc<dyn Tool>)
        .collect();
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone()).register_tools(tools),
        AgentConfig::default(),
    )
    .unwrap();
    agent.run("hello").await.unwrap();
    assert_eq!(
        names(&llm.requests()[0].tools),
        [
            "list_calendar_events",
            "search_calendar_events",
            "create_calendar_event"
        ]
    );
}

#[test]
fn a_tool_named_like_the_search_tool_is_refused_while_searching() {
    let clash = || Listed {
        name: SEARCH_TOOL_NAME,
        description: "Mine",
        schema: json!({"type": "object"}),
        exposure: ToolExposure::Direct,
    };
    let config = AgentConfig::default().with_tool_search(ToolSearch::Local);
    let error = PhiAgent::build(
        base_agent_builder(ScriptedLlm::new([])).register_tool(clash()),
        config,
    )
    .unwrap_err();
    assert!(matches!(error, AgentError::Config(message) if message.contains(SEARCH_TOOL_NAME)));
    assert!(
        PhiAgent::build(
            base_agent_builder(ScriptedLlm::new([])).register_tool(clash()),
            AgentConfig::default()
        )
        .is_ok()
    );
}

#[tokio::test]
async fn bad_search_arguments_are_an_error_the_model_reads() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("s1", SEARCH_TOOL_NAME, json!({"q": 1}))]),
        LlmResponse::text("ok"),
    ]);
    let agent = large_agent(llm, ToolSearch::Local);
    let output = agent.run("x").await.unwrap();
    assert!(output.tool_calls[0].is_error);
    assert!(tool_texts(&output.messages)[0].contains("query"));
}

#[tokio::test]
async fn with_a_native_search_the_tools_are_sent_deferred_and_found_ones_callable_at_once() {
    let search = ToolSearchCall::new(
        "srvtoolu_1",
        json!({"query": "create calendar event"}),
        ["create_calendar_event", "not_registered"],
    );
    let mut found = LlmResponse::tool_calls(vec![ToolCall::new(
        "c1",
        "create_calendar_event",
        json!({}),
    )]);
    found.tool_searches = vec![search.clone()];
    let llm = ScriptedLlm::new([found, LlmResponse::text("booked")]);
    let agent = large_agent_on(NativeSearching(llm.clone()), ToolSearch::Native);
    let output = agent.run("Put a sync on my calendar").await.unwrap();

    let requests = llm.requests();
    assert_eq!(
        names(&requests[0].tools),
        ["get_time", "ask_user", "finish"]
    );
    assert_eq!(requests[0].deferred_tools.len(), 5_000);
    assert_eq!(
        tool_texts(&output.messages),
        ["ran create_calendar_event"],
        "found by the provider and called in the same reply"
    );
    assert!(
        Arc::ptr_eq(&requests[0].tools, &requests[1].tools)
            && Arc::ptr_eq(&requests[0].deferred_tools, &requests[1].deferred_tools),
        "a found tool stays deferred: the tools array is the same from turn to turn"
    );
    assert_eq!(
        output.messages[1],
        Message::ToolSearch(search),
        "kept for replay"
    );
    assert!(matches!(output.messages[2], Message::Assistant { .. }));
}

#[tokio::test]
async fn a_native_search_cannot_reveal_what_is_not_discoverable() {
    let mut reply = LlmResponse::tool_calls(vec![ToolCall::new("c1", "get_time", json!({}))]);
    reply.tool_searches = vec![ToolSearchCall::new(
        "s",
        json!({"query": "x"}),
        ["get_time"],
    )];
    let events: Arc<Mutex<Vec<Vec<&'static str>>>> = Arc::default();
    let sink = events.clone();
    let llm = ScriptedLlm::new([reply, LlmResponse::text("ok")]);
    let builder = base_agent_builder(NativeSearching(llm))
        .register_tools(
            fixture()
                .0
                .into_iter()
                .take(5)
                .map(|t| Arc::new(t) as Arc<dyn Tool>)
                .collect(),
        )
        .register_tool(Listed {
            name: "get_time",
            description: "Always at hand",
            schema: json!({"type": "object", "properties": {}}),
            exposure: ToolExposure::Direct,
        })
        .observer(move |event: &AgentEvent<'_>| {
            if let AgentEvent::ToolsFound { names, .. } = event {
                sink.lock().unwrap().push(names.to_vec());
            }
        });
    let config = AgentConfig::default().with_tool_search(ToolSearch::Auto { threshold: 2 });
    let agent = PhiAgent::build(builder, config).unwrap();
    agent.run("time?").await.unwrap();
    assert_eq!(
        *events.lock().unwrap(),
        [Vec::<&str>::new()],
        "a Direct tool is not discoverable"
    );
}

/// A Direct tool every call of which waits for a person.
struct Wipe;

#[async_trait]
impl Tool for Wipe {
    fn name(&self) -> &'static str {
        "wipe_cache"
    }
    fn description(&self) -> &'static str {
        "Wipe the cache"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("wiped")])
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_approval(phi_agent::ToolApproval::Always)
    }
}

/// The fixture's tools (Deferred, so searched for) and `wipe_cache`, on `llm`.
fn searching_agent_with_approval(llm: ScriptedLlm) -> PhiAgent {
    let (fixture_tools, _) = fixture();
    let mut tools: Vec<Arc<dyn Tool>> = vec![Arc::new(Wipe)];
    tools.extend(
        fixture_tools
            .into_iter()
            .map(|tool| Arc::new(tool) as Arc<dyn Tool>),
    );
    let config = AgentConfig::default().with_tool_search(ToolSearch::Local);
    PhiAgent::build(base_agent_builder(llm).register_tools(tools), config).unwrap()
}

#[tokio::test]
async fn what_a_paused_turn_found_is_callable_after_resuming_in_another_agent() {
    let first = ScriptedLlm::new([LlmResponse::tool_calls(vec![
        ToolCall::new(
            "s1",
            SEARCH_TOOL_NAME,
            json!({"query": "create calendar event"}),
        ),
        ToolCall::new("w1", "wipe_cache", json!({})),
    ])]);
    let paused = match searching_agent_with_approval(first)
        .start("Book a sync, then wipe the cache")
        .await
        .unwrap()
    {
        phi_agent::RunOutcome::Paused(paused) => paused,
        phi_agent::RunOutcome::Done(output) => panic!("expected a pause, got {output:?}"),
    };
    assert_eq!(paused.pending().len(), 1, "only the wipe waits");
    let stored = serde_json::to_string(&paused).unwrap();

    // Another process: a fresh agent with the same tools, the stored state, a decision.
    let second = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            "create_calendar_event",
            json!({"title": "sync"}),
        )]),
        LlmResponse::text("booked and wiped"),
    ]);
    let agent = searching_agent_with_approval(second.clone());
    let mut paused: phi_agent::PausedRun = serde_json::from_str(&stored).unwrap();
    paused.approve("w1").unwrap();
    let output = match agent.resume(paused).await.unwrap() {
        phi_agent::RunOutcome::Done(output) => output,
        phi_agent::RunOutcome::Paused(_) => panic!("every call was decided"),
    };
    assert_eq!(output.text, "booked and wiped");
    let texts = tool_texts(&output.messages);
    assert!(
        texts.contains(&"ran create_calendar_event".to_string()),
        "the tool found before the pause ran after it: {texts:?}"
    );
    assert!(texts.contains(&"wiped".to_string()), "{texts:?}");
    let requests = second.requests();
    assert!(
        names(&requests[0].tools).contains(&"create_calendar_event"),
        "the resumed run's first request offers the found tool"
    );
}

/// CJK and Thai write no spaces between words: a query in those scripts still finds the tool
/// whose description says it, among the fixture's 329 English tools.
#[test]
fn a_cjk_or_thai_query_finds_its_tool() {
    let (mut tools, _) = fixture();
    let localized = [
        ("zh_weather_forecast", "查询城市未来七天的天气预报。"),
        ("ja_train_timetable", "駅の電車の時刻表を調べます。"),
        ("ko_restaurant_booking", "식당 예약을 합니다."),
        ("th_currency_rate", "ดูอัตราแลกเปลี่ยนเงินตราต่างประเทศ"),
    ];
    for (name, description) in localized {
        tools.push(Listed {
            name,
            description,
            schema: json!({"type": "object", "properties": {}}),
            exposure: ToolExposure::Deferred,
        });
    }
    let mut registry = ToolRegistry::default();
    for tool in tools {
        registry.register(tool).unwrap();
    }
    let index = ToolIndex::build(&registry);
    for (query, expected) in [
        ("北京明天的天气怎么样？", "zh_weather_forecast"),
        ("東京駅の時刻表", "ja_train_timetable"),
        ("오늘 저녁 식당 예약", "ko_restaurant_booking"),
        ("อัตราแลกเปลี่ยนวันนี้", "th_currency_rate"),
    ] {
        let hits = index.search(query, 5);
        assert_eq!(
            hits.first().map(|hit| hit.name),
            Some(expected),
            "{query}: {hits:?}"
        );
    }
}
