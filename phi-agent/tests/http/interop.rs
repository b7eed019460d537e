//! Driven by `interop/run.sh` against fakellm and `interop/fake_apis.py` (ignored in the ordinary
//! test run, which has no server): a run whose tool results carry an image and an error through
//! every adapter (Gemini's in its OpenAPI schema form, which the example does not use), a run
//! whose first answer is HTTP 529 through chat completions and Anthropic, and one conversation run
//! plain and streamed through each of the four adapters (the same text and tool calls, events in
//! a valid order; the Responses run with a reasoning model, so reasoning items go back and forth),
//! and a deferred tool found by the provider's own tool search (Anthropic, the Responses API),
//! so the suite's SDK validation sees those shapes on the wire.
//!
//! Run by hand: `PHI_INTEROP_BASE_URL=http://127.0.0.1:PORT PHI_INTEROP_APIS_URL=http://127.0.0.1:PORT2 cargo test -p phi-agent --test http interop:: -- --ignored`

use async_trait::async_trait;
use std::time::Duration;

use phi_agent::llm::{
    AnthropicClient, CodeExecutionVersion, GeminiClient, GeminiSchemaForm, HttpConfig, LlmClient,
    Message, OpenAiClient, PromptCache, ResponsesClient, ToolCall,
};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Content, PhiAgent, StreamEvent, Tool, ToolContext,
    base_agent_builder,
};
use serde_json::{Value, json};

/// A 1x1 PNG.
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

struct Snapshot;

#[async_trait]
impl Tool for Snapshot {
    fn name(&self) -> &'static str {
        "snapshot"
    }
    fn description(&self) -> &'static str {
        "Take a picture of the screen"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    // On the wire as Anthropic's `input_examples`, which the SDK's `ToolParam` must know.
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_input_examples(vec![json!({})])
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![
            Content::text("screen captured"),
            Content::image(PIXEL, "image/png"),
        ])
    }
}

struct Fail;

#[async_trait]
impl Tool for Fail {
    fn name(&self) -> &'static str {
        "fail"
    }
    fn description(&self) -> &'static str {
        "Always fails"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Err(AgentError::tool("the disk is full; free some space"))
    }
}

fn base_url() -> String {
    std::env::var("PHI_INTEROP_BASE_URL")
        .expect("set PHI_INTEROP_BASE_URL to the fakellm (or capture proxy) address")
}

/// The address of `interop/fake_apis.py` (or its capture proxy): the Responses API and Gemini.
fn apis_url() -> String {
    std::env::var("PHI_INTEROP_APIS_URL")
        .expect("set PHI_INTEROP_APIS_URL to the fake_apis.py (or capture proxy) address")
}

async fn run_through(llm: impl LlmClient + 'static) {
    // fakellm counts turns per first user message: one prompt per adapter.
    let prompt = format!("take a snapshot, then fail ({})", llm.provider());
    let builder = base_agent_builder(llm)
        .system_prompt("You test tool results.")
        .register_tool(Snapshot)
        .register_tool(Fail);
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let output = agent.run(prompt).await.unwrap();
    assert_eq!(output.turns, 2);
    assert_eq!(output.text, "snapshot seen, failure noted");
    let [snapshot, fail] = &output.tool_calls[..] else {
        panic!("{:?}", output.tool_calls);
    };
    assert!(!snapshot.is_error && snapshot.result.len() == 2);
    assert!(fail.is_error);
}

#[tokio::test]
#[ignore = "needs fakellm; run by interop/run.sh"]
async fn images_and_errors_through_openai() {
    // Off by default against another server than OpenAI's: asked for, so that the SDK's types
    // see `prompt_cache_key`.
    let client = OpenAiClient::new("sk-interop", "gpt-4o-mini")
        .unwrap()
        .with_base_url(format!("{}/v1", base_url()))
        .with_prompt_cache(PromptCache::FiveMinutes);
    run_through(client).await;
}

#[tokio::test]
#[ignore = "needs fakellm; run by interop/run.sh"]
async fn images_and_errors_through_anthropic() {
    // With server-side context editing, so that the SDK's beta types see `context_management`.
    let client = AnthropicClient::new("sk-ant-interop", "claude-sonnet-4-5")
        .unwrap()
        .with_base_url(base_url())
        .with_context_editing(
            phi_agent::llm::ContextEditing::clear_tool_uses()
                .with_trigger_tokens(50_000)
                .with_keep_tool_uses(2)
                .with_excluded_tools(["calculator"]),
        );
    run_through(client).await;
}

#[tokio::test]
#[ignore = "needs interop/fake_apis.py; run by interop/run.sh"]
async fn images_and_errors_through_responses() {
    let client = ResponsesClient::new("sk-interop", "gpt-4o-mini")
        .unwrap()
        .with_base_url(format!("{}/v1", apis_url()))
        .with_prompt_cache(PromptCache::OneHour)
        .with_http_config(quick_retries());
    run_through(client).await;
}

