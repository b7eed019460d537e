//! A hostile or confused model, played by the scripted model: it calls tools that do not exist or
//! that it may not see, sends arguments that are not JSON, of the wrong type, too large, too deep
//! or with absurd numbers, repeats call ids, floods a turn with calls, and repeats a failing call
//! without end. Every case must end in results the model can act on, or in a clear error, never
//! in a panic, and within bounded time (tokio's paused clock) and size.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall, parse_response_body};
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    ActivationContext, AgentConfig, AgentError, AgentResult, Content, PhiAgent, Tool, ToolConfig,
    ToolContext, ToolExposure, TypedTool, base_agent_builder,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
struct ForecastArgs {
    city: String,
    days: u8,
}

/// A typed tool: arguments are decoded into `ForecastArgs`.
struct Forecast;

#[async_trait]
impl TypedTool for Forecast {
    type Args = ForecastArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "forecast"
    }
    fn description(&self) -> &'static str {
        "Weather for a city"
    }
    async fn call_typed(&self, args: ForecastArgs, _: &ToolContext) -> AgentResult<String> {
        Ok(format!("{}: sunny for {} days", args.city, args.days))
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StrictArgs {
    #[allow(dead_code)]
    id: u32,
}

/// A typed tool that refuses unknown fields.
struct Strict;

#[async_trait]
impl TypedTool for Strict {
    type Args = StrictArgs;
    type Output = &'static str;
    fn name(&self) -> &'static str {
        "strict"
    }
    fn description(&self) -> &'static str {
        "Takes exactly an id"
    }
    async fn call_typed(&self, _: StrictArgs, _: &ToolContext) -> AgentResult<&'static str> {
        Ok("ok")
    }
}

/// The forecast as a macro tool: its arguments refuse unknown fields.
#[phi_agent::phi_tool]
fn weather(city: String, #[phi(default = 1)] days: u8) -> String {
    format!("{city}: sunny for {days} days")
}

/// A hand-written tool that counts its runs; its exposure and failure are chosen per test.
struct Counted {
    name: &'static str,
    exposure: ToolExposure,
    fails: bool,
    runs: Arc<AtomicUsize>,
}

impl Counted {
    fn new(name: &'static str, exposure: ToolExposure, fails: bool) -> (Self, Arc<AtomicUsize>) {
        let runs = Arc::new(AtomicUsize::new(0));
        let tool = Counted {
            name,
            exposure,
            fails,
            runs: runs.clone(),
        };
        (tool, runs)
    }
}

#[async_trait]
impl Tool for Counted {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "counts its runs"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    fn exposure(&self) -> ToolExposure {
        self.exposure
    }
    async fn should_activate(&self, _: &ActivationContext) -> bool {
        false
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(10)).await;
        if self.fails {
            return Err(AgentError::tool("the service is down; try again later"));
        }
        Ok(vec![Content::text(format!("ran with {args}"))])
    }
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// Tool results of a transcript: (call id, text, is_error).
fn results(messages: &[Message]) -> Vec<(String, String, bool)> {
    messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                ..
            } => Some((
                tool_call_id.clone(),
                content
                    .iter()
                    .map(Content::to_model_text)
                    .collect::<String>(),
                *is_error,
            )),
            _ => None,
        })
        .collect()
}

/// Runs one turn of `calls` followed by a text answer, and returns the tool results.
async fn one_turn(
    agent_tools: Vec<Arc<dyn Tool>>,
    calls: Vec<ToolCall>,
) -> Vec<(String, String, bool)> {
    one_turn_with(agent_tools, calls, AgentConfig::default()).await
}

async fn one_turn_with(
    agent_tools: Vec<Arc<dyn Tool>>,
    calls: Vec<ToolCall>,
    config: AgentConfig,
) -> Vec<(String, String, bool)> {
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(calls), LlmResponse::text("done")]);
    let agent =
        PhiAgent::build(base_agent_builder(llm).register_tools(agent_tools), config).unwrap();
    let output = agent.run("go").await.unwrap();
    assert_eq!(output.text, "done");
    results(&output.messages)
}

