//! The streamable HTTP transport: bearer token, `Origin` and `Host` checks, and a tool call end
//! to end with rmcp's HTTP client.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation,
};
use phi_agent::mcp::rmcp::transport::StreamableHttpClientTransport;
use phi_agent::mcp::rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use phi_agent::mcp::rmcp::{ClientLifecycleMode, ClientServiceExt};
use phi_agent::mcp::{HttpOptions, HttpServer, serve_http};
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentResult, ToolConfig, ToolContext, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

const TOKEN: &str = "test-token-7f3a";
const ALLOWED_ORIGIN: &str = "http://localhost:6274";

#[derive(Deserialize, JsonSchema)]
struct CountArgs {
    /// Text to return
    text: String,
}

/// Counts its calls, so a test can prove a refused request reached no tool.
struct Count(Arc<AtomicUsize>);

#[async_trait]
impl TypedTool for Count {
    type Args = CountArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "count"
    }
    fn description(&self) -> &'static str {
        "Count this call and return the text"
    }
    async fn call_typed(&self, args: CountArgs, _ctx: &ToolContext) -> AgentResult<String> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(args.text)
    }
}

async fn start() -> (HttpServer, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Count(calls.clone())).unwrap();
    let options = HttpOptions::default()
        .with_bearer_token(TOKEN)
        .with_allowed_origin(ALLOWED_ORIGIN);
    let server = serve_http(registry, options).await.unwrap();
    (server, calls)
}

/// A `tools/call` POST as a browser or script would send it (headers are the test's subject).
fn tools_call(server: &HttpServer) -> reqwest::RequestBuilder {
    crate::raw::new_client()
        .post(server.url())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2026-07-28")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "count", "arguments": {"text": "x"}}})
            .to_string(),
        )
}

fn initialize(server: &HttpServer) -> reqwest::RequestBuilder {
    crate::raw::new_client()
        .post(server.url())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}})
            .to_string(),
        )
}

#[tokio::test]
async fn binds_to_loopback_by_default() {
    let (server, _) = start().await;
    assert!(
        server.local_addr().ip().is_loopback(),
        "{}",
        server.local_addr()
    );
    assert!(server.url().ends_with("/mcp"));
}

#[tokio::test]
async fn requests_without_the_right_token_get_401_and_reach_no_tool() {
    let (server, calls) = start().await;
    let missing = tools_call(&server).send().await.unwrap();
    assert_eq!(missing.status(), 401);
    assert_eq!(missing.headers()["www-authenticate"], "Bearer");

    let wrong = tools_call(&server)
        .bearer_auth("not-the-token")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    // A token sent and wrong is told apart from a missing one (RFC 6750 §3.1).
    assert!(
        wrong.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .starts_with(r#"Bearer error="invalid_token""#),
        "{:?}",
        wrong.headers()
    );
    let other_scheme = tools_call(&server)
        .basic_auth("user", Some(TOKEN))
        .send()
        .await
        .unwrap();
    assert_eq!(other_scheme.status(), 401);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "no refused request reached the tool"
    );

    let authorized = initialize(&server).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(authorized.status(), 200, "the right token is accepted");
}

#[tokio::test]
async fn foreign_origins_and_hosts_are_refused() {
    let (server, calls) = start().await;
    let evil = tools_call(&server)
        .bearer_auth(TOKEN)
        .header("Origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(
        evil.status(),
        403,
        "a page on another origin cannot call the server"
    );

    let other_port = initialize(&server)
        .bearer_auth(TOKEN)
        .header("Origin", "http://localhost:9999")
        .send()
        .await
        .unwrap();
    assert_eq!(
        other_port.status(),
        403,
        "the allowed origin's port is part of it"
    );

    // DNS rebinding: a hostile name resolved to 127.0.0.1 still carries its own Host header.
    let rebound = initialize(&server)
        .bearer_auth(TOKEN)
        .header(
            "Host",
            format!("evil.example:{}", server.local_addr().port()),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(rebound.status(), 403);
    assert_eq!(calls.load(Ordering::SeqCst), 0);

    let allowed = initialize(&server)
        .bearer_auth(TOKEN)
        .header("Origin", ALLOWED_ORIGIN)
        .send()
        .await
        .unwrap();
    assert_eq!(allowed.status(), 200, "the configured origin is accepted");
    let no_origin = initialize(&server).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(
        no_origin.status(),
        200,
        "non-browser clients send no Origin"
    );
}

#[tokio::test]
async fn a_tool_call_over_http_works_end_to_end() {
    let (server, calls) = start().await;
    for lifecycle in [
        ClientLifecycleMode::Initialize,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![phi_agent::mcp::rmcp::model::ProtocolVersion::V_2026_07_28],
        },
    ] {
        let transport = StreamableHttpClientTransport::with_client(
            crate::raw::new_client(),
            StreamableHttpClientTransportConfig::with_uri(server.url()).auth_header(TOKEN),
        );
        let client = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("phi-http-test", "0.0.0"),
        )
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("handshake over HTTP");
        let tools = client.peer().list_all_tools().await.unwrap();
        assert_eq!(
            tools.iter().map(|t| t.name.as_ref()).collect::<Vec<_>>(),
            ["count"]
        );

        let mut arguments = serde_json::Map::new();
        arguments.insert("text".into(), json!("over http"));
        let result = client
            .peer()
            .call_tool(CallToolRequestParams::new("count").with_arguments(arguments))
            .await
            .unwrap();
        assert_eq!(result.is_error, Some(false));
        assert_eq!(result.content[0].as_text().unwrap().text, "over http");

        let bad = client
            .peer()
            .call_tool(CallToolRequestParams::new("count"))
            .await
            .unwrap();
        assert_eq!(
            bad.is_error,
            Some(true),
            "missing arguments are an error result"
        );
        client.cancel().await.unwrap();
    }
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    server.shutdown().await;
}

#[tokio::test]
async fn shutdown_stops_listening() {
    let (server, _) = start().await;
    let url = server.url();
    server.shutdown().await;
    let result = crate::raw::new_client().post(url).send().await;
    assert!(result.is_err(), "{result:?}");
}