#[tokio::test]
#[ignore = "needs interop/fake_apis.py; run by interop/run.sh"]
async fn images_and_errors_through_gemini_in_the_openapi_form() {
    let client = GeminiClient::new("AIza-interop", "gemini-2.5-flash")
        .unwrap()
        .with_base_url(apis_url())
        .with_schema_form(GeminiSchemaForm::OpenApi)
        .with_max_tokens(256)
        .with_http_config(quick_retries());
    run_through(client).await;
}

async fn retry_through(llm: impl LlmClient + 'static) {
    let prompt = format!("are you overloaded ({})?", llm.provider());
    let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default()).unwrap();
    let output = agent.run(prompt).await.unwrap();
    assert_eq!(output.text, "recovered after a retry");
}

fn quick_retries() -> HttpConfig {
    HttpConfig::default().with_initial_backoff(Duration::from_millis(20))
}

#[tokio::test]
#[ignore = "needs fakellm; run by interop/run.sh"]
async fn an_overloaded_server_is_retried_through_openai() {
    let client = OpenAiClient::new("sk-interop", "gpt-4o-mini")
        .unwrap()
        .with_base_url(format!("{}/v1", base_url()))
        .with_http_config(quick_retries());
    retry_through(client).await;
}

#[tokio::test]
#[ignore = "needs fakellm; run by interop/run.sh"]
async fn an_overloaded_server_is_retried_through_anthropic() {
    let client = AnthropicClient::new("sk-ant-interop", "claude-sonnet-4-5")
        .unwrap()
        .with_base_url(base_url())
        .with_http_config(quick_retries());
    retry_through(client).await;
}

/// fakellm's calculator: the rules of `interop/fakellm.yaml` call it twice, then answer.
struct Calculator;

#[async_trait]
impl Tool for Calculator {
    fn name(&self) -> &'static str {
        "calculator"
    }
    fn description(&self) -> &'static str {
        "Apply add, subtract, multiply or divide to two numbers"
    }
    fn schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "number"},
                "b": {"type": "number"},
                "op": {"type": "string", "enum": ["add", "subtract", "multiply", "divide"]}
            },
            "required": ["a", "b", "op"]
        })
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        let (a, b) = (args["a"].as_f64().unwrap(), args["b"].as_f64().unwrap());
        let value = match args["op"].as_str() {
            Some("add") => a + b,
            Some("subtract") => a - b,
            Some("multiply") => a * b,
            _ => a / b,
        };
        Ok(vec![Content::text(value.to_string())])
    }
}

/// Appends what the adapter assembled from each streamed reply of `output` (its text and calls,
/// one JSON line per model request, in order) to `PHI_INTEROP_ASSEMBLED` when it is set, for
/// `interop/validate.py` to compare with what the official SDKs' stream accumulators make of
/// the same bytes.
fn record_assembled(provider: &str, output: &phi_agent::RunOutput) {
    let Ok(path) = std::env::var("PHI_INTEROP_ASSEMBLED") else {
        return;
    };
    let mut lines = String::new();
    for message in &output.messages {
        if let Message::Assistant { text, tool_calls } = message {
            let calls: Vec<Value> = tool_calls
                .iter()
                .map(|call| json!({"name": call.name, "arguments": call.arguments}))
                .collect();
            lines.push_str(&json!({"api": provider, "text": text, "calls": calls}).to_string());
            lines.push('\n');
        }
    }
    use std::io::Write;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| file.write_all(lines.as_bytes()))
        .expect("the assembled replies are written");
}