#[tokio::test(start_paused = true)]
async fn unknown_hidden_and_inactive_tools_are_refused_alike_and_never_run() {
    let (open, open_runs) = Counted::new("open", ToolExposure::Direct, false);
    let (vault, vault_runs) = Counted::new("vault", ToolExposure::Hidden, false);
    let (later, later_runs) = Counted::new("later", ToolExposure::Deferred, false);
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![
            call("a", "nope", json!({})),
            call("b", "vault", json!({})),
            call("c", "later", json!({})),
            call("d", "", json!({})),
            call("e", "VAULT", json!({})),
            call("f", "vault\u{0}", json!({})),
            call("g", &"x".repeat(100_000), json!({})),
        ]),
        LlmResponse::text("done"),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone())
            .register_tool(open)
            .register_tool(vault)
            .register_tool(later),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("try everything").await.unwrap();
    let got = results(&output.messages);
    assert_eq!(got.len(), 7);
    for (id, text, is_error) in &got {
        assert!(is_error, "{id}: {text}");
        assert!(
            text.ends_with("is not available; available tools: open"),
            "{id}: {text}"
        );
        assert!(!text.contains("later") || id == "c", "{text}");
    }
    // The refusal of the hidden tool reads exactly like that of a name that never existed.
    assert_eq!(
        got[1].1.replace("`vault`", "`X`"),
        got[0].1.replace("`nope`", "`X`")
    );
    assert_eq!(vault_runs.load(Ordering::SeqCst), 0);
    assert_eq!(later_runs.load(Ordering::SeqCst), 0);
    assert_eq!(open_runs.load(Ordering::SeqCst), 0);
    for request in llm.requests() {
        let names: Vec<&str> = request.tools.iter().map(|t| t.name).collect();
        assert_eq!(names, ["open"]);
    }
}

#[tokio::test(start_paused = true)]
async fn malformed_arguments_get_errors_that_say_what_to_fix() {
    let tools: Vec<Arc<dyn Tool>> = vec![Arc::new(Forecast), Arc::new(Strict), Arc::new(Weather)];
    let got = one_turn(
        tools,
        vec![
            call("text", "forecast", json!("{city: Oslo")),
            call("array", "forecast", json!(["Oslo", 3])),
            call("number", "forecast", json!(7)),
            call("bool", "forecast", json!(true)),
            call("type", "forecast", json!({"city": 5, "days": 1})),
            call("missing", "forecast", json!({"city": "Oslo"})),
            call("range", "forecast", json!({"city": "Oslo", "days": 300})),
            call("negative", "forecast", json!({"city": "Oslo", "days": -1})),
            call("float", "forecast", json!({"city": "Oslo", "days": 2.5})),
            call(
                "extra",
                "forecast",
                json!({"city": "Oslo", "days": 2, "units": "C"}),
            ),
            call("strict", "strict", json!({"id": 1, "sneaky": true})),
            call("macro_extra", "weather", json!({"city": "Oslo", "dayz": 2})),
            call("null", "forecast", Value::Null),
            call("good", "forecast", json!({"city": "Oslo", "days": 2})),
        ],
    )
    .await;
    let by_id = |id: &str| got.iter().find(|r| r.0 == id).unwrap().clone();
    let expect_error = |id: &str, parts: &[&str]| {
        let (_, text, is_error) = by_id(id);
        assert!(is_error, "{id}: {text}");
        for part in parts {
            assert!(text.contains(part), "{id}: {text:?} lacks {part:?}");
        }
    };
    expect_error(
        "text",
        &["not a JSON object", "{city: Oslo", "send one JSON object"],
    );
    expect_error("array", &["expected a JSON object of arguments"]);
    expect_error(
        "number",
        &["expected a JSON object of arguments, found `7`"],
    );
    expect_error("bool", &["found `true`"]);
    expect_error("type", &["at `city`", "expected a string, found `5`"]);
    expect_error(
        "missing",
        &["at `days`: missing required field `days`; expected an integer from 0 to 255"],
    );
    expect_error("range", &["at `days`", "300"]);
    expect_error("negative", &["at `days`", "-1"]);
    expect_error("float", &["at `days`", "2.5"]);
    expect_error(
        "strict",
        &["at `sneaky`: unknown field `sneaky`; valid fields: `id`"],
    );
    expect_error(
        "macro_extra",
        &["at `dayz`: unknown field `dayz`; did you mean `days`? valid fields: `city`, `days`"],
    );
    expect_error(
        "null",
        &[
            "2 mistakes",
            "at `city`: missing required field `city`",
            "at `days`: missing required field `days`",
        ],
    );
    for (id, text, is_error) in &got {
        if *is_error {
            assert!(
                text.contains("fix the arguments")
                    || text.contains("send one JSON object")
                    || text.contains("expected a JSON object"),
                "{id}: every argument error tells the model what to do: {text}"
            );
        }
    }
    // `forecast` is a hand-written typed tool whose arguments type does not refuse unknown
    // fields: its canonical schema is open, and the field is ignored, as that schema says (the
    // rule is in the docs of `phi-agent/src/decode/mod.rs`; a `#[phi_tool]` refuses it, above).
    assert_eq!(by_id("extra").1, "Oslo: sunny for 2 days");
    assert_eq!(by_id("good").1, "Oslo: sunny for 2 days");
}

