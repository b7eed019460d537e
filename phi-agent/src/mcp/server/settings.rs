//! [`McpServer`]: what a server serves and with which settings (the builder methods), shared by
//! all its sessions, and the session it is.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{Implementation, Tool as McpToolDef};
use rmcp::task_manager::TaskManager;

use super::completion::{Complete, CompletionTarget};
use super::derived::Derived;
use super::listeners::{ListChanged, Listeners};
use super::prompts::Prompt;
use super::resources::{Resource, ResourceTemplate};
use super::rounds::Rounds;
use super::session::Session;
use crate::context::ToolContext;
use crate::registry::ToolRegistry;
use crate::tool::TaskSupport;

/// An MCP server over a [`ToolRegistry`]: an rmcp [`ServerHandler`](rmcp::ServerHandler).
///
/// `tools/list` gives the visible tools (Direct, and Deferred once activated; never Hidden) in
/// registration order; `tools/call` goes through [`ToolRegistry::dispatch`], so the model-facing
/// rules hold for MCP clients too: arguments are decoded the same way, timeouts and panics become
/// `isError` results, and a hidden, inactive or unknown tool gets the same "not available" result.
///
/// A call that needs a person's approval ([`ToolOptions::approval`](crate::ToolOptions::approval))
/// asks the client's user first, through elicitation: a form showing the call's arguments with
/// an `approve` yes/no field (and an optional `reason`), under the input-request key `approval`
/// at protocol 2026-07-28. Approved, the call runs; otherwise it is an `isError` result
/// ([`AgentError::ApprovalDenied`](crate::AgentError::ApprovalDenied)) and the tool does not
/// run. A client that declared no elicitation capability gets an `isError` result saying so and
/// what would let the call run, as does a call that would run as a task
/// ([`AgentError::ApprovalRequired`](crate::AgentError::ApprovalRequired)). The tool stays
/// listed, since its predicate may pass other arguments.
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
/// `Required` tool refuses it). A tool with
/// [`ToolOptions::ask_before_task`](crate::ToolOptions::ask_before_task) asks its first
/// questions (2026-07-28) as `input_required` rounds of the `tools/call`, and a later round
/// answers with the task.
///
/// Serve it on any rmcp transport with [`rmcp::ServiceExt::serve`], or use
/// [`serve_stdio`](super::serve_stdio) and [`serve_http`](super::serve_http).
#[derive(Clone)]
pub struct McpServer {
    pub(super) shared: Arc<Shared>,
    pub(super) session: Arc<Session>,
}

#[derive(Clone)]
/// What a server's sessions share: its settings, and what is computed from them.
pub(super) struct Shared {
    pub(super) registry: Arc<ToolRegistry>,
    /// MCP definitions by registration index, computed once.
    pub(super) definitions: Vec<McpToolDef>,
    /// Whether each definition (by registration index) carries `x-mcp-header`, read once here
    /// rather than on every call rmcp asks about (`ServerHandler::get_tool`).
    pub(super) has_headers: Vec<bool>,
    pub(super) implementation: Implementation,
    pub(super) instructions: Option<String>,
    pub(super) context: ToolContext,
    pub(super) resources: Vec<Resource>,
    pub(super) templates: Vec<ResourceTemplate>,
    pub(super) prompts: Vec<Prompt>,
    /// The entries of the skills served (SEP-2640), in catalogue order.
    pub(super) skills: Vec<rmcp::model::Skill>,
    pub(super) complete: Option<Complete>,
    /// Each tool's task support, by registration index.
    pub(super) task_support: Vec<TaskSupport>,
    /// Each tool's [`ToolOptions::ask_before_task`](crate::ToolOptions::ask_before_task), by
    /// registration index.
    pub(super) ask_before_task: Vec<bool>,
    /// The server's tasks, shared by its sessions.
    pub(super) tasks: TaskManager,
    /// Calls suspended on a question (2026-07-28), shared by its sessions.
    pub(super) rounds: Arc<Rounds>,
    /// The open `subscriptions/listen` streams (2026-07-28), shared by its sessions.
    pub(super) listeners: Arc<Listeners>,
    pub(super) task_ttl: Option<Duration>,
    pub(super) task_poll_interval: Duration,
    /// What is computed from the fields above once, for every session (cleared by builders).
    pub(super) derived: Derived,
}

