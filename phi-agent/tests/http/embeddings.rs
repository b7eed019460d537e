//! The providers' embedding endpoints as `Embedder`s, against a local server with the real
//! request and reply shapes: OpenAI's `/v1/embeddings` and Gemini's `batchEmbedContents`.

use std::time::Duration;

use phi_agent::AgentError;
use phi_agent::llm::{GeminiEmbedder, HttpConfig, OpenAiEmbedder};
use phi_agent::search::Embedder;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-embed-very-secret";

fn quick() -> HttpConfig {
    HttpConfig::default()
        .with_timeout(Duration::from_millis(500))
        .with_max_retries(1)
        .with_initial_backoff(Duration::from_millis(10))
}

async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect()
}

#[tokio::test]
async fn openai_embeddings_are_read_in_input_order() {
    let server = MockServer::start().await;
    // The reply's list as the API documents it, here out of order: each item names its input.
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "object": "list",
            "data": [
                {"object": "embedding", "index": 1, "embedding": [0.0, 1.0]},
                {"object": "embedding", "index": 0, "embedding": [1.0, -0.5]}
            ],
            "model": "text-embedding-3-small",
            "usage": {"prompt_tokens": 6, "total_tokens": 6}
        })))
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::new(KEY, OpenAiEmbedder::DEFAULT_MODEL)
        .unwrap()
        .with_base_url(format!("{}/v1/", server.uri()))
        .with_dimensions(2)
        .with_http_config(quick());
    assert_eq!(embedder.model(), "text-embedding-3-small@2");
    let vectors = embedder.embed(&["pay the bill", "weather"]).await.unwrap();
    assert_eq!(vectors, [vec![1.0, -0.5], vec![0.0, 1.0]]);
    assert_eq!(
        bodies(&server).await,
        [json!({
            "model": "text-embedding-3-small",
            "input": ["pay the bill", "weather"],
            "encoding_format": "float",
            "dimensions": 2
        })]
    );
    assert!(embedder.embed(&[]).await.unwrap().is_empty());
    assert_eq!(bodies(&server).await.len(), 1, "no request for no texts");
}

#[tokio::test]
async fn gemini_embeddings_send_one_request_per_text() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(
            "/v1beta/models/gemini-embedding-001:batchEmbedContents",
        ))
        .and(header("x-goog-api-key", KEY))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "embeddings": [{"values": [0.25, 0.5, 0.75]}, {"values": [1.0, 0.0, 0.0]}]
        })))
        .mount(&server)
        .await;
    let embedder = GeminiEmbedder::new(KEY, GeminiEmbedder::DEFAULT_MODEL)
        .unwrap()
        .with_base_url(server.uri())
        .with_dimensions(3)
        .with_http_config(quick());
    let vectors = embedder.embed(&["a", "b"]).await.unwrap();
    assert_eq!(vectors, [vec![0.25, 0.5, 0.75], vec![1.0, 0.0, 0.0]]);
    let request = |text: &str| {
        json!({
            "model": "models/gemini-embedding-001",
            "content": {"parts": [{"text": text}]},
            "outputDimensionality": 3
        })
    };
    assert_eq!(
        bodies(&server).await,
        [json!({"requests": [request("a"), request("b")]})]
    );
    assert_eq!(embedder.max_batch(), 100);
    let requests = server.received_requests().await.unwrap();
    assert!(
        !requests[0].url.as_str().contains(KEY),
        "the key is a header, not in the URL"
    );
}

#[tokio::test]
async fn errors_quote_the_provider_and_never_the_key() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({
            "error": {"message": format!("Incorrect API key provided: {KEY}"), "type": "invalid_request_error"}
        })))
        .mount(&server)
        .await;
    let embedder = OpenAiEmbedder::new(KEY, "text-embedding-3-large")
        .unwrap()
        .with_base_url(format!("{}/v1", server.uri()))
        .with_http_config(quick());
    let error = embedder.embed(&["x"]).await.unwrap_err();
    let text = error.to_string();
    assert!(
        matches!(error, AgentError::Provider { status: 401, .. }),
        "{error:?}"
    );
    assert!(text.contains("Incorrect API key"), "{text}");
    assert!(!text.contains(KEY), "{text}");
    assert!(!format!("{embedder:?}").contains(KEY));
}

#[tokio::test]
async fn a_reply_of_the_wrong_shape_is_an_error_and_a_429_is_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(429).set_body_json(json!({
            "error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}
        })))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"embeddings": [{"values": [1.0, "two"]}]})),
        )
        .mount(&server)
        .await;
    let embedder = GeminiEmbedder::new(KEY, "text-embedding-004")
        .unwrap()
        .with_base_url(server.uri())
        .with_http_config(quick());
    let error = embedder.embed(&["x"]).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::InvalidResponse { message, .. } if message.contains("not a number")),
        "{error:?}"
    );
    assert_eq!(
        server.received_requests().await.unwrap().len(),
        2,
        "retried once"
    );
    let error = embedder.embed(&["x", "y"]).await.unwrap_err();
    assert!(
        matches!(&error, AgentError::InvalidResponse { message, .. } if message.contains("1 embeddings for 2 texts")),
        "{error:?}"
    );
}