#[tokio::test(start_paused = true)]
async fn a_ten_megabyte_string_is_refused_by_size_and_accepted_under_a_larger_limit() {
    let huge = "A".repeat(10 * 1024 * 1024);
    let args = json!({"city": huge, "days": 1});
    let got = one_turn(
        vec![Arc::new(Forecast)],
        vec![call("big", "forecast", args.clone())],
    )
    .await;
    assert!(got[0].2);
    assert!(
        got[0].1.contains("larger than the limit of 1048576 bytes"),
        "{}",
        &got[0].1[..200.min(got[0].1.len())]
    );
    assert!(
        got[0].1.len() < 500,
        "the error does not quote the argument back"
    );

    let config = AgentConfig::default().with_tools(ToolConfig {
        max_argument_bytes: 16 * 1024 * 1024,
        ..ToolConfig::default()
    });
    let got = one_turn_with(
        vec![Arc::new(Forecast)],
        vec![call("big", "forecast", args)],
        config,
    )
    .await;
    assert!(!got[0].2);
    // The echo is 10 MB; the model reads at most the output limit and a marker.
    assert!(got[0].1.len() <= 100_000 + 200, "{}", got[0].1.len());
    assert!(
        got[0].1.contains("[output truncated: 10485778 bytes"),
        "{}",
        &got[0].1[got[0].1.len() - 150..]
    );
}

/// Builds `[[[ ... 1 ... ]]]` nested `depth` levels deep, without recursion.
fn nested(depth: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    value
}

/// Takes a value apart iteratively: dropping a 10,000-deep value recurses inside serde_json.
fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

