//! Using an MCP server's tools: connect over stdio (a child process) or streamable HTTP
//! (feature `mcp-http-client`), and wrap each remote tool as a [`Tool`].

mod connect;
#[cfg(feature = "mcp-http-client")]
mod grant;
#[cfg(feature = "mcp-http-client")]
mod http;
#[cfg(feature = "mcp-http-client")]
mod jwt;
#[cfg(feature = "mcp-http-client")]
mod machine;
#[cfg(feature = "mcp-http-client")]
mod oauth;
mod result;
mod talk;
mod tool;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ServerNotification, SubscriptionFilter, Tool as McpToolDef};
use rmcp::service::Peer;
use tokio::process::Command;
use tokio::sync::{RwLock, broadcast};

use self::connect::{Connector, Handler, Link, StdioSpec};
#[cfg(feature = "mcp-http-client")]
pub use self::grant::{McpCrossApp, McpOAuthGrant, McpPrivateKey};
#[cfg(feature = "mcp-http-client")]
pub use self::http::McpHttpOptions;
#[cfg(feature = "mcp-http-client")]
pub use self::oauth::{McpAuthorizer, McpOAuth};
pub use self::tool::McpTool;
use super::names::ProviderSafeNames;
use crate::context::ElicitationHandler;
use crate::error::{AgentError, AgentResult};
use crate::llm::LlmClient;
use crate::registry::{ToolRegistry, ToolSource};
use crate::tool::Tool;

/// Limits, naming, and the answers to a server's questions, for an MCP client connection.
///
/// `#[non_exhaustive]`: start from [`McpClientOptions::default`] and change fields with the
/// `with_*` setters; the fields stay public to read.
///
/// ```
/// use std::time::Duration;
/// use phi_agent::mcp::McpClientOptions;
/// let options = McpClientOptions::default().with_call_timeout(Duration::from_secs(5));
/// assert_eq!(options.call_timeout, Duration::from_secs(5));
/// assert!(!options.unannotated_needs_approval);
/// ```
///
/// A server's questions (elicitation) and requests for a model's reply (sampling) are answered
/// by the same kinds of handler an agent run uses for its own tools, so one handler serves
/// both; the client declares each capability only when its handler is set:
///
/// ```
/// use phi_agent::mcp::McpClientOptions;
/// use phi_agent::{Elicitation, ElicitationRequest};
///
/// let ask_the_user = |request: ElicitationRequest| async move {
///     println!("{}", request.message);
///     Elicitation::Accept(serde_json::json!({"confirm": true}))
/// };
/// let options = McpClientOptions::default()
///     .with_elicitation_handler(ask_the_user)
///     .with_root("file:///home/me/project", "project");
/// // The same closure (it is `Clone`) can go to `AgentBuilder::elicitation_handler` too.
/// assert!(options.elicitation_handler.is_some());
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct McpClientOptions {
    /// How long the server may take to start and answer the handshake and the tool list.
    /// Default: 30 s.
    pub connect_timeout: Duration,
    /// How long one tool call may take before it is cancelled on the server and reported as an
    /// error (with [`reset_timeout_on_progress`](Self::reset_timeout_on_progress): how long it
    /// may go without reporting progress). Default: 60 s.
    pub call_timeout: Duration,
    /// Whether each progress report of a call (`notifications/progress`) starts its
    /// [`call_timeout`](Self::call_timeout) again, so that a long task that keeps reporting is
    /// not cut off; [`max_call_time`](Self::max_call_time) still bounds it. Default: `false`.
    pub reset_timeout_on_progress: bool,
    /// The longest a call may take however often it reports progress, with
    /// [`reset_timeout_on_progress`](Self::reset_timeout_on_progress) on (unused without).
    /// Default: 10 min.
    pub max_call_time: Duration,
    /// Whether a tool the server sends without a `destructiveHint` (and without
    /// `readOnlyHint: true`) needs a person's approval
    /// ([`ToolOptions::approval`](crate::ToolOptions::approval)). Default: `false`.
    ///
    /// The hints decide every other tool: `readOnlyHint: true` needs no approval,
    /// `destructiveHint: true` needs it, `destructiveHint: false` does not. The protocol reads a
    /// missing hint as "may be destructive", but most servers send no hints at all: with `true`
    /// here every tool of such a server would wait for a person, and
    /// [`PhiAgent::run`](crate::PhiAgent::run) without an approver would deny them all. Hints
    /// are also only claims of the server (a hostile one can call any tool read-only), so they
    /// guard against an honest server's destructive tools, not against a server you do not
    /// trust. Set `true` for a server whose tools you have not reviewed.
    pub unannotated_needs_approval: bool,
    /// A prefix for the local names of this server's tools: with `"gh"`, the server's `search`
    /// is `gh_search` to the model, and calls of `gh_search` reach the server's `search`. Two
    /// servers that both have a `search` can then serve one agent. Default: none.
    pub name_prefix: Option<String>,
    /// Answers the server's questions to the user (`elicitation/create`, form mode), as
    /// [`AgentBuilder::elicitation_handler`](crate::AgentBuilder::elicitation_handler) does
    /// for a run's own tools; the form's defaults fill the fields an answer leaves out. The
    /// request names the run, turn and call whose tool call asked, when that is the only call
    /// of this client in flight (empty otherwise). Declared as the client's `elicitation`
    /// capability only when set. Default: none.
    pub elicitation_handler: Option<Arc<dyn ElicitationHandler>>,
    /// The model that answers the server's `sampling/createMessage` requests (their messages
    /// and system prompt; text only), as
    /// [`AgentBuilder::sampling_model`](crate::AgentBuilder::sampling_model) does for a run's
    /// own tools. Declared as the `sampling` capability only when set. Default: none.
    pub sampling_model: Option<Arc<dyn LlmClient>>,
    /// The roots (`uri`, optional name) the client names to the server's `roots/list`: the
    /// directories or places the server may work in. Declared as the `roots` capability only
    /// when there are any. Default: none.
    pub roots: Vec<(String, Option<String>)>,
}

