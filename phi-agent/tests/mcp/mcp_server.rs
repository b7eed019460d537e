//! Our MCP server (`phi_agent::mcp::McpServer`) driven by rmcp's client over an in-memory pipe,
//! in both protocol generations: the initialize handshake (2025-11-25) and 2026-07-28.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use phi_agent::mcp::McpServer;
use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    JsonObject, ProtocolVersion, ServerNotification, SubscriptionFilter,
};
use phi_agent::mcp::rmcp::service::{NotificationContext, RunningService};
use phi_agent::mcp::rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt,
};
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    ActivationContext, AgentResult, ToolAnnotations, ToolConfig, ToolContext, ToolExposure,
    TypedTool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// Text to echo
    text: String,
}

#[derive(Serialize, JsonSchema)]
struct Echoed {
    echo: String,
}

struct Echo;

#[async_trait]
impl TypedTool for Echo {
    type Args = EchoArgs;
    type Output = Echoed;
    fn name(&self) -> &'static str {
        "echo"
    }
    fn description(&self) -> &'static str {
        "Echo the text back"
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default()
            .with_annotations(
                ToolAnnotations::default()
                    .with_read_only(true)
                    .with_idempotent(true),
            )
            .with_output_schema(phi_agent::schema::canonical_schema_for::<Echoed>())
    }
    async fn call_typed(&self, args: EchoArgs, _ctx: &ToolContext) -> AgentResult<Echoed> {
        Ok(Echoed { echo: args.text })
    }
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

/// Returns a bare number, and declares a non-object output schema (which MCP cannot carry).
struct Half;

#[async_trait]
impl TypedTool for Half {
    type Args = NoArgs;
    type Output = f64;
    fn name(&self) -> &'static str {
        "half"
    }
    fn description(&self) -> &'static str {
        "One half"
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_output_schema(json!({"type": "number"}))
    }
    async fn call_typed(&self, _: NoArgs, _ctx: &ToolContext) -> AgentResult<f64> {
        Ok(0.5)
    }
}

struct Panics;

#[async_trait]
impl TypedTool for Panics {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "panics"
    }
    fn description(&self) -> &'static str {
        "Always panics"
    }
    async fn call_typed(&self, _: NoArgs, _ctx: &ToolContext) -> AgentResult<String> {
        panic!("boom")
    }
}

struct Secret;

#[async_trait]
impl TypedTool for Secret {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "secret"
    }
    fn description(&self) -> &'static str {
        "Hidden from clients"
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Hidden
    }
    async fn call_typed(&self, _: NoArgs, _ctx: &ToolContext) -> AgentResult<String> {
        Ok("leaked".to_string())
    }
}

/// Flips the switch that activates [`Unlocked`].
struct Unlock(Arc<AtomicBool>);

#[async_trait]
impl TypedTool for Unlock {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "unlock"
    }
    fn description(&self) -> &'static str {
        "Unlock the deferred tool"
    }
    async fn call_typed(&self, _: NoArgs, _ctx: &ToolContext) -> AgentResult<String> {
        self.0.store(true, Ordering::SeqCst);
        Ok("unlocked".to_string())
    }
}

struct Unlocked(Arc<AtomicBool>);

#[async_trait]
impl TypedTool for Unlocked {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "unlocked"
    }
    fn description(&self) -> &'static str {
        "Visible once unlocked"
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Deferred
    }
    async fn should_activate(&self, _ctx: &ActivationContext) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    async fn call_typed(&self, _: NoArgs, _ctx: &ToolContext) -> AgentResult<String> {
        Ok("here".to_string())
    }
}

/// Reports that it started, then reports when its cancellation token fires.
struct WaitForCancel {
    started: std::sync::Mutex<Option<oneshot::Sender<()>>>,
    cancelled: std::sync::Mutex<Option<oneshot::Sender<()>>>,
}

#[async_trait]
impl TypedTool for WaitForCancel {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "wait"
    }
    fn description(&self) -> &'static str {
        "Waits until cancelled"
    }
    async fn call_typed(&self, _: NoArgs, ctx: &ToolContext) -> AgentResult<String> {
        // The watcher outlives this future, which the server drops once the client cancels.
        let token = ctx.cancellation().clone();
        let cancelled = self.cancelled.lock().unwrap().take();
        tokio::spawn(async move {
            token.cancelled().await;
            if let Some(cancelled) = cancelled {
                let _ = cancelled.send(());
            }
        });
        if let Some(started) = self.started.lock().unwrap().take() {
            let _ = started.send(());
        }
        std::future::pending().await
    }
}

