//! Using an MCP server's tools: connect over stdio (a child process) and wrap each remote tool as
//! a [`Tool`].

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, ProtocolVersion, Tool as McpToolDef,
};
use rmcp::service::{Peer, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::Value;
use tokio::process::Command;

use super::convert;
use super::names::ProviderSafeNames;
use crate::content::Content;
use crate::context::ToolContext;
use crate::error::{AgentError, AgentResult};
use crate::registry::ToolRegistry;
use crate::tool::{Tool, ToolAnnotations, ToolMetadata};

/// Limits for an MCP client connection.
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
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpClientOptions {
    /// How long the server may take to start and answer the handshake and the tool list.
    /// Default: 30 s.
    pub connect_timeout: Duration,
    /// How long one tool call may take before it is cancelled on the server and reported as an
    /// error. Default: 60 s.
    pub call_timeout: Duration,
    /// Whether a tool the server sends without a `destructiveHint` (and without
    /// `readOnlyHint: true`) needs a person's approval
    /// ([`Tool::needs_approval`](crate::Tool::needs_approval)). Default: `false`.
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
}

impl Default for McpClientOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(60),
            unannotated_needs_approval: false,
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

    /// These options with [`unannotated_needs_approval`](Self::unannotated_needs_approval) set
    /// to `on`.
    pub fn with_unannotated_needs_approval(mut self, on: bool) -> Self {
        self.unannotated_needs_approval = on;
        self
    }
}

/// A connection to an MCP server, with its tools imported as [`McpTool`]s.
///
/// The server runs as a child process for as long as this handle lives: dropping the handle ends
/// the connection and kills the process. The tools keep working only while the handle lives;
/// afterwards their calls return an error.
///
/// ```no_run
/// # async fn run() -> phi_agent::AgentResult<()> {
/// use phi_agent::mcp::{McpClient, McpClientOptions};
/// use phi_agent::registry::ToolRegistry;
/// use phi_agent::ToolConfig;
///
/// let mut command = tokio::process::Command::new("npx");
/// command.args(["-y", "@modelcontextprotocol/server-everything"]);
/// let client = McpClient::connect_stdio("everything", command, McpClientOptions::default()).await?;
///
/// let mut registry = ToolRegistry::new(ToolConfig::default());
/// client.register_into(&mut registry)?;
/// # Ok(())
/// # }
/// ```
pub struct McpClient {
    server: Arc<str>,
    service: RunningService<RoleClient, ()>,
    tools: Vec<Arc<McpTool>>,
    names: ProviderSafeNames,
    process_id: Option<u32>,
}