impl Default for McpClientOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(60),
            reset_timeout_on_progress: false,
            max_call_time: Duration::from_secs(600),
            unannotated_needs_approval: false,
            name_prefix: None,
            elicitation_handler: None,
            sampling_model: None,
            roots: Vec::new(),
        }
    }
}

impl McpClientOptions {
    /// These options with [`connect_timeout`](Self::connect_timeout) set to `timeout`.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// These options with [`call_timeout`](Self::call_timeout) set to `timeout`.
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// These options with [`reset_timeout_on_progress`](Self::reset_timeout_on_progress) set
    /// to `on`.
    pub fn with_reset_timeout_on_progress(mut self, on: bool) -> Self {
        self.reset_timeout_on_progress = on;
        self
    }

    /// These options with [`max_call_time`](Self::max_call_time) set to `limit`.
    pub fn with_max_call_time(mut self, limit: Duration) -> Self {
        self.max_call_time = limit;
        self
    }

    /// These options with [`unannotated_needs_approval`](Self::unannotated_needs_approval) set
    /// to `on`.
    pub fn with_unannotated_needs_approval(mut self, on: bool) -> Self {
        self.unannotated_needs_approval = on;
        self
    }

    /// These options with [`name_prefix`](Self::name_prefix) set to `prefix`.
    pub fn with_name_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.name_prefix = Some(prefix.into());
        self
    }

    /// These options with [`elicitation_handler`](Self::elicitation_handler) set to `handler`.
    pub fn with_elicitation_handler(mut self, handler: impl ElicitationHandler + 'static) -> Self {
        self.elicitation_handler = Some(Arc::new(handler));
        self
    }

    /// These options with [`sampling_model`](Self::sampling_model) set to `model` (an
    /// `Arc<dyn LlmClient>` shares one model with an agent).
    pub fn with_sampling_model(mut self, model: impl LlmClient + 'static) -> Self {
        self.sampling_model = Some(Arc::new(model));
        self
    }

    /// These options with the root `uri` named `name` added to [`roots`](Self::roots).
    pub fn with_root(mut self, uri: impl Into<String>, name: impl Into<String>) -> Self {
        self.roots.push((uri.into(), Some(name.into())));
        self
    }
}

