//! The handshake across the two eras of MCP: our client probes with `server/discover`
//! (2026-07-28) and falls back to `initialize` (2025-11-25) once, whether a legacy server
//! answers the probe with 404 or with 400, and never initializes a server whose discover
//! succeeded; our stdio server serves a client whose first message is `server/discover`.

use phi_agent::mcp::{McpClient, McpClientOptions, McpHttpOptions};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::mcp_client_oauth::{mcp_answer, whoami};
use crate::mcp_malformed::{OURS, StdioPeer};

fn rpc_method(request: &Request) -> String {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
    body["method"].as_str().unwrap_or_default().to_string()
}

/// How many POSTs to `mock` were of `method`.
async fn sent(mock: &MockServer, method: &str) -> usize {
    let requests = mock.received_requests().await.unwrap();
    requests.iter().filter(|r| rpc_method(r) == method).count()
}

/// A legacy (2025-11-25) server whose answer to `server/discover` is `refusal`.
async fn legacy_server(refusal: ResponseTemplate) -> MockServer {
    let mock = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .respond_with(move |request: &Request| {
            if rpc_method(request) == "server/discover" {
                refusal.clone()
            } else {
                mcp_answer(request)
            }
        })
        .mount(&mock)
        .await;
    for verb in ["GET", "DELETE"] {
        Mock::given(method(verb))
            .and(path("/mcp"))
            .respond_with(ResponseTemplate::new(405))
            .mount(&mock)
            .await;
    }
    mock
}

async fn connect(mock: &MockServer) -> McpClient {
    McpClient::connect_http(
        "legacy",
        &format!("{}/mcp", mock.uri()),
        McpHttpOptions::default(),
        McpClientOptions::default(),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_legacy_server_answering_discover_with_404_gets_one_initialize() {
    let mock = legacy_server(ResponseTemplate::new(404).set_body_string("Not Found")).await;
    let client = connect(&mock).await;
    assert_eq!(whoami(&client).await, "");
    assert_eq!(sent(&mock, "server/discover").await, 1);
    assert_eq!(sent(&mock, "initialize").await, 1);
    client.close().await;
}

#[tokio::test]
async fn a_legacy_server_answering_discover_with_400_gets_one_initialize() {
    // What SDKs of the session era answer a request before `initialize`.
    let refusal = ResponseTemplate::new(400).set_body_json(json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": -32000, "message": "Bad Request: Server not initialized"}}));
    let mock = legacy_server(refusal).await;
    let client = connect(&mock).await;
    assert_eq!(whoami(&client).await, "");
    assert_eq!(sent(&mock, "server/discover").await, 1);
    assert_eq!(sent(&mock, "initialize").await, 1);
    client.close().await;
}

/// A 2026-07-28 server: `server/discover`, and every request served on its own.
fn modern_answer(request: &Request) -> ResponseTemplate {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
    let result = match body["method"].as_str().unwrap_or_default() {
        "server/discover" => json!({
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "1"}},
            "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}),
        "tools/list" => json!({"tools": [{"name": "whoami", "inputSchema": {"type": "object"}}],
                               "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}),
        "tools/call" => json!({"content": [{"type": "text", "text": "modern"}],
                               "resultType": "complete"}),
        _ if body.get("id").is_none() => return ResponseTemplate::new(202),
        _ => {
            return ResponseTemplate::new(404).set_body_json(json!({"jsonrpc": "2.0",
                "id": body["id"], "error": {"code": -32601, "message": "Method not found"}}));
        }
    };
    ResponseTemplate::new(200)
        .set_body_json(json!({"jsonrpc": "2.0", "id": body["id"], "result": result}))
}

#[tokio::test]
async fn a_server_whose_discover_succeeded_is_never_initialized() {
    let mock = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .respond_with(modern_answer)
        .mount(&mock)
        .await;
    let client = connect(&mock).await;
    assert_eq!(whoami(&client).await, "modern");
    assert_eq!(whoami(&client).await, "modern");
    assert_eq!(sent(&mock, "server/discover").await, 1);
    assert_eq!(sent(&mock, "initialize").await, 0);
    client.close().await;
}

#[tokio::test]
async fn our_stdio_server_serves_a_client_whose_first_message_is_discover() {
    let mut peer = StdioPeer::start(OURS).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    });
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                          "params": {"_meta": meta}});
    peer.line(&discover.to_string()).await;
    let reply = peer.reply().await;
    assert_eq!(reply["id"], 1, "{reply}");
    let versions = reply["result"]["supportedVersions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(versions.contains(&json!("2026-07-28")), "{reply}");
    // Still serving, with no `initialize` ever: a call with its own `_meta`.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"text": "after discover"},
                                 "_meta": meta}});
    peer.line(&call.to_string()).await;
    let reply = peer.reply().await;
    assert_eq!(reply["id"], 2, "{reply}");
    assert_eq!(
        reply["result"]["content"][0]["text"], "after discover",
        "{reply}"
    );
    peer.finish().await;
}
