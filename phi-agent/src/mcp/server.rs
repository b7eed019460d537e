//! Serving a [`ToolRegistry`] to MCP clients.

// rmcp marks logging, sampling and `resources/unsubscribe` deprecated by SEP-2577 (protocol
// 2026-07-28); clients of 2025-11-25, the protocol most speak, still use them.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
    CompleteRequestParams, CompleteResult, CreateTaskResult, GetPromptRequestParams,
    GetPromptResponse, GetTaskParams, GetTaskResult, Implementation, InputRequiredResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter,
    Tool as McpToolDef, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{Peer, RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::convert;
use super::derived::Derived;
use super::peer::{ClientPeer, LogFilter, LogThreshold};
use super::prompts::Prompt;
use super::resources::{Resource, ResourceTemplate};
use super::rounds::{self, CallFuture, Round, Rounds, Running};
use super::stdio::ScreenedLines;
use super::tasks::{self, Answer, TaskPeer};
use crate::context::{ActivationContext, ToolContext};
use crate::error::{AgentError, AgentResult};
use crate::registry::{ActiveTools, ToolCallResult, ToolRegistry};
use crate::tool::TaskSupport;

/// An MCP server over a [`ToolRegistry`]: an rmcp [`ServerHandler`].
///
/// `tools/list` gives the visible tools (Direct, and Deferred once activated; never Hidden) in
/// registration order; `tools/call` goes through [`ToolRegistry::dispatch`], so the model-facing
/// rules hold for MCP clients too: arguments are decoded the same way, timeouts and panics become
/// `isError` results, and a hidden, inactive or unknown tool gets the same "not available" result.
///
/// A call that needs a person's approval ([`ToolOptions::approval`](crate::ToolOptions::approval))
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
/// A tool whose [`ToolOptions::task_support`](crate::ToolOptions::task_support) allows it is called as a
/// task for clients that declare the `io.modelcontextprotocol/tasks` extension (SEP-2663):
/// `tools/call` answers at once with the task, the tool runs on, and `tasks/get` gives its
/// status and then its result (`tasks/update` answers its questions, `tasks/cancel` stops it).
/// The server then declares the extension, and `tools/list` shows each such tool's support in
/// its `_meta` (see [`definition`](super::definition)). Tasks belong to the server, not to a
/// session, so a client can poll from any session or from none; each is kept for its time to
/// live ([`with_task_ttl`](Self::with_task_ttl)). A client declares the extension on each
/// request (protocol 2026-07-28) or at `initialize`; over stateless HTTP only the first
/// reaches the instance serving the call, so there a 2025-11-25 client gets no task (and a
/// `Required` tool refuses it).
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
    /// The lowest level of log message the client hears (`logging/setLevel`).
    threshold: Arc<LogThreshold>,
    /// The URIs the client subscribed to (`resources/subscribe`).
    subscriptions: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

/// What completes an argument of a prompt or a resource template (`completion/complete`).
type Complete = Arc<dyn Fn(CompletionTarget<'_>, &str, &str) -> Vec<String> + Send + Sync>;

/// What `completion/complete` asks to complete an argument of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompletionTarget<'a> {
    /// An argument of the prompt with this name.
    Prompt(&'a str),
    /// A variable of the resource template with this URI template.
    ResourceTemplate(&'a str),
}

#[derive(Clone)]
struct Shared {
    registry: Arc<ToolRegistry>,
    /// MCP definitions by registration index, computed once.
    definitions: Vec<McpToolDef>,
    implementation: Implementation,
    instructions: Option<String>,
    context: ToolContext,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    prompts: Vec<Prompt>,
    complete: Option<Complete>,
    /// Each tool's task support, by registration index.
    task_support: Vec<TaskSupport>,
    /// The server's tasks, shared by its sessions.
    tasks: TaskManager,
    /// Calls suspended on a question (2026-07-28), shared by its sessions.
    rounds: Arc<Rounds>,
    task_ttl: Option<Duration>,
    task_poll_interval: Duration,
    /// What is computed from the fields above once, for every session (cleared by builders).
    derived: Derived,
}

impl McpServer {
    /// A server for `registry`. It announces itself (`serverInfo`) as `phi-agent` with
    /// phi-agent's version; give it your program's name and version with
    /// [`with_server_info`](Self::with_server_info), e.g.
    /// `.with_server_info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))`, or build it with
    /// the [`mcp_server!`](crate::mcp_server) macro, which does that for you.
    pub fn new(registry: impl Into<Arc<ToolRegistry>>) -> Self {
        let registry = registry.into();
        let definitions = registry
            .iter()
            .map(super::definition::tool_definition)
            .collect();
        let task_support = registry.iter().map(|tool| tool.task_support()).collect();
        Self {
            shared: Arc::new(Shared {
                registry,
                definitions,
                implementation: Implementation::new("phi-agent", env!("CARGO_PKG_VERSION")),
                instructions: None,
                context: ToolContext::default(),
                resources: Vec::new(),
                templates: Vec::new(),
                prompts: Vec::new(),
                complete: None,
                task_support,
                tasks: TaskManager::new(),
                rounds: Arc::default(),
                task_ttl: Some(Self::DEFAULT_TASK_TTL),
                task_poll_interval: Self::DEFAULT_TASK_POLL_INTERVAL,
                derived: Derived::default(),
            }),
            session: Arc::default(),
        }
    }

    /// How long a task is kept from its creation: 5 minutes. A task still running then fails
    /// (its tool is stopped); a finished one is kept as long again for the client to read.
    pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(5 * 60);

    /// How often a client is asked to poll a task (`pollIntervalMs`): every second.
    pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_secs(1);

    /// How long each task is kept from its creation (`ttlMs`); `None` keeps tasks for as long
    /// as the server runs. Default: [`DEFAULT_TASK_TTL`](Self::DEFAULT_TASK_TTL).
    pub fn with_task_ttl(mut self, ttl: Option<Duration>) -> Self {
        self.shared_mut().task_ttl = ttl;
        self
    }

    /// How often clients are asked to poll a task (`pollIntervalMs`). Default:
    /// [`DEFAULT_TASK_POLL_INTERVAL`](Self::DEFAULT_TASK_POLL_INTERVAL).
    pub fn with_task_poll_interval(mut self, interval: Duration) -> Self {
        self.shared_mut().task_poll_interval = interval;
        self
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

    /// Serves `resource` too (`resources/list`, `resources/read`, `resources/subscribe`). A URI
    /// served twice is read from the first.
    pub fn with_resource(mut self, resource: Resource) -> Self {
        self.shared_mut().resources.push(resource);
        self
    }

    /// Serves the resources of `template` too (`resources/templates/list`, and
    /// `resources/read` of any URI that matches it and no fixed resource).
    pub fn with_resource_template(mut self, template: ResourceTemplate) -> Self {
        self.shared_mut().templates.push(template);
        self
    }

    /// Serves `prompt` too (`prompts/list`, `prompts/get`).
    pub fn with_prompt(mut self, prompt: Prompt) -> Self {
        self.shared_mut().prompts.push(prompt);
        self
    }

    /// Completes the arguments of prompts and the variables of resource templates
    /// (`completion/complete`): `complete(target, argument, typed_so_far)` gives the
    /// suggestions (at most 100 are sent). Without it, every completion is empty.
    ///
    /// ```
    /// # fn f(server: phi_agent::mcp::McpServer) -> phi_agent::mcp::McpServer {
    /// use phi_agent::mcp::CompletionTarget;
    ///
    /// server.with_completion(|target, argument, typed| match (target, argument) {
    ///     (CompletionTarget::Prompt("review"), "language") => ["rust", "python"]
    ///         .into_iter()
    ///         .filter(|language| language.starts_with(typed))
    ///         .map(String::from)
    ///         .collect(),
    ///     _ => Vec::new(),
    /// })
    /// # }
    /// ```
    pub fn with_completion(
        mut self,
        complete: impl Fn(CompletionTarget<'_>, &str, &str) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.shared_mut().complete = Some(Arc::new(complete));
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
        let shared = Arc::make_mut(&mut self.shared);
        // The caller changes a setting: what was computed from the old ones is stale.
        shared.derived = Derived::default();
        shared
    }

    /// The active tools every session shares, when no tool's activation can depend on the
    /// session (see [`Derived::fixed_active`]).
    fn fixed_active(&self) -> Option<&Arc<ActiveTools>> {
        self.shared
            .derived
            .fixed_active(&self.shared.registry, || self.activation_context())
    }

    /// The session's active tools, evaluated on first use.
    async fn active_snapshot(&self) -> Arc<ActiveTools> {
        if let Some(fixed) = self.fixed_active() {
            return fixed.clone();
        }
        let mut active = self.session.active.lock().await;
        let set = match active.as_ref() {
            Some(set) => set.clone(),
            None => {
                let set = self
                    .shared
                    .registry
                    .visible_tools(&self.activation_context())
                    .await;
                active.insert(set).clone()
            }
        };
        Arc::new(set)
    }

    /// Re-evaluates activation after a call; returns whether the visible set grew.
    async fn reevaluate(&self) -> bool {
        if self.fixed_active().is_some() {
            // No Deferred tool: nothing can activate.
            return false;
        }
        let mut active = self.session.active.lock().await;
        match active.as_mut() {
            Some(set) => !self.shared.registry.activate(set).await.is_empty(),
            None => false,
        }
    }

    /// Tells the client that the tool list changed: on the listen streams that asked for it
    /// (protocol 2026-07-28 and later), or as a plain notification (earlier versions).
    async fn notify_tools_changed(&self, peer: &Peer<RoleServer>) {
        let listeners = self
            .session
            .listeners
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if listeners.is_empty()
            && let Err(error) = peer.notify_tool_list_changed().await
        {
            tracing::warn!(%error, "could not send notifications/tools/list_changed");
        }
        for listener in listeners {
            if let Err(error) = listener.notify_tool_list_changed().await {
                tracing::debug!(%error, "a listen stream did not take notifications/tools/list_changed");
            }
        }
    }

    /// Whether `uri` is one of the resources served, or matches one of the templates.
    fn serves_uri(&self, uri: &str) -> bool {
        self.shared
            .resources
            .iter()
            .any(|resource| resource.uri == uri)
            || self
                .shared
                .templates
                .iter()
                .any(|template| template.matches(uri).is_some())
    }

    /// Starts the call of `name` as a task and returns the task's first state, once
    /// `tasks/get` can find it. The call runs as any other does (the same dispatch, decoding,
    /// timeout and activation), with a peer that talks through the task; `tasks/cancel` stops
    /// it as a client's cancellation stops a call.
    fn start_task(
        &self,
        name: String,
        arguments: Value,
        active: Arc<ActiveTools>,
        context: &RequestContext<RoleServer>,
    ) -> rmcp::model::Task {
        let mut options = TaskOptions::new()
            .with_ttl_ms(self.shared.task_ttl.map(millis))
            .with_poll_interval_ms(millis(self.shared.task_poll_interval));
        options.status_message = Some(format!("tool `{name}` is running"));
        let server = self.clone();
        let peer = context.peer.clone();
        let capabilities = context.client_capabilities();
        let protocol = context.protocol_version();
        let modern = protocol.as_ref().is_some_and(|version| {
            version.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
        });
        let logs = LogFilter::for_request(&self.session.threshold, &context.meta, modern);
        let call_id = context.id.to_string();
        self.shared.tasks.spawn(options, move |task| {
            // The call's own token: the request that made the task is over, and its token
            // with it; `tasks/cancel` cancels this one.
            let stop = tokio_util::sync::CancellationToken::new();
            let talk = TaskPeer {
                task: task.clone(),
                capabilities: capabilities.clone(),
                client: ClientPeer {
                    peer: peer.clone(),
                    progress_token: None,
                    logs,
                    tool: name.clone(),
                    capabilities,
                    asker: None,
                },
                asked: AtomicUsize::new(0),
            };
            let ctx = server
                .shared
                .context
                .for_call_under(&call_id, &stop)
                .with_peer(Arc::new(talk));
            Box::pin(async move {
                let registry = server.shared.registry.clone();
                let dispatch = registry.dispatch(&active, &name, &arguments, &ctx);
                let result = tokio::select! {
                    result = dispatch => result,
                    () = task.cancelled() => {
                        stop.cancel();
                        return Err(TaskExit::Cancelled);
                    }
                };
                if server.reevaluate().await {
                    server.notify_tools_changed(&peer).await;
                }
                Ok(convert::call_result(result, protocol.as_ref()))
            })
        })
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

impl McpServer {
    /// `tools/call`: see [`ServerHandler::call_tool`].
    async fn serve_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The client answers a question of a suspended call (2026-07-28): resume it.
        if let Some(state) = &request.request_state {
            let running = self
                .shared
                .rounds
                .resume(state, &request.name, request.input_responses)
                .map_err(|reason| ErrorData::invalid_params(reason, None))?;
            return self.round(running, &context).await;
        }
        let active = self.active_snapshot().await;
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let modern = context.protocol_version().is_some_and(|version| {
            version.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
        });
        // On 2026-07-28 a tool's questions are input requests of the call's result, and the
        // call may outlive this request (it resumes with the resent one): its own token, which
        // each round's request cancels if the client cancels it. Before, rmcp cancels
        // `context.ct` when the client sends `notifications/cancelled` for this request; the
        // tool's token is a child of it, so the client's cancellation reaches the tool, while
        // the registry cancelling the tool's token on a timeout stays local.
        let (asker, questions) = if modern {
            let (asker, questions) = rounds::questions();
            (Some(asker), Some(questions))
        } else {
            (None, None)
        };
        let stop = if modern {
            tokio_util::sync::CancellationToken::new()
        } else {
            context.ct.clone()
        };
        // Looked up once: rmcp finds them in the request's `_meta` or the session's handshake.
        let capabilities = context.client_capabilities();
        let declared = capabilities
            .as_ref()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        let peer = ClientPeer {
            peer: context.peer.clone(),
            progress_token: context.meta.get_progress_token(),
            logs: LogFilter::for_request(&self.session.threshold, &context.meta, modern),
            tool: request.name.to_string(),
            capabilities,
            asker,
        };
        let ctx = self
            .shared
            .context
            .for_call_under(&context.id.to_string(), &stop)
            .with_peer(Arc::new(peer));
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
        let support = registry
            .position(&request.name)
            .filter(|&index| active.is_active(index))
            .map_or(TaskSupport::Forbidden, |index| {
                self.shared.task_support[index]
            });
        match tasks::answer(support, declared) {
            Answer::Result => {}
            Answer::Refuse => {
                return Err(ErrorData::missing_required_client_capability(
                    ClientCapabilities::builder().enable_tasks().build(),
                ));
            }
            Answer::Task => {
                let task = self.start_task(request.name.to_string(), arguments, active, &context);
                return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
            }
        }
        if let Some(questions) = questions {
            let server = self.clone();
            let name = request.name.to_string();
            let call: CallFuture = Box::pin(async move {
                let registry = &server.shared.registry;
                registry.dispatch(&active, &name, &arguments, &ctx).await
            });
            let running = Running::new(&request.name, call, questions, stop);
            return self.round(running, &context).await;
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
        self.finish(result, &context).await
    }

    /// A finished call's result, after re-evaluating the session's active tools.
    async fn finish(
        &self,
        result: ToolCallResult,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.reevaluate().await {
            self.notify_tools_changed(&context.peer).await;
        }
        let protocol = context.protocol_version();
        Ok(convert::call_result(result, protocol.as_ref()).into())
    }

    /// Runs a call (2026-07-28) until it finishes, or asks: then `input_required`, with the
    /// question and the handle the client resends it with.
    async fn round(
        &self,
        running: Running,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = running.tool().to_string();
        match self.shared.rounds.drive(running, &context.ct).await {
            Round::Done(result) => self.finish(result, context).await,
            Round::Ask { requests, state } => Ok(CallToolResponse::InputRequired(
                InputRequiredResult::new(Some(requests), Some(state)),
            )),
            Round::Cancelled => Err(ErrorData::internal_error(
                AgentError::Cancelled { tool }.to_string(),
                None,
            )),
        }
    }
}

impl McpServer {
    /// The server's info and capabilities, from its settings ([`ServerHandler::get_info`]).
    fn build_info(&self) -> ServerConfig {
        let builder = ServerCapabilities::builder()
            .enable_logging()
            .enable_completions()
            .enable_prompts()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_tools()
            .enable_tool_list_changed();
        let shared = &self.shared;
        let offers_tasks = shared
            .task_support
            .iter()
            .any(|support| *support != TaskSupport::Forbidden);
        let mut capabilities = if offers_tasks {
            builder.enable_tasks().build()
        } else {
            builder.build()
        };
        let has_resources = !shared.resources.is_empty() || !shared.templates.is_empty();
        if !has_resources {
            capabilities.resources = None;
        }
        if shared.prompts.is_empty() {
            capabilities.prompts = None;
        }
        if shared.prompts.is_empty() && shared.templates.is_empty() {
            capabilities.completions = None;
        }
        let mut config =
            ServerConfig::new(capabilities).with_server_info(self.shared.implementation.clone());
        if let Some(instructions) = &self.shared.instructions {
            config = config.with_instructions(instructions.clone());
        }
        config
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        // rmcp asks for it on every request (over stateless HTTP, of a fresh session each time).
        self.shared.derived.info(|| self.build_info())
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

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + rmcp::service::MaybeSendFuture + '_
    {
        // rmcp spawns each request's handler future and moves it several times on the way (the
        // task's cell, its stages); the call's own state machine (approval, dispatch, activation)
        // is kilobytes, and a 10 KB `echo` served 3 times more copying than rmcp's own server.
        // Boxed, each move is of one pointer.
        Box::pin(self.serve_call(request, context))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(
            self.shared.tasks.get_task(&request.task_id)?,
        ))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.shared
            .tasks
            .update_task(&request.task_id, request.input_responses)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.shared.tasks.cancel_task(&request.task_id)
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.threshold.set(request.level);
        Ok(())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = self
            .shared
            .resources
            .iter()
            .map(|resource| {
                let mut listed = rmcp::model::Resource::new(&resource.uri, &resource.name);
                listed.description = resource.description.clone();
                listed.mime_type = resource.mime_type.clone();
                listed
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let templates = self
            .shared
            .templates
            .iter()
            .map(|template| {
                let mut listed =
                    rmcp::model::ResourceTemplate::new(&template.uri_template, &template.name);
                listed.description = template.description.clone();
                listed.mime_type = template.mime_type.clone();
                listed
            })
            .collect();
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let contents = if let Some(resource) = self
            .shared
            .resources
            .iter()
            .find(|resource| resource.uri == uri)
        {
            (resource.read)(uri.clone()).await
        } else if let Some((template, vars)) = self
            .shared
            .templates
            .iter()
            .find_map(|template| Some((template, template.matches(&uri)?)))
        {
            (template.read)(uri.clone(), vars).await
        } else {
            return Err(resource_not_found(&uri));
        };
        let contents =
            contents.map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        let result =
            rmcp::model::ReadResourceResult::new(vec![convert::resource_contents(contents)]);
        Ok(result.into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !self.serves_uri(&request.uri) {
            return Err(resource_not_found(&request.uri));
        }
        self.session
            .subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session
            .subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompts = self
            .shared
            .prompts
            .iter()
            .map(|prompt| {
                let arguments: Vec<Value> = prompt
                    .arguments
                    .iter()
                    .map(|argument| {
                        json!({
                            "name": argument.name,
                            "description": argument.description,
                            "required": argument.required,
                        })
                    })
                    .collect();
                json!({
                    "name": prompt.name,
                    "description": prompt.description,
                    "arguments": arguments,
                })
            })
            .collect();
        serde_json::from_value(json!({ "prompts": Value::Array(prompts) }))
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let Some(prompt) = self
            .shared
            .prompts
            .iter()
            .find(|prompt| prompt.name == request.name)
        else {
            let known: Vec<&str> = self
                .shared
                .prompts
                .iter()
                .map(|p| p.name.as_str())
                .collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "no prompt named `{}`; prompts: {}",
                    request.name,
                    known.join(", ")
                ),
                None,
            ));
        };
        let mut arguments = std::collections::BTreeMap::new();
        for (name, value) in request.arguments.unwrap_or_default() {
            let value = match value {
                Value::String(text) => text,
                other => other.to_string(),
            };
            arguments.insert(name, value);
        }
        if let Some(missing) = prompt
            .arguments
            .iter()
            .find(|argument| argument.required && !arguments.contains_key(&argument.name))
        {
            return Err(ErrorData::invalid_params(
                format!(
                    "prompt `{}` needs the argument `{}`",
                    prompt.name, missing.name
                ),
                None,
            ));
        }
        let messages = (prompt.get)(arguments)
            .await
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        let messages: Vec<Value> = messages
            .into_iter()
            .map(|message| {
                let content = serde_json::to_value(convert::content_block(message.content))
                    .unwrap_or(Value::Null);
                json!({
                    "role": if message.assistant { "assistant" } else { "user" },
                    "content": content,
                })
            })
            .collect();
        let mut result = json!({ "messages": messages });
        if let Some(description) = &prompt.description {
            result["description"] = Value::String(description.clone());
        }
        let result: rmcp::model::GetPromptResult = serde_json::from_value(result)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(result.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let target = match &request.r#ref {
            rmcp::model::Reference::Prompt(prompt) => {
                if !self.shared.prompts.iter().any(|p| p.name == prompt.name) {
                    return Err(ErrorData::invalid_params(
                        format!("no prompt named `{}`", prompt.name),
                        None,
                    ));
                }
                CompletionTarget::Prompt(&prompt.name)
            }
            rmcp::model::Reference::Resource(template) => {
                CompletionTarget::ResourceTemplate(&template.uri)
            }
            _ => {
                return Err(ErrorData::invalid_params(
                    "unknown completion reference",
                    None,
                ));
            }
        };
        let mut values = match &self.shared.complete {
            Some(complete) => complete(target, &request.argument.name, &request.argument.value),
            None => Vec::new(),
        };
        let total = values.len();
        values.truncate(rmcp::model::CompletionInfo::MAX_VALUES);
        serde_json::from_value(json!({
            "completion": {
                "values": values,
                "total": total,
                "hasMore": total > rmcp::model::CompletionInfo::MAX_VALUES,
            }
        }))
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))
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

/// An [`McpServer`] for a registry, announcing itself (`serverInfo`) with the name and version
/// of the crate that calls the macro (its `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`), not
/// phi-agent's.
///
/// ```
/// # fn f(registry: phi_agent::registry::ToolRegistry) {
/// let server = phi_agent::mcp_server!(registry).with_instructions("Tools for the shop");
/// # let _ = server;
/// # }
/// ```
#[macro_export]
macro_rules! mcp_server {
    ($registry:expr) => {
        $crate::mcp::McpServer::new($registry).with_server_info(
            ::core::env!("CARGO_PKG_NAME"),
            ::core::env!("CARGO_PKG_VERSION"),
        )
    };
}

/// Whole milliseconds, as MCP counts task times (saturating: a duration beyond `u64`
/// milliseconds is not one anyone waits for).
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The error of a `resources/read` or `resources/subscribe` of a URI not served: MCP's
/// "resource not found" (-32002).
fn resource_not_found(uri: &str) -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode(-32002),
        format!("Resource not found: no resource or template serves `{uri}`"),
        Some(json!({ "uri": uri })),
    )
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
