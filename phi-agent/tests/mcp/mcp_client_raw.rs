//! Our MCP client against hand-written stdio servers (this test binary re-run, speaking raw
//! JSON-RPC lines), for what an rmcp server would not do: answer every unknown method with `{}`,
//! speak only the `initialize` handshake, change its tool list mid-session.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

use phi_agent::mcp::{McpClient, McpClientOptions};
use phi_agent::registry::ToolRegistry;
use phi_agent::{ActivationContext, Tool, ToolConfig, ToolContext};
use serde_json::{Value, json};
use tokio::process::Command;

const MODE_ENV: &str = "PHI_MCP_RAW_CHILD";
const LABEL_ENV: &str = "PHI_MCP_RAW_LABEL";

/// This test binary, re-run as [`raw_server_entry`] in `mode` (`legacy` or `empty`).
fn raw_server(mode: &str, label: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--ignored",
            "--exact",
            "mcp_client_raw::raw_server_entry",
            "--nocapture",
            "-q",
        ])
        .env(MODE_ENV, mode)
        .env(LABEL_ENV, label);
    command
}

/// A client of the raw server whose tool list changes while it runs (`dyn`).
async fn dynamic_client() -> McpClient {
    McpClient::connect_stdio(
        "dynamic",
        raw_server("legacy", "dyn"),
        McpClientOptions::default(),
    )
    .await
    .unwrap()
}

async fn call(tool: &Arc<phi_agent::mcp::McpTool>, args: Value) -> Result<String, String> {
    tool.call(&args, &ToolContext::default())
        .await
        .map(|content| content.iter().map(|c| c.to_model_text()).collect())
        .map_err(|error| error.to_string())
}

fn find(client: &McpClient, local: &str) -> Arc<phi_agent::mcp::McpTool> {
    client
        .tools()
        .into_iter()
        .find(|tool| tool.name() == local)
        .unwrap_or_else(|| panic!("no tool {local}"))
}

#[tokio::test]
async fn a_server_answering_unknown_methods_with_empty_results_gets_the_initialize_handshake() {
    let client = McpClient::connect_stdio(
        "legacy",
        raw_server("legacy", "x"),
        McpClientOptions::default(),
    )
    .await
    .expect("the probe's `{}` leads to `initialize`, not to a failure");
    assert_eq!(
        call(&find(&client, "version"), json!({})).await.unwrap(),
        "2025-11-25",
        "`initialize` offers the newest version that has that handshake"
    );
    client.close().await;
}