impl PartialEq for McpClientOptions {
    /// Handlers and models compare by identity (the same `Arc`), everything else by value.
    fn eq(&self, other: &Self) -> bool {
        fn same<T: ?Sized>(a: &Option<Arc<T>>, b: &Option<Arc<T>>) -> bool {
            match (a, b) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
        }
        self.connect_timeout == other.connect_timeout
            && self.call_timeout == other.call_timeout
            && self.reset_timeout_on_progress == other.reset_timeout_on_progress
            && self.max_call_time == other.max_call_time
            && self.unannotated_needs_approval == other.unannotated_needs_approval
            && self.name_prefix == other.name_prefix
            && same(&self.elicitation_handler, &other.elicitation_handler)
            && same(&self.sampling_model, &other.sampling_model)
            && self.roots == other.roots
    }
}

impl Eq for McpClientOptions {}

impl std::fmt::Debug for McpClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClientOptions")
            .field("connect_timeout", &self.connect_timeout)
            .field("call_timeout", &self.call_timeout)
            .field("reset_timeout_on_progress", &self.reset_timeout_on_progress)
            .field("max_call_time", &self.max_call_time)
            .field(
                "unannotated_needs_approval",
                &self.unannotated_needs_approval,
            )
            .field("name_prefix", &self.name_prefix)
            .field("elicitation_handler", &self.elicitation_handler.is_some())
            .field(
                "sampling_model",
                &self
                    .sampling_model
                    .as_ref()
                    .map(|model| model.model().to_string()),
            )
            .field("roots", &self.roots)
            .finish()
    }
}

/// A connection to an MCP server, with its tools imported as [`McpTool`]s.
///
/// Over stdio the server runs as a child process for as long as this handle lives: dropping the
/// handle ends the connection and kills the process. The tools keep working only while the
/// handle lives; afterwards their calls return an error. A server that dies is reported by the
/// calls of its tools; [`reconnect`](Self::reconnect) starts it again, and the same tools then
/// reach the new process.
///
/// The imported set follows the server: when it sends `notifications/tools/list_changed`, the
/// client lists the tools again. New tools are appended to [`tools`](Self::tools) (the earlier
/// ones keep their place and their definitions byte for byte, so a provider's prompt cache of
/// the tool list stays valid); removed ones stay in place and answer that they are not
/// available. Each change is announced on [`subscribe`](Self::subscribe).
///
/// A registry or agent built from [`dyn_tools`](Self::dyn_tools) or
/// [`register_into`](Self::register_into) keeps the set it was built with. One that follows the
/// client instead ([`register_live_into`](Self::register_live_into),
/// [`AgentBuilder::register_source`](crate::AgentBuilder::register_source) with
/// [`tool_source`](Self::tool_source)) offers a tool the server adds from the next turn, after
/// the tools offered before (unchanged), and answers "not available" for one it removed.
///
/// ```no_run
/// # async fn run() -> phi_agent::AgentResult<()> {
/// use phi_agent::mcp::{McpClient, McpClientOptions};
/// use phi_agent::registry::ToolRegistry;
/// use phi_agent::ToolConfig;
///
/// let mut command = tokio::process::Command::new("npx");
/// command.args(["-y", "@modelcontextprotocol/server-everything"]);
/// let options = McpClientOptions::default().with_name_prefix("everything");
/// let client = McpClient::connect_stdio("everything", command, options).await?;
///
/// let mut registry = ToolRegistry::new(ToolConfig::default());
/// client.register_into(&mut registry)?;
/// # Ok(())
/// # }
/// ```
pub struct McpClient {
    inner: Arc<Inner>,
}

