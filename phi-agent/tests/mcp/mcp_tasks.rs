//! Tool calls answered with a task (the `io.modelcontextprotocol/tasks` extension, SEP-2663),
//! driven by rmcp's client over an in-memory pipe: which calls get a task, polling `tasks/get`
//! to the result, a question answered through `tasks/update`, and `tasks/cancel` stopping the
//! tool.

#![allow(deprecated)] // rmcp marks sampling deprecated by SEP-2577; the capability builder names it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use phi_agent::mcp::McpServer;
use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ClientConfig, DetailedTask, GetTaskParams, Implementation, InputRequest, TaskPayload,
    TaskStatus, UpdateTaskParams,
};
use phi_agent::mcp::rmcp::service::RunningService;
use phi_agent::mcp::rmcp::{RoleClient, ServiceExt};
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    AgentResult, Elicitation, TaskSupport, Tool, ToolConfig, ToolContext, phi_tool, tools,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Adds two numbers slowly, saying how far it got.
#[phi_tool(task = "required")]
async fn slow_sum(a: i64, b: i64, ctx: &ToolContext) -> i64 {
    ctx.progress(1.0, Some(2.0), Some("adding")).await;
    tokio::time::sleep(Duration::from_millis(30)).await;
    a + b
}

#[derive(Deserialize, JsonSchema)]
struct Ship {
    /// Ship it?
    ship: bool,
}

/// Asks the user whether to ship.
#[phi_tool(task = "optional")]
async fn confirm_ship(ctx: &ToolContext) -> AgentResult<&'static str> {
    Ok(match ctx.elicit::<Ship>("Ship the order?").await? {
        Elicitation::Accept(Ship { ship: true }) => "shipped",
        Elicitation::Accept(_) => "kept",
        Elicitation::Decline | Elicitation::Cancel => "not asked again",
    })
}

/// Set once the long tool's token fired.
static STOPPED: AtomicBool = AtomicBool::new(false);

/// Waits until it is cancelled, and notes that it was.
#[phi_tool(task = "required", timeout = 60_000)]
async fn wait_forever(ctx: &ToolContext) -> &'static str {
    let token = ctx.cancellation().clone();
    // The tool's future is dropped once the task is cancelled: the note is made by a task of
    // its own, which outlives it.
    tokio::spawn(async move {
        token.cancelled().await;
        STOPPED.store(true, Ordering::SeqCst);
    });
    tokio::time::sleep(Duration::from_secs(600)).await;
    "woke up"
}

/// Fails as a tool fails.
#[phi_tool(task = "required")]
async fn refuse() -> AgentResult<&'static str> {
    Err(phi_agent::AgentError::tool("no, not today"))
}

/// Panics: a bug in the tool, which the server contains.
#[phi_tool(task = "required")]
async fn crash() -> &'static str {
    panic!("the crash tool always panics")
}

/// Answers at once; never a task.
#[phi_tool]
async fn quick() -> &'static str {
    "quick"
}

fn server() -> McpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry
        .register_all(tools![
            slow_sum,
            confirm_ship,
            wait_forever,
            refuse,
            crash,
            quick
        ])
        .unwrap();
    McpServer::new(registry).with_task_poll_interval(Duration::from_millis(10))
}

/// A client of `server` over an in-memory pipe, declaring `capabilities`.
async fn connect(capabilities: ClientCapabilities) -> RunningService<RoleClient, ClientConfig> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let server = server();
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    ClientConfig::new(capabilities, Implementation::new("tasks-test", "0"))
        .serve(tokio::io::split(client_io))
        .await
        .unwrap()
}

fn tasks_client() -> ClientCapabilities {
    ClientCapabilities::builder()
        .enable_tasks()
        .enable_elicitation()
        .build()
}

async fn call(
    client: &RunningService<RoleClient, ClientConfig>,
    name: &'static str,
    arguments: Value,
) -> Result<CallToolResponse, phi_agent::mcp::rmcp::ServiceError> {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    client
        .call_tool_once(CallToolRequestParams::new(name).with_arguments(arguments))
        .await
}

