//! The adapters against a local HTTP server that misbehaves on purpose: rate limits, server
//! errors, broken bodies, slow answers, and models that call tools badly.
//!
//! These use real sockets, so waits are measured on the wall clock and asserted only from below.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use phi_agent::llm::{
    AnthropicClient, HttpConfig, LlmClient, LlmRequest, Message, OpenAiClient, StopReason,
};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Content, PhiAgent, Tool, ToolContext, base_agent_builder,
};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-test-very-secret-key";
const OPENAI_PATH: &str = "/v1/chat/completions";
const ANTHROPIC_PATH: &str = "/v1/messages";

fn quick() -> HttpConfig {
    HttpConfig::default()
        .with_timeout(Duration::from_millis(500))
        .with_max_retries(2)
        .with_initial_backoff(Duration::from_millis(10))
        .with_max_backoff(Duration::from_secs(2))
}

fn openai(server: &MockServer) -> OpenAiClient {
    OpenAiClient::new(KEY, "gpt-test")
        .unwrap()
        .with_base_url(format!("{}/v1", server.uri()))
        .with_http_config(quick())
}

fn anthropic(server: &MockServer) -> AnthropicClient {
    AnthropicClient::new(KEY, "claude-test")
        .unwrap()
        .with_base_url(server.uri())
        .with_http_config(quick())
}

fn openai_text(text: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    })
}

fn openai_calls(calls: &[(&str, &str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    json!({
        "id": "chatcmpl-0", "object": "chat.completion", "created": 0, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "tool_calls",
                     "message": {"role": "assistant", "content": null, "tool_calls": calls}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    })
}

fn anthropic_text(text: &str) -> Value {
    json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
        "stop_sequence": null, "usage": {"input_tokens": 5, "output_tokens": 2}
    })
}

fn ask() -> LlmRequest {
    LlmRequest::default().with_messages(vec![Message::user("hi")])
}

async fn requests(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

#[tokio::test]
async fn a_429_is_retried_after_the_retry_after_wait() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(OPENAI_PATH))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("retry-after", "1")
                .set_body_json(
                    json!({"error": {"message": "Rate limit reached", "type": "requests"}}),
                ),
        )
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(OPENAI_PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_text("hello")))
        .mount(&server)
        .await;
    let started = Instant::now();
    let reply = openai(&server).complete(&ask()).await.unwrap();
    assert_eq!(reply.text, "hello");
    assert_eq!(requests(&server).await, 2);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_500_then_success_succeeds() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(OPENAI_PATH))
        .respond_with(ResponseTemplate::new(500).set_body_string("upstream exploded"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(OPENAI_PATH))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_text("fine")))
        .mount(&server)
        .await;
    let reply = openai(&server).complete(&ask()).await.unwrap();
    assert_eq!(reply.text, "fine");
    assert_eq!(reply.usage.input_tokens, 5);
    assert_eq!(requests(&server).await, 2);
}

#[tokio::test]
async fn an_overloaded_anthropic_is_retried_and_headers_are_sent() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(ANTHROPIC_PATH))
        .respond_with(ResponseTemplate::new(529).set_body_json(
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(ANTHROPIC_PATH))
        .and(header("x-api-key", KEY))
        .and(header("anthropic-version", "2023-06-01"))
        .respond_with(ResponseTemplate::new(200).set_body_json(anthropic_text("ok")))
        .mount(&server)
        .await;
    let reply = anthropic(&server).complete(&ask()).await.unwrap();
    assert_eq!(reply.text, "ok");
    assert_eq!(reply.stop_reason, StopReason::EndTurn);
    assert_eq!(requests(&server).await, 2);
}

#[tokio::test]
async fn retries_are_bounded_and_the_error_quotes_the_provider() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_json(
            json!({"type": "error", "error": {"type": "api_error", "message": "try later"}}),
        ))
        .mount(&server)
        .await;
    let error = anthropic(&server).complete(&ask()).await.unwrap_err();
    assert_eq!(requests(&server).await, 3, "one attempt and two retries");
    assert!(
        matches!(&error, AgentError::Provider { status: 503, message, .. } if message == "api_error: try later"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_client_error_is_not_retried_and_never_shows_the_key() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(
            json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}),
        ))
        .mount(&server)
        .await;
    let client = openai(&server);
    let error = client.complete(&ask()).await.unwrap_err();
    assert_eq!(requests(&server).await, 1);
    let shown = format!("{error} {error:?} {client:?} {:?}", anthropic(&server));
    assert!(
        shown.contains("HTTP 401: invalid_request_error: Incorrect API key provided"),
        "{shown}"
    );
    assert!(!shown.contains(KEY), "{shown}");
}

