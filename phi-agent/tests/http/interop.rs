//! Driven by `interop/run.sh` against fakellm and `interop/fake_apis.py` (ignored in the ordinary
//! test run, which has no server): a run whose tool results carry an image and an error through
//! every adapter (Gemini's in its OpenAPI schema form, which the example does not use), and a run
//! whose first answer is HTTP 529 through chat completions and Anthropic, so the suite's SDK
//! validation sees those shapes on the wire.
//!
//! Run by hand: `PHI_INTEROP_BASE_URL=http://127.0.0.1:PORT PHI_INTEROP_APIS_URL=http://127.0.0.1:PORT2 cargo test -p phi-agent --test http interop:: -- --ignored`

use async_trait::async_trait;
use std::time::Duration;

use phi_agent::llm::{
    AnthropicClient, GeminiClient, GeminiSchemaForm, HttpConfig, LlmClient, OpenAiClient,
    ResponsesClient,
};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Content, PhiAgent, Tool, ToolContext, base_agent_builder,
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
    let client = OpenAiClient::new("sk-interop", "gpt-4o-mini")
        .unwrap()
        .with_base_url(format!("{}/v1", base_url()));
    run_through(client).await;
}

#[tokio::test]
#[ignore = "needs fakellm; run by interop/run.sh"]
async fn images_and_errors_through_anthropic() {
    let client = AnthropicClient::new("sk-ant-interop", "claude-sonnet-4-5")
        .unwrap()
        .with_base_url(base_url());
    run_through(client).await;
}

#[tokio::test]
#[ignore = "needs interop/fake_apis.py; run by interop/run.sh"]
async fn images_and_errors_through_responses() {
    let client = ResponsesClient::new("sk-interop", "gpt-4o-mini")
        .unwrap()
        .with_base_url(format!("{}/v1", apis_url()))
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
    HttpConfig {
        initial_backoff: Duration::from_millis(20),
        ..HttpConfig::default()
    }
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