#[tokio::test]
async fn ten_thousand_levels_built_in_memory_are_refused_by_dispatch() {
    let mut registry = ToolRegistry::default();
    registry.register(Forecast).unwrap();
    let (raw, raw_runs) = Counted::new("raw", ToolExposure::Direct, false);
    registry.register(raw).unwrap();
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let ctx = ToolContext::default();

    let deep = nested(10_000);
    let mut as_field = json!({"city": "Oslo", "days": 1});
    as_field["extra"] = deep;
    for name in ["forecast", "raw"] {
        let result = registry.dispatch(&active, name, &as_field, &ctx).await;
        assert!(result.is_error, "{name}");
        let text = result.to_model_text();
        assert!(
            text.contains(&format!("invalid arguments for tool `{name}`"))
                && text.contains("nest more than 128 levels"),
            "{text}"
        );
    }
    assert_eq!(
        raw_runs.load(Ordering::SeqCst),
        0,
        "the tool never saw the value"
    );
    // The program's own calls get the same protection.
    let internal = registry.call_internal("raw", &as_field, &ctx).await;
    assert!(internal.is_error);
    dismantle(as_field);

    // Exactly at the limit is fine: anything serde_json could parse passes.
    let mut at_limit = json!({});
    at_limit["payload"] = nested(126);
    let result = registry.dispatch(&active, "raw", &at_limit, &ctx).await;
    assert!(!result.is_error, "{}", result.to_model_text());
    assert_eq!(raw_runs.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn ten_thousand_levels_as_model_text_never_reach_a_tool() {
    let deep_text = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    // OpenAI sends arguments as a string: the parser's depth limit keeps it as text, and the
    // loop answers that it is not a JSON object.
    let body = json!({"choices": [{"message": {"tool_calls": [
        {"id": "deep", "type": "function", "function": {"name": "forecast", "arguments": format!("{{\"city\": {deep_text}}}")}}
    ]}}]});
    let reply = parse_response_body("openai", body.to_string().as_bytes()).unwrap();
    assert!(reply.tool_calls[0].arguments.is_string());
    let got = one_turn(vec![Arc::new(Forecast)], reply.tool_calls).await;
    assert!(
        got[0].2 && got[0].1.contains("not a JSON object"),
        "{}",
        &got[0].1[..200]
    );

    // Anthropic sends arguments as JSON inside the body: the whole body is refused, clearly.
    let body = format!(
        r#"{{"content": [{{"type": "tool_use", "id": "deep", "name": "forecast", "input": {{"city": {deep_text}}}}}]}}"#
    );
    let error = parse_response_body("anthropic", body.as_bytes()).unwrap_err();
    assert!(
        matches!(&error, AgentError::InvalidResponse { provider: "anthropic", message } if message.contains("recursion limit exceeded")),
        "{error}"
    );
    assert!(
        error.to_string().len() < 1_000,
        "the error quotes only the start of the body"
    );
}

#[tokio::test(start_paused = true)]
async fn huge_numbers_are_errors_for_typed_tools_and_values_for_raw_ones() {
    let (raw, _) = Counted::new("raw", ToolExposure::Direct, false);
    let tools: Vec<Arc<dyn Tool>> = vec![Arc::new(Forecast), Arc::new(raw)];
    let got = one_turn(
        tools,
        vec![
            call("u64", "forecast", json!({"city": "x", "days": u64::MAX})),
            call("i64", "forecast", json!({"city": "x", "days": i64::MIN})),
            call("f64", "forecast", json!({"city": "x", "days": f64::MAX})),
            call(
                "raw",
                "raw",
                json!({"n": f64::MAX, "m": u64::MAX, "k": i64::MIN}),
            ),
        ],
    )
    .await;
    assert!(
        got[0].2 && got[0].1.contains("18446744073709551615"),
        "{}",
        got[0].1
    );
    assert!(
        got[1].2 && got[1].1.contains("-9223372036854775808"),
        "{}",
        got[1].1
    );
    assert!(got[2].2 && got[2].1.contains("at `days`"), "{}", got[2].1);
    assert!(!got[3].2, "{}", got[3].1);
    assert!(got[3].1.contains("18446744073709551615"), "{}", got[3].1);

    // As text, numbers beyond f64 do not parse: the call is answered as "not JSON".
    for number in ["1e400", &"9".repeat(500), "-1e99999"] {
        let body = json!({"choices": [{"message": {"tool_calls": [
            {"id": "n", "type": "function", "function": {"name": "forecast", "arguments": format!("{{\"city\": \"x\", \"days\": {number}}}")}}
        ]}}]});
        let reply = parse_response_body("openai", body.to_string().as_bytes()).unwrap();
        let got = one_turn(vec![Arc::new(Forecast)], reply.tool_calls).await;
        assert!(got[0].2, "{number}: {}", got[0].1);
        assert!(
            got[0].1.contains("not a JSON object") || got[0].1.contains("at `days`"),
            "{}",
            got[0].1
        );
    }
}

#[tokio::test(start_paused = true)]
async fn duplicate_call_ids_each_get_their_own_result_in_order() {
    let got = one_turn(
        vec![Arc::new(Forecast)],
        vec![
            call("same", "forecast", json!({"city": "A", "days": 1})),
            call("same", "forecast", json!({"city": "B", "days": 2})),
            call("same", "nope", json!({})),
            call("", "forecast", json!({"city": "C", "days": 3})),
            call("", "forecast", json!({"city": "D", "days": 4})),
        ],
    )
    .await;
    let texts: Vec<(&str, &str)> = got
        .iter()
        .map(|(id, text, _)| (id.as_str(), text.as_str()))
        .collect();
    assert_eq!(texts[0], ("same", "A: sunny for 1 days"));
    assert_eq!(texts[1], ("same", "B: sunny for 2 days"));
    assert_eq!(texts[2].0, "same");
    assert!(texts[2].1.contains("not available"));
    assert_eq!(texts[3], ("", "C: sunny for 3 days"));
    assert_eq!(texts[4], ("", "D: sunny for 4 days"));
}

#[tokio::test(start_paused = true)]
async fn five_hundred_calls_in_one_turn_all_run_bounded_and_in_order() {
    let (slow, runs) = Counted::new("slow", ToolExposure::Direct, false);
    let calls: Vec<ToolCall> = (0..500)
        .map(|i| call(&format!("c{i}"), "slow", json!({ "i": i })))
        .collect();
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(calls), LlmResponse::text("done")]);
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone()).register_tool(slow),
        AgentConfig::default(),
    )
    .unwrap();
    let started = tokio::time::Instant::now();
    let output = agent.run("flood").await.unwrap();
    let elapsed = started.elapsed();
    assert_eq!(runs.load(Ordering::SeqCst), 500);
    // 500 calls of 10 ms, 8 at a time: 63 rounds.
    assert_eq!(elapsed, Duration::from_millis(630), "{elapsed:?}");
    let got = results(&output.messages);
    assert_eq!(got.len(), 500);
    for (i, (id, text, is_error)) in got.iter().enumerate() {
        assert_eq!(id, &format!("c{i}"));
        assert_eq!(text, &format!("ran with {{\"i\":{i}}}"));
        assert!(!is_error);
    }
    assert_eq!(
        llm.requests()[1].messages.len(),
        502,
        "input, calls, 500 results"
    );
}