struct Fixture {
    server: McpServer,
    started: oneshot::Receiver<()>,
    cancelled: oneshot::Receiver<()>,
}

fn fixture() -> Fixture {
    let switch = Arc::new(AtomicBool::new(false));
    let (started_tx, started) = oneshot::channel();
    let (cancelled_tx, cancelled) = oneshot::channel();
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Echo).unwrap();
    registry.register(Secret).unwrap();
    registry.register(Unlock(switch.clone())).unwrap();
    registry.register(Unlocked(switch)).unwrap();
    registry.register(Half).unwrap();
    registry.register(Panics).unwrap();
    registry
        .register(WaitForCancel {
            started: std::sync::Mutex::new(Some(started_tx)),
            cancelled: std::sync::Mutex::new(Some(cancelled_tx)),
        })
        .unwrap();
    Fixture {
        server: McpServer::new(registry),
        started,
        cancelled,
    }
}

/// A client that reports `notifications/tools/list_changed` and speaks `version`.
struct Client {
    version: ProtocolVersion,
    list_changed: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("phi-test-client", "0.0.0"),
        )
        .with_protocol_version(self.version.clone())
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.list_changed.send(());
    }
}

async fn connect(
    server: McpServer,
    version: ProtocolVersion,
) -> (
    RunningService<RoleClient, Client>,
    mpsc::UnboundedReceiver<()>,
) {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let (list_changed, changes) = mpsc::unbounded_channel();
    let lifecycle = if version.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        }
    };
    let client = Client {
        version,
        list_changed,
    };
    let running = client
        .serve_with_lifecycle(tokio::io::split(client_io), lifecycle)
        .await
        .expect("handshake with our server");
    (running, changes)
}

const LEGACY: ProtocolVersion = ProtocolVersion::V_2025_11_25;
const MODERN: ProtocolVersion = ProtocolVersion::V_2026_07_28;

