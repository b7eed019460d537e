//! The stateless `tools/call` the HTTP transport answers itself, without rmcp's transport: the
//! same answer, byte for byte where it counts, as rmcp's path gives the same call.
//!
//! A request with an `Origin` header is always left to rmcp (its origin check), so each call is
//! sent twice, once plain (answered directly) and once with the server's own origin (answered
//! by rmcp), and the two answers compared.

use phi_agent::mcp::{HttpOptions, HttpServer};
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentError, AgentResult, LogLevel, ToolConfig, ToolContext, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::raw::{Answer, Echo, post, send};

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

/// Logs at `info` (which a session hears by default) and at `debug` (which it does not).
struct Chatty;

#[async_trait::async_trait]
impl TypedTool for Chatty {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "chatty"
    }
    fn description(&self) -> &'static str {
        "Log, then answer"
    }
    async fn call_typed(&self, _args: NoArgs, ctx: &ToolContext) -> AgentResult<String> {
        ctx.log(LogLevel::Info, "starting").await;
        ctx.log(LogLevel::Debug, "details no one asked for").await;
        ctx.progress(1.0, Some(2.0), Some("half")).await;
        ctx.log(LogLevel::Warning, json!({"left": 1})).await;
        Ok("done".into())
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Name {
    /// A name.
    _name: String,
}

/// Asks the user a question (which a stateless client without `_meta` cannot be asked).
struct Asks;

#[async_trait::async_trait]
impl TypedTool for Asks {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "asks"
    }
    fn description(&self) -> &'static str {
        "Ask the user"
    }
    async fn call_typed(&self, _args: NoArgs, ctx: &ToolContext) -> AgentResult<String> {
        let answer = ctx.elicit::<Name>("Who are you?").await?;
        Ok(format!("{answer:?}"))
    }
}

/// Fails as a tool does.
struct Fails;

#[async_trait::async_trait]
impl TypedTool for Fails {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "fails"
    }
    fn description(&self) -> &'static str {
        "Fail"
    }
    async fn call_typed(&self, _args: NoArgs, _ctx: &ToolContext) -> AgentResult<String> {
        Err(AgentError::tool("no such city; ask for another"))
    }
}

async fn server() -> HttpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Echo).unwrap();
    registry.register(Chatty).unwrap();
    registry.register(Asks).unwrap();
    registry.register(Fails).unwrap();
    phi_agent::mcp::serve_http(registry, HttpOptions::default().with_stateless(true))
        .await
        .unwrap()
}

/// `body` sent plain (the direct path) and with the server's own origin (rmcp's), with
/// `protocol` as `MCP-Protocol-Version` when given.
async fn both_paths(server: &HttpServer, body: &Value, protocol: Option<&str>) -> (Answer, Answer) {
    let request = |origin: bool| {
        let mut request = post(server, body.to_string());
        if let Some(protocol) = protocol {
            request = request.header("MCP-Protocol-Version", protocol);
        }
        if origin {
            let own = format!("http://{}", server.local_addr());
            request = request.header("Origin", own);
        }
        request
    };
    let direct = send(request(false)).await;
    let rmcp = send(request(true)).await;
    (direct, rmcp)
}

fn call(id: Value, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

#[tokio::test]
async fn a_direct_call_is_answered_as_rmcp_answers_it() {
    let server = server().await;
    let calls = [
        (call(json!(1), "echo", json!({"text": "héllo"})), None),
        (
            call(json!("req-2"), "echo", json!({"text": "x".repeat(10_000)})),
            Some("2025-11-25"),
        ),
        (call(json!(3), "fails", json!({})), Some("2025-06-18")),
        (call(json!(4), "nonexistent", json!({})), None),
        (call(json!(5), "echo", json!({"wrong": 1})), None),
        (call(json!(6), "asks", json!({})), Some("2025-11-25")),
        (call(json!(7), "chatty", json!({})), None),
    ];
    let mut streams = 0;
    for (body, protocol) in calls {
        let (direct, rmcp) = both_paths(&server, &body, protocol).await;
        assert_eq!(direct.status, 200, "{body}: {direct:?}");
        assert_eq!(
            (direct.status, &direct.content_type),
            (rmcp.status, &rmcp.content_type),
            "{body}"
        );
        assert_eq!(direct.messages(), rmcp.messages(), "{body}");
        assert_eq!(direct.reply()["id"], body["id"]);
        streams += usize::from(direct.content_type.starts_with("text/event-stream"));
    }
    // Only `chatty` talks back before its answer: its logs at `info` and above, as events.
    assert_eq!(streams, 1);
    let (direct, _) = both_paths(&server, &call(json!(8), "chatty", json!({})), None).await;
    let methods: Vec<_> = direct
        .messages()
        .iter()
        .map(|m| m["method"].clone())
        .collect();
    assert_eq!(
        methods,
        [
            json!("notifications/message"),
            json!("notifications/message"),
            Value::Null
        ]
    );
    assert_eq!(direct.messages()[1]["params"]["level"], "warning");
    assert_eq!(direct.reply()["result"]["content"][0]["text"], "done");
    server.shutdown().await;
}

#[tokio::test]
async fn what_the_direct_path_declines_rmcp_still_answers() {
    let server = server().await;
    let echo = call(json!(1), "echo", json!({"text": "hi"}));
    // A foreign origin, an unknown protocol version, a wrong Accept: rmcp's refusals.
    let foreign =
        send(post(&server, echo.to_string()).header("Origin", "http://evil.example")).await;
    assert_eq!(foreign.status, 403, "{foreign:?}");
    let unknown =
        send(post(&server, echo.to_string()).header("MCP-Protocol-Version", "1999-01-01")).await;
    assert_eq!(unknown.status, 400, "{unknown:?}");
    let json_only = send(
        crate::raw::client()
            .post(server.url())
            .header("Accept", "application/json")
            .header("Content-Type", "application/json")
            .body(echo.to_string()),
    )
    .await;
    assert_eq!(json_only.status, 406, "{json_only:?}");
    let foreign_host = send(post(&server, echo.to_string()).header("Host", "evil.example")).await;
    assert_eq!(foreign_host.status, 403, "{foreign_host:?}");
    // A call with `_meta` (a progress token) goes to rmcp, and is answered.
    let with_meta = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": 9}}});
    let answer = send(post(&server, with_meta.to_string())).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.reply()["result"]["content"][0]["text"], "hi");
    server.shutdown().await;
}
