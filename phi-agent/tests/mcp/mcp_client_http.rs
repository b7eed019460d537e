//! Our MCP client over streamable HTTP: against phi-agent's own `serve_http` on loopback (bearer
//! token, an expired session renewed), and against a wiremock server that answers every call
//! with 404 (renewed once, then reported).

use std::time::Duration;

use phi_agent::mcp::{HttpOptions, McpClient, McpClientOptions, McpHttpOptions};
use phi_agent::{Tool, ToolContext};
use serde_json::{Value, json};
use wiremock::matchers::{body_partial_json, method};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::raw::echo_server;

const TOKEN: &str = "client-test-token";

async fn echo(client: &McpClient, text: &str) -> Result<String, String> {
    let tool = client
        .tools()
        .into_iter()
        .find(|t| t.name() == "echo")
        .unwrap();
    tool.call(&json!({"text": text}), &ToolContext::default())
        .await
        .map(|content| content.iter().map(|c| c.to_model_text()).collect())
        .map_err(|error| error.to_string())
}

#[tokio::test]
async fn our_client_imports_and_calls_tools_over_http_with_a_bearer_token() {
    let server = echo_server()
        .serve_http(HttpOptions::default().with_bearer_token(TOKEN))
        .await
        .unwrap();
    let http = McpHttpOptions::default().with_bearer_token(TOKEN);
    let options = McpClientOptions::default().with_name_prefix("local");
    let client = McpClient::connect_http("local", &server.url(), http, options.clone())
        .await
        .unwrap();
    let tools = client.tools();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name(), "local_echo");
    assert_eq!(tools[0].remote_name(), "echo");
    assert_eq!(tools[0].metadata().origin, "mcp:local");
    let answer = tools[0]
        .call(&json!({"text": "over http"}), &ToolContext::default())
        .await
        .unwrap();
    assert_eq!(answer[0].to_model_text(), "over http");
    client.close().await;

    let refused = McpClient::connect_http(
        "local",
        &server.url(),
        McpHttpOptions::default().with_bearer_token("wrong"),
        options,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        refused.starts_with("MCP server `local`: ")
            && refused.contains("did not complete the MCP handshake"),
        "{refused}"
    );
    // Said as the refusal it is, with the fix, not as an unreachable URL in rmcp's type names.
    assert!(
        refused.contains("refused the credentials it was sent (HTTP 401 Unauthorized")
            && refused.contains("check the bearer token")
            && !refused.contains("could not be reached")
            && !refused.contains("check the URL"),
        "{refused}"
    );
    assert!(refused.len() < 400, "{} bytes: {refused}", refused.len());
    server.shutdown().await;
}

#[tokio::test]
async fn an_expired_session_is_renewed_and_the_call_goes_through() {
    let server = echo_server()
        .serve_http(HttpOptions::default().with_session_idle_timeout(Duration::from_millis(500)))
        .await
        .unwrap();
    let client = McpClient::connect_http(
        "local",
        &server.url(),
        McpHttpOptions::default(),
        McpClientOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(echo(&client, "first").await.unwrap(), "first");
    // Longer than the idle timeout: the server forgets the session and answers 404.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(
        echo(&client, "after expiry").await.unwrap(),
        "after expiry",
        "the client opened a new session and sent the call again"
    );
    client.close().await;
    server.shutdown().await;
}

/// A JSON answer to the JSON-RPC request `request`, with `result`.
fn answer(request: &Request, result: Value) -> ResponseTemplate {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    ResponseTemplate::new(200)
        .insert_header("mcp-session-id", "s-1")
        .set_body_json(json!({"jsonrpc": "2.0", "id": body["id"], "result": result}))
}

#[tokio::test]
async fn a_second_404_for_the_same_call_is_reported_not_looped() {
    let mock = MockServer::start().await;
    Mock::given(method("POST"))
        .and(body_partial_json(json!({"method": "initialize"})))
        .respond_with(|request: &Request| {
            answer(
                request,
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                       "serverInfo": {"name": "mock", "version": "1.0.0"}}),
            )
        })
        .mount(&mock)
        .await;
    Mock::given(method("POST"))
        .and(body_partial_json(json!({"method": "tools/list"})))
        .respond_with(|request: &Request| {
            answer(
                request,
                json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
            )
        })
        .mount(&mock)
        .await;
    Mock::given(method("POST"))
        .and(body_partial_json(json!({"method": "tools/call"})))
        .respond_with(ResponseTemplate::new(404))
        .mount(&mock)
        .await;
    Mock::given(method("POST"))
        .and(body_partial_json(
            json!({"method": "notifications/initialized"}),
        ))
        .respond_with(ResponseTemplate::new(202))
        .mount(&mock)
        .await;
    // `server/discover` and anything else: this server predates it.
    Mock::given(method("POST"))
        .respond_with(|request: &Request| {
            let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
            ResponseTemplate::new(200).set_body_json(json!({"jsonrpc": "2.0", "id": body["id"],
                "error": {"code": -32601, "message": "Method not found"}}))
        })
        .with_priority(10)
        .mount(&mock)
        .await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(405))
        .mount(&mock)
        .await;
    Mock::given(method("DELETE"))
        .respond_with(ResponseTemplate::new(405))
        .mount(&mock)
        .await;

    let client = McpClient::connect_http(
        "mock",
        &format!("{}/mcp", mock.uri()),
        McpHttpOptions::default(),
        McpClientOptions::default().with_call_timeout(Duration::from_secs(20)),
    )
    .await
    .unwrap();
    let error = tokio::time::timeout(Duration::from_secs(30), echo(&client, "x"))
        .await
        .expect("the call ends instead of renewing the session forever")
        .unwrap_err();
    assert_eq!(
        error,
        "MCP server `mock`: the server answered `echo` with HTTP 404 (session expired) again after the session was renewed; the call was not sent a third time"
    );
    let requests = mock.received_requests().await.unwrap();
    let count = |wanted: &str| {
        requests
            .iter()
            .filter(|request| {
                serde_json::from_slice::<Value>(&request.body)
                    .is_ok_and(|body| body["method"] == wanted)
            })
            .count()
    };
    assert_eq!(count("initialize"), 2, "one handshake, one renewal");
    assert_eq!(count("tools/call"), 2, "the call, and its one retry");
    client.close().await;
}
