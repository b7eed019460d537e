//! Serving a [`ToolRegistry`] to MCP clients.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, SubscriptionFilter,
    Tool as McpToolDef,
};
use rmcp::service::{RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::Mutex;

use super::convert;
use super::stdio::ScreenedLines;
use crate::context::{ActivationContext, ToolContext};
use crate::error::{AgentError, AgentResult};
use crate::registry::{ActiveTools, ToolCallResult, ToolRegistry};

/// An MCP server over a [`ToolRegistry`]: an rmcp [`ServerHandler`].
///
/// `tools/list` gives the visible tools (Direct, and Deferred once activated; never Hidden) in
/// registration order; `tools/call` goes through [`ToolRegistry::dispatch`], so the model-facing
/// rules hold for MCP clients too: arguments are decoded the same way, timeouts and panics become
/// `isError` results, and a hidden, inactive or unknown tool gets the same "not available" result.
///
/// A call that needs a person's approval ([`Tool::needs_approval`](crate::Tool::needs_approval))
/// is refused with an `isError` result saying that a person must approve it
/// ([`AgentError::ApprovalRequired`]), and the tool does not run: MCP gives a server no way to
/// ask the client's user, and a client that wants such a tool should wrap it in its own
/// approval. The tool stays listed, since its predicate may pass other arguments.
///
/// Each value is one session: its set of active tools starts from the registry's Direct tools and
/// is re-evaluated after each call; when it grows, the client gets
/// `notifications/tools/list_changed` (on its `subscriptions/listen` stream from protocol
/// 2026-07-28 on). [`new_session`](Self::new_session) makes a fresh session over the same
/// registry: the HTTP server does this per client session, and per request for clients on the
/// session-less 2026-07-28 protocol, where activation therefore does not carry over between
/// requests.
///
/// Serve it on any rmcp transport with [`rmcp::ServiceExt::serve`], or use
/// [`serve_stdio`](super::serve_stdio) and [`serve_http`](super::serve_http).
#[derive(Clone)]
pub struct McpServer {
    shared: Arc<Shared>,
    session: Arc<Session>,
}

/// What one client session changes: its active tools, and (protocol 2026-07-28 and later) the
/// `subscriptions/listen` streams that asked for `notifications/tools/list_changed`.
#[derive(Default)]
struct Session {
    active: Mutex<Option<ActiveTools>>,
    listeners: std::sync::Mutex<Vec<SubscriptionSink>>,
}

#[derive(Clone)]
struct Shared {
    registry: Arc<ToolRegistry>,
    /// MCP definitions by registration index, computed once.
    definitions: Vec<McpToolDef>,
    implementation: Implementation,
    instructions: Option<String>,
    context: ToolContext,
}

impl McpServer {
    /// A server for `registry`, announcing itself as `phi-agent` with this crate's version.
    pub fn new(registry: impl Into<Arc<ToolRegistry>>) -> Self {
        let registry = registry.into();
        let definitions = registry
            .iter()
            .map(super::definition::tool_definition)
            .collect();
        Self {
            shared: Arc::new(Shared {
                registry,
                definitions,
                implementation: Implementation::new("phi-agent", env!("CARGO_PKG_VERSION")),
                instructions: None,
                context: ToolContext::default(),
            }),
            session: Arc::default(),
        }
    }

    /// The name and version announced to clients (`serverInfo`).
    pub fn with_server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.shared_mut().implementation = Implementation::new(name, version);
        self
    }

    /// Instructions for the client's model, sent at initialization.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.shared_mut().instructions = Some(instructions.into());
        self
    }

    /// The context every call starts from: session id, workspace and shared state. Each call gets
    /// its own copy with the MCP request id and a cancellation token of its own.
    pub fn with_context(mut self, context: ToolContext) -> Self {
        self.shared_mut().context = context;
        self
    }

    /// A new session over the same registry and settings, with no tool activated yet.
    pub fn new_session(&self) -> Self {
        Self {
            shared: self.shared.clone(),
            session: Arc::default(),
        }
    }

    /// The registry being served.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.shared.registry
    }

    fn shared_mut(&mut self) -> &mut Shared {
        // Builder methods run before the server is cloned into sessions, so this rarely copies.
        Arc::make_mut(&mut self.shared)
    }

    /// The session's active tools, evaluated on first use.
    async fn active_snapshot(&self) -> ActiveTools {
        let mut active = self.session.active.lock().await;
        match active.as_ref() {
            Some(set) => set.clone(),
            None => {
                let set = self
                    .shared
                    .registry
                    .visible_tools(&self.activation_context())
                    .await;
                active.insert(set).clone()
            }
        }
    }

    /// Re-evaluates activation after a call; returns whether the visible set grew.
    async fn reevaluate(&self) -> bool {
        let mut active = self.session.active.lock().await;
        match active.as_mut() {
            Some(set) => !self.shared.registry.activate(set).await.is_empty(),
            None => false,
        }
    }

    /// Tells the client that the tool list changed: on the listen streams that asked for it
    /// (protocol 2026-07-28 and later), or as a plain notification (earlier versions).
    async fn notify_tools_changed(&self, context: &RequestContext<RoleServer>) {
        let listeners = self
            .session
            .listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if listeners.is_empty()
            && let Err(error) = context.peer.notify_tool_list_changed().await
        {
            tracing::warn!(%error, "could not send notifications/tools/list_changed");
        }
        for listener in listeners {
            if let Err(error) = listener.notify_tool_list_changed().await {
                tracing::debug!(%error, "a listen stream did not take notifications/tools/list_changed");
            }
        }
    }

    fn activation_context(&self) -> ActivationContext {
        ActivationContext {
            session_id: self.shared.context.session_id().to_string(),
            current_tools: Vec::new(),
            workspace: self.shared.context.workspace().to_path_buf(),
        }
    }
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("server", &self.shared.implementation.name)
            .field("tools", &self.shared.registry.len())
            .finish_non_exhaustive()
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let mut config =
            ServerConfig::new(capabilities).with_server_info(self.shared.implementation.clone());
        if let Some(instructions) = &self.shared.instructions {
            config = config.with_instructions(instructions.clone());
        }
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let active = self.active_snapshot().await;
        let tools = (0..self.shared.definitions.len())
            .filter(|&index| active.is_active(index))
            .map(|index| self.shared.definitions[index].clone())
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let active = self.active_snapshot().await;
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        // rmcp cancels `context.ct` when the client sends `notifications/cancelled` for this
        // request; the tool's token is a child of it, so the client's cancellation reaches the
        // tool, while the registry cancelling the tool's token on a timeout stays local.
        let ctx = self
            .shared
            .context
            .for_call_under(&context.id.to_string(), &context.ct);
        let registry = &self.shared.registry;
        if registry
            .needs_approval(&active, &request.name, &arguments, &ctx)
            .await
        {
            let refusal = ToolCallResult::error(&AgentError::ApprovalRequired {
                tool: request.name.to_string(),
            });
            let protocol = context.protocol_version();
            return Ok(convert::call_result(refusal, protocol.as_ref()).into());
        }
        let dispatch = registry.dispatch(&active, &request.name, &arguments, &ctx);
        let result = tokio::select! {
            result = dispatch => result,
            // The client gave up on the call: stop the tool (dropping its future) instead of
            // computing a result no one will read.
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error(
                    AgentError::Cancelled { tool: request.name.to_string() }.to_string(),
                    None,
                ));
            }
        };
        if self.reevaluate().await {
            self.notify_tools_changed(&context).await;
        }
        let protocol = context.protocol_version();
        Ok(convert::call_result(result, protocol.as_ref()).into())
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        if context.accepted().tools_list_changed != Some(true) {
            context.cancelled().await;
            return Ok(());
        }
        let sink = context.sink().clone();
        let id = sink.id().clone();
        self.session
            .listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(sink);
        context.cancelled().await;
        self.session
            .listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|listener| listener.id() != &id);
        Ok(())
    }
}

