//! Our server on the wire of MCP 2026-07-28 (per-request `_meta`, no session), over raw HTTP so
//! that the status and the exact result fields are the subject: the methods that revision removed
//! are not found whatever their params, and every result says its `resultType`, prompts and
//! completions included (while a 2025-11-25 session gets none, as that revision has no such
//! field); a call that failed for want of a capability the request did not declare is the
//! MissingRequiredClientCapability error.

use phi_agent::mcp::{HttpOptions, HttpServer, McpServer, Prompt, PromptMessage};
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentResult, SampleRequest, ToolConfig, ToolContext, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::raw::{echo_server, open_session, post, send};

/// The `_meta` every 2026-07-28 request carries.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    })
}

/// A 2026-07-28 request: `params` with the request `_meta` added, and the headers that revision
/// asks for (`Mcp-Method`, and `Mcp-Name` for a request naming what it is about).
pub(crate) fn request_2026(
    server: &HttpServer,
    id: u64,
    method: &str,
    params: Value,
) -> reqwest::RequestBuilder {
    let mut params = params;
    params["_meta"] = meta();
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut request = post(server, body.to_string())
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method);
    if let Some(name) = params["name"].as_str() {
        request = request.header("Mcp-Name", name);
    }
    request
}

/// A server with a prompt and completions besides `echo`.
fn server_with_prompts() -> McpServer {
    let prompt = Prompt::new("greet", |args| async move {
        Ok(vec![PromptMessage::user(format!(
            "Hello, {}",
            args["name"]
        ))])
    })
    .with_description("Greets someone")
    .with_argument("name", "Who to greet", true);
    echo_server()
        .with_prompt(prompt)
        .with_completion(|_, _, typed| vec![format!("{typed}ly"), format!("{typed}ish")])
}

async fn serve(stateless: bool) -> HttpServer {
    server_with_prompts()
        .serve_http(HttpOptions::default().with_stateless(stateless))
        .await
        .unwrap()
}

#[tokio::test]
async fn methods_2026_07_28_removed_are_not_found_whatever_their_params() {
    for stateless in [true, false] {
        let server = serve(stateless).await;
        // The suite's probe: params holding only `_meta` (which do not fit `initialize`,
        // `logging/setLevel` or `resources/subscribe`), and then params that do fit.
        let probes = [
            ("initialize", json!({})),
            (
                "initialize",
                json!({"protocolVersion": "2026-07-28", "capabilities": {},
                                  "clientInfo": {"name": "raw", "version": "0"}}),
            ),
            ("ping", json!({})),
            ("logging/setLevel", json!({})),
            ("logging/setLevel", json!({"level": "debug"})),
            ("resources/subscribe", json!({})),
            ("resources/subscribe", json!({"uri": "file:///a"})),
            ("resources/unsubscribe", json!({})),
            ("resources/unsubscribe", json!({"uri": "file:///a"})),
        ];
        for (id, (method, params)) in (500..).zip(probes) {
            let answer = send(request_2026(&server, id, method, params.clone())).await;
            let reply = answer.reply();
            let context = format!("{method} {params} (stateless: {stateless}): {answer:?}");
            assert_eq!(answer.status, 404, "{context}");
            assert_eq!(reply["error"]["code"], -32601, "{context}");
            assert_eq!(reply["id"], id, "{context}");
        }
        if stateless {
            continue;
        }
        // The same malformed params without a 2026-07-28 `_meta` are still malformed params.
        let session = open_session(&server).await;
        let set_level = json!({"jsonrpc": "2.0", "id": 9, "method": "logging/setLevel",
                               "params": {"level": 7}});
        let answer = send(
            post(&server, set_level.to_string())
                .header("Mcp-Session-Id", &session)
                .header("MCP-Protocol-Version", "2025-11-25"),
        )
        .await;
        assert_eq!(answer.status, 400, "{answer:?}");
        assert_eq!(answer.reply()["error"]["code"], -32602, "{answer:?}");
    }
}

#[tokio::test]
async fn prompts_and_completions_say_their_result_type_at_2026_07_28() {
    let server = serve(true).await;
    let listed = send(request_2026(&server, 1, "prompts/list", json!({})))
        .await
        .reply();
    assert_eq!(listed["result"]["resultType"], "complete", "{listed}");
    assert_eq!(listed["result"]["prompts"][0]["name"], "greet", "{listed}");
    assert_eq!(
        listed["result"]["prompts"][0]["arguments"][0],
        json!({"name": "name", "description": "Who to greet", "required": true}),
        "{listed}"
    );

    let got = send(request_2026(
        &server,
        2,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    ))
    .await
    .reply();
    assert_eq!(got["result"]["resultType"], "complete", "{got}");
    assert_eq!(got["result"]["description"], "Greets someone", "{got}");
    assert_eq!(
        got["result"]["messages"][0],
        json!({"role": "user", "content": {"type": "text", "text": "Hello, Ada"}}),
        "{got}"
    );

    let completed = send(request_2026(
        &server,
        3,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "greet"},
               "argument": {"name": "name", "value": "A"}}),
    ))
    .await
    .reply();
    assert_eq!(completed["result"]["resultType"], "complete", "{completed}");
    assert_eq!(
        completed["result"]["completion"],
        json!({"values": ["Aly", "Aish"], "total": 2, "hasMore": false}),
        "{completed}"
    );
}

#[tokio::test]
async fn a_2025_11_25_session_gets_no_result_type() {
    let server = serve(false).await;
    let session = open_session(&server).await;
    let requests = [
        ("prompts/list", json!({})),
        (
            "prompts/get",
            json!({"name": "greet", "arguments": {"name": "Ada"}}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"},
                   "argument": {"name": "name", "value": "A"}}),
        ),
    ];
    for (id, (method, params)) in (1..).zip(requests) {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply = send(
            post(&server, body.to_string())
                .header("Mcp-Session-Id", &session)
                .header("MCP-Protocol-Version", "2025-11-25"),
        )
        .await
        .reply();
        assert!(reply["result"].is_object(), "{method}: {reply}");
        assert!(
            reply["result"].get("resultType").is_none(),
            "{method}: {reply}"
        );
    }
}

#[derive(Deserialize, JsonSchema)]
pub struct NoArgs {}

/// Asks the client's model, and fails without it.
struct Haiku;

#[async_trait::async_trait]
impl TypedTool for Haiku {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "haiku"
    }
    fn description(&self) -> &'static str {
        "Write a haiku with the client's model"
    }
    async fn call_typed(&self, _args: NoArgs, ctx: &ToolContext) -> AgentResult<String> {
        Ok(ctx
            .sample(SampleRequest::new("A haiku, please"))
            .await?
            .text)
    }
}

#[tokio::test]
async fn a_call_needing_an_undeclared_capability_is_the_missing_capability_error() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Haiku).unwrap();
    let server = McpServer::new(registry)
        .serve_http(HttpOptions::default().with_stateless(true))
        .await
        .unwrap();
    let call = json!({"name": "haiku", "arguments": {}});
    let answer = send(request_2026(&server, 7, "tools/call", call)).await;
    let reply = answer.reply();
    assert_eq!(answer.status, 400, "{answer:?}");
    assert_eq!(reply["id"], 7, "{reply}");
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}}),
        "{reply}"
    );
}