fn repeat_forever(name: &'static str, arguments: Value) -> ScriptedLlm {
    ScriptedLlm::from_fn(move |request| {
        let n = request.messages.len();
        Ok(LlmResponse::tool_calls(vec![call(
            &format!("c{n}"),
            name,
            arguments.clone(),
        )]))
    })
}

#[tokio::test(start_paused = true)]
async fn the_same_failing_call_repeated_forever_is_warned_then_stopped() {
    let (flaky, runs) = Counted::new("flaky", ToolExposure::Direct, true);
    let llm = repeat_forever("flaky", json!({"q": 1}));
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone()).register_tool(flaky),
        AgentConfig::default(),
    )
    .unwrap();
    let mut session = agent.session();
    let error = session.prompt("keep trying").await.unwrap_err();
    let AgentError::RepeatedToolFailure {
        tool,
        failures,
        limit,
        last_error,
        transcript,
    } = &error
    else {
        panic!("expected RepeatedToolFailure, got {error}");
    };
    assert_eq!((tool.as_str(), *failures, *limit), ("flaky", 4, 3));
    assert!(last_error.contains("the service is down"), "{last_error}");
    assert_eq!(runs.load(Ordering::SeqCst), 4);
    assert_eq!(
        llm.requests().len(),
        4,
        "stopped long before max_turns (20)"
    );
    let got = results(transcript);
    assert_eq!(got.len(), 4, "the transcript holds every result");
    assert!(!got[1].1.contains("Do not send it again"));
    assert!(
        got[2]
            .1
            .contains("has now failed 3 times. Do not send it again"),
        "{}",
        got[2].1
    );
    let shown = error.to_string();
    assert!(
        shown.contains("same failing call of tool `flaky` 4 times"),
        "{shown}"
    );
    assert!(shown.contains("max_repeated_failures"), "{shown}");
    assert!(session.history().is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_unknown_tool_called_forever_is_stopped_too() {
    let llm = repeat_forever("delete_everything", json!({}));
    let config = AgentConfig::default().with_max_repeated_failures(1);
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone()).register_tool(Forecast),
        config,
    )
    .unwrap();
    let error = agent.run("go").await.unwrap_err();
    assert!(
        matches!(&error, AgentError::RepeatedToolFailure { failures: 2, last_error, .. } if last_error.contains("not available")),
        "{error}"
    );
    assert_eq!(llm.requests().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn five_hundred_identical_failing_calls_end_the_run_after_that_turn() {
    let (flaky, runs) = Counted::new("flaky", ToolExposure::Direct, true);
    let calls = (0..500)
        .map(|i| call(&format!("c{i}"), "flaky", json!({})))
        .collect();
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(calls),
        LlmResponse::text("never asked"),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone()).register_tool(flaky),
        AgentConfig::default(),
    )
    .unwrap();
    let error = agent.run("go").await.unwrap_err();
    let AgentError::RepeatedToolFailure {
        failures,
        transcript,
        ..
    } = &error
    else {
        panic!("{error}");
    };
    assert_eq!(
        *failures, 4,
        "the first failure past the limit is the one reported"
    );
    assert_eq!(
        results(transcript).len(),
        500,
        "every call of the turn has its result"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 500);
    assert_eq!(llm.remaining(), 1, "the model was not asked again");
}