/// Serves `registry` over stdin/stdout until the client disconnects.
///
/// This is what MCP clients (Claude Desktop, Cursor, IDEs, the MCP Inspector) launch. Nothing
/// else may write to stdout while it runs: log to stderr.
///
/// Every line is checked before rmcp reads it, so a malformed message gets its JSON-RPC error
/// and the session goes on: a line that is not JSON, or nests deeper than 128 levels, gets
/// `-32700` (with `id: null`); a standard request whose params do not fit its method (a
/// `tools/call` whose `arguments` is not an object) gets `-32602`; JSON that is no JSON-RPC
/// request gets `-32600`; a malformed notification is dropped, as JSON-RPC wants.
///
/// ```no_run
/// # async fn run(registry: phi_agent::registry::ToolRegistry) -> phi_agent::AgentResult<()> {
/// phi_agent::mcp::serve_stdio(registry).await
/// # }
/// ```
pub async fn serve_stdio(registry: impl Into<Arc<ToolRegistry>>) -> AgentResult<()> {
    McpServer::new(registry).serve_stdio().await
}

impl McpServer {
    /// Serves this server over stdin/stdout until the client disconnects; see
    /// [`serve_stdio`](super::serve_stdio).
    pub async fn serve_stdio(self) -> AgentResult<()> {
        let (stdin, stdout) = rmcp::transport::stdio();
        let running = self
            .serve(ScreenedLines::new(stdin, stdout))
            .await
            .map_err(|error| stdio_error(format!("the MCP handshake failed: {error}")))?;
        running
            .waiting()
            .await
            .map_err(|error| stdio_error(format!("the MCP service stopped abnormally: {error}")))?;
        Ok(())
    }
}

fn stdio_error(message: String) -> AgentError {
    AgentError::Mcp {
        server: "stdio".to_string(),
        message,
    }
}