/// Polls `tasks/get` until the task's status is `until` or terminal (3 s at most).
pub(crate) async fn poll(
    client: &RunningService<RoleClient, ClientConfig>,
    task_id: &str,
    until: TaskStatus,
) -> DetailedTask {
    for _ in 0..300 {
        let task = client
            .peer()
            .get_task(GetTaskParams::new(task_id))
            .await
            .unwrap()
            .task;
        if task.status() == until || task.status().is_terminal() {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {task_id} never reached {until:?}");
}

fn completed(task: DetailedTask) -> CallToolResult {
    match task.payload {
        TaskPayload::Completed { result } => serde_json::from_value(Value::Object(result)).unwrap(),
        other => panic!("the task did not complete: {other:?}"),
    }
}

#[tokio::test]
async fn tools_list_and_capabilities_say_which_tools_may_run_as_tasks() {
    let client = connect(tasks_client()).await;
    let info = client.peer().peer_info().unwrap();
    assert!(
        info.capabilities.supports_tasks(),
        "the server declares the tasks extension"
    );
    let tools = serde_json::to_value(client.peer().list_all_tools().await.unwrap()).unwrap();
    let support: Vec<(&str, &Value)> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap(),
                &tool["_meta"]["execution"]["taskSupport"],
            )
        })
        .collect();
    assert_eq!(
        support,
        [
            ("slow_sum", &json!("required")),
            ("confirm_ship", &json!("optional")),
            ("wait_forever", &json!("required")),
            ("refuse", &json!("required")),
            ("crash", &json!("required")),
            ("quick", &Value::Null),
        ]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_call_is_answered_with_a_task_and_tasks_get_gives_its_status_then_its_result() {
    let client = connect(tasks_client()).await;
    let CallToolResponse::Task(created) = call(&client, "slow_sum", json!({"a": 40, "b": 2}))
        .await
        .unwrap()
    else {
        panic!("a required task tool answers with a task");
    };
    assert_eq!(created.task.poll_interval_ms, Some(10));
    assert_eq!(created.task.ttl_ms, Some(300_000));
    let id = created.task.task_id.clone();
    let running = client
        .peer()
        .get_task(GetTaskParams::new(&id))
        .await
        .unwrap()
        .task;
    if running.status() == TaskStatus::Working {
        // The tool's progress is the task's status message.
        let message = running.task.status_message.clone().unwrap_or_default();
        assert!(
            message.contains("adding") || message.contains("running"),
            "{message}"
        );
    }
    let result = completed(poll(&client, &id, TaskStatus::Completed).await);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.content[0].as_text().unwrap().text, "42");
    // A task id no one made is an error, not a panic.
    let unknown = client
        .peer()
        .get_task(GetTaskParams::new("no-such-task"))
        .await;
    assert!(unknown.is_err());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_without_the_extension_gets_results_and_an_error_for_a_required_task() {
    let client = connect(ClientCapabilities::default()).await;
    let error = call(&client, "slow_sum", json!({"a": 1, "b": 1}))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("-32021") || error.contains("Missing required client capability"),
        "{error}"
    );
    // The optional and the plain tools answer as always.
    let CallToolResponse::Complete(result) = call(&client, "quick", json!({})).await.unwrap()
    else {
        panic!("no task for a plain tool");
    };
    assert_eq!(result.content[0].as_text().unwrap().text, "quick");
    // A client with the extension gets no task from a plain tool either.
    let tasks = connect(tasks_client()).await;
    let answer = call(&tasks, "quick", json!({})).await.unwrap();
    assert!(
        matches!(answer, CallToolResponse::Complete(_)),
        "{answer:?}"
    );
    client.cancel().await.unwrap();
    tasks.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tasks_question_is_an_input_request_answered_with_tasks_update() {
    let client = connect(tasks_client()).await;
    let CallToolResponse::Task(created) = call(&client, "confirm_ship", json!({})).await.unwrap()
    else {
        panic!("an optional task tool answers a declaring client with a task");
    };
    let id = created.task.task_id;
    let waiting = poll(&client, &id, TaskStatus::InputRequired).await;
    let TaskPayload::InputRequired { input_requests } = waiting.payload else {
        panic!("the task should wait for the answer: {:?}", waiting.payload);
    };
    let (key, request) = input_requests.into_iter().next().unwrap();
    let InputRequest::Elicitation(request) = request else {
        panic!("the question is an elicitation: {request:?}");
    };
    let asked = serde_json::to_value(&request.params).unwrap();
    assert_eq!(asked["message"], "Ship the order?");
    assert_eq!(
        asked["requestedSchema"]["properties"]["ship"]["type"],
        "boolean"
    );
    let answer = json!({"action": "accept", "content": {"ship": true}});
    client
        .peer()
        .update_task(UpdateTaskParams::new(
            &id,
            [(key, answer)].into_iter().collect(),
        ))
        .await
        .unwrap();
    let result = completed(poll(&client, &id, TaskStatus::Completed).await);
    assert_eq!(result.content[0].as_text().unwrap().text, "shipped");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tasks_cancel_stops_the_tool_and_its_token_fires() {
    let client = connect(tasks_client()).await;
    let CallToolResponse::Task(created) = call(&client, "wait_forever", json!({})).await.unwrap()
    else {
        panic!("a task");
    };
    let id = created.task.task_id;
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert!(!STOPPED.load(Ordering::SeqCst));
    client
        .peer()
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    let task = poll(&client, &id, TaskStatus::Cancelled).await;
    assert_eq!(task.status(), TaskStatus::Cancelled);
    for _ in 0..100 {
        if STOPPED.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(STOPPED.load(Ordering::SeqCst), "the tool's token fired");
    client.cancel().await.unwrap();
}

/// SEP-2663 tells the tool's failure (`completed`, the result with `isError`) from the
/// server's (`failed`, a JSON-RPC error and no result): a tool that panicked is the latter.
#[tokio::test]
async fn a_tool_error_completes_the_task_and_a_panic_fails_it() {
    let client = connect(tasks_client()).await;
    let CallToolResponse::Task(created) = call(&client, "refuse", json!({})).await.unwrap() else {
        panic!("a task");
    };
    let result = completed(poll(&client, &created.task.task_id, TaskStatus::Completed).await);
    assert_eq!(result.is_error, Some(true));
    assert!(
        result.content[0]
            .as_text()
            .unwrap()
            .text
            .contains("no, not today")
    );
    let CallToolResponse::Task(created) = call(&client, "crash", json!({})).await.unwrap() else {
        panic!("a task");
    };
    let task = poll(&client, &created.task.task_id, TaskStatus::Failed).await;
    let TaskPayload::Failed { error } = task.payload else {
        panic!("a panic fails the task: {:?}", task.payload);
    };
    assert_eq!(error["code"], -32603, "{error:?}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("crash") && message.contains("always panics"),
        "{message}"
    );
    client.cancel().await.unwrap();
}

/// A hand-written tool declares its support in its options (`ToolOptions::task_support`).
#[test]
fn a_hand_written_tool_declares_task_support_in_its_options() {
    struct Report;
    #[async_trait::async_trait]
    impl Tool for Report {
        fn name(&self) -> &'static str {
            "report"
        }
        fn description(&self) -> &'static str {
            "A long report"
        }
        fn schema(&self) -> Value {
            json!({"type": "object", "properties": {}})
        }
        fn options(&self) -> phi_agent::ToolOptions {
            phi_agent::ToolOptions::default().with_task_support(TaskSupport::Optional)
        }
        async fn call(
            &self,
            _args: &Value,
            _ctx: &ToolContext,
        ) -> AgentResult<Vec<phi_agent::Content>> {
            Ok(vec![])
        }
    }
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Report).unwrap();
    let definition = phi_agent::mcp::definition(registry.get("report").unwrap());
    assert_eq!(definition["_meta"]["execution"]["taskSupport"], "optional");
}