#[tokio::test(start_paused = true)]
async fn failing_calls_that_change_each_time_run_into_max_turns_instead() {
    let (flaky, _) = Counted::new("flaky", ToolExposure::Direct, true);
    let llm = ScriptedLlm::from_fn(|request| {
        let n = request.messages.len();
        Ok(LlmResponse::tool_calls(vec![call(
            "c",
            "flaky",
            json!({ "attempt": n }),
        )]))
    });
    let config = AgentConfig::default().with_max_turns(6);
    let agent = PhiAgent::build(base_agent_builder(llm).register_tool(flaky), config).unwrap();
    let error = agent.run("go").await.unwrap_err();
    assert!(
        matches!(error, AgentError::MaxTurns { turns: 6, .. }),
        "{error}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_model_that_recovers_after_the_warning_gets_its_answer() {
    let (flaky, _) = Counted::new("flaky", ToolExposure::Direct, true);
    let llm = ScriptedLlm::from_fn(|request| {
        let warned = request.messages.iter().any(|m| matches!(m, Message::Tool { content, .. } if content.iter().any(|c| c.to_model_text().contains("Do not send it again"))));
        Ok(if warned {
            LlmResponse::text("the service is down, sorry")
        } else {
            LlmResponse::tool_calls(vec![call("c", "flaky", json!({}))])
        })
    });
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tool(flaky),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("go").await.unwrap();
    assert_eq!(output.text, "the service is down, sorry");
    assert_eq!(output.turns, 4);
}

#[test]
fn a_zero_retry_budget_is_refused_at_build() {
    let config = AgentConfig::default().with_max_repeated_failures(0);
    let error = PhiAgent::build(base_agent_builder(ScriptedLlm::new([])), config).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("max_repeated_failures must be at least 1"),
        "{error}"
    );
}

/// A custom model client that builds its tool calls in memory, 10,000 levels deep: no JSON
/// parser stands in the way, so the loop itself must defuse them.
struct DeepModel;