/// The same conversation plain and streamed: the same answer and calls (names and arguments;
/// fakellm draws fresh ids), and a stream whose events come in a valid order and add up.
/// `api` names the wire format in the assembled-replies file (the Responses adapter's provider
/// is `openai` too, but interop/accumulate.py compares only chat completions and messages).
async fn plain_and_streamed_agree(api: &str, llm: impl LlmClient + Clone + 'static) {
    let agent = |llm| {
        let builder = base_agent_builder(llm).register_tool(Calculator);
        PhiAgent::build(builder, AgentConfig::default()).unwrap()
    };
    // fakellm counts turns per first user message: one prompt per run.
    let provider = llm.provider().to_string();
    let plain = agent(llm.clone())
        .run(format!("What is 6 times 7 ({provider}, plain)?"))
        .await
        .unwrap();
    let mut events = agent(llm).run_stream(format!("What is 6 times 7 ({provider}, streamed)?"));
    let mut seen = Vec::new();
    let mut output = None;
    while let Some(event) = events.next().await {
        match event.unwrap() {
            StreamEvent::Finished(done) => output = Some(*done),
            event => seen.push(event),
        }
    }
    let streamed = output.expect("the stream ends with Finished");
    assert_eq!(streamed.text, plain.text);
    assert_eq!(streamed.text, "6 times 7 is 42, and 2 plus 3 is 5.");
    let calls = |output: &phi_agent::RunOutput| -> Vec<(String, Value, Vec<Content>)> {
        output
            .tool_calls
            .iter()
            .map(|call| {
                (
                    call.name.clone(),
                    call.arguments.clone(),
                    call.result.clone(),
                )
            })
            .collect()
    };
    assert_eq!(calls(&streamed), calls(&plain));
    assert_eq!(streamed.turns, plain.turns);

    record_assembled(api, &streamed);

    // Per turn: text and call fragments, each call's after its start and before it is ready
    // (once whole, before the next call begins or when the reply ends); then the tools; then
    // the turn's end.
    let mut turn = 1;
    let mut phase = 0;
    let mut text = String::new();
    let mut arguments: Vec<(String, String)> = Vec::new();
    let mut ready = Vec::new();
    for event in &seen {
        match event {
            StreamEvent::TextDelta {
                turn: t,
                text: piece,
            } => {
                assert!(*t == turn && phase <= 1, "{event:?}");
                if *t == streamed.turns {
                    text.push_str(piece);
                }
            }
            StreamEvent::ToolCallStarted {
                turn: t, index, id, ..
            } => {
                assert!(*t == turn && phase <= 1, "{event:?}");
                assert_eq!(*index, arguments.len(), "{event:?}");
                arguments.push((id.clone(), String::new()));
            }
            StreamEvent::ToolArgumentsDelta {
                turn: t,
                index,
                id,
                fragment,
            } => {
                assert!(*t == turn && phase <= 1, "{event:?}");
                assert_eq!(&arguments[*index].0, id, "a fragment names its call");
                assert!(
                    !ready.iter().any(|call: &ToolCall| &call.id == id),
                    "no fragment after its call is ready: {event:?}"
                );
                arguments[*index].1.push_str(fragment);
            }
            StreamEvent::ToolCallReady { turn: t, call } => {
                assert!(*t == turn && phase <= 1, "{event:?}");
                assert_eq!(call.id, arguments[ready.len()].0, "ready in call order");
                let parsed: Value = serde_json::from_str(&arguments[ready.len()].1).unwrap();
                assert_eq!(
                    parsed, call.arguments,
                    "ready once its fragments are all in"
                );
                phase = 1;
                ready.push(call.clone());
            }
            StreamEvent::ToolStarted { turn: t, .. }
            | StreamEvent::ToolFinished { turn: t, .. } => {
                assert!(*t == turn && phase >= 1, "{event:?}");
                phase = 2;
            }
            StreamEvent::TurnFinished { turn: t, .. } => {
                assert_eq!(*t, turn);
                for ((id, json), call) in arguments.drain(..).zip(ready.drain(..)) {
                    assert_eq!(id, call.id);
                    let parsed: Value = serde_json::from_str(&json).unwrap();
                    assert_eq!(parsed, call.arguments, "the fragments make the arguments");
                }
                turn += 1;
                phase = 0;
            }
            StreamEvent::ToolsActivated { .. } | StreamEvent::ApprovalRequested { .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(turn, streamed.turns + 1, "every turn finished");
    assert_eq!(
        text, streamed.text,
        "the last turn's deltas make the answer"
    );
}

#[tokio::test]
#[ignore = "needs fakellm; run by interop/run.sh"]
async fn plain_and_streamed_runs_agree_through_openai() {
    let client = OpenAiClient::new("sk-interop", "gpt-4o-mini")
        .unwrap()
        .with_base_url(format!("{}/v1", base_url()));
    plain_and_streamed_agree("openai", client).await;
}

#[tokio::test]
#[ignore = "needs fakellm; run by interop/run.sh"]
async fn plain_and_streamed_runs_agree_through_anthropic() {
    let client = AnthropicClient::new("sk-ant-interop", "claude-sonnet-4-5")
        .unwrap()
        .with_base_url(base_url());
    plain_and_streamed_agree("anthropic", client).await;
}

#[tokio::test]
#[ignore = "needs interop/fake_apis.py; run by interop/run.sh"]
async fn plain_and_streamed_runs_agree_through_responses_with_reasoning_items() {
    // A reasoning model's name: the client asks for encrypted reasoning items, which the fake
    // returns and validate.py checks come back byte for byte.
    let client = ResponsesClient::new("sk-interop", "o4-mini")
        .unwrap()
        .with_base_url(format!("{}/v1", apis_url()))
        .with_http_config(quick_retries());
    plain_and_streamed_agree("openai-responses", client).await;
}

#[tokio::test]
#[ignore = "needs interop/fake_apis.py; run by interop/run.sh"]
async fn plain_and_streamed_runs_agree_through_gemini() {
    let client = GeminiClient::new("AIza-interop", "gemini-2.5-flash")
        .unwrap()
        .with_base_url(apis_url())
        .with_http_config(quick_retries());
    plain_and_streamed_agree("gemini", client).await;
}

/// The calculator, Deferred: found only by a tool search.
struct DeferredCalculator;

#[async_trait]
impl Tool for DeferredCalculator {
    fn name(&self) -> &'static str {
        Calculator.name()
    }
    fn description(&self) -> &'static str {
        Calculator.description()
    }
    fn schema(&self) -> Value {
        Calculator.schema()
    }
    fn exposure(&self) -> phi_agent::ToolExposure {
        phi_agent::ToolExposure::Deferred
    }
    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        Calculator.call(args, ctx).await
    }
}

