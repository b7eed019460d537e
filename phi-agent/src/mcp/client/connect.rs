//! Opening a connection: the transport (a child process, or streamable HTTP), the handshake
//! with its version fallback, and what to say when a server does not complete it.

// rmcp marks sampling and roots deprecated by SEP-2577 (2026-07-28); 2025-11-25 servers use them.
#![allow(deprecated)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock, Weak};

use futures_util::future::BoxFuture;
use rmcp::model::{
    ClientConfig, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, Implementation, ListRootsResult, ProtocolVersion,
};
use rmcp::service::{ClientInitializeError, NotificationContext, RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, RoleClient};
use tokio::process::Command;

use super::options::McpClientOptions;
use super::talk::Talk;

/// The connection of a running client: rmcp's service and, over stdio, the child's id.
pub(super) struct Link {
    pub(super) service: RunningService<RoleClient, Handler>,
    pub(super) process_id: Option<u32>,
}

/// What follows a server's tool list (the client's imported tools): told each time the server
/// says that the list changed.
///
/// A trait, so that the connection, which the tools hold, need not know the tool set, which
/// holds the tools.
pub(super) trait ToolListFollower: Send + Sync {
    /// Lists the server's tools again (a failure is logged: no one waits for the answer).
    fn list_again(self: Arc<Self>) -> BoxFuture<'static, ()>;
}

/// Answers the server's requests and notifications for one client.
#[derive(Clone)]
pub(super) struct Handler {
    /// What follows the tool list, set once the client exists (it is built after the
    /// handler, whose connection it holds).
    pub(super) follower: Arc<OnceLock<Weak<dyn ToolListFollower>>>,
    /// The answers to the server's questions, and the capabilities they make.
    pub(super) talk: Arc<Talk>,
}

impl Handler {
    pub(super) fn new(options: &McpClientOptions) -> Self {
        Self {
            follower: Arc::new(OnceLock::new()),
            talk: Arc::new(Talk::new(options)),
        }
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::new(
            self.talk.capabilities(),
            Implementation::new("phi-agent", env!("CARGO_PKG_VERSION")),
        );
        // The version offered by `initialize`: the newest that still has that handshake (a
        // server answering `initialize` cannot name a later one).
        info.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.talk.elicit(request, &self.talk.sole_asker()).await
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.talk.sample(params).await
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        self.talk.roots()
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(follower) = self.follower.get().and_then(Weak::upgrade) {
            // Not inline: the refresh asks the server, whose answer this task delivers.
            tokio::spawn(follower.list_again());
        }
    }
}

/// How to reach a server again (a restart, or the handshake's fallback).
pub(super) enum Connector {
    Stdio(StdioSpec),
    /// Boxed: its OAuth state is large, and a client holds one connector for its whole life.
    #[cfg(feature = "mcp-http-client")]
    Http(Box<super::http::HttpSpec>),
}

/// A command, kept as its parts so that it can be started again: program, arguments,
/// environment changes and working directory (other settings of the caller's `Command` apply to
/// the first start only).
pub(super) struct StdioSpec {
    program: OsString,
    args: Vec<OsString>,
    envs: Vec<(OsString, Option<OsString>)>,
    cwd: Option<PathBuf>,
}

impl StdioSpec {
    pub(super) fn of(command: &Command) -> Self {
        let command = command.as_std();
        Self {
            program: command.get_program().to_owned(),
            args: command.get_args().map(ToOwned::to_owned).collect(),
            envs: command
                .get_envs()
                .map(|(key, value)| (key.to_owned(), value.map(ToOwned::to_owned)))
                .collect(),
            cwd: command.get_current_dir().map(ToOwned::to_owned),
        }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        for (key, value) in &self.envs {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        command
    }
}

/// How many times one connection authorizes as the server asks: twice, since a short-lived token
/// (a machine grant's, of a second or so) can expire between the handshake's requests, and the
/// second challenge is then cured by running the grant again; a third is a refusal.
#[cfg(feature = "mcp-http-client")]
const AUTHORIZATIONS: usize = 2;

impl Connector {
    /// How error messages name the server's end: the program, or the URL.
    pub(super) fn endpoint(&self) -> String {
        match self {
            Self::Stdio(spec) => spec.program.to_string_lossy().into_owned(),
            #[cfg(feature = "mcp-http-client")]
            Self::Http(spec) => spec.url.to_string(),
        }
    }

