//! Raw JSON-RPC over streamable HTTP, for the tests whose subject is the exact status, headers
//! and bytes a request gets (rmcp's client would hide them).

use std::time::{Duration, Instant};

use phi_agent::mcp::{HttpServer, McpServer};
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentResult, ToolConfig, ToolContext, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// Text to return
    text: String,
}

/// Returns its text: the tool the session, malformed-message and load tests call.
pub struct Echo;

#[async_trait::async_trait]
impl TypedTool for Echo {
    type Args = EchoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "echo"
    }
    fn description(&self) -> &'static str {
        "Return the text"
    }
    async fn call_typed(&self, args: EchoArgs, _ctx: &ToolContext) -> AgentResult<String> {
        Ok(args.text)
    }
}

/// A server over a registry holding [`Echo`].
pub fn echo_server() -> McpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Echo).unwrap();
    McpServer::new(registry)
}

/// reqwest is built without a crypto provider of its own (the adapters install ring's when they
/// are built); a client made outside them needs one installed first, as a program's would.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A new client, with the crypto provider installed.
pub fn new_client() -> reqwest::Client {
    install_crypto_provider();
    reqwest::Client::new()
}

/// One client for every raw request: building a `reqwest::Client` (its TLS setup) takes tens of
/// milliseconds in a debug build, long enough for the short-lived sessions of these tests to
/// expire while a test is still opening them. It keeps no idle connection, because each test
/// runs on a runtime of its own, and a connection is bound to the runtime that opened it.
pub fn client() -> &'static reqwest::Client {
    static CLIENT: std::sync::LazyLock<reqwest::Client> = std::sync::LazyLock::new(|| {
        install_crypto_provider();
        reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .expect("a reqwest client")
    });
    &CLIENT
}

/// A POST of `body` to the server's endpoint, with the headers every MCP client sends.
pub fn post(server: &HttpServer, body: impl Into<String>) -> reqwest::RequestBuilder {
    client()
        .post(server.url())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(body.into())
}

/// An `initialize` request (protocol 2025-11-25, the last revision with sessions).
pub fn initialize_body(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}})
    .to_string()
}

/// What one raw request got back.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub session: Option<String>,
    pub retry_after: Option<String>,
    pub content_type: String,
    pub body: String,
}

impl Answer {
    /// The JSON-RPC messages of the body: the body itself when it is JSON, the `data:` lines of
    /// an event stream otherwise.
    pub fn messages(&self) -> Vec<Value> {
        if self.content_type.starts_with("application/json") {
            return vec![serde_json::from_str(&self.body).expect("a JSON body")];
        }
        self.body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .filter(|data| !data.is_empty())
            .map(|data| serde_json::from_str(data).expect("JSON in a data line"))
            .collect()
    }

    /// The one message of the body that answers a request.
    pub fn reply(&self) -> Value {
        let mut replies: Vec<Value> = self
            .messages()
            .into_iter()
            .filter(|message| message.get("result").is_some() || message.get("error").is_some())
            .collect();
        assert_eq!(replies.len(), 1, "one reply in {self:?}");
        replies.remove(0)
    }
}

/// Sends `request` and reads the whole answer.
pub async fn send(request: reqwest::RequestBuilder) -> Answer {
    let response = request.send().await.expect("the server answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
    };
    let status = response.status().as_u16();
    let session = header("mcp-session-id");
    let retry_after = header("retry-after");
    let content_type = header("content-type").unwrap_or_default();
    let body = tokio::time::timeout(Duration::from_secs(10), response.text())
        .await
        .expect("the body ends")
        .expect("a readable body");
    Answer {
        status,
        session,
        retry_after,
        content_type,
        body,
    }
}

/// Opens a session the way a client does: `initialize`, then `notifications/initialized`.
pub async fn open_session(server: &HttpServer) -> String {
    let answer = send(post(server, initialize_body(1))).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let done = send(
        post(server, initialized.to_string())
            .header("Mcp-Session-Id", &session)
            .header("MCP-Protocol-Version", "2025-11-25"),
    )
    .await;
    assert_eq!(done.status, 202, "{done:?}");
    session
}

/// A `tools/call` of `echo` on `session`.
pub fn call_echo(
    server: &HttpServer,
    session: &str,
    id: u64,
    text: &str,
) -> reqwest::RequestBuilder {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {"text": text}}});
    post(server, call.to_string())
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-11-25")
}

/// Waits (at most `limit`) until the server has no live session; returns how long it took.
pub async fn wait_for_no_sessions(server: &HttpServer, limit: Duration) -> Duration {
    let start = Instant::now();
    while server.live_sessions().await > 0 {
        assert!(
            start.elapsed() < limit,
            "{} sessions still live after {limit:?}",
            server.live_sessions().await
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    start.elapsed()
}

/// A JSON text nested `depth` arrays deep.
pub fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}
