//! API keys never appear in `Debug`, in errors, nor in tracing output: every log line at every
//! level, from phi-agent and from the HTTP stack beneath it, with span fields and span opening and
//! closing, is captured by a real `tracing` subscriber writing to a buffer, and searched.
//!
//! One test in its own binary: `tracing` caches per call site whether anyone listens, so a
//! thread-local subscriber is only reliable while no other test thread hits the same call sites.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use phi_agent::llm::{AnthropicClient, HttpConfig, LlmClient, LlmRequest, OpenAiClient};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Content, PhiAgent, Tool, ToolContext, base_agent_builder,
};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-proj-SECURITY-0123456789abcdef";

struct Open;

#[async_trait]
impl Tool for Open {
    fn name(&self) -> &'static str {
        "open"
    }
    fn description(&self) -> &'static str {
        "An open tool"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("opened")])
    }
}

#[derive(Debug, Clone, Copy)]
enum Provider {
    OpenAi,
    Anthropic,
}

impl Provider {
    fn client(self, base: &str) -> Box<dyn LlmClient> {
        let config = HttpConfig {
            timeout: Duration::from_secs(2),
            max_retries: 1,
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(50),
        };
        match self {
            Provider::OpenAi => Box::new(
                OpenAiClient::new(KEY, "gpt-test")
                    .unwrap()
                    .with_base_url(format!("{base}/v1"))
                    .with_http_config(config),
            ),
            Provider::Anthropic => Box::new(
                AnthropicClient::new(KEY, "claude-test")
                    .unwrap()
                    .with_base_url(base)
                    .with_http_config(config),
            ),
        }
    }

    fn calls(self, names: &[&str]) -> Value {
        match self {
            Provider::OpenAi => {
                let calls: Vec<Value> = names
                    .iter()
                    .enumerate()
                    .map(|(i, name)| json!({"id": format!("c{i}"), "type": "function", "function": {"name": name, "arguments": "{}"}}))
                    .collect();
                json!({"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant", "content": null, "tool_calls": calls}}]})
            }
            Provider::Anthropic => {
                let blocks: Vec<Value> = names
                    .iter()
                    .enumerate()
                    .map(|(i, name)| json!({"type": "tool_use", "id": format!("c{i}"), "name": name, "input": {}}))
                    .collect();
                json!({"content": blocks, "stop_reason": "tool_use"})
            }
        }
    }

    fn text(self, text: &str) -> Value {
        match self {
            Provider::OpenAi => {
                json!({"choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": text}}]})
            }
            Provider::Anthropic => {
                json!({"content": [{"type": "text", "text": text}], "stop_reason": "end_turn"})
            }
        }
    }
}

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl io::Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// Everything that can be shown of a client, an agent and their errors, while every log line
/// at every level (with span fields, span opening and closing) goes to a buffer.
#[tokio::test]
async fn api_keys_never_appear_in_debug_errors_or_logs() {
    let logs = Buffer::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::TRACE)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::FULL)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let mut shown = Vec::new();

    for provider in [Provider::OpenAi, Provider::Anthropic] {
        // A successful run with a tool call.
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(provider.calls(&["open"])))
            .up_to_n_times(1)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(provider.text("done")))
            .mount(&server)
            .await;
        shown.push(format!(
            "{:?} {:?}",
            OpenAiClient::new(KEY, "m").unwrap(),
            AnthropicClient::new(KEY, "m").unwrap()
        ));
        let builder = base_agent_builder(provider.client(&server.uri())).register_tool(Open);
        shown.push(format!("{builder:?}"));
        let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
        shown.push(format!("{agent:?}"));
        let output = agent.run("go").await.unwrap();
        shown.push(format!("{output:?}"));
        // The key must have been sent, or the test proves nothing.
        let sent = server.received_requests().await.unwrap();
        let headers = format!("{:?}", sent[0].headers);
        assert!(headers.contains(KEY), "the server saw the key");

        // A server that echoes the key in its error, a retried 503, a 2xx body that is not
        // JSON but quotes the key, and a refused connection.
        let echo = format!("Incorrect API key provided: {KEY}. Authorization: Bearer {KEY}");
        for (status, body) in [
            (
                401,
                json!({"error": {"message": echo, "type": "invalid_request_error"}}).to_string(),
            ),
            (503, format!("overloaded, key {KEY}")),
            (200, format!("<html>{KEY}</html>")),
        ] {
            let server = MockServer::start().await;
            Mock::given(method("POST"))
                .respond_with(ResponseTemplate::new(status).set_body_string(body))
                .mount(&server)
                .await;
            let error = provider
                .client(&server.uri())
                .complete(&LlmRequest::default())
                .await
                .unwrap_err();
            let text = format!("{error} {error:?}");
            assert!(text.contains("<redacted>"), "{provider:?} {status}: {text}");
            shown.push(text);
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let error = provider
            .client(&format!("http://127.0.0.1:{port}"))
            .complete(&LlmRequest::default())
            .await
            .unwrap_err();
        assert!(matches!(error, AgentError::Http { .. }), "{error}");
        shown.push(format!("{error} {error:?}"));
    }
    // From the environment too, and with a key that cannot go in a header.
    let bad = OpenAiClient::new(format!("{KEY}\n"), "m").unwrap();
    let error = bad.complete(&LlmRequest::default()).await.unwrap_err();
    shown.push(format!("{bad:?} {error} {error:?}"));

    let logs = logs.text();
    assert!(
        logs.contains("retrying the model request"),
        "the subscriber captured the run: {logs}"
    );
    assert!(
        logs.contains("execute_tool"),
        "span fields were captured: {logs}"
    );
    let everything = format!("{} {logs}", shown.join("\n"));
    assert!(!everything.contains(KEY), "the key leaked:\n{everything}");
    assert!(
        !everything.contains("SECURITY-0123456789"),
        "part of the key leaked:\n{everything}"
    );
}
