//! A task tool that asks before its task starts (`ask_before_task`, SEP-2663's composition with
//! SEP-2322's rounds), driven by rmcp's client over an in-memory pipe: at 2026-07-28 the first
//! questions are `input_required` rounds of the `tools/call` (no task yet), the round in which
//! the tool goes on to other work is answered with the task, and the task's result has the
//! answers; a question asked after that is one of the task's. At 2025-11-25, which has no
//! rounds, the same tool is a task at once.

use std::time::Duration;

use phi_agent::mcp::McpServer;
use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    DetailedTask, GetTaskParams, Implementation, InputResponses, ProtocolVersion, TaskPayload,
    TaskStatus, UpdateTaskParams,
};
use phi_agent::mcp::rmcp::service::RunningService;
use phi_agent::mcp::rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentResult, Elicitation, ToolConfig, ToolContext, phi_tool, tools};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::mcp_tasks::poll;

#[derive(Deserialize, JsonSchema)]
struct UserName {
    /// Your name
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Go {
    /// Go on?
    go: bool,
}

fn name_of(answer: Elicitation<UserName>) -> String {
    match answer {
        Elicitation::Accept(user) => user.name,
        Elicitation::Decline | Elicitation::Cancel => "nobody".to_string(),
    }
}

/// Asks a name, works a while (reporting progress), then greets.
#[phi_tool(task = "required", ask_before_task)]
async fn greet_later(ctx: &ToolContext) -> AgentResult<String> {
    let name = name_of(ctx.elicit::<UserName>("Your name?").await?);
    ctx.progress(1.0, Some(2.0), Some("thinking")).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    Ok(format!("Hello, {name}!"))
}

/// Asks a name and greets at once: it finishes in the round that answers it.
#[phi_tool(task = "optional", ask_before_task)]
async fn greet_now(ctx: &ToolContext) -> AgentResult<String> {
    let name = name_of(ctx.elicit::<UserName>("Your name?").await?);
    Ok(format!("Hi, {name}!"))
}

/// Asks a name, works, then asks whether to go on: the second question is the task's.
#[phi_tool(task = "required", ask_before_task)]
async fn ask_twice(ctx: &ToolContext) -> AgentResult<String> {
    let name = name_of(ctx.elicit::<UserName>("Your name?").await?);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let go = matches!(
        ctx.elicit::<Go>("Go on?").await?,
        Elicitation::Accept(Go { go: true })
    );
    Ok(format!("{name}: {go}"))
}

/// Needs a person's approval, then works a while.
#[phi_tool(task = "required", ask_before_task, needs_approval)]
async fn purge() -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    "purged".to_string()
}

/// Asks a name, works a while, then panics: after the task started.
#[phi_tool(task = "required", ask_before_task)]
async fn crash_later(ctx: &ToolContext) -> AgentResult<String> {
    let _ = ctx.elicit::<UserName>("Your name?").await?;
    tokio::time::sleep(Duration::from_millis(20)).await;
    panic!("crash_later gave up")
}

/// Asks a name, then panics at once: in the round that answers it.
#[phi_tool(task = "required", ask_before_task)]
async fn crash_now(ctx: &ToolContext) -> AgentResult<String> {
    let _ = ctx.elicit::<UserName>("Your name?").await?;
    panic!("crash_now gave up")
}

fn server() -> McpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry
        .register_all(tools![
            greet_later,
            greet_now,
            ask_twice,
            purge,
            crash_later,
            crash_now
        ])
        .unwrap();
    McpServer::new(registry).with_task_poll_interval(Duration::from_millis(10))
}

/// A client of `server` over an in-memory pipe, declaring the tasks extension and elicitation,
/// at 2026-07-28 (`modern`) or by the 2025-11-25 handshake.
async fn connect(modern: bool) -> RunningService<RoleClient, ClientConfig> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server().serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let lifecycle = if modern {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    let capabilities = ClientCapabilities::builder()
        .enable_tasks()
        .enable_elicitation()
        .build();
    ClientConfig::new(capabilities, Implementation::new("ask-first", "0"))
        .serve_with_lifecycle(tokio::io::split(client_io), lifecycle)
        .await
        .expect("a connection")
}

fn completed_text(task: DetailedTask) -> String {
    let TaskPayload::Completed { result } = task.payload else {
        panic!("the task did not complete: {:?}", task.payload);
    };
    let result: CallToolResult = serde_json::from_value(Value::Object(result)).unwrap();
    result.content[0].as_text().unwrap().text.clone()
}

/// Round 1 of a call of `tool`: the question (under key `user_name`), as `input_required` with
/// no task; returns the resent call that answers it with `name`.
async fn first_round(
    client: &RunningService<RoleClient, ClientConfig>,
    tool: &'static str,
    name: &str,
) -> CallToolRequestParams {
    let first = client
        .call_tool_once(CallToolRequestParams::new(tool))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("round 1 should ask, with no task yet: {first:?}");
    };
    let wire = serde_json::to_value(&asked).unwrap();
    assert!(wire.get("taskId").is_none(), "no task in round 1: {wire}");
    let requests = serde_json::to_value(asked.input_requests.as_ref().unwrap()).unwrap();
    assert_eq!(
        requests["user_name"]["method"], "elicitation/create",
        "{requests}"
    );
    let mut answers = InputResponses::new();
    answers.insert(
        "user_name".to_string(),
        json!({"action": "accept", "content": {"name": name}}),
    );
    let mut resent = CallToolRequestParams::new(tool);
    resent.input_responses = Some(answers);
    resent.request_state = asked.request_state;
    assert!(resent.request_state.is_some(), "round 1 has a requestState");
    resent
}

