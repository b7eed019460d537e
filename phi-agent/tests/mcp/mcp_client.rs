//! Our MCP client (`phi_agent::mcp::McpClient`) against real server processes: the example server
//! (`examples/mcp-server.rs`), and this test binary re-run as a small rmcp server whose tools have
//! names providers refuse, take too long, or crash the server mid-call.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpToolDef,
    ToolAnnotations as McpAnnotations,
};
use phi_agent::mcp::rmcp::service::RequestContext;
use phi_agent::mcp::rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use phi_agent::mcp::{McpClient, McpClientOptions};
use phi_agent::registry::{ActiveTools, ToolRegistry};
use phi_agent::{ActivationContext, Content, Tool, ToolConfig, ToolContext};
use serde_json::{Value, json};
use tokio::process::Command;

const CHILD_ENV: &str = "PHI_MCP_TEST_CHILD";

/// The example server, built by `cargo test` (or `cargo build -p phi-agent --example mcp-server --features
/// mcp-server`) next to this test binary.
fn example_server() -> Command {
    let exe = std::env::current_exe().unwrap();
    let path: PathBuf = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("examples").join("mcp-server"))
        .unwrap();
    assert!(
        path.exists(),
        "{} is missing; build it with `cargo build -p phi-agent --features mcp-server --example mcp-server`",
        path.display()
    );
    Command::new(path)
}

/// This test binary, re-run as the child server of [`child_server_entry`].
fn child_server() -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--ignored",
            "--exact",
            "mcp_client::child_server_entry",
            "--nocapture",
            "-q",
        ])
        .env(CHILD_ENV, "1");
    command
}

async fn registry_of(client: &McpClient) -> (ToolRegistry, ActiveTools) {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    client.register_into(&mut registry).unwrap();
    let active = registry.visible_tools(&ActivationContext::default()).await;
    (registry, active)
}

#[tokio::test]
async fn our_client_uses_the_example_servers_tools_through_a_registry() {
    let client = McpClient::connect_stdio("example", example_server(), McpClientOptions::default())
        .await
        .unwrap();
    let names: Vec<_> = client.tools().iter().map(|tool| tool.name()).collect();
    assert_eq!(
        names,
        ["calculator", "get_weather", "import_rows"],
        "the hidden audit_log is not imported"
    );
    let calculator = &client.tools()[0];
    assert_eq!(calculator.metadata().origin, "mcp:example");
    // The server as the tools' group, searched as their context: named as the client names the
    // server, described by the first paragraph of its instructions.
    assert_eq!(
        calculator.group(),
        Some(phi_agent::ToolGroup::new(
            "example",
            "Arithmetic, weather reports and a row importer: phi-agent's example server."
        ))
    );
    assert_eq!(calculator.options().annotations.read_only, Some(true));
    assert_eq!(calculator.schema()["required"], json!(["a", "b", "op"]));
    assert!(client.tools()[1].options().output_schema.is_some());

    let (registry, active) = registry_of(&client).await;
    let ctx = ToolContext::default();
    let product = registry
        .dispatch(
            &active,
            "calculator",
            &json!({"a": 6, "b": 7, "op": "multiply"}),
            &ctx,
        )
        .await;
    assert!(!product.is_error, "{}", product.to_model_text());
    assert_eq!(product.to_model_text(), "42.0");

    let weather = registry
        .dispatch(&active, "get_weather", &json!({"city": "Paris"}), &ctx)
        .await;
    assert_eq!(
        weather.content,
        vec![Content::json(
            json!({"city": "Paris", "temperature_c": 16.0, "conditions": "cloudy"})
        )],
        "structured content arrives as JSON, without its text copy"
    );

    let invalid = registry
        .dispatch(&active, "calculator", &json!({"a": 1, "op": "power"}), &ctx)
        .await;
    assert!(invalid.is_error);
    // Two mistakes (`op` is not an operator, `b` is missing), both in the one result.
    let text = invalid.to_model_text();
    assert!(
        text.starts_with("invalid arguments for tool `calculator`")
            && text.contains("at `op`")
            && text.contains("at `b`: missing required field `b`"),
        "{text}"
    );

    let failed = registry
        .dispatch(&active, "get_weather", &json!({"city": "Atlantis"}), &ctx)
        .await;
    assert!(failed.is_error);
    assert!(
        failed
            .to_model_text()
            .contains("no weather data for `Atlantis`")
    );
    client.close().await;
}

