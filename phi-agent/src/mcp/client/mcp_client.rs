//! [`McpClient`]: a connection to an MCP server, with its tools imported.

use std::sync::{Arc, Weak};

use tokio::process::Command;
use tokio::sync::broadcast;

use super::about::server_about;
use super::connect::{Connector, StdioSpec, ToolListFollower};
use super::connection::Connection;
#[cfg(feature = "mcp-http-client")]
use super::http::{self, McpHttpOptions};
use super::imports::{Imports, McpToolsChanged};
use super::names::ProviderSafeNames;
use super::options::McpClientOptions;
use super::tool::McpTool;
use crate::error::{AgentError, AgentResult};
use crate::registry::{ToolRegistry, ToolSource};
use crate::tool::Tool;

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
    pub(super) imports: Arc<Imports>,
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
        let connection = Arc::new(Connection::new(server, connector, options));
        let imports = Arc::new(Imports::new(connection.clone()));
        let follower: Weak<dyn ToolListFollower> = Arc::downgrade(&imports) as _;
        let _ = connection.handler.follower.set(follower);
        let (link, definitions) = connection.open(first).await?;
        imports.import(definitions, server_about(link.service.peer()))?;
        connection.follow(link.service.peer().clone());
        *connection.link.write().await = Some(link);
        Ok(Self { imports })
    }

    /// Connects again (over stdio: starts the server again), then lists the tools as after a
    /// `tools/list_changed`; the tools already handed out reach the new connection. For a
    /// server that died, which the calls of its tools report.
    pub async fn reconnect(&self) -> AgentResult<McpToolsChanged> {
        self.imports.connection.relink().await?;
        self.imports.refresh().await
    }

    /// Lists the server's tools again now, as a `tools/list_changed` notification would.
    pub async fn refresh_tools(&self) -> AgentResult<McpToolsChanged> {
        self.imports.refresh().await
    }

    /// Announcements of changes to the tool set (see the type's docs), from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<McpToolsChanged> {
        self.imports.changes.subscribe()
    }

    /// The operating-system id of the server process, while it runs (stdio only).
    pub fn server_process_id(&self) -> Option<u32> {
        self.imports
            .connection
            .link
            .try_read()
            .ok()
            .and_then(|link| link.as_ref().and_then(|link| link.process_id))
    }

    /// The server's name, as given to [`connect_stdio`](Self::connect_stdio).
    pub fn server_name(&self) -> &str {
        &self.imports.connection.server
    }

    /// The imported tools: the server's order at connect, then the tools it added later.
    pub fn tools(&self) -> Vec<Arc<McpTool>> {
        self.imports.set().tools.clone()
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
                    tracing::warn!(server = %self.server_name(), %tool, %problem, "MCP tool left out: its schema cannot be offered to a model");
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
        self.imports.live()
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
        self.imports.set().names.clone()
    }

    /// Ends the connection and waits for the server process to be stopped.
    pub async fn close(self) {
        let link = self.imports.connection.link.write().await.take();
        if let Some(mut link) = link
            && let Err(error) = link.service.close().await
        {
            tracing::warn!(server = %self.server_name(), %error, "MCP client task failed while closing");
        }
    }
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.server_name())
            .field("tools", &self.imports.set().tools.len())
            .finish_non_exhaustive()
    }
}