/// The task a round answered with (rmcp's client reads a `resultType: "task"` result as
/// one); its wire form carries a task id and a status.
fn created_task(answer: CallToolResponse) -> String {
    let CallToolResponse::Task(created) = answer else {
        panic!("the round that answers the questions makes the task: {answer:?}");
    };
    let wire = serde_json::to_value(&created).unwrap();
    assert_eq!(wire["resultType"], "task", "{wire}");
    assert!(
        wire["taskId"].is_string() && wire["status"].is_string(),
        "{wire}"
    );
    created.task.task_id
}

#[tokio::test]
async fn the_questions_come_in_rounds_then_the_round_that_answers_them_makes_the_task() {
    let client = connect(true).await;
    let resent = first_round(&client, "greet_later", "Alice").await;
    let id = created_task(client.call_tool_once(resent).await.unwrap());
    let running = client
        .peer()
        .get_task(GetTaskParams::new(&id))
        .await
        .unwrap()
        .task;
    if running.status() == TaskStatus::Working {
        // The progress the tool reports once it is a task is the task's status message.
        let message = running.task.status_message.unwrap_or_default();
        assert!(
            message.contains("thinking") || message.contains("running"),
            "{message}"
        );
    }
    let done = poll(&client, &id, TaskStatus::Completed).await;
    assert_eq!(completed_text(done), "Hello, Alice!");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_call_that_finishes_in_its_round_is_still_answered_with_a_task() {
    let client = connect(true).await;
    let resent = first_round(&client, "greet_now", "Bob").await;
    let id = created_task(client.call_tool_once(resent).await.unwrap());
    let done = poll(&client, &id, TaskStatus::Completed).await;
    assert_eq!(completed_text(done), "Hi, Bob!");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_question_after_the_task_started_is_the_tasks_own() {
    let client = connect(true).await;
    let resent = first_round(&client, "ask_twice", "Carol").await;
    let id = created_task(client.call_tool_once(resent).await.unwrap());
    let waiting = poll(&client, &id, TaskStatus::InputRequired).await;
    let TaskPayload::InputRequired { input_requests } = waiting.payload else {
        panic!("the task should ask: {:?}", waiting.payload);
    };
    let keys: Vec<&String> = input_requests.keys().collect();
    assert_eq!(keys, ["go"], "the second question, in the task");
    client
        .peer()
        .update_task(UpdateTaskParams::new(
            &id,
            [(
                "go".to_string(),
                json!({"action": "accept", "content": {"go": true}}),
            )]
            .into_iter()
            .collect(),
        ))
        .await
        .unwrap();
    let done = poll(&client, &id, TaskStatus::Completed).await;
    assert_eq!(completed_text(done), "Carol: true");
    client.cancel().await.unwrap();
}

/// Without `ask_before_task` a task tool that needs approval is refused (a task cannot ask
/// before it starts); with it, the approval is the first round.
#[tokio::test]
async fn an_approval_is_asked_in_a_round_before_the_task() {
    let client = connect(true).await;
    let first = client
        .call_tool_once(CallToolRequestParams::new("purge"))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("the approval comes first, as a round: {first:?}");
    };
    let requests = serde_json::to_value(asked.input_requests.as_ref().unwrap()).unwrap();
    assert_eq!(
        requests["approval"]["method"], "elicitation/create",
        "{requests}"
    );
    let mut answers = InputResponses::new();
    answers.insert(
        "approval".to_string(),
        json!({"action": "accept", "content": {"approve": true}}),
    );
    let mut resent = CallToolRequestParams::new("purge");
    resent.input_responses = Some(answers);
    resent.request_state = asked.request_state;
    let id = created_task(client.call_tool_once(resent).await.unwrap());
    let done = poll(&client, &id, TaskStatus::Completed).await;
    assert_eq!(completed_text(done), "purged");
    client.cancel().await.unwrap();
}

/// 2025-11-25 has no rounds: the tool's call is a task at once, its question the task's.
#[tokio::test]
async fn before_2026_the_call_is_a_task_at_once() {
    let client = connect(false).await;
    let answer = client
        .call_tool_once(CallToolRequestParams::new("greet_later"))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = answer else {
        panic!("a task at once: {answer:?}");
    };
    let id = created.task.task_id;
    let waiting = poll(&client, &id, TaskStatus::InputRequired).await;
    let TaskPayload::InputRequired { input_requests } = waiting.payload else {
        panic!("the task should ask: {:?}", waiting.payload);
    };
    let key = input_requests.keys().next().unwrap().clone();
    client
        .peer()
        .update_task(UpdateTaskParams::new(
            &id,
            [(key, json!({"action": "accept", "content": {"name": "Dan"}}))]
                .into_iter()
                .collect(),
        ))
        .await
        .unwrap();
    let done = poll(&client, &id, TaskStatus::Completed).await;
    assert_eq!(completed_text(done), "Hello, Dan!");
    client.cancel().await.unwrap();
}

/// A tool that panics fails its task (the server's failure, -32603), whether the task started
/// before the panic or the panic came in the round that made it; a tool's error would complete
/// it with `isError`, as for a task started at once.
#[tokio::test]
async fn a_panic_fails_the_task_it_escalated_to() {
    let client = connect(true).await;
    for (tool, said) in [
        ("crash_later", "crash_later gave up"),
        ("crash_now", "crash_now gave up"),
    ] {
        let resent = first_round(&client, tool, "Eve").await;
        let id = created_task(client.call_tool_once(resent).await.unwrap());
        let task = poll(&client, &id, TaskStatus::Failed).await;
        let TaskPayload::Failed { error } = task.payload else {
            panic!("{tool}: a panic fails the task: {:?}", task.payload);
        };
        assert_eq!(error["code"], -32603, "{tool}: {error:?}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(message.contains(said), "{tool}: {message}");
    }
    client.cancel().await.unwrap();
}