#[tokio::test]
async fn a_failed_handshake_says_what_the_server_sent() {
    let error = McpClient::connect_stdio(
        "empty",
        raw_server("empty", "x"),
        McpClientOptions::default(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("did not complete the MCP handshake: it answered with `{}`, which is not a handshake result"),
        "{error}"
    );
    assert!(!error.contains("speaking over stdio"), "{error}");
}

#[tokio::test]
async fn two_prefixed_servers_with_the_same_tool_name_route_to_their_own_server() {
    let gh = McpClient::connect_stdio(
        "github",
        raw_server("legacy", "gh"),
        McpClientOptions::default().with_name_prefix("gh"),
    )
    .await
    .unwrap();
    let jira = McpClient::connect_stdio(
        "jira",
        raw_server("legacy", "jira"),
        McpClientOptions::default().with_name_prefix("jira"),
    )
    .await
    .unwrap();
    assert_eq!(gh.names().remote("gh_search"), Some("search"));
    let mut registry = ToolRegistry::new(ToolConfig::default());
    gh.register_into(&mut registry).unwrap();
    jira.register_into(&mut registry).unwrap();
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let ctx = ToolContext::default();
    for (name, expected) in [("gh_search", "gh: bugs"), ("jira_search", "jira: bugs")] {
        let result = registry
            .dispatch(&active, name, &json!({"query": "bugs"}), &ctx)
            .await;
        assert!(!result.is_error, "{}", result.to_model_text());
        assert_eq!(result.to_model_text(), expected);
    }
    // Without prefixes the two `search` tools cannot share a registry.
    let mut clash = ToolRegistry::new(ToolConfig::default());
    for label in ["gh", "jira"] {
        let plain = McpClient::connect_stdio(
            label,
            raw_server("legacy", label),
            McpClientOptions::default(),
        )
        .await
        .unwrap();
        let outcome = plain.register_into(&mut clash);
        assert_eq!(outcome.is_err(), label == "jira", "{outcome:?}");
        plain.close().await;
    }
    gh.close().await;
    jira.close().await;
}

/// What a model is offered for a tool, byte for byte.
fn definition(tool: &phi_agent::mcp::McpTool) -> String {
    format!("{}|{}|{}", tool.name(), tool.description(), tool.schema())
}

#[tokio::test]
async fn list_changed_appends_new_tools_and_retires_removed_ones() {
    let client = dynamic_client().await;
    let before: Vec<String> = client.tools().iter().map(|t| definition(t)).collect();
    assert_eq!(before.len(), 4, "{before:?}");
    let mut registry = ToolRegistry::new(ToolConfig::default());
    client.register_into(&mut registry).unwrap();
    let mut changes = client.subscribe();

    assert_eq!(
        call(&find(&client, "grow"), json!({})).await.unwrap(),
        "grown"
    );
    let change = tokio::time::timeout(Duration::from_secs(10), changes.recv())
        .await
        .expect("a change is announced")
        .unwrap();
    assert_eq!(change.added, ["extra"]);
    assert!(change.removed.is_empty());
    let after: Vec<String> = client.tools().iter().map(|t| definition(t)).collect();
    assert_eq!(after.len(), 5);
    assert_eq!(
        after[..4],
        before[..],
        "earlier definitions are byte-identical"
    );
    assert!(after[4].starts_with("extra|"), "{}", after[4]);

    // The next turn: the registry gains the new tool, the others stay where they were.
    client.register_into(&mut registry).unwrap();
    let names: Vec<&str> = registry.iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["search", "version", "grow", "shrink", "extra"]);
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let result = registry
        .dispatch(&active, "extra", &json!({}), &ToolContext::default())
        .await;
    assert_eq!(result.to_model_text(), "extra works");

    assert_eq!(
        call(&find(&client, "shrink"), json!({})).await.unwrap(),
        "shrunk"
    );
    let change = tokio::time::timeout(Duration::from_secs(10), changes.recv())
        .await
        .expect("a change is announced")
        .unwrap();
    assert_eq!(change.removed, ["search"]);
    assert!(change.added.is_empty());
    let search = find(&client, "search");
    assert!(!search.is_available());
    let refused = call(&search, json!({"query": "q"})).await.unwrap_err();
    assert_eq!(
        refused,
        "`search` is not available: MCP server `dynamic` no longer lists it"
    );
    assert_eq!(client.tools().len(), 5, "a removed tool keeps its place");
    assert_eq!(client.dyn_tools().len(), 4, "but is not handed out again");
    client.close().await;
}

/// Answer pong (the agent's own tool, before the live ones).
#[phi_agent::phi_tool]
fn ping() -> String {
    "pong".into()
}

/// The provider definitions of a request's tools, byte for byte, in both common shapes.
fn offered(request: &phi_agent::llm::LlmRequest) -> Vec<(String, String)> {
    use phi_agent::llm::definition;
    request
        .tools
        .iter()
        .map(|spec| {
            (
                definition::openai(spec).to_string(),
                definition::anthropic(spec).to_string(),
            )
        })
        .collect()
}

fn names(request: &phi_agent::llm::LlmRequest) -> Vec<&'static str> {
    request.tools.iter().map(|spec| spec.name).collect()
}

async fn next_change(
    changes: &mut tokio::sync::broadcast::Receiver<phi_agent::mcp::McpToolsChanged>,
) -> phi_agent::mcp::McpToolsChanged {
    tokio::time::timeout(Duration::from_secs(10), changes.recv())
        .await
        .expect("a change is announced")
        .unwrap()
}