/// What the client and its tools share: the connection (replaced by a reconnect) and the set.
pub(crate) struct Inner {
    server: Arc<str>,
    connector: Connector,
    options: McpClientOptions,
    handler: Handler,
    link: RwLock<Option<Link>>,
    tools: Mutex<ToolSet>,
    /// One refresh at a time, so that two `list_changed` in a row cannot interleave.
    refreshing: tokio::sync::Mutex<()>,
    changes: broadcast::Sender<McpToolsChanged>,
    /// Counts the changes of the set, for the registries that follow it ([`ToolSource`]).
    generation: Arc<AtomicU64>,
}

struct ToolSet {
    tools: Vec<Arc<McpTool>>,
    names: ProviderSafeNames,
}

/// A change of a server's tool set, announced on [`McpClient::subscribe`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct McpToolsChanged {
    /// Local names of the tools the server added (appended to [`McpClient::tools`]) or listed
    /// again after removing them, in the server's order.
    pub added: Vec<String>,
    /// Local names of the tools the server no longer lists; their calls answer that they are not
    /// available.
    pub removed: Vec<String>,
    /// Local names of tools that a registry following the client
    /// ([`McpClient::tool_source`]) did not offer, each with the reason (a name another tool
    /// has): announced on their own, when the registry takes the new set.
    pub refused: Vec<(String, String)>,
}

impl McpToolsChanged {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.refused.is_empty()
    }
}

impl McpClient {
    /// Starts `command` as an MCP server speaking over its stdin/stdout, performs the handshake
    /// and imports the server's tools. `server` names the server in tool origins
    /// (`mcp:<server>`) and error messages. The child's stderr is passed through to ours.
    ///
    /// The handshake probes with `server/discover` (protocol 2026-07-28) and falls back to
    /// `initialize` at 2025-11-25 for servers that predate it. A failed handshake is reported
    /// with what the server sent instead.
    pub async fn connect_stdio(
        server: impl Into<String>,
        command: Command,
        options: McpClientOptions,
    ) -> AgentResult<Self> {
        let connector = Connector::Stdio(StdioSpec::of(&command));
        Self::connect(server.into(), connector, Some(command), options).await
    }

    /// Connects to the MCP server at `url` over streamable HTTP (feature `mcp-http-client`),
    /// performs the handshake and imports the server's tools. `http` carries a bearer token and
    /// headers, and whether an expired session is renewed (by default once per call: see
    /// [`McpHttpOptions::with_recover_expired_sessions`]).
    ///
    /// ```no_run
    /// # async fn run() -> phi_agent::AgentResult<()> {
    /// use phi_agent::mcp::{McpClient, McpClientOptions, McpHttpOptions};
    ///
    /// let http = McpHttpOptions::default().with_bearer_token(std::env::var("GH_TOKEN").unwrap());
    /// let options = McpClientOptions::default().with_name_prefix("gh");
    /// let client =
    ///     McpClient::connect_http("github", "https://api.githubcopilot.com/mcp/", http, options)
    ///         .await?;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "mcp-http-client")]
    #[cfg_attr(docsrs, doc(cfg(feature = "mcp-http-client")))]
    pub async fn connect_http(
        server: impl Into<String>,
        url: &str,
        http: McpHttpOptions,
        options: McpClientOptions,
    ) -> AgentResult<Self> {
        let server = server.into();
        let spec = http::HttpSpec::new(url, http).map_err(|message| AgentError::Mcp {
            server: server.clone(),
            message,
        })?;
        Self::connect(server, Connector::Http(Box::new(spec)), None, options).await
    }

