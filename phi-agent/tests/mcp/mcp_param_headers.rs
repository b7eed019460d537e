//! SEP-2243's custom headers on our server: a `#[phi(header = "..")]` parameter is served with
//! `x-mcp-header` (an optional one with its plain type, as clients require), and a 2026-07-28
//! call of that tool is checked against its `Mcp-Param-*` headers, stateless and stateful
//! alike: a missing, mismatched or unexpected header is `400` with JSON-RPC error `-32020`; the
//! right ones (Base64-wrapped where the value is not plain ASCII) are answered.

use phi_agent::mcp::{HttpOptions, HttpServer, McpServer};
use phi_agent::registry::ToolRegistry;
use phi_agent::{ToolConfig, phi_tool};
use serde_json::{Value, json};

use crate::mcp_2026_wire::request_2026;
use crate::raw::{Answer, post, send};

/// Deploys to a region.
#[phi_tool]
pub(crate) fn deploy(
    /// Where to deploy
    #[phi(header = "Region")]
    region: String,
    /// How urgent, 1 to 5
    #[phi(header = "Priority")]
    priority: Option<u32>,
    /// What is deployed
    service: String,
) -> String {
    format!("{service} to {region} at {priority:?}")
}

pub(crate) fn server() -> McpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Deploy).unwrap();
    McpServer::new(registry)
}

async fn serve(stateless: bool) -> HttpServer {
    server()
        .serve_http(HttpOptions::default().with_stateless(stateless))
        .await
        .unwrap()
}

/// A 2026-07-28 `tools/call` of `deploy` with `arguments` and the given `Mcp-Param-*` headers.
async fn call(server: &HttpServer, arguments: Value, headers: &[(&str, &str)]) -> Answer {
    let mut request = request_2026(
        server,
        9,
        "tools/call",
        json!({"name": "deploy", "arguments": arguments}),
    );
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    send(request).await
}

/// A refused call: what is wrong, its arguments and its headers.
type Case = (&'static str, Value, &'static [(&'static str, &'static str)]);

fn assert_header_mismatch(answer: &Answer, case: &str) {
    assert_eq!(answer.status, 400, "{case}: {answer:?}");
    let reply = answer.reply();
    assert_eq!(reply["error"]["code"], -32020, "{case}: {reply}");
    assert_eq!(reply["id"], 9, "{case}: {reply}");
}

#[tokio::test]
async fn tools_list_serves_x_mcp_header_with_plain_types() {
    let server = serve(true).await;
    let answer = send(request_2026(&server, 1, "tools/list", json!({}))).await;
    let reply = answer.reply();
    let properties = &reply["result"]["tools"][0]["inputSchema"]["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region", "{reply}");
    assert_eq!(properties["region"]["type"], "string", "{reply}");
    assert_eq!(
        properties["priority"]["x-mcp-header"], "Priority",
        "{reply}"
    );
    // `Option<u32>` is `["integer", "null"]` to schemars; clients drop a tool annotated so.
    assert_eq!(properties["priority"]["type"], "integer", "{reply}");
    assert!(
        properties["service"].get("x-mcp-header").is_none(),
        "{reply}"
    );
    let required = &reply["result"]["tools"][0]["inputSchema"]["required"];
    assert!(
        !required.as_array().unwrap().contains(&json!("priority")),
        "{reply}"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn matching_param_headers_are_answered() {
    for stateless in [true, false] {
        let server = serve(stateless).await;
        let answer = call(
            &server,
            json!({"region": "us-west1", "priority": 3, "service": "api"}),
            &[
                ("Mcp-Param-Region", "us-west1"),
                ("mcp-param-priority", "3"),
            ],
        )
        .await;
        assert_eq!(answer.status, 200, "stateless {stateless}: {answer:?}");
        let reply = answer.reply();
        assert_eq!(
            reply["result"]["content"][0]["text"], "api to us-west1 at Some(3)",
            "{reply}"
        );
        // Not plain ASCII: the Base64 sentinel; an absent optional argument sends no header.
        let answer = call(
            &server,
            json!({"region": "Zürich", "service": "api"}),
            &[("Mcp-Param-Region", "=?base64?WsO8cmljaA==?=")],
        )
        .await;
        assert_eq!(answer.status, 200, "stateless {stateless}: {answer:?}");
        assert_eq!(
            answer.reply()["result"]["content"][0]["text"],
            "api to Zürich at None"
        );
        server.shutdown().await;
    }
}

#[tokio::test]
async fn missing_mismatched_or_unexpected_param_headers_are_refused() {
    for stateless in [true, false] {
        let server = serve(stateless).await;
        let body = json!({"region": "us-west1", "priority": 3, "service": "api"});
        let cases: [Case; 5] = [
            ("missing", body.clone(), &[("Mcp-Param-Priority", "3")]),
            (
                "mismatched",
                body.clone(),
                &[
                    ("Mcp-Param-Region", "eu-west1"),
                    ("Mcp-Param-Priority", "3"),
                ],
            ),
            (
                "mismatched number",
                body.clone(),
                &[
                    ("Mcp-Param-Region", "us-west1"),
                    ("Mcp-Param-Priority", "4"),
                ],
            ),
            (
                "unexpected for an absent argument",
                json!({"region": "us-west1", "service": "api"}),
                &[
                    ("Mcp-Param-Region", "us-west1"),
                    ("Mcp-Param-Priority", "3"),
                ],
            ),
            (
                "bad Base64",
                body.clone(),
                &[
                    ("Mcp-Param-Region", "=?base64?not base64!?="),
                    ("Mcp-Param-Priority", "3"),
                ],
            ),
        ];
        for (case, arguments, headers) in cases {
            let answer = call(&server, arguments, headers).await;
            assert_header_mismatch(&answer, &format!("{case}, stateless {stateless}"));
        }
        server.shutdown().await;
    }
}

/// Before 2026-07-28 there are no `Mcp-Param-*` headers to check (rmcp reads none either):
/// a stateless call of that era, which the direct path answers, is served whatever they say.
#[tokio::test]
async fn before_2026_07_28_param_headers_are_not_read() {
    let server = serve(true).await;
    let body = json!({
        "jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "deploy", "arguments": {"region": "us-west1", "service": "api"}},
    });
    let answer = send(
        post(&server, body.to_string())
            .header("MCP-Protocol-Version", "2025-11-25")
            .header("Mcp-Param-Region", "elsewhere"),
    )
    .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(
        answer.reply()["result"]["content"][0]["text"],
        "api to us-west1 at None"
    );
    server.shutdown().await;
}