#[tokio::test]
async fn our_mcp_client_feeds_our_mcp_servers_tools_to_an_agent_run() {
    use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall};
    use phi_agent::{AgentConfig, PhiAgent, base_agent_builder};

    let client = McpClient::connect_stdio("example", example_server(), McpClientOptions::default())
        .await
        .unwrap();
    // The model multiplies, then reads the weather, then answers from the two tool results.
    let llm = ScriptedLlm::from_fn(|request| {
        let results: Vec<String> = request
            .messages
            .iter()
            .filter_map(|message| match message {
                Message::Tool { content, .. } => content.first().map(Content::to_model_text),
                _ => None,
            })
            .collect();
        Ok(match results.len() {
            0 => LlmResponse::tool_calls(vec![ToolCall::new(
                "c1",
                "calculator",
                json!({"a": 6, "b": 7, "op": "multiply"}),
            )]),
            1 => LlmResponse::tool_calls(vec![ToolCall::new(
                "c2",
                "get_weather",
                json!({"city": "Paris"}),
            )]),
            _ => LlmResponse::text(format!("product {}; weather {}", results[0], results[1])),
        })
    });
    let seen = llm.clone();
    let builder = base_agent_builder(llm).register_tools(client.dyn_tools());
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let output = agent
        .run("Multiply 6 by 7, then tell me the weather in Paris.")
        .await
        .unwrap();

    let offered: Vec<&str> = seen.requests()[0]
        .tools
        .iter()
        .map(|tool| tool.name)
        .collect();
    assert_eq!(
        offered,
        ["calculator", "get_weather", "import_rows"],
        "the hidden tool is never offered"
    );
    assert_eq!(output.turns, 3);
    assert_eq!(output.tool_calls.len(), 2);
    assert!(output.tool_calls.iter().all(|call| !call.is_error));
    assert_eq!(
        output.text,
        r#"product 42.0; weather {"city":"Paris","temperature_c":16.0,"conditions":"cloudy"}"#
    );
    client.close().await;
}