    async fn connect(
        server: String,
        connector: Connector,
        first: Option<Command>,
        options: McpClientOptions,
    ) -> AgentResult<Self> {
        let (changes, _) = broadcast::channel(16);
        let inner = Arc::new(Inner {
            server: Arc::from(server),
            connector,
            handler: Handler::new(&options),
            link: RwLock::new(None),
            tools: Mutex::new(ToolSet {
                tools: Vec::new(),
                names: ProviderSafeNames::default(),
            }),
            refreshing: tokio::sync::Mutex::new(()),
            changes,
            generation: Arc::default(),
            options,
        });
        let _ = inner.handler.owner.set(Arc::downgrade(&inner));
        let (link, definitions) = inner.open(first).await?;
        let version = server_version(link.service.peer());
        let names = ProviderSafeNames::with_prefix(
            inner.options.name_prefix.as_deref(),
            definitions.iter().map(|tool| tool.name.as_ref()),
        )
        .map_err(|message| inner.error(message))?;
        let tools = definitions
            .into_iter()
            .map(|definition| {
                let local = names
                    .local(&definition.name)
                    .expect("every listed tool has a local name")
                    .to_string();
                Arc::new(McpTool::new(
                    definition,
                    local,
                    &inner,
                    version.clone(),
                    &inner.options,
                ))
            })
            .collect();
        *inner.tools.lock().unwrap_or_else(PoisonError::into_inner) = ToolSet { tools, names };
        inner.follow(link.service.peer().clone());
        *inner.link.write().await = Some(link);
        Ok(Self { inner })
    }

    /// Connects again (over stdio: starts the server again), then lists the tools as after a
    /// `tools/list_changed`; the tools already handed out reach the new connection. For a
    /// server that died, which the calls of its tools report.
    pub async fn reconnect(&self) -> AgentResult<McpToolsChanged> {
        self.inner.relink().await?;
        self.inner.refresh().await
    }

    /// Lists the server's tools again now, as a `tools/list_changed` notification would.
    pub async fn refresh_tools(&self) -> AgentResult<McpToolsChanged> {
        self.inner.refresh().await
    }

    /// Announcements of changes to the tool set (see the type's docs), from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<McpToolsChanged> {
        self.inner.changes.subscribe()
    }

    /// The operating-system id of the server process, while it runs (stdio only).
    pub fn server_process_id(&self) -> Option<u32> {
        self.inner
            .link
            .try_read()
            .ok()
            .and_then(|link| link.as_ref().and_then(|link| link.process_id))
    }

    /// The server's name, as given to [`connect_stdio`](Self::connect_stdio).
    pub fn server_name(&self) -> &str {
        &self.inner.server
    }

    /// The imported tools: the server's order at connect, then the tools it added later.
    pub fn tools(&self) -> Vec<Arc<McpTool>> {
        self.inner.set().tools.clone()
    }

    /// The imported tools that the server still lists, as `Arc<dyn Tool>`, ready for
    /// [`ToolRegistry::register_all`] or an agent builder.
    pub fn dyn_tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools()
            .into_iter()
            .filter(|tool| tool.is_available())
            .map(|tool| tool as Arc<dyn Tool>)
            .collect()
    }

    /// Registers the imported tools into `registry`.
    ///
    /// A tool whose schema no provider accepts (for example alternatives at the root) is left
    /// out with a warning rather than failing the whole import: one odd tool of a server should
    /// not cost the agent the others. Name clashes with tools already registered are errors
    /// (give each server a [`name_prefix`](McpClientOptions::name_prefix)).
    pub fn register_into(&self, registry: &mut ToolRegistry) -> AgentResult<()> {
        for tool in self.dyn_tools() {
            if registry
                .get(tool.name())
                .is_some_and(|known| Arc::ptr_eq(known.tool(), &tool))
            {
                continue;
            }
            match registry.register_arc(tool) {
                Err(AgentError::InvalidSchema { tool, problem }) => {
                    tracing::warn!(server = %self.inner.server, %tool, %problem, "MCP tool left out: its schema cannot be offered to a model");
                }
                other => other?,
            }
        }
        Ok(())
    }

    /// The client's tools as a live [`ToolSource`]: a registry or agent given it offers the
    /// tools the server lists now, each turn, and follows `tools/list_changed` (see the type's
    /// docs). The source holds the client weakly: it does not keep the connection open.
    ///
    /// ```no_run
    /// # async fn run(model: phi_agent::llm::ScriptedLlm) -> phi_agent::AgentResult<()> {
    /// use phi_agent::mcp::{McpClient, McpClientOptions};
    /// use phi_agent::{base_agent_builder, AgentConfig, PhiAgent};
    ///
    /// let mut command = tokio::process::Command::new("npx");
    /// command.args(["-y", "@modelcontextprotocol/server-everything"]);
    /// let client = McpClient::connect_stdio("everything", command, McpClientOptions::default()).await?;
    /// let builder = base_agent_builder(model).register_source(client.tool_source());
    /// let agent = PhiAgent::build(builder, AgentConfig::default())?;
    /// // A tool the server adds mid-session is offered from the next turn on.
    /// # Ok(())
    /// # }
    /// ```
    pub fn tool_source(&self) -> Arc<dyn ToolSource> {
        Arc::new(LiveTools {
            generation: self.inner.generation.clone(),
            inner: Arc::downgrade(&self.inner),
        })
    }

    /// Makes `registry` follow the imported tools ([`tool_source`](Self::tool_source)): the
    /// tools the server lists now, and later the ones it adds, are offered after the
    /// registry's own. Unlike [`register_into`](Self::register_into) a name clash is not an
    /// error: the clashing tool is not offered, and the reason is announced on
    /// [`subscribe`](Self::subscribe) ([`McpToolsChanged::refused`]).
    pub fn register_live_into(&self, registry: &mut ToolRegistry) {
        registry.register_source(self.tool_source());
    }

    /// The mapping between the server's tool names and the provider-safe local names.
    pub fn names(&self) -> ProviderSafeNames {
        self.inner.set().names.clone()
    }

    /// Ends the connection and waits for the server process to be stopped.
    pub async fn close(self) {
        let link = self.inner.link.write().await.take();
        if let Some(mut link) = link
            && let Err(error) = link.service.close().await
        {
            tracing::warn!(server = %self.inner.server, %error, "MCP client task failed while closing");
        }
    }
}