#[async_trait]
impl phi_agent::llm::LlmClient for DeepModel {
    async fn complete(&self, request: &phi_agent::llm::LlmRequest) -> AgentResult<LlmResponse> {
        if request.messages.len() > 1 {
            return Ok(LlmResponse::text("done"));
        }
        let mut arguments = json!({"city": "Oslo", "days": 1});
        arguments["extra"] = nested(10_000);
        Ok(LlmResponse::tool_calls(vec![call(
            "deep", "forecast", arguments,
        )]))
    }
}

#[tokio::test]
async fn ten_thousand_levels_from_a_custom_model_client_end_in_an_error_result() {
    let agent = PhiAgent::build(
        base_agent_builder(DeepModel).register_tool(Forecast),
        AgentConfig::default(),
    )
    .unwrap();
    // Without the loop's defusing, cloning the call into the transcript or dropping the
    // session would overflow the stack and abort the test process.
    let output = agent.run("go").await.unwrap();
    assert_eq!(output.text, "done");
    let got = results(&output.messages);
    assert!(got[0].2);
    assert!(
        got[0].1.contains("nested more than 128 levels deep"),
        "{}",
        got[0].1
    );
    assert_eq!(
        output.tool_calls[0].arguments,
        json!("<arguments nested more than 128 levels deep, dropped>")
    );
}

/// The fuzz seeds (`fuzz/seeds/provider_response`) stay what they are meant to be: replies with
/// tool calls that their adapter reads, so fuzzing starts from inputs that reach the round trip.
#[test]
fn every_fuzz_seed_with_calls_is_read_by_its_adapter() {
    let seeds =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/provider_response");
    for (file, provider) in [
        ("openai_calls.json", "openai"),
        ("anthropic_calls.json", "anthropic"),
        ("gemini_calls.json", "gemini"),
        ("responses_calls.json", "openai-responses"),
    ] {
        let body = std::fs::read(seeds.join(file)).unwrap();
        let reply = parse_response_body(provider, &body).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(
            !reply.tool_calls.is_empty(),
            "{file}: {:?}",
            reply.tool_calls
        );
    }
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Trip {
    to: String,
    nights: u8,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Mode {
    Train,
    Plane { class: u8 },
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Point(f64, f64);

#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Budget {
    Amount(u32),
    Range { min: u32, max: u32 },
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct PlanArgs {
    trip: Trip,
    mode: Mode,
    start: Point,
    budget: Budget,
    stops: Option<Vec<Trip>>,
}

/// Arguments of every shape serde names by its Rust type: a struct, an enum, a tuple struct,
/// an untagged enum.
struct Plan;

#[async_trait]
impl TypedTool for Plan {
    type Args = PlanArgs;
    type Output = &'static str;
    fn name(&self) -> &'static str {
        "plan"
    }
    fn description(&self) -> &'static str {
        "Plan a trip"
    }
    async fn call_typed(&self, _: PlanArgs, _: &ToolContext) -> AgentResult<&'static str> {
        Ok("planned")
    }
}

/// The same arguments under a schema that allows any object, so that the decoder's own message
/// (not the schema's) is the one the model reads.
struct PlanLoosely;

#[derive(Deserialize)]
#[serde(transparent)]
struct LoosePlanArgs(#[allow(dead_code)] PlanArgs);

impl JsonSchema for LoosePlanArgs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LoosePlanArgs".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object"})
    }
}

#[async_trait]
impl TypedTool for PlanLoosely {
    type Args = LoosePlanArgs;
    type Output = &'static str;
    fn name(&self) -> &'static str {
        "plan_loosely"
    }
    fn description(&self) -> &'static str {
        "Plan a trip"
    }
    async fn call_typed(&self, _: LoosePlanArgs, _: &ToolContext) -> AgentResult<&'static str> {
        Ok("planned")
    }
}