#[tokio::test]
async fn dropping_the_client_ends_the_server_process() {
    let client = McpClient::connect_stdio("example", example_server(), McpClientOptions::default())
        .await
        .unwrap();
    let pid = client
        .server_process_id()
        .expect("a running child has a pid");
    assert!(is_running(pid), "the server runs while the handle lives");
    drop(client);
    for _ in 0..100 {
        if !is_running(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("server process {pid} still runs 5 s after the client was dropped");
}

/// Whether `pid` is alive (a zombie waiting to be reaped counts as ended).
fn is_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

#[tokio::test]
async fn unsafe_names_are_mapped_and_calls_reach_the_servers_name() {
    let client = McpClient::connect_stdio("child", child_server(), McpClientOptions::default())
        .await
        .unwrap();
    let tool = &client.tools()[0];
    assert_eq!(tool.remote_name(), "fs.read");
    let local = tool.name();
    assert!(local.starts_with("fs_read-"), "{local}");
    assert_eq!(client.names().remote(local), Some("fs.read"));

    let (registry, active) = registry_of(&client).await;
    let result = registry
        .dispatch(
            &active,
            local,
            &json!({"path": "/etc/hosts"}),
            &ToolContext::default(),
        )
        .await;
    assert_eq!(result.to_model_text(), "read /etc/hosts via fs.read");
    // The child reads any arguments it is sent; a wrong type is refused here, before sending,
    // in the words a local tool's mistakes get (its schema declares no draft: 2020-12).
    let refused = registry
        .dispatch(&active, local, &json!({"path": 5}), &ToolContext::default())
        .await;
    let text = refused.to_model_text();
    assert!(refused.is_error, "{text}");
    assert!(
        text.contains("at `path`") && !text.contains("via fs.read"),
        "{text}"
    );
    assert!(
        registry.get("either").is_none(),
        "a tool with a root `oneOf` is left out of the import, the others stay"
    );
    assert!(registry.get("slow").is_some());
    client.close().await;
}

#[tokio::test]
async fn a_server_dying_mid_call_gives_a_clean_error() {
    let client = McpClient::connect_stdio("child", child_server(), McpClientOptions::default())
        .await
        .unwrap();
    let (registry, active) = registry_of(&client).await;
    let result = registry
        .dispatch(&active, "crash", &json!({}), &ToolContext::default())
        .await;
    assert!(result.is_error);
    assert_eq!(
        result.to_model_text(),
        "MCP server `child`: the server stopped before `crash` finished; its tools are unavailable until the program reconnects"
    );
    let after = registry
        .dispatch(
            &active,
            "fs_read-00000000",
            &json!({}),
            &ToolContext::default(),
        )
        .await;
    assert!(after.is_error);
}

/// A second connection to the same server keeps no second copy of its tools' names and
/// descriptions: they are interned, once per distinct text, not leaked per connection.
#[tokio::test]
async fn reconnecting_keeps_one_copy_of_each_name_and_description() {
    let first = McpClient::connect_stdio("child", child_server(), McpClientOptions::default())
        .await
        .unwrap();
    let second = McpClient::connect_stdio("child", child_server(), McpClientOptions::default())
        .await
        .unwrap();
    assert!(!first.tools().is_empty());
    for (a, b) in first.tools().iter().zip(second.tools()) {
        assert_eq!(a.name(), b.name());
        assert!(std::ptr::eq(a.name(), b.name()), "{}", a.name());
        assert!(
            std::ptr::eq(a.description(), b.description()),
            "{}",
            a.name()
        );
    }
}

/// Which imported tools of the child server need approval, under `options`.
async fn needing_approval(options: McpClientOptions) -> Vec<String> {
    let client = McpClient::connect_stdio("child", child_server(), options)
        .await
        .unwrap();
    let mut needing = Vec::new();
    for tool in client.tools() {
        if tool
            .options()
            .approval
            .is_needed(&json!({}), &ToolContext::default())
            .await
        {
            needing.push(tool.remote_name().to_string());
        }
    }
    needing
}

#[tokio::test]
async fn destructive_tools_of_a_server_need_approval() {
    assert_eq!(
        needing_approval(McpClientOptions::default()).await,
        ["fs.delete"],
        "destructive, and not read-only"
    );
    let strict = McpClientOptions::default().with_unannotated_needs_approval(true);
    assert_eq!(
        needing_approval(strict).await,
        ["fs.read", "slow", "fs.delete", "crash", "either"],
        "the tools without a destructive hint too"
    );
}

#[tokio::test]
async fn an_agent_pauses_on_a_destructive_tool_of_a_server() {
    use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
    use phi_agent::{AgentConfig, PhiAgent, RunOutcome, base_agent_builder};

    let client = McpClient::connect_stdio("child", child_server(), McpClientOptions::default())
        .await
        .unwrap();
    let delete = client.names().local("fs.delete").unwrap().to_string();
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("d1", &delete, json!({"path": "a.txt"}))]),
        LlmResponse::text("deleted"),
    ]);
    let tools: Vec<Arc<dyn Tool>> = client
        .tools()
        .iter()
        .filter(|tool| tool.remote_name() != "either")
        .map(|tool| tool.clone() as Arc<dyn Tool>)
        .collect();
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone()).register_tools(tools),
        AgentConfig::default(),
    )
    .unwrap();
    let RunOutcome::Paused(mut paused) = agent.start("delete a.txt").await.unwrap() else {
        panic!("the destructive call should wait for approval");
    };
    assert_eq!(paused.pending()[0].tool(), delete);
    paused.approve("d1").unwrap();
    let output = agent.resume(paused).await.unwrap().done().unwrap();
    assert_eq!(
        output.tool_calls[0].result[0].as_text(),
        Some("deleted a.txt")
    );
}