#[tokio::test]
async fn list_changed_adds_a_tool_the_agent_offers_next_turn_with_earlier_definitions_byte_identical()
 {
    use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
    use phi_agent::{AgentConfig, PhiAgent, base_agent_builder};

    let client = dynamic_client().await;
    let mut changes = client.subscribe();
    let call = |id: &str, name: &str| {
        LlmResponse::tool_calls(vec![ToolCall::new(id, name, json!({"query": "q"}))])
    };
    let llm = ScriptedLlm::new([
        call("c1", "grow"),
        LlmResponse::text("grown"),
        call("c2", "extra"),
        call("c3", "shrink"),
        LlmResponse::text("shrunk"),
        call("c4", "search"),
        LlmResponse::text("gone"),
    ]);
    let seen = llm.clone();
    let builder = base_agent_builder(llm)
        .register_tools(phi_agent::tools![ping])
        .register_source(client.tool_source());
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let mut session = agent.session();

    // Turn 1: the server's four tools follow the agent's own; `grow` makes the server add
    // `extra` and send `tools/list_changed`.
    let first = session.prompt("grow").await.unwrap();
    assert!(!first.tool_calls[0].is_error, "{:?}", first.tool_calls[0]);
    assert_eq!(next_change(&mut changes).await.added, ["extra"]);

    // The next turn offers `extra`, appended; every earlier definition is byte-identical.
    let second = session.prompt("use it").await.unwrap();
    let requests = seen.requests();
    // Turn 1's first request, before `grow` ran, and turn 2's first, after the change was
    // announced.
    let before = &requests[0];
    let after = &requests[2];
    assert_eq!(
        names(before),
        ["ping", "search", "version", "grow", "shrink"]
    );
    // Turn 1's second request went out while the change was on its way: it offers `extra` or
    // not, depending on which came first, and nothing else.
    let between = names(&requests[1]);
    assert!(
        between == names(before) || between == names(after),
        "{between:?}"
    );
    assert_eq!(
        names(after),
        ["ping", "search", "version", "grow", "shrink", "extra"]
    );
    assert_eq!(offered(after)[..5], offered(before)[..]);
    let extra = &second.tool_calls[0];
    assert_eq!(extra.name, "extra");
    assert!(!extra.is_error, "{extra:?}");
    assert_eq!(extra.result[0].to_model_text(), "extra works");
    assert_eq!(next_change(&mut changes).await.removed, ["search"]);

    // `search` left the server: the next turn no longer offers it, the tools after it keep
    // their definitions, and a call of it answers "not available".
    let third = session.prompt("search").await.unwrap();
    let requests = seen.requests();
    let last = &requests[requests.len() - 2];
    assert_eq!(names(last), ["ping", "version", "grow", "shrink", "extra"]);
    assert_eq!(offered(last)[1..], offered(after)[2..]);
    let search = &third.tool_calls[0];
    assert!(search.is_error);
    let text = search.result[0].to_model_text();
    assert!(
        text.contains("`search`") && text.contains("not available"),
        "{text}"
    );
    assert!(text.contains("extra"), "the live tools are named: {text}");
    assert_eq!(third.text, "gone");
    client.close().await;
}

#[tokio::test]
async fn a_live_tool_whose_name_the_agent_has_is_refused_on_the_clients_change_event() {
    let client = dynamic_client().await;
    let mut changes = client.subscribe();
    /// The agent's own `version`.
    #[phi_agent::phi_tool]
    fn version() -> String {
        "mine".into()
    }
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(phi_agent::tools![version]).unwrap();
    client.register_live_into(&mut registry);
    let live: Vec<&str> = registry.live_tools().iter().map(|t| t.name()).collect();
    assert_eq!(live, ["search", "grow", "shrink"]);
    let change = next_change(&mut changes).await;
    assert_eq!(change.refused.len(), 1, "{change:?}");
    assert_eq!(change.refused[0].0, "version");
    assert!(change.refused[0].1.contains("is taken by"), "{change:?}");
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let result = registry
        .dispatch(&active, "version", &json!({}), &ToolContext::default())
        .await;
    assert_eq!(
        result.to_model_text(),
        "mine",
        "the agent's own tool answers"
    );
    client.close().await;
}