/// Every error path of this file in one turn: no text the model reads names a Rust type or path.
#[tokio::test(start_paused = true)]
async fn no_error_result_names_a_rust_type() {
    let (open, _) = Counted::new("open", ToolExposure::Direct, false);
    let (vault, _) = Counted::new("vault", ToolExposure::Hidden, false);
    let (later, _) = Counted::new("later", ToolExposure::Deferred, false);
    let (flaky, _) = Counted::new("flaky", ToolExposure::Direct, true);
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(Forecast),
        Arc::new(Strict),
        Arc::new(Weather),
        Arc::new(Plan),
        Arc::new(PlanLoosely),
        Arc::new(open),
        Arc::new(vault),
        Arc::new(later),
        Arc::new(flaky),
    ];
    let good_plan = json!({
        "trip": {"to": "Oslo", "nights": 2},
        "mode": "Train",
        "start": [59.9, 10.7],
        "budget": 100,
    });
    let with = |field: &str, value: Value| {
        let mut args = good_plan.clone();
        args[field] = value;
        args
    };
    let mut deep = json!({"city": "Oslo", "days": 1});
    deep["extra"] = nested(200);
    let mut arguments = vec![
        // Tools that cannot be called.
        ("nope", json!({})),
        ("vault", json!({})),
        ("later", json!({})),
        // Arguments of the wrong shape, size or depth.
        ("forecast", json!("{city: Oslo")),
        ("forecast", json!(["Oslo", 3])),
        ("forecast", json!(7)),
        ("forecast", json!(true)),
        (
            "forecast",
            json!({"city": "A".repeat(2 * 1024 * 1024), "days": 1}),
        ),
        ("forecast", deep),
        // Wrong values.
        ("forecast", json!({"city": 5, "days": 1})),
        ("forecast", json!({"city": "Oslo"})),
        ("forecast", json!({"city": "Oslo", "days": 300})),
        ("forecast", json!({"city": "Oslo", "days": -1})),
        ("forecast", json!({"city": "Oslo", "days": 2.5})),
        ("forecast", json!({"city": "x", "days": u64::MAX})),
        ("forecast", json!({"city": "x", "days": i64::MIN})),
        ("forecast", json!({"city": "x", "days": f64::MAX})),
        ("forecast", Value::Null),
        ("strict", json!({"id": 1, "sneaky": true})),
        ("weather", json!({"city": "Oslo", "dayz": 2})),
        // A tool that fails, three times alike (the third result warns the model).
        ("flaky", json!({})),
        ("flaky", json!({})),
        ("flaky", json!({})),
    ];
    for tool in ["plan", "plan_loosely"] {
        for args in [
            json!({}),
            json!([]),
            with("trip", json!(5)),
            with("trip", json!({"to": 1})),
            with("mode", json!("Boat")),
            with("mode", json!({"Plane": {}})),
            with("mode", json!({"Train": 1})),
            with("mode", json!(3)),
            with("start", json!(5)),
            with("start", json!([1])),
            with("start", json!({"x": 1})),
            with("budget", json!(true)),
            with("budget", json!({"min": 1})),
            with("stops", json!([{"to": "Bergen"}])),
            with("stops", json!({"to": "Bergen"})),
        ] {
            arguments.push((tool, args));
        }
    }
    let calls: Vec<ToolCall> = arguments
        .iter()
        .enumerate()
        .map(|(i, (name, args))| call(&format!("c{i}"), name, args.clone()))
        .collect();
    let got = one_turn(tools, calls).await;
    assert_eq!(got.len(), arguments.len());
    let mut errors = 0;
    for ((id, text, is_error), (name, _)) in got.iter().zip(&arguments) {
        errors += usize::from(*is_error);
        for rust in ["struct ", "enum ", "::"] {
            assert!(
                !text.contains(rust),
                "{id} ({name}) names a Rust type ({rust:?}): {text}"
            );
        }
    }
    let accepted: Vec<_> = got
        .iter()
        .zip(&arguments)
        .filter(|((_, _, is_error), _)| !is_error)
        .map(|(_, (name, args))| format!("{name} {args}"))
        .collect();
    assert_eq!(
        errors,
        arguments.len(),
        "every call here is a mistake: {accepted:#?}"
    );
}