impl Inner {
    fn error(&self, message: String) -> AgentError {
        AgentError::Mcp {
            server: self.server.to_string(),
            message,
        }
    }

    fn set(&self) -> std::sync::MutexGuard<'_, ToolSet> {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a connection and lists the tools, within the connect timeout.
    async fn open(&self, first: Option<Command>) -> AgentResult<(Link, Vec<McpToolDef>)> {
        let connect =
            async {
                let link = self
                    .connector
                    .open(self.handler.clone(), first)
                    .await
                    .map_err(|message| self.error(message))?;
                let definitions =
                    link.service.peer().list_all_tools().await.map_err(|e| {
                        self.error(format!("listing the server's tools failed: {e}"))
                    })?;
                Ok::<_, AgentError>((link, definitions))
            };
        tokio::time::timeout(self.options.connect_timeout, connect)
            .await
            .map_err(|_| {
                self.error(format!(
                    "`{}` did not start and list its tools within {} ms; raise `connect_timeout` if it is slow to start",
                    self.connector.endpoint(),
                    self.options.connect_timeout.as_millis()
                ))
            })?
    }

    /// Replaces the connection with a new one (the old one closed).
    async fn relink(self: &Arc<Self>) -> AgentResult<()> {
        let (link, _) = self.open(None).await?;
        self.follow(link.service.peer().clone());
        let old = self.link.write().await.replace(link);
        if let Some(mut old) = old {
            let _ = old.service.close().await;
        }
        Ok(())
    }

    /// Step-up authorization: a call the server refused for want of scope (403
    /// `insufficient_scope`) is authorized again as its challenge asks, on a new connection.
    pub(crate) async fn step_up(self: &Arc<Self>, challenge: &str) -> AgentResult<()> {
        self.connector
            .authorize(challenge)
            .await
            .map_err(|reason| self.error(format!("authorizing for more scope failed: {reason}")))?;
        self.relink().await
    }

    /// The current connection's peer.
    pub(crate) async fn peer(&self) -> AgentResult<Peer<RoleClient>> {
        match self.link.read().await.as_ref() {
            Some(link) => Ok(link.service.peer().clone()),
            None => {
                Err(self
                    .error("the client was closed; its tools can no longer be called".to_string()))
            }
        }
    }