impl McpClient {
    /// Starts `command` as an MCP server speaking over its stdin/stdout, performs the handshake
    /// and imports the server's tools. `server` names the server in tool origins
    /// (`mcp:<server>`) and error messages. The child's stderr is passed through to ours.
    pub async fn connect_stdio(
        server: impl Into<String>,
        command: Command,
        options: McpClientOptions,
    ) -> AgentResult<Self> {
        let server: Arc<str> = Arc::from(server.into());
        let error = |message: String| AgentError::Mcp {
            server: server.to_string(),
            message,
        };
        let program = command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        let transport = TokioChildProcess::new(command).map_err(|e| {
            error(format!(
                "cannot start `{program}`: {e}; check the command and that it is installed"
            ))
        })?;
        let process_id = transport.id();
        let connect = async {
            // Auto: `server/discover` (2026-07-28) first, the initialize handshake for servers
            // that predate it.
            let lifecycle = ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::LATEST],
                legacy_version: None,
            };
            let service = ().serve_with_lifecycle(transport, lifecycle).await.map_err(|e| {
                error(format!(
                    "`{program}` did not complete the MCP handshake: {e}; check that it is an MCP server speaking over stdio"
                ))
            })?;
            let definitions = service
                .peer()
                .list_all_tools()
                .await
                .map_err(|e| error(format!("listing the server's tools failed: {e}")))?;
            Ok::<_, AgentError>((service, definitions))
        };
        let (service, definitions) = tokio::time::timeout(options.connect_timeout, connect)
            .await
            .map_err(|_| {
                error(format!(
                    "`{program}` did not start and list its tools within {} ms; raise `connect_timeout` if it is slow to start",
                    options.connect_timeout.as_millis()
                ))
            })??;
        let names = ProviderSafeNames::new(definitions.iter().map(|tool| tool.name.as_ref()))
            .map_err(error)?;
        let peer = service.peer().clone();
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
                    server.clone(),
                    peer.clone(),
                    &options,
                ))
            })
            .collect();
        Ok(Self {
            server,
            service,
            tools,
            names,
            process_id,
        })
    }

    /// The operating-system id of the server process, while it runs.
    pub fn server_process_id(&self) -> Option<u32> {
        self.process_id
    }

    /// The server's name, as given to [`connect_stdio`](Self::connect_stdio).
    pub fn server_name(&self) -> &str {
        &self.server
    }

    /// The imported tools, in the server's order.
    pub fn tools(&self) -> &[Arc<McpTool>] {
        &self.tools
    }

    /// The imported tools as `Arc<dyn Tool>`, ready for
    /// [`ToolRegistry::register_all`] or an agent builder.
    pub fn dyn_tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools
            .iter()
            .map(|tool| tool.clone() as Arc<dyn Tool>)
            .collect()
    }

    /// Registers the imported tools into `registry`.
    ///
    /// A tool whose schema no provider accepts (for example alternatives at the root) is left
    /// out with a warning rather than failing the whole import: one odd tool of a server should
    /// not cost the agent the others. Name clashes with tools already registered are errors.
    pub fn register_into(&self, registry: &mut ToolRegistry) -> AgentResult<()> {
        for tool in self.dyn_tools() {
            match registry.register_arc(tool) {
                Err(AgentError::InvalidSchema { tool, problem }) => {
                    tracing::warn!(server = %self.server, %tool, %problem, "MCP tool left out: its schema cannot be offered to a model");
                }
                other => other?,
            }
        }
        Ok(())
    }

    /// The mapping between the server's tool names and the provider-safe local names.
    pub fn names(&self) -> &ProviderSafeNames {
        &self.names
    }

    /// Ends the connection and waits for the server process to be stopped.
    pub async fn close(mut self) {
        if let Err(error) = self.service.close().await {
            tracing::warn!(server = %self.server, %error, "MCP client task failed while closing");
        }
    }
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.server)
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

/// One tool of an MCP server, callable like any other [`Tool`].
///
/// Its schema is the server's, as given; its name is provider-safe (see
/// [`ProviderSafeNames`]); its origin is `mcp:<server>`.
pub struct McpTool {
    name: &'static str,
    description: &'static str,
    remote_name: String,
    schema: Value,
    output_schema: Option<Value>,
    annotations: ToolAnnotations,
    needs_approval: bool,
    server: Arc<str>,
    peer: Peer<RoleClient>,
    call_timeout: Duration,
}

impl McpTool {
    fn new(
        definition: McpToolDef,
        local_name: String,
        server: Arc<str>,
        peer: Peer<RoleClient>,
        options: &McpClientOptions,
    ) -> Self {
        let annotations = convert::annotations_from_mcp(definition.annotations.as_ref());
        let description = bounded_description(
            definition
                .description
                .as_deref()
                .or(definition.title.as_deref())
                .unwrap_or_default(),
        );
        Self {
            // `Tool` hands out `&'static str` so that specs and registry keys cost nothing per
            // turn. A remote tool's name and description are known only at run time, so they are
            // leaked here, once per connection: a name of at most 64 bytes and a description of
            // at most `MAX_REMOTE_DESCRIPTION`.
            name: Box::leak(local_name.into_boxed_str()),
            description: Box::leak(description.into_boxed_str()),
            remote_name: definition.name.to_string(),
            schema: Value::Object(definition.input_schema.as_ref().clone()),
            output_schema: definition
                .output_schema
                .map(|schema| Value::Object(schema.as_ref().clone())),
            needs_approval: needs_approval(&annotations, options.unannotated_needs_approval),
            annotations,
            server,
            peer,
            call_timeout: options.call_timeout,
        }
    }