#[tokio::test]
async fn a_call_that_outlives_its_timeout_is_cancelled_with_a_clear_error() {
    let options = McpClientOptions::default().with_call_timeout(Duration::from_secs(2));
    let client = McpClient::connect_stdio("child", child_server(), options)
        .await
        .unwrap();
    let (registry, active) = registry_of(&client).await;
    // The paused clock jumps to the next timer while the runtime waits for the server, so the
    // 2 s timeout fires without the test waiting 2 s, and before the registry's own backstop.
    tokio::time::pause();
    let result = registry
        .dispatch(&active, "slow", &json!({}), &ToolContext::default())
        .await;
    tokio::time::resume();
    assert!(result.is_error);
    assert_eq!(
        result.to_model_text(),
        "MCP server `child`: `slow` did not finish within 2000 ms and was cancelled; try a smaller request, or raise `call_timeout`"
    );
    drop(client);
}

/// The child server: a hand-written rmcp handler, so that it can have a tool name our registry
/// would refuse (`fs.read`). Runs only when a test starts this binary with [`CHILD_ENV`] set.
#[test]
#[ignore = "started by the other tests as a child MCP server"]
fn child_server_entry() {
    if std::env::var_os(CHILD_ENV).is_none() {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let running = ChildServer
            .serve(phi_agent::mcp::rmcp::transport::stdio())
            .await
            .unwrap();
        let _ = running.waiting().await;
        // Exit at once, without waiting for the test harness or for handlers still pending.
        std::process::exit(0);
    });
}

struct ChildServer;

impl ServerHandler for ChildServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let object = |schema: Value| Arc::new(schema.as_object().unwrap().clone());
        let path_schema =
            object(json!({"type": "object", "properties": {"path": {"type": "string"}}}));
        let empty = object(json!({"type": "object"}));
        Ok(ListToolsResult::with_all_items(vec![
            McpToolDef::new("fs.read", "Read a file", path_schema.clone()),
            McpToolDef::new("slow", "Answers only when cancelled", empty.clone()),
            McpToolDef::new("fs.delete", "Delete a file", path_schema.clone())
                .with_annotations(McpAnnotations::new().destructive(true)),
            // Read-only wins over a destructive hint that the protocol says to ignore then.
            McpToolDef::new("fs.stat", "Stat a file", path_schema.clone())
                .with_annotations(McpAnnotations::new().read_only(true).destructive(true)),
            McpToolDef::new("fs.touch", "Touch a file", path_schema.clone())
                .with_annotations(McpAnnotations::new().destructive(false)),
            McpToolDef::new("crash", "Ends the server process mid-call", empty),
            McpToolDef::new(
                "either",
                "Alternatives at the root, which no model provider accepts",
                object(
                    json!({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}),
                ),
            ),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        match request.name.as_ref() {
            "fs.delete" => Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "deleted {}",
                arguments.get("path").and_then(Value::as_str).unwrap_or("?")
            ))])
            .into()),
            "fs.read" => {
                let path = arguments.get("path").and_then(Value::as_str).unwrap_or("?");
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "read {path} via fs.read"
                ))])
                .into())
            }
            // Answers only when cancelled, which our client does when its timeout fires.
            "slow" => {
                context.ct.cancelled().await;
                Err(ErrorData::internal_error("cancelled", None))
            }
            "crash" => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                std::process::exit(3)
            }
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }
}

#[tokio::test]
async fn a_dead_server_is_reported_and_reconnect_starts_it_again() {
    let client = McpClient::connect_stdio("child", child_server(), McpClientOptions::default())
        .await
        .unwrap();
    let first_pid = client.server_process_id().unwrap();
    let (registry, active) = registry_of(&client).await;
    let ctx = ToolContext::default();
    let crashed = registry.dispatch(&active, "crash", &json!({}), &ctx).await;
    assert!(crashed.is_error);
    assert!(
        crashed
            .to_model_text()
            .contains("the server stopped before `crash` finished"),
        "{}",
        crashed.to_model_text()
    );
    let change = client.reconnect().await.unwrap();
    assert!(change.is_empty(), "the same tools: {change:?}");
    assert_ne!(client.server_process_id(), Some(first_pid), "a new process");
    let read = client.names().local("fs.read").unwrap().to_string();
    let result = registry
        .dispatch(&active, &read, &json!({"path": "a.txt"}), &ctx)
        .await;
    assert!(!result.is_error, "{}", result.to_model_text());
    assert_eq!(
        result.to_model_text(),
        "read a.txt via fs.read",
        "the tools handed out before reach the new process"
    );
    client.close().await;
}
