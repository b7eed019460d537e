//! The client program of the official MCP conformance suite's client scenarios
//! (`@modelcontextprotocol/conformance client --command ...`), written with phi-agent's own API:
//! `McpClient::connect_http` to the URL the suite appends to the command line, every tool the
//! scenario's server lists called once (arguments made from its schema), questions answered by
//! an elicitation handler that accepts the form's defaults, and the connection closed.
//!
//! The suite names the scenario in `MCP_CONFORMANCE_SCENARIO` and gives what the scenario
//! pre-arranged (a client id and secret) in `MCP_CONFORMANCE_CONTEXT`; this program does the
//! same for every scenario and reads neither but for what a real program would be configured
//! with. Run by `interop/conformance/run`; by hand:
//! `cargo run -p phi-agent --features mcp --example mcp-conformance-client -- http://127.0.0.1:PORT/mcp`.
//! Exits 1 with the error on stderr when the connection or a call fails.

use std::process::ExitCode;
use std::time::Duration;

use phi_agent::mcp::{McpClient, McpClientOptions, McpHttpOptions};
use phi_agent::{AgentResult, Elicitation, ElicitationRequest, Tool, ToolContext};
use serde_json::{Map, Value, json};

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: mcp-conformance-client <server URL>");
        return ExitCode::FAILURE;
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match run(&url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-conformance-client ({scenario}): {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(url: &str) -> AgentResult<()> {
    // The person accepts every form as it is offered: the client fills in its defaults.
    let accept = |request: ElicitationRequest| async move {
        eprintln!("elicitation: {}", request.message);
        Elicitation::Accept(json!({}))
    };
    let options = McpClientOptions::default()
        .with_elicitation_handler(accept)
        .with_connect_timeout(Duration::from_secs(20))
        .with_call_timeout(Duration::from_secs(20));
    let client =
        McpClient::connect_http("conformance", url, McpHttpOptions::default(), options).await?;
    let ctx = ToolContext::default();
    for tool in client.tools() {
        let arguments = arguments_for(&tool.schema());
        let answer = tool.call(&arguments, &ctx).await?;
        let text: Vec<String> = answer.iter().map(|c| c.to_model_text()).collect();
        eprintln!("{}({arguments}): {}", tool.remote_name(), text.join(" "));
    }
    client.close().await;
    Ok(())
}

/// Arguments for a tool from its schema: each required property gets a value of its type.
fn arguments_for(schema: &Value) -> Value {
    let mut arguments = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let kind = properties
            .and_then(|properties| properties.get(name))
            .and_then(|property| property.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("string");
        let value = match kind {
            "number" | "integer" => json!(1),
            "boolean" => json!(true),
            "array" => json!([]),
            "object" => json!({}),
            _ => json!("test"),
        };
        arguments.insert(name.to_string(), value);
    }
    Value::Object(arguments)
}