    /// `"stdio"` or `"http"`.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Self::Stdio(_) => "stdio",
            #[cfg(feature = "mcp-http-client")]
            Self::Http(_) => "http",
        }
    }

    /// Connects and completes the handshake: `server/discover` (2026-07-28) first, the
    /// `initialize` handshake at [`ProtocolVersion::LATEST_WITH_INITIALIZE`] for servers that
    /// predate it; and, when the probe got an answer that is no discover result at all (some
    /// servers answer every unknown method with `{}`), `initialize` alone on a fresh connection.
    /// `first` is the caller's own command, used for the first start.
    pub(super) async fn open(
        &self,
        handler: Handler,
        first: Option<Command>,
    ) -> Result<Link, String> {
        let outcome = self.open_once(handler.clone(), first).await;
        #[cfg(feature = "mcp-http-client")]
        let outcome = self.authorize_as_asked(outcome, handler).await;
        outcome.map_err(|failure| failure.message)
    }

    /// `outcome`, or where the server asked for OAuth (HTTP 401, or 403 for more scope), the
    /// connection made after authorizing as its challenge says, up to [`AUTHORIZATIONS`] times.
    #[cfg(feature = "mcp-http-client")]
    async fn authorize_as_asked(
        &self,
        mut outcome: Result<Link, Failure>,
        handler: Handler,
    ) -> Result<Link, Failure> {
        for _ in 0..AUTHORIZATIONS {
            let (
                Err(Failure {
                    challenge: Some(challenge),
                    message,
                }),
                Self::Http(spec),
            ) = (&outcome, self)
            else {
                break;
            };
            if let Err(reason) = spec.authorize(challenge).await {
                let message = format!("`{}` needs authorization: {reason}", self.endpoint());
                return Err(message.into());
            }
            tracing::debug!(endpoint = %self.endpoint(), refused = %message, "authorized; connecting again");
            outcome = self.open_once(handler.clone(), None).await;
        }
        outcome
    }

    async fn open_once(&self, handler: Handler, first: Option<Command>) -> Result<Link, Failure> {
        let auto = ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::LATEST],
            legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
        };
        let (outcome, process_id) = self.serve(handler.clone(), first, auto).await?;
        let probe_error = match outcome {
            Err(error) if self.auth_challenge(&error).is_some() => {
                return Err(Failure {
                    challenge: self.auth_challenge(&error),
                    message: self.handshake_failed(&error),
                });
            }
            Ok(service) => {
                return Ok(Link {
                    service,
                    process_id,
                });
            }
            // Credentials refused are refused by any handshake: no fallback could cure them.
            Err(error) if credentials_refused(&error) => {
                return Err(self.handshake_failed(&error).into());
            }
            Err(error) if probe_may_fall_back(&error) => error,
            Err(error) => return Err(self.handshake_failed(&error).into()),
        };
        tracing::debug!(endpoint = %self.endpoint(), error = %probe_error, "server/discover failed; trying initialize alone");
        let (outcome, process_id) = self
            .serve(handler, None, ClientLifecycleMode::Initialize)
            .await?;
        if let Err(error) = &outcome
            && let Some(challenge) = self.auth_challenge(error)
        {
            return Err(Failure {
                challenge: Some(challenge),
                message: self.handshake_failed(error),
            });
        }
        match outcome {
            Ok(service) => Ok(Link {
                service,
                process_id,
            }),
            Err(error) => Err(format!(
                "{}; before that, probing with `server/discover`, it {}",
                self.handshake_failed(&error),
                describe(&probe_error, self.hint())
            )
            .into()),
        }
    }

    async fn serve(
        &self,
        handler: Handler,
        first: Option<Command>,
        lifecycle: ClientLifecycleMode,
    ) -> Result<
        (
            Result<RunningService<RoleClient, Handler>, ClientInitializeError>,
            Option<u32>,
        ),
        Failure,
    > {
        match self {
            Self::Stdio(spec) => {
                let command = first.unwrap_or_else(|| spec.command());
                let transport = TokioChildProcess::new(command).map_err(|e| {
                    format!(
                        "cannot start `{}`: {e}; check the command and that it is installed",
                        self.endpoint()
                    )
                })?;
                let process_id = transport.id();
                Ok((
                    handler.serve_with_lifecycle(transport, lifecycle).await,
                    process_id,
                ))
            }
            #[cfg(feature = "mcp-http-client")]
            Self::Http(spec) => {
                let outcome = match spec.authorized().await? {
                    Some(client) => {
                        let transport = spec.authorized_transport(client);
                        handler.serve_with_lifecycle(transport, lifecycle).await
                    }
                    None => {
                        handler
                            .serve_with_lifecycle(spec.transport()?, lifecycle)
                            .await
                    }
                };
                Ok((outcome, None))
            }
        }
    }

    /// The `WWW-Authenticate` challenge of a server that refused the handshake for want of
    /// OAuth authorization (401, or 403 for more scope), when OAuth is configured.
    fn auth_challenge(&self, error: &ClientInitializeError) -> Option<String> {
        // rmcp does not name the transport's error as the source of `TransportError`.
        match error {
            ClientInitializeError::TransportError { error, .. } => self.oauth_challenge(error),
            // `initialize` after a `server/discover` the server did not know: its refusal is
            // the fallback's (a token can expire between the two requests).
            ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
                self.auth_challenge(fallback)
            }
            other => self.oauth_challenge(other),
        }
    }

    /// The `WWW-Authenticate` challenge somewhere in `error`'s sources (a 401, or a 403 for
    /// more scope), when this connector authorizes with OAuth.
    pub(super) fn oauth_challenge(
        &self,
        error: &(dyn std::error::Error + 'static),
    ) -> Option<String> {
        #[cfg(feature = "mcp-http-client")]
        if let Self::Http(spec) = self
            && spec.has_oauth()
        {
            use rmcp::transport::streamable_http_client::{
                AuthRequiredError, InsufficientScopeError,
            };
            let mut source = Some(error);
            while let Some(error) = source {
                if let Some(required) = error.downcast_ref::<AuthRequiredError>() {
                    return Some(required.www_authenticate_header.clone());
                }
                if let Some(scope) = error.downcast_ref::<InsufficientScopeError>() {
                    return Some(scope.www_authenticate_header.clone());
                }
                source = error.source();
            }
        }
        let _ = error;
        None
    }

    /// Authorizes again as `challenge` asks (more scope), for the connections to come.
    pub(super) async fn authorize(&self, challenge: &str) -> Result<(), String> {
        match self {
            #[cfg(feature = "mcp-http-client")]
            Self::Http(spec) => spec.authorize(challenge).await,
            _ => {
                let _ = challenge;
                Err("only a server reached over HTTP authorizes with OAuth".to_string())
            }
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            Self::Stdio(_) => {
                "check that the command starts an MCP server that writes only JSON-RPC to its stdout"
            }
            #[cfg(feature = "mcp-http-client")]
            Self::Http(_) => "check the URL, and that an MCP server answers there",
        }
    }

    fn handshake_failed(&self, error: &ClientInitializeError) -> String {
        format!(
            "`{}` did not complete the MCP handshake: it {}",
            self.endpoint(),
            describe(error, self.hint())
        )
    }
}

