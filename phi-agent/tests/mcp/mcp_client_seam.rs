//! The MCP HTTP client through a transport of the caller's (`McpHttpOptions::with_http_transport`):
//! every request of a connection goes through it, with its method, and a transport's failure is
//! the connection's error.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use phi_agent::llm::{HttpError, HttpReply, HttpRequest, HttpTransport, ReqwestTransport};
use phi_agent::mcp::{HttpOptions, McpClient, McpClientOptions, McpHttpOptions};
use phi_agent::{Tool, ToolContext};
use serde_json::json;

use crate::raw::echo_server;

const TOKEN: &str = "seam-test-token";

/// Sends through reqwest's transport and notes each request's method, status and whether it
/// carried the token (as a secret).
#[derive(Debug)]
struct Noting {
    inner: Arc<dyn HttpTransport>,
    seen: Mutex<Vec<(String, u16, bool)>>,
}

#[async_trait]
impl HttpTransport for Noting {
    async fn send(&self, request: HttpRequest) -> Result<HttpReply, HttpError> {
        let method = request.method.to_string();
        let token = request.headers.iter().any(|header| {
            header.name == "authorization"
                && header.sensitive
                && header.value == format!("Bearer {TOKEN}")
        });
        let reply = self.inner.send(request).await?;
        self.seen
            .lock()
            .unwrap()
            .push((method, reply.status, token));
        Ok(reply)
    }
}

/// Refuses every request, as a replay with no cassette would.
#[derive(Debug)]
struct Offline;

#[async_trait]
impl HttpTransport for Offline {
    async fn send(&self, _request: HttpRequest) -> Result<HttpReply, HttpError> {
        Err(HttpError::fatal("offline: no exchange for this request"))
    }
}

#[tokio::test]
async fn every_request_of_a_connection_goes_through_the_given_transport() {
    let server = echo_server()
        .serve_http(HttpOptions::default().with_bearer_token(TOKEN))
        .await
        .unwrap();
    let noting = Arc::new(Noting {
        inner: ReqwestTransport::shared().unwrap(),
        seen: Mutex::new(Vec::new()),
    });
    let http = McpHttpOptions::default()
        .with_bearer_token(TOKEN)
        .with_http_transport(noting.clone());
    let client = McpClient::connect_http("local", &server.url(), http, McpClientOptions::default())
        .await
        .unwrap();
    let answer = client.tools()[0]
        .call(
            &json!({"text": "through the seam"}),
            &ToolContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(answer[0].to_model_text(), "through the seam");
    client.close().await;
    server.shutdown().await;
    let seen = noting.seen.lock().unwrap().clone();
    // Our server speaks 2026-07-28, sessionless: `server/discover`, `tools/list` and the call,
    // each a POST carrying the token. (A 2025 session adds the GET of its event stream and the
    // DELETE that ends it, which go through the same transport.)
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert!(
        seen.iter()
            .all(|(method, status, _)| method == "POST" && *status == 200),
        "{seen:?}"
    );
    assert!(seen.iter().all(|(_, _, token)| *token), "{seen:?}");
}

#[tokio::test]
async fn a_transport_failure_is_the_connection_error() {
    let http = McpHttpOptions::default().with_http_transport(Arc::new(Offline));
    let error = McpClient::connect_http(
        "replayed",
        "http://replay.invalid/mcp",
        http,
        McpClientOptions::default(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("offline: no exchange for this request"),
        "{error}"
    );
}