    /// On a 2026-07-28 connection `list_changed` arrives only on a subscription: opens one when
    /// the server says its list changes. (Earlier versions send it to the handler.)
    fn follow(self: &Arc<Self>, peer: Peer<RoleClient>) {
        let modern = peer
            .peer_info()
            .is_some_and(|info| !info.protocol_version.has_initialize());
        let changes = peer.peer_info().is_some_and(|info| {
            info.capabilities
                .tools
                .as_ref()
                .and_then(|tools| tools.list_changed)
                .unwrap_or(false)
        });
        if !(modern && changes) {
            return;
        }
        let owner = Arc::downgrade(self);
        tokio::spawn(async move {
            let filter = SubscriptionFilter::builder().tools_list_changed().build();
            let Ok(mut subscription) = peer.listen(filter).await else {
                return;
            };
            while let Ok(Some(notification)) = subscription.next().await {
                if !matches!(
                    notification,
                    ServerNotification::ToolListChangedNotification(_)
                ) {
                    continue;
                }
                let Some(inner) = owner.upgrade() else { return };
                if let Err(error) = inner.refresh().await {
                    tracing::warn!(server = %inner.server, %error, "MCP tool list not refreshed");
                }
            }
        });
    }

    /// Lists the tools again: new ones appended, removed ones marked, the change announced.
    pub(crate) async fn refresh(self: &Arc<Self>) -> AgentResult<McpToolsChanged> {
        let _one_at_a_time = self.refreshing.lock().await;
        let peer = self.peer().await?;
        let definitions = tokio::time::timeout(self.options.connect_timeout, peer.list_all_tools())
            .await
            .map_err(|_| self.error("listing the server's tools again timed out".to_string()))?
            .map_err(|e| self.error(format!("listing the server's tools again failed: {e}")))?;
        let version = server_version(&peer);
        let listed: std::collections::HashSet<&str> =
            definitions.iter().map(|tool| tool.name.as_ref()).collect();
        let mut change = McpToolsChanged::default();
        let mut set = self.set();
        for tool in &set.tools {
            let now = listed.contains(tool.remote_name());
            let before = tool.set_available(now);
            match (before, now) {
                (true, false) => change.removed.push(tool.name().to_string()),
                (false, true) => change.added.push(tool.name().to_string()),
                _ => {}
            }
        }
        for definition in definitions {
            if set.names.local(&definition.name).is_some() {
                // Known: it keeps its definition as first imported, so the tool list a
                // provider has cached stays byte-identical.
                continue;
            }
            let local = set.names.insert(&definition.name);
            change.added.push(local.clone());
            let tool = McpTool::new(definition, local, self, version.clone(), &self.options);
            set.tools.push(Arc::new(tool));
        }
        drop(set);
        if !change.is_empty() {
            self.generation.fetch_add(1, Ordering::AcqRel);
            let _ = self.changes.send(change.clone());
        }
        Ok(change)
    }
}

/// The tools of a client as a [`ToolSource`], held weakly.
struct LiveTools {
    generation: Arc<AtomicU64>,
    inner: Weak<Inner>,
}

impl ToolSource for LiveTools {
    fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let Some(inner) = self.inner.upgrade() else {
            return Vec::new();
        };
        let set = inner.set();
        set.tools
            .iter()
            .filter(|tool| tool.is_available())
            .map(|tool| tool.clone() as Arc<dyn Tool>)
            .collect()
    }

    fn refused(&self, name: &str, reason: &str) {
        if let Some(inner) = self.inner.upgrade() {
            let change = McpToolsChanged {
                refused: vec![(name.to_string(), reason.to_string())],
                ..McpToolsChanged::default()
            };
            let _ = inner.changes.send(change);
        }
    }
}

fn server_version(peer: &Peer<RoleClient>) -> Option<String> {
    peer.peer_info()
        .and_then(|info| info.server_info.as_ref().map(|i| i.version.clone()))
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.inner.server)
            .field("tools", &self.inner.set().tools.len())
            .finish_non_exhaustive()
    }
}
