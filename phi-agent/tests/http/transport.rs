//! The transport seam (`with_http_transport`): the adapter's retry policy and timeouts hold over
//! any transport, a failure the transport calls fatal is not retried, and the request it gets is
//! the one reqwest would have sent (the key marked sensitive).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use phi_agent::llm::{
    HttpConfig, HttpError, HttpReply, HttpRequest, HttpTransport, LlmClient, LlmRequest, Message,
    OpenAiClient,
};

/// Fails every request as told, and keeps what it got.
#[derive(Debug)]
struct Failing {
    retryable: bool,
    seen: Mutex<Vec<HttpRequest>>,
}

#[async_trait]
impl HttpTransport for Failing {
    async fn send(&self, request: HttpRequest) -> Result<HttpReply, HttpError> {
        self.seen.lock().unwrap().push(request);
        Err(if self.retryable {
            HttpError::transient("connection reset")
        } else {
            HttpError::fatal("not in the cassette")
        })
    }
}

/// Never answers.
#[derive(Debug)]
struct Silent;

#[async_trait]
impl HttpTransport for Silent {
    async fn send(&self, _: HttpRequest) -> Result<HttpReply, HttpError> {
        std::future::pending().await
    }
}

fn client(transport: Arc<dyn HttpTransport>) -> OpenAiClient {
    OpenAiClient::new("sk-transport-test-key", "gpt-test")
        .unwrap()
        .with_base_url("http://transport.invalid/v1")
        .with_http_config(
            HttpConfig::default()
                .with_max_retries(2)
                .with_initial_backoff(Duration::from_millis(1))
                .with_timeout(Duration::from_millis(100)),
        )
        .with_http_transport(transport)
}

fn request() -> LlmRequest {
    LlmRequest::new(vec![Message::user("hi")])
}

#[tokio::test]
async fn transient_failures_are_retried_and_fatal_ones_are_not() {
    for (retryable, attempts) in [(true, 3), (false, 1)] {
        let transport = Arc::new(Failing {
            retryable,
            seen: Mutex::new(Vec::new()),
        });
        let error = client(transport.clone())
            .complete(&request())
            .await
            .unwrap_err();
        let seen = transport.seen.lock().unwrap();
        assert_eq!(seen.len(), attempts, "{error}");
        let message = error.to_string();
        assert!(
            message.contains(if retryable {
                "connection reset"
            } else {
                "not in the cassette"
            }),
            "{message}"
        );
        let sent = &seen[0];
        assert_eq!(sent.url, "http://transport.invalid/v1/chat/completions");
        assert!(!sent.stream);
        let key = sent
            .headers
            .iter()
            .find(|header| header.name == "authorization")
            .unwrap();
        assert!(key.sensitive);
        assert!(!format!("{key:?}").contains("sk-transport-test-key"));
        let body: serde_json::Value = serde_json::from_slice(&sent.body).unwrap();
        assert_eq!(body["model"], "gpt-test");
    }
}

#[tokio::test]
async fn the_timeout_bounds_a_transport_that_never_answers() {
    let client = client(Arc::new(Silent));
    let error = client.complete(&request()).await.unwrap_err().to_string();
    assert!(
        error.contains("no complete answer within the timeout of 100ms"),
        "{error}"
    );
    let request = request();
    let mut stream = client.stream(&request);
    let error = stream.next().await.unwrap().unwrap_err().to_string();
    assert!(
        error.contains("no response within the timeout of 100ms"),
        "{error}"
    );
}