/// Over stateless HTTP every request is served on its own: a task made by one request is
/// polled to its result by the next ones. A 2026-07-28 client declares the extension on each
/// request; a 2025-11-25 one declared it at `initialize`, which another request served, so its
/// call of a required task tool is refused as from a client without the extension.
#[tokio::test]
async fn a_task_outlives_its_request_over_stateless_http() {
    use phi_agent::mcp::HttpOptions;
    use phi_agent::mcp::rmcp::model::ProtocolVersion;
    use phi_agent::mcp::rmcp::transport::StreamableHttpClientTransport;
    use phi_agent::mcp::rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    use phi_agent::mcp::rmcp::{ClientLifecycleMode, ClientServiceExt};

    let http = server()
        .serve_http(HttpOptions::default().with_stateless(true))
        .await
        .unwrap();
    for (lifecycle, modern) in [
        (ClientLifecycleMode::Initialize, false),
        (
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
            true,
        ),
    ] {
        let transport = StreamableHttpClientTransport::with_client(
            crate::raw::new_client(),
            StreamableHttpClientTransportConfig::with_uri(http.url()),
        );
        let client = ClientConfig::new(tasks_client(), Implementation::new("tasks-http", "0"))
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .expect("handshake over HTTP");
        let answer = call(&client, "slow_sum", json!({"a": 2, "b": 3})).await;
        if !modern {
            let error = answer.unwrap_err().to_string();
            assert!(
                error.contains("Missing required client capability"),
                "{error}"
            );
            client.cancel().await.unwrap();
            continue;
        }
        let Ok(CallToolResponse::Task(created)) = answer else {
            panic!("a task over HTTP: {answer:?}");
        };
        let result = completed(poll(&client, &created.task.task_id, TaskStatus::Completed).await);
        assert_eq!(result.content[0].as_text().unwrap().text, "5");
        client.cancel().await.unwrap();
    }
    http.shutdown().await;
}