impl McpServer {
    /// A server for `registry`. It announces itself (`serverInfo`) as `phi-agent` with
    /// phi-agent's version; give it your program's name and version with
    /// [`with_server_info`](Self::with_server_info), e.g.
    /// `.with_server_info(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))`, or build it with
    /// the [`mcp_server!`](crate::mcp_server) macro, which does that for you.
    pub fn new(registry: impl Into<Arc<ToolRegistry>>) -> Self {
        let registry = registry.into();
        let definitions: Vec<McpToolDef> = registry
            .iter()
            .map(super::definition::tool_definition)
            .collect();
        let has_headers = definitions
            .iter()
            .map(|definition| super::headers::has_header_annotations(&definition.input_schema))
            .collect();
        let task_support = registry.iter().map(|tool| tool.task_support()).collect();
        let ask_before_task = registry.iter().map(|tool| tool.ask_before_task()).collect();
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
                skills: Vec::new(),
                complete: None,
                has_headers,
                task_support,
                ask_before_task,
                tasks: TaskManager::new(),
                rounds: Arc::default(),
                listeners: Arc::default(),
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
        let implementation = &mut self.shared_mut().implementation;
        implementation.name = name.into();
        implementation.version = version.into();
        self
    }

    /// A display name announced with the server's info (`serverInfo.title`) and on its
    /// [Server Card](crate::mcp::ServerCard), e.g. `"Weather"` for a server named
    /// `weather-server`.
    pub fn with_server_title(mut self, title: impl Into<String>) -> Self {
        self.shared_mut().implementation.title = Some(title.into());
        self
    }

    /// What the server does, announced with its info (`serverInfo.description`) and on its
    /// [Server Card](crate::mcp::ServerCard) (which allows at most 100 characters).
    pub fn with_server_description(mut self, description: impl Into<String>) -> Self {
        self.shared_mut().implementation.description = Some(description.into());
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

    /// Serves the skills of `catalog` over MCP's skills extension (SEP-2640,
    /// `io.modelcontextprotocol/skills`, declared in the capabilities): `skills/list` and
    /// `skills/get` give each skill's entry (the URI of its `SKILL.md`, its frontmatter, and
    /// every file with its size and SHA-256 digest), and its files are resources under
    /// `skill://<name>/` (`SKILL.md` as `text/markdown`, named and described by its
    /// frontmatter). The files are read now, once: a file that is not UTF-8 text or is larger
    /// than [`MAX_SKILL_FILE_BYTES`](crate::skill::MAX_SKILL_FILE_BYTES) is left out (with a
    /// warning). Adds to any skills served before.
    pub fn with_skills(mut self, catalog: &crate::skill::SkillCatalog) -> Self {
        let shared = self.shared_mut();
        for served in super::skills::serve(catalog) {
            shared.skills.push(served.entry);
            shared.resources.extend(served.resources);
        }
        self
    }

    /// Serves `view`, an MCP App's view ([`Resource::app_view`]), and declares the MCP Apps
    /// extension (SEP-1865, `io.modelcontextprotocol/ui`): a host that renders views shows it
    /// for each call of a tool that names its URI
    /// ([`ToolOptions::ui_resource`](crate::ToolOptions::ui_resource)).
    pub fn with_app_view(self, view: Resource) -> Self {
        self.with_resource(view)
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

    /// What tells this server's clients that its tool list changed ([`ListChanged`]).
    pub fn list_changed(&self) -> ListChanged {
        ListChanged {
            listeners: self.shared.listeners.clone(),
        }
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
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("server", &self.shared.implementation.name)
            .field("tools", &self.shared.registry.len())
            .finish_non_exhaustive()
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