/// A run whose only tool is deferred, found by the provider's own search: the fake answers with
/// the search and the calls of what it found, built from the SDK's types; validate.py checks the
/// request (search tool, deferred definitions) with the SDK's types and that the search comes
/// back on the next request.
async fn found_by_the_native_search(llm: impl LlmClient + 'static) {
    assert!(llm.native_tool_search());
    let config = AgentConfig::default().with_tool_search(phi_agent::ToolSearch::Native);
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tool(DeferredCalculator),
        config,
    )
    .unwrap();
    let output = agent.run("What is 6 times 7?").await.unwrap();
    assert_eq!(output.text, "6 times 7 is 42, and 2 plus 3 is 5.");
    assert_eq!(output.tool_calls.len(), 2);
    assert!(
        output
            .tool_calls
            .iter()
            .all(|call| call.name == "calculator" && !call.is_error)
    );
}

#[tokio::test]
#[ignore = "needs interop/fake_apis.py; run by interop/run.sh"]
async fn a_deferred_tool_found_by_anthropics_tool_search() {
    let client = AnthropicClient::new("sk-ant-interop", "claude-sonnet-4-5")
        .unwrap()
        .with_base_url(apis_url());
    found_by_the_native_search(client).await;
}

#[tokio::test]
#[ignore = "needs interop/fake_apis.py; run by interop/run.sh"]
async fn a_deferred_tool_found_by_the_responses_tool_search() {
    let client = ResponsesClient::new("sk-interop", "gpt-5.4")
        .unwrap()
        .with_base_url(format!("{}/v1", apis_url()))
        .with_native_tool_search(true)
        .with_http_config(quick_retries());
    found_by_the_native_search(client).await;
}

/// Programmatic tool calling: the calculator, for code only, called twice by the model's
/// program; the calls come back with their caller (and Anthropic's container), and the answer
/// reads their results.
async fn called_from_code(llm: impl LlmClient + 'static) {
    let calculator = phi_agent::Toolset::from(vec![
        std::sync::Arc::new(DeferredCalculator) as std::sync::Arc<dyn Tool>
    ])
    .with_exposure(phi_agent::ToolExposure::Direct)
    .with_callers(phi_agent::ToolCallers::Code);
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_toolset(calculator),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("What is 6 times 7, from code?").await.unwrap();
    assert_eq!(output.text, "6 times 7 is 42, and 2 plus 3 is 5.");
    assert_eq!(output.tool_calls.len(), 2);
    assert!(output.tool_calls.iter().all(|call| !call.is_error));
}

#[tokio::test]
#[ignore = "needs interop/fake_apis.py; run by interop/run.sh"]
async fn tools_called_from_anthropics_code_execution() {
    let client = AnthropicClient::new("sk-ant-interop", "claude-sonnet-4-5")
        .unwrap()
        .with_base_url(apis_url())
        .with_code_execution(true);
    called_from_code(client).await;
}

#[tokio::test]
#[ignore = "needs interop/fake_apis.py; run by interop/run.sh"]
async fn tools_called_from_anthropics_code_execution_20260120() {
    // fake_apis.py answers with the version the request names, as the API does (the SDK has a
    // caller type for this version, none yet for 20260521's).
    let client = AnthropicClient::new("sk-ant-interop", "claude-opus-4-6")
        .unwrap()
        .with_base_url(apis_url())
        .with_code_execution(true)
        .with_code_execution_version(CodeExecutionVersion::V20260120);
    called_from_code(client).await;
}

#[tokio::test]
#[ignore = "needs interop/fake_apis.py; run by interop/run.sh"]
async fn tools_called_from_a_responses_program() {
    let client = ResponsesClient::new("sk-interop", "gpt-5.4")
        .unwrap()
        .with_base_url(format!("{}/v1", apis_url()))
        .with_programmatic_tool_calling(true)
        .with_http_config(quick_retries());
    called_from_code(client).await;
}