#[tokio::test]
async fn a_malformed_body_is_an_error_that_says_so() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("<html>oops</html>", "application/json"),
        )
        .mount(&server)
        .await;
    let error = openai(&server).complete(&ask()).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::InvalidResponse { message, .. } if message.contains("not valid JSON") && message.contains("<html>oops")),
        "{error}"
    );
    assert_eq!(requests(&server).await, 1);
}

#[tokio::test]
async fn a_truncated_body_is_an_error_that_says_so() {
    let server = MockServer::start().await;
    let whole = anthropic_text("a long answer").to_string();
    let truncated = whole[..whole.len() / 2].to_string();
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(truncated, "application/json"))
        .mount(&server)
        .await;
    let error = anthropic(&server).complete(&ask()).await.unwrap_err();
    assert!(error.to_string().contains("truncated"), "{error}");
}

#[tokio::test]
async fn a_well_formed_body_of_the_wrong_shape_is_an_error() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"choices": []})))
        .mount(&server)
        .await;
    let error = openai(&server).complete(&ask()).await.unwrap_err();
    assert!(error.to_string().contains("choices[0]"), "{error}");
}

#[tokio::test]
async fn an_answer_slower_than_the_timeout_fails_after_the_retries() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(openai_text("too late"))
                .set_delay(Duration::from_secs(3)),
        )
        .mount(&server)
        .await;
    let started = Instant::now();
    let error = openai(&server).complete(&ask()).await.unwrap_err();
    let elapsed = started.elapsed();
    assert!(
        matches!(&error, AgentError::Http { message, .. } if message.contains("timeout") && message.contains("3 attempts")),
        "{error}"
    );
    assert!(
        elapsed >= Duration::from_millis(1500),
        "three timed-out attempts: {elapsed:?}"
    );
    assert!(
        elapsed < Duration::from_secs(3),
        "did not wait for the slow answer: {elapsed:?}"
    );
}

/// Adds two numbers.
struct Add;

#[async_trait]
impl Tool for Add {
    fn name(&self) -> &'static str {
        "add"
    }
    fn description(&self) -> &'static str {
        "Add a and b"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}})
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
        Ok(vec![Content::text(sum.to_string())])
    }
}

#[tokio::test]
async fn bad_tool_calls_over_the_wire_become_error_results_and_the_run_finishes() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_calls(&[
            ("c1", "add", "{\"a\": 1, \"b\":"),
            ("c2", "delete_everything", "{}"),
            ("c3", "add", "{\"a\": 1, \"b\": 2}"),
        ])))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(openai_text("1 + 2 = 3")))
        .mount(&server)
        .await;
    let agent = PhiAgent::build(
        base_agent_builder(openai(&server)).register_tool(Add),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("add things").await.unwrap();
    assert_eq!(output.text, "1 + 2 = 3");
    assert_eq!(output.usage.input_tokens, 10);

    let [bad_json, unknown, good] = &output.tool_calls[..] else {
        panic!("{:?}", output.tool_calls);
    };
    assert!(bad_json.is_error && unknown.is_error && !good.is_error);
    assert_eq!(good.result, [Content::text("3")]);

    let second: Value = server.received_requests().await.unwrap()[1]
        .body_json()
        .unwrap();
    let messages = second["messages"].as_array().unwrap();
    assert_eq!(
        messages[1]["tool_calls"][0]["function"]["arguments"], "{\"a\": 1, \"b\":",
        "the model's own text goes back unchanged"
    );
    let results: Vec<&str> = messages[2..5]
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(
        results[0].starts_with("Error: invalid arguments for tool `add`"),
        "{}",
        results[0]
    );
    assert!(results[0].contains("not a JSON object"), "{}", results[0]);
    assert_eq!(
        results[1],
        "Error: tool `delete_everything` is not available; available tools: add"
    );
    assert_eq!(results[2], "3");
    assert_eq!(messages[2]["tool_call_id"], "c1");
    assert_eq!(messages[4]["tool_call_id"], "c3");
}