/// Why a connection was not opened, and the server's OAuth challenge if that was the reason.
pub(super) struct Failure {
    message: String,
    #[cfg_attr(not(feature = "mcp-http-client"), allow(dead_code))]
    challenge: Option<String>,
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Self {
            message,
            challenge: None,
        }
    }
}

/// Whether a failed `server/discover` probe is worth an `initialize` on a fresh connection: the
/// server answered (something other than a discover result, an error status, a refusal), as
/// opposed to a connection that ended or a handshake that was already the fallback.
fn probe_may_fall_back(error: &ClientInitializeError) -> bool {
    !matches!(
        error,
        ClientInitializeError::ConnectionClosed(_)
            | ClientInitializeError::ExpectedInitResponse(None)
            | ClientInitializeError::ExpectedInitResult(None)
            | ClientInitializeError::Cancelled
            | ClientInitializeError::LegacyFallbackFailed { .. }
    )
}

/// What the server did instead of completing the handshake, after "it": what it sent, quoted.
fn describe(error: &ClientInitializeError, hint: &str) -> String {
    match error {
        ClientInitializeError::ExpectedInitResult(Some(result)) => format!(
            "answered with `{}`, which is not a handshake result (one has `protocolVersion`, `capabilities` and `serverInfo`)",
            preview(&serde_json::to_string(result).unwrap_or_else(|_| format!("{result:?}")))
        ),
        ClientInitializeError::ExpectedInitResponse(Some(message)) => format!(
            "sent `{}` where the answer to the handshake was due",
            preview(&serde_json::to_string(message).unwrap_or_else(|_| format!("{message:?}")))
        ),
        ClientInitializeError::ExpectedInitResult(None)
        | ClientInitializeError::ExpectedInitResponse(None) => {
            format!("ended the connection without answering; {hint}")
        }
        ClientInitializeError::ConnectionClosed(reason) => {
            format!("ended the connection without answering ({reason}); {hint}")
        }
        ClientInitializeError::JsonRpcError(error) => format!(
            "refused it with JSON-RPC error {}: {}",
            error.code.0, error.message
        ),
        ClientInitializeError::NoCompatibleProtocolVersion {
            client_supported,
            server_supported,
        } => format!(
            "speaks no protocol version this client speaks (it offers {}; this client {})",
            versions(server_supported),
            versions(client_supported)
        ),
        ClientInitializeError::TransportError { error, context } => {
            match refused_credentials(error) {
                Some(refusal) => refusal,
                None => format!("could not be reached ({context}: {}); {hint}", chain(error)),
            }
        }
        ClientInitializeError::LegacyFallbackFailed { discover, fallback } => format!(
            "{}, after answering `server/discover` as a server that predates it ({})",
            describe(fallback, hint),
            describe(discover, hint)
        ),
        other => format!("failed: {}", chain(other)),
    }
}