    /// The tool's name on the server.
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }

    /// The server's name.
    pub fn server_name(&self) -> &str {
        &self.server
    }

    fn error(&self, message: String) -> AgentError {
        AgentError::Mcp {
            server: self.server.to_string(),
            message,
        }
    }

    fn service_error(&self, error: ServiceError) -> AgentError {
        let tool = &self.remote_name;
        match error {
            ServiceError::McpError(error) => AgentError::tool(format!(
                "MCP server `{}` refused the call of `{tool}`: {}",
                self.server, error.message
            )),
            ServiceError::TransportClosed
            | ServiceError::TransportSend(_)
            | ServiceError::Cancelled { .. } => self.error(format!(
                "the server stopped before `{tool}` finished; its tools are unavailable until the program reconnects"
            )),
            other => self.error(format!("calling `{tool}` failed: {other}")),
        }
    }
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool")
            .field("name", &self.name)
            .field("remote_name", &self.remote_name)
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn schema(&self) -> Value {
        self.schema.clone()
    }

    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let mut params = CallToolRequestParams::new(self.remote_name.clone());
        match args {
            Value::Object(arguments) => params = params.with_arguments(arguments.clone()),
            Value::Null => {}
            other => {
                return Err(AgentError::InvalidArguments {
                    tool: self.name.to_string(),
                    path: crate::error::ROOT_PATH.to_string(),
                    message: crate::error::mistakes::arguments_are_a_scalar(other),
                });
            }
        }
        // Dropping the request future (timeout, cancellation) makes rmcp send
        // `notifications/cancelled`, so the server stops the tool too.
        let call = tokio::time::timeout(self.call_timeout, self.peer.call_tool(params));
        let outcome = tokio::select! {
            outcome = call => outcome,
            () = ctx.cancellation().cancelled() => {
                return Err(AgentError::Cancelled { tool: self.name.to_string() });
            }
        };
        match outcome {
            Err(_elapsed) => Err(self.error(format!(
                "`{}` did not finish within {} ms and was cancelled; try a smaller request, or raise `call_timeout`",
                self.remote_name,
                self.call_timeout.as_millis()
            ))),
            Ok(Err(error)) => Err(self.service_error(error)),
            Ok(Ok(result)) if result.is_error == Some(true) => {
                Err(AgentError::tool(error_text(&result)))
            }
            Ok(Ok(result)) => Ok(convert::contents_from_mcp(result)),
        }
    }

    /// Slightly longer than the call timeout, so that the client's own timeout (which cancels
    /// the call on the server and says so) fires first.
    fn timeout_ms(&self) -> Option<u64> {
        Some(self.call_timeout.as_millis() as u64 + 1_000)
    }

    fn metadata(&self) -> ToolMetadata {
        let mut metadata = ToolMetadata::new(self.name, self.description);
        metadata.origin = format!("mcp:{}", self.server);
        if let Some(version) = self
            .peer
            .peer_info()
            .and_then(|info| info.server_info.as_ref().map(|i| i.version.clone()))
        {
            metadata.version = version;
        }
        metadata
    }

    fn annotations(&self) -> ToolAnnotations {
        self.annotations
    }

    /// From the server's hints, read once when the tools were listed; see
    /// [`McpClientOptions::unannotated_needs_approval`].
    async fn needs_approval(&self, _args: &Value, _ctx: &ToolContext) -> bool {
        self.needs_approval
    }

    fn output_schema(&self) -> Option<Value> {
        self.output_schema.clone()
    }
}

/// Whether a tool with these hints needs a person's approval: read-only never, destructive
/// always, and one without a destructive hint as `unannotated` says.
fn needs_approval(hints: &ToolAnnotations, unannotated: bool) -> bool {
    match (hints.read_only, hints.destructive) {
        (Some(true), _) => false,
        (_, Some(destructive)) => destructive,
        (_, None) => unannotated,
    }
}

/// The text of an `isError` result, for the model.
fn error_text(result: &CallToolResult) -> String {
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(|text| text.text.as_str())
        .collect();
    if text.is_empty() {
        "the tool reported an error without a message".to_string()
    } else {
        text.join("\n")
    }
}

/// The longest remote tool description kept, in bytes: a server cannot make the client hold
/// (and send the model, every turn) an unbounded text.
const MAX_REMOTE_DESCRIPTION: usize = 8 * 1024;

/// `text`, cut at [`MAX_REMOTE_DESCRIPTION`] on a character boundary, with a mark where it was.
fn bounded_description(text: &str) -> String {
    if text.len() <= MAX_REMOTE_DESCRIPTION {
        return text.to_string();
    }
    let kept = &text[..crate::limits::floor_char_boundary(text, MAX_REMOTE_DESCRIPTION)];
    format!("{kept} [description cut at {MAX_REMOTE_DESCRIPTION} bytes]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_descriptions_are_bounded_on_a_character_boundary() {
        assert_eq!(bounded_description("Search the web"), "Search the web");
        let long = "é".repeat(MAX_REMOTE_DESCRIPTION);
        let cut = bounded_description(&long);
        assert!(cut.len() < MAX_REMOTE_DESCRIPTION + 64, "{}", cut.len());
        assert!(cut.ends_with("[description cut at 8192 bytes]"));
        assert!(cut.starts_with("éé"));
    }
}