#[tokio::test]
async fn a_paused_call_of_a_live_tool_resumes_and_runs_once_approved() {
    use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
    use phi_agent::{AgentConfig, PhiAgent, RunOutcome, base_agent_builder};

    let options = McpClientOptions::default().with_unannotated_needs_approval(true);
    let client = McpClient::connect_stdio("dynamic", raw_server("legacy", "dyn"), options)
        .await
        .unwrap();
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            "search",
            json!({"query": "bugs"}),
        )]),
        LlmResponse::text("found"),
    ]);
    let builder = base_agent_builder(llm).register_source(client.tool_source());
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let RunOutcome::Paused(mut paused) = agent.start("find bugs").await.unwrap() else {
        panic!("an unannotated MCP tool waits for approval");
    };
    assert_eq!(paused.pending()[0].tool(), "search");
    paused.approve("c1").unwrap();
    let RunOutcome::Done(output) = agent.resume(paused).await.unwrap() else {
        panic!("approved, the run ends");
    };
    let call = &output.tool_calls[0];
    assert!(!call.is_error, "{call:?}");
    assert_eq!(call.result[0].to_model_text(), "dyn: bugs");
    client.close().await;
}

/// The raw server. `legacy`: the `initialize` handshake, `{}` for every unknown request
/// (`server/discover` included), and tools that change the list. `empty`: `{}` for everything.
#[test]
#[ignore = "started by the other tests as a child MCP server"]
fn raw_server_entry() {
    let Some(mode) = std::env::var_os(MODE_ENV) else {
        return;
    };
    let label = std::env::var(LABEL_ENV).unwrap_or_default();
    let empty = mode == "empty";
    let tool = |name: &str| {
        json!({"name": name, "description": format!("The {name} tool"),
               "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}})
    };
    let mut tools: Vec<Value> = ["search", "version", "grow", "shrink"]
        .into_iter()
        .map(tool)
        .collect();
    let mut version = String::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let send = |out: &mut std::io::StdoutLock<'_>, message: Value| {
        writeln!(out, "{message}").unwrap();
        out.flush().unwrap();
    };
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id").cloned() else {
            continue; // a notification
        };
        let method = message["method"].as_str().unwrap_or_default();
        let text = |text: String| json!({"content": [{"type": "text", "text": text}]});
        let result = match method {
            _ if empty => json!({}),
            "initialize" => {
                version = message["params"]["protocolVersion"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                json!({"protocolVersion": version, "capabilities": {"tools": {"listChanged": true}},
                       "serverInfo": {"name": "raw", "version": "1.0.0"}})
            }
            "tools/list" => json!({"tools": tools}),
            "tools/call" => {
                let name = message["params"]["name"].as_str().unwrap_or_default();
                let changed =
                    json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
                match name {
                    "search" => text(format!(
                        "{label}: {}",
                        message["params"]["arguments"]["query"]
                            .as_str()
                            .unwrap_or("")
                    )),
                    "version" => text(version.clone()),
                    "grow" => {
                        tools.push(tool("extra"));
                        send(&mut out, changed);
                        text("grown".to_string())
                    }
                    "shrink" => {
                        tools.retain(|tool| tool["name"] != "search");
                        send(&mut out, changed);
                        text("shrunk".to_string())
                    }
                    "extra" => text("extra works".to_string()),
                    other => {
                        json!({"content": [{"type": "text", "text": format!("no tool {other}")}], "isError": true})
                    }
                }
            }
            _ => json!({}),
        };
        send(
            &mut out,
            json!({"jsonrpc": "2.0", "id": id, "result": result}),
        );
    }
    std::process::exit(0);
}
