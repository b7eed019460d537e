//! API keys never appear in `Debug`, in errors, nor in tracing output: every log line at every
//! level, from phi-agent and from the HTTP stack beneath it, with span fields and span opening and
//! closing, is captured by a real `tracing` subscriber writing to a buffer, and searched.
//!
//! One test in its own binary: `tracing` caches per call site whether anyone listens, so a
//! thread-local subscriber is only reliable while no other test thread hits the same call sites.

use std::io;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use phi_agent::llm::{
    AnthropicClient, GeminiClient, LlmClient, LlmRequest, OpenAiClient, ResponsesClient,
};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Content, PhiAgent, Tool, ToolContext, base_agent_builder,
};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

#[path = "support/providers.rs"]
mod providers;
use providers::{ALL, http};

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

    for provider in ALL {
        // A successful run with a tool call.
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(provider.calls(&["open"])))
            .up_to_n_times(1)
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(provider.answer("done")))
            .mount(&server)
            .await;
        shown.push(format!(
            "{:?} {:?} {:?} {:?}",
            OpenAiClient::new(KEY, "m").unwrap(),
            AnthropicClient::new(KEY, "m").unwrap(),
            GeminiClient::new(KEY, "m").unwrap(),
            ResponsesClient::new(KEY, "m").unwrap()
        ));
        let builder = base_agent_builder(provider.client(&server.uri(), KEY, http(2_000, 1)))
            .register_tool(Open);
        shown.push(format!("{builder:?}"));
        let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
        shown.push(format!("{agent:?}"));
        let output = agent.run("go").await.unwrap();
        shown.push(format!("{output:?}"));
        // The key must have been sent, or the test proves nothing.
        let sent = server.received_requests().await.unwrap();
        let headers = format!("{:?}", sent[0].headers);
        assert!(headers.contains(KEY), "the server saw the key");
        assert!(
            sent.iter()
                .all(|request| !request.url.as_str().contains(KEY)),
            "{provider:?}: the key is never in the URL"
        );

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
                .client(&server.uri(), KEY, http(2_000, 1))
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
            .client(&format!("http://127.0.0.1:{port}"), KEY, http(2_000, 1))
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
    let bad = GeminiClient::new(format!("{KEY}\n"), "m").unwrap();
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