async fn call(
    client: &RunningService<RoleClient, Client>,
    name: &str,
    args: Value,
) -> CallToolResult {
    let mut params = CallToolRequestParams::new(name.to_string());
    if let Value::Object(args) = args {
        params = params.with_arguments(args);
    }
    client
        .peer()
        .call_tool(params)
        .await
        .expect("a tools/call result, not a protocol error")
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text())
        .map(|text| text.text.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

async fn listed_names(client: &RunningService<RoleClient, Client>) -> Vec<String> {
    let tools = client.peer().list_all_tools().await.unwrap();
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

#[tokio::test]
async fn lists_visible_tools_in_registration_order_with_schemas_and_annotations() {
    for version in [LEGACY, MODERN] {
        let Fixture { server, .. } = fixture();
        let canonical = server.registry().get("echo").unwrap().schema().clone();
        let (client, _) = connect(server, version.clone()).await;
        let tools = client.peer().list_all_tools().await.unwrap();
        let names: Vec<_> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        assert_eq!(
            names,
            ["echo", "unlock", "half", "panics", "wait"],
            "{version}: hidden `secret` and inactive deferred `unlocked` are not listed"
        );

        let echo = &tools[0];
        assert_eq!(echo.description.as_deref(), Some("Echo the text back"));
        assert_eq!(
            Value::Object(echo.input_schema.as_ref().clone()),
            *canonical
        );
        let output = echo
            .output_schema
            .as_ref()
            .expect("echo declares an object output schema");
        assert_eq!(output.get("type"), Some(&json!("object")));
        let hints = echo.annotations.as_ref().expect("echo sets annotations");
        assert_eq!(
            (
                hints.read_only_hint,
                hints.idempotent_hint,
                hints.destructive_hint
            ),
            (Some(true), Some(true), None)
        );

        let half = &tools[2];
        assert!(
            half.output_schema.is_none(),
            "a non-object output schema is not sent"
        );
        assert!(
            half.annotations.is_none(),
            "no hints, no annotations object"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn json_output_is_structured_content_plus_the_same_json_as_text() {
    for version in [LEGACY, MODERN] {
        let (client, _) = connect(fixture().server, version.clone()).await;
        let result = call(&client, "echo", json!({"text": "hi"})).await;
        assert_eq!(result.is_error, Some(false));
        assert_eq!(result.structured_content, Some(json!({"echo": "hi"})));
        assert_eq!(
            serde_json::from_str::<Value>(&text(&result)).unwrap(),
            json!({"echo": "hi"})
        );

        let half = call(&client, "half", json!({})).await;
        assert_eq!(text(&half), "0.5");
        let expected = (version == MODERN).then(|| json!(0.5));
        assert_eq!(
            half.structured_content, expected,
            "{version}: bare JSON values are structured only from 2026-07-28"
        );
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn bad_arguments_and_failures_are_error_results_not_protocol_errors() {
    let (client, _) = connect(fixture().server, LEGACY).await;
    let result = call(&client, "echo", json!({"text": 5})).await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).starts_with("invalid arguments for tool `echo` at `text`"),
        "{}",
        text(&result)
    );

    let result = call(&client, "panics", json!({})).await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("panicked: boom"),
        "{}",
        text(&result)
    );

    let result = call(&client, "echo", json!({"text": "still serving"})).await;
    assert_eq!(
        result.is_error,
        Some(false),
        "the server survives a panicking tool"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn hidden_and_unknown_tools_get_the_same_refusal() {
    let (client, _) = connect(fixture().server, LEGACY).await;
    let hidden = call(&client, "secret", json!({})).await;
    let unknown = call(&client, "no_such", json!({})).await;
    let inactive = call(&client, "unlocked", json!({})).await;
    for result in [&hidden, &unknown, &inactive] {
        assert_eq!(result.is_error, Some(true));
    }
    assert!(text(&hidden).starts_with("tool `secret` is not available"));
    assert_eq!(
        text(&hidden).replace("secret", "X"),
        text(&unknown).replace("no_such", "X")
    );
    assert_eq!(
        text(&inactive).replace("unlocked", "X"),
        text(&unknown).replace("no_such", "X")
    );
    assert!(!text(&hidden).contains("leaked"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn activation_sends_list_changed_and_grows_the_list_legacy() {
    let (client, mut changes) = connect(fixture().server, LEGACY).await;
    call(&client, "echo", json!({"text": "no change"})).await;
    assert!(
        changes.try_recv().is_err(),
        "no notification while the set is unchanged"
    );

    let result = call(&client, "unlock", json!({})).await;
    assert_eq!(result.is_error, Some(false));
    tokio::time::timeout(Duration::from_secs(10), changes.recv())
        .await
        .expect("notifications/tools/list_changed arrives")
        .unwrap();
    assert_eq!(
        listed_names(&client).await,
        ["echo", "unlock", "unlocked", "half", "panics", "wait"]
    );
    assert_eq!(text(&call(&client, "unlocked", json!({})).await), "here");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn activation_sends_list_changed_on_the_listen_stream_2026_07_28() {
    let (client, _) = connect(fixture().server, MODERN).await;
    let mut subscription = client
        .peer()
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .expect("subscriptions/listen is accepted");
    call(&client, "unlock", json!({})).await;
    let notification = tokio::time::timeout(Duration::from_secs(10), subscription.next())
        .await
        .expect("a notification arrives on the listen stream")
        .unwrap();
    assert!(
        matches!(
            notification,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "{notification:?}"
    );
    assert!(
        listed_names(&client)
            .await
            .contains(&"unlocked".to_string())
    );
    subscription.cancel().await.unwrap();
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn client_cancellation_reaches_the_tools_token() {
    let Fixture {
        server,
        started,
        cancelled,
    } = fixture();
    let (client, _) = connect(server, LEGACY).await;
    let mut params = CallToolRequestParams::new("wait");
    params = params.with_arguments(JsonObject::new());
    tokio::select! {
        result = client.peer().call_tool(params) => panic!("the waiting tool answered: {result:?}"),
        // Dropping the call future sends notifications/cancelled.
        started = started => started.unwrap(),
    }
    tokio::time::timeout(Duration::from_secs(10), cancelled)
        .await
        .expect("the tool's cancellation token fires after the client cancels")
        .unwrap();
    let result = call(&client, "echo", json!({"text": "after"})).await;
    assert_eq!(result.is_error, Some(false), "the session goes on");
    client.cancel().await.unwrap();
}

/// Sleeps far longer than its own timeout.
struct Sleepy;

#[async_trait]
impl TypedTool for Sleepy {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "sleepy"
    }
    fn description(&self) -> &'static str {
        "Sleeps for an hour"
    }
    fn timeout_ms(&self) -> Option<u64> {
        Some(30_000)
    }
    async fn call_typed(&self, _: NoArgs, _ctx: &ToolContext) -> AgentResult<String> {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok("awake".to_string())
    }
}

#[tokio::test(start_paused = true)]
async fn a_tool_timeout_is_an_error_result_and_the_session_goes_on() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Sleepy).unwrap();
    registry.register(Echo).unwrap();
    let (client, _) = connect(McpServer::new(registry), LEGACY).await;
    let started = tokio::time::Instant::now();
    let result = call(&client, "sleepy", json!({})).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        text(&result),
        "tool `sleepy` timed out after 30000 ms; try again with a smaller request, or raise the tool's timeout"
    );
    assert_eq!(
        started.elapsed().as_secs(),
        30,
        "the tool's own timeout applies"
    );
    let after = call(&client, "echo", json!({"text": "next"})).await;
    assert_eq!(after.is_error, Some(false));
    client.cancel().await.unwrap();
}

/// Needs a person's approval for every call, and counts the calls that ran anyway.
struct Wipe(Arc<std::sync::atomic::AtomicUsize>);

#[async_trait]
impl TypedTool for Wipe {
    type Args = NoArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "wipe"
    }
    fn description(&self) -> &'static str {
        "Wipe the disk"
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_approval(phi_agent::ToolApproval::Always)
    }
    async fn call_typed(&self, _: NoArgs, _ctx: &ToolContext) -> AgentResult<String> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok("wiped".to_string())
    }
}

#[tokio::test]
async fn a_tool_that_needs_approval_is_refused_when_the_client_cannot_ask_its_user() {
    let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Wipe(ran.clone())).unwrap();
    registry.register(Echo).unwrap();
    for version in [LEGACY, MODERN] {
        let (client, _) = connect(McpServer::new(registry.clone()), version).await;
        let refused = call(&client, "wipe", json!({})).await;
        assert_eq!(refused.is_error, Some(true));
        assert!(
            text(&refused).contains("needs a person's approval")
                && text(&refused).contains("declared no elicitation capability"),
            "{}",
            text(&refused)
        );
        let echoed = call(&client, "echo", json!({"text": "hi"})).await;
        assert_eq!(echoed.is_error, Some(false), "other tools still run");
        client.cancel().await.unwrap();
    }
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

/// Without a Deferred tool the active tools are computed once for the server and shared by its
/// sessions: each lists and calls the Direct tools, never a Hidden one, and hears of no change.
#[tokio::test]
async fn without_a_deferred_tool_every_session_has_the_direct_tools() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Echo).unwrap();
    registry.register(Secret).unwrap();
    let server = McpServer::new(registry);
    for version in [LEGACY, MODERN, LEGACY] {
        let (client, mut changes) = connect(server.new_session(), version).await;
        assert_eq!(listed_names(&client).await, ["echo"]);
        let echoed = call(&client, "echo", json!({"text": "hi"})).await;
        assert_ne!(echoed.is_error, Some(true), "{}", text(&echoed));
        assert!(text(&echoed).contains("hi"));
        let hidden = call(&client, "secret", json!({})).await;
        assert_eq!(hidden.is_error, Some(true));
        assert!(text(&hidden).starts_with("tool `secret` is not available"));
        assert!(changes.try_recv().is_err(), "no tool list change");
        client.cancel().await.unwrap();
    }
}

/// The server's info is computed once; a builder method called after that changes it still.
#[test]
fn get_info_follows_the_builder_after_its_first_use() {
    use phi_agent::mcp::rmcp::ServerHandler;
    let server = McpServer::new(ToolRegistry::new(ToolConfig::default()));
    let first = server.get_info();
    assert_eq!(first.server_info.name, "phi-agent");
    assert_eq!(first.instructions, None);
    assert_eq!(server.get_info(), first, "the same answer each time");
    let server = server
        .with_server_info("shop", "2.0.0")
        .with_instructions("Tools for the shop");
    let info = server.get_info();
    assert_eq!(info.server_info.name, "shop");
    assert_eq!(info.server_info.version, "2.0.0");
    assert_eq!(info.instructions.as_deref(), Some("Tools for the shop"));
    assert_eq!(server.new_session().get_info(), info, "sessions share it");
}
