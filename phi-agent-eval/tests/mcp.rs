//! The MCP client's cassette (`tests/cassettes/mcp.jsonl`), recorded by `record.sh` against
//! phi-agent's own MCP server on loopback (`serve_http`, a bearer token required): it replays
//! offline to the same imported tools and call results, a changed call argument fails naming the
//! field, and the token is in no file.
//!
//! Nothing per run needs an ignore rule: headers are not compared (a session id a server chose
//! comes back from the cassette, and the client sends it on), and the client's bodies
//! (`server/discover`, `tools/list`, `tools/call`, their JSON-RPC ids) are the same on every run.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use phi_agent::llm::{HttpTransport, ReqwestTransport};
use phi_agent::mcp::{HttpOptions, McpClient, McpClientOptions, McpHttpOptions, serve_http};
use phi_agent::registry::ToolRegistry;
use phi_agent::{Tool, ToolConfig, ToolContext, phi_tool, tools};
use phi_agent_eval::cassette::{Recorder, Redaction, Replayer};
use serde_json::{Value, json};

/// Apply add, subtract, multiply or divide to two numbers.
#[phi_tool]
fn calculator(
    /// Left operand
    a: f64,
    /// Right operand
    b: f64,
    /// add, subtract, multiply or divide
    op: String,
) -> Result<f64, String> {
    match op.as_str() {
        "add" => Ok(a + b),
        "subtract" => Ok(a - b),
        "multiply" => Ok(a * b),
        "divide" if b != 0.0 => Ok(a / b),
        other => Err(format!("cannot {other}")),
    }
}

/// The server's token: it must reach no file.
const TOKEN: &str = "mcp-cassette-token-7f3a9c";

/// The calls the recording made, in order.
fn calls() -> [Value; 2] {
    [
        json!({"a": 6, "b": 7, "op": "multiply"}),
        json!({"a": 2, "b": 3, "op": "add"}),
    ]
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cassettes")
}

async fn connect(url: &str, transport: Arc<dyn HttpTransport>) -> McpClient {
    let http = McpHttpOptions::default()
        .with_bearer_token(TOKEN)
        .with_http_transport(transport);
    McpClient::connect_http("calc", url, http, McpClientOptions::default())
        .await
        .unwrap_or_else(|error| panic!("{error}"))
}

/// What a replay must reproduce: the imported tools and each call's result.
async fn session(client: &McpClient, calls: &[Value]) -> Result<Value, String> {
    let tools = client.tools();
    let listed: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name(),
                "description": tool.description(),
                "schema": tool.schema(),
            })
        })
        .collect();
    let calculator = tools
        .iter()
        .find(|tool| tool.name() == "calculator")
        .ok_or("no calculator imported")?;
    let mut results = Vec::new();
    for args in calls {
        let content = calculator
            .call(args, &ToolContext::default())
            .await
            .map_err(|error| error.to_string())?;
        results.push(Value::String(
            content.iter().map(|part| part.to_model_text()).collect(),
        ));
    }
    Ok(json!({"tools": listed, "results": results}))
}

fn expected() -> Value {
    let path = dir().join("mcp.output.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!("{}: {error}; run phi-agent-eval/record.sh", path.display())
    });
    serde_json::from_str(&text).unwrap()
}

/// Records the cassette against phi-agent's own server, started here on loopback.
#[tokio::test]
#[ignore = "rewrites the checked-in cassette: run phi-agent-eval/record.sh"]
async fn record() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![calculator]).unwrap();
    let server = serve_http(registry, HttpOptions::default().with_bearer_token(TOKEN))
        .await
        .unwrap();
    let recorder = Arc::new(Recorder::new(
        ReqwestTransport::shared().unwrap(),
        dir().join("mcp.jsonl"),
        Redaction::default(),
    ));
    let client = connect(&server.url(), recorder.clone()).await;
    let output = session(&client, &calls()).await.unwrap();
    assert_eq!(output["results"], json!(["42.0", "5.0"]), "{output}");
    client.close().await;
    server.shutdown().await;
    assert!(recorder.finish().unwrap() >= 3);
    let text = serde_json::to_string_pretty(&output).unwrap();
    std::fs::write(dir().join("mcp.output.json"), text + "\n").unwrap();
}

#[tokio::test]
async fn the_cassette_replays_to_the_same_tools_and_results() {
    let replayer = Arc::new(Replayer::from_file(dir().join("mcp.jsonl")).unwrap());
    let client = connect("http://replay.invalid/mcp", replayer.clone()).await;
    let output = session(&client, &calls()).await.unwrap();
    client.close().await;
    assert_eq!(output, expected());
    assert_eq!(replayer.unused(), 0, "an exchange was not replayed");
    let recorded: Vec<_> = replayer
        .exchanges()
        .iter()
        .map(|exchange| exchange.request.body.to_bytes())
        .collect();
    assert_eq!(replayer.requests(), recorded, "other request bytes");
}

#[tokio::test]
async fn a_changed_call_argument_fails_with_a_diff_naming_the_field() {
    let replayer = Arc::new(Replayer::from_file(dir().join("mcp.jsonl")).unwrap());
    let client = connect("http://replay.invalid/mcp", replayer.clone()).await;
    let changed = [json!({"a": 6, "b": 8, "op": "multiply"})];
    let error = session(&client, &changed).await.unwrap_err();
    client.close().await;
    assert!(
        error.contains("$.params.arguments.b: the cassette has 7, the request has 8"),
        "{error}"
    );
}

#[test]
fn the_token_is_in_no_file() {
    for name in ["mcp.jsonl", "mcp.output.json"] {
        let text = std::fs::read_to_string(dir().join(name)).unwrap();
        assert!(!text.contains(TOKEN), "{name} holds the token");
    }
    let cassette = std::fs::read_to_string(dir().join("mcp.jsonl")).unwrap();
    assert!(
        cassette.contains(r#"["authorization","<redacted>"]"#),
        "{cassette}"
    );
}