/// Whether the server refused the handshake's credentials (see [`refused_credentials`]).
fn credentials_refused(error: &ClientInitializeError) -> bool {
    matches!(error, ClientInitializeError::TransportError { error, .. } if refused_credentials(error).is_some())
}

/// What to tell a user whose credentials the server refused (HTTP 401, or 403 for more scope),
/// found among `error`'s sources: the server was reached, so "check the URL" would mislead, and
/// the transport's own text is a chain of rmcp's type names.
fn refused_credentials(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    #[cfg(feature = "mcp-http-client")]
    {
        use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};
        let fix = "check the bearer token (`McpHttpOptions::with_bearer_token`), or authorize \
                   with OAuth (`McpHttpOptions::with_oauth`)";
        let mut source = Some(error);
        while let Some(error) = source {
            if let Some(required) = error.downcast_ref::<AuthRequiredError>() {
                return Some(format!(
                    "refused the credentials it was sent (HTTP 401 Unauthorized; it asks for `{}`): \
                     {fix}",
                    preview(&required.www_authenticate_header)
                ));
            }
            if let Some(scope) = error.downcast_ref::<InsufficientScopeError>() {
                return Some(format!(
                    "refused the credentials it was sent for want of scope (HTTP 403 Forbidden; it \
                     asks for `{}`): {fix}",
                    preview(&scope.www_authenticate_header)
                ));
            }
            if error.to_string().contains("401 Unauthorized") {
                return Some(format!(
                    "refused the credentials it was sent (HTTP 401 Unauthorized): {fix}"
                ));
            }
            source = error.source();
        }
    }
    let _ = error;
    None
}

fn versions(versions: &[ProtocolVersion]) -> String {
    if versions.is_empty() {
        return "none".to_string();
    }
    versions
        .iter()
        .map(ProtocolVersion::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// At most 200 bytes of what a server sent, cut on a character boundary.
fn preview(text: &str) -> String {
    const MAX: usize = 200;
    if text.len() <= MAX {
        return text.to_string();
    }
    format!(
        "{}…",
        &text[..crate::limits::floor_char_boundary(text, MAX)]
    )
}

/// `error` and its sources, joined: transports wrap the reason (an HTTP status) several deep.
pub(super) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let more = inner.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = inner.source();
    }
    text
}
