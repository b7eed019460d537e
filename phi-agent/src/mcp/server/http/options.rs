//! [`HttpOptions`]: where and how the streamable HTTP server listens, and what it accepts.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use super::card::ServerCard;

/// Where and how [`serve_http`](super::serve_http) listens.
///
/// The defaults are safe for a local server: bind to `127.0.0.1` on a free port, serve at
/// `/mcp`, accept only loopback `Host` headers, and accept an `Origin` header only from the
/// server's own origins: `http://localhost`, `http://127.0.0.1` and `http://[::1]` on the port it
/// listens on, the bound address itself, and the [allowed hosts](Self::with_allowed_hosts) on
/// that port. Requests from any other origin (a web page's, against DNS rebinding) get 403; MCP
/// clients that are programs send no `Origin` and are accepted. Allow a browser-based client on
/// another origin with [`with_allowed_origin`](Self::with_allowed_origin), and require a token
/// with [`with_bearer_token`](Self::with_bearer_token).
///
/// Sessions are bounded: one idle for [`with_session_idle_timeout`](Self::with_session_idle_timeout)
/// (default 30 minutes) is closed and its memory freed, and at most
/// [`with_max_sessions`](Self::with_max_sessions) (default 1,000) live at once. An `initialize`
/// beyond the cap gets `503 Service Unavailable` with `Retry-After` and a JSON-RPC error saying
/// the server is at its session limit. [`with_stateless`](Self::with_stateless) serves without
/// sessions at all.
///
/// The configuration idiom of the crate: `#[non_exhaustive]`, [`Default`], and a `with_*`
/// setter per field. The fields stay private (unlike the other options types): one is a secret,
/// and `allowed_hosts` has a default that depends on nothing being set.
///
/// ```
/// use phi_agent::mcp::HttpOptions;
///
/// let options = HttpOptions::default()
///     .with_bind(([127, 0, 0, 1], 8808).into())
///     .with_bearer_token("s3cret")
///     .with_allowed_origin("http://localhost:6274");
/// assert!(!format!("{options:?}").contains("s3cret"), "tokens are never printed");
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    pub(super) bind: SocketAddr,
    pub(super) path: String,
    pub(super) bearer_token: Option<Arc<str>>,
    pub(super) allowed_origins: Vec<String>,
    pub(super) allowed_hosts: Option<Vec<String>>,
    pub(super) session_idle_timeout: Duration,
    pub(super) max_sessions: usize,
    pub(super) stateless: bool,
    pub(super) server_card: Option<ServerCard>,
    pub(super) sse_retry: Option<Duration>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            bind: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            path: "/mcp".to_string(),
            bearer_token: None,
            allowed_origins: Vec::new(),
            allowed_hosts: None,
            session_idle_timeout: Self::DEFAULT_SESSION_IDLE_TIMEOUT,
            max_sessions: Self::DEFAULT_MAX_SESSIONS,
            stateless: false,
            server_card: None,
            sse_retry: Some(Self::DEFAULT_SSE_RETRY),
        }
    }
}

impl HttpOptions {
    /// How long a session may go without a message before it is closed: 30 minutes.
    pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

    /// How many sessions may be live at once: 1,000.
    pub const DEFAULT_MAX_SESSIONS: usize = 1_000;

    /// How long a client waits before it reconnects to a stream the server closed: 3 seconds.
    pub const DEFAULT_SSE_RETRY: Duration = Duration::from_secs(3);

    /// The address to listen on. Default: `127.0.0.1:0` (a free port; see
    /// [`HttpServer::local_addr`](super::HttpServer::local_addr)). Binding to a non-loopback
    /// address also needs [`with_allowed_hosts`](Self::with_allowed_hosts) and, outside a trusted
    /// network, a bearer token.
    pub fn with_bind(mut self, address: SocketAddr) -> Self {
        self.bind = address;
        self
    }

    /// The URL path of the MCP endpoint. Default: `/mcp`.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request; others get 401 and reach no tool.
    pub fn with_bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(Arc::from(token.into()));
        self
    }

    /// Accepts requests whose `Origin` is `origin` (scheme, host and port, e.g.
    /// `http://localhost:6274`; `:*` matches any port), besides those already allowed. Requests
    /// without an `Origin` header are always accepted; requests with any other `Origin` get 403.
    pub fn with_allowed_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// Accepts requests whose `Origin` is one of `origins` (each as for
    /// [`with_allowed_origin`](Self::with_allowed_origin)), replacing those allowed before.
    /// Default: none.
    pub fn with_allowed_origins(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The `Host` header values accepted (`name` or `name:port`). Default: `localhost`,
    /// `127.0.0.1` and `::1`.
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Closes a session, and frees what it holds, once no message has passed on it (a request,
    /// a notification or a response, in either direction) for `timeout`. Its client then gets
    /// `404 Not Found` and, as the MCP specification asks, starts a new session with
    /// `initialize`. Default: [`DEFAULT_SESSION_IDLE_TIMEOUT`](Self::DEFAULT_SESSION_IDLE_TIMEOUT)
    /// (30 minutes). This is rmcp's session keep-alive: an open `GET` stream with nothing on it,
    /// or a single call running longer than `timeout` without a progress notification, does not
    /// keep a session alive.
    pub fn with_session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// The most sessions live at once. An `initialize` that would open one more gets
    /// `503 Service Unavailable`, a `Retry-After` header and a JSON-RPC error (code `-32000`)
    /// saying the server is at its session limit; live sessions are not affected. An idle
    /// session holds about 120 KB of heap (rmcp's session worker and service loop with their
    /// channels; measured by `tests/memory.rs`), so the default cap bounds sessions to about
    /// 120 MB. Default: [`DEFAULT_MAX_SESSIONS`](Self::DEFAULT_MAX_SESSIONS)
    /// (1,000). With `0` every session is refused: use [`with_stateless`](Self::with_stateless)
    /// for a server without sessions.
    pub fn with_max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// Serves every request on its own, with no session (`Mcp-Session-Id`) at all: rmcp's
    /// `legacy_session_mode = false`, answering plain JSON where a request needs no stream.
    /// Default: `false` (sessions).
    ///
    /// The MCP 2025-11-25 revision lets a server choose: it *may* assign a session at
    /// `initialize`, and a server that does not serves each request alone. The 2026-07-28
    /// revision has no sessions, and rmcp serves its requests without one in either mode. What
    /// stateless mode gives up: the tools a session activated (Deferred tools) and server-sent
    /// notifications (`notifications/tools/list_changed`) do not carry from one request to the
    /// next, and there is no `GET` stream. What it gains: any instance behind a load balancer can
    /// answer any request, and no session state exists to bound.
    pub fn with_stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// The `retry` field of the server's SSE streams: how long a client waits before it
    /// reconnects to a stream the server closed, resuming it with `Last-Event-ID` (MCP's SSE
    /// polling, 2025-11-25). Each stream of a session opens with a priming event (an event id
    /// and no data) that carries it, so that a client can resume even a stream that closed
    /// before its first message; a tool closes its call's stream with
    /// [`ToolContext::close_stream`](crate::ToolContext::close_stream). Each stream keeps its
    /// last 16 messages for a client that resumes. `None`: no priming events and no `retry`.
    /// Default: [`DEFAULT_SSE_RETRY`](Self::DEFAULT_SSE_RETRY) (3 seconds). Stateless servers
    /// answer with plain JSON, no streams.
    pub fn with_sse_retry(mut self, retry: Option<Duration>) -> Self {
        self.sse_retry = retry;
        self
    }

    /// Serves `card`, the server's [Server Card](ServerCard), at `<path>/server-card` and
    /// `/.well-known/mcp/server-card.json`, to anyone (no bearer token: it holds only public
    /// metadata). Default: none, and those paths are not found. The card is checked when the
    /// server starts: a name of the wrong form or a missing description fails
    /// [`serve_http`](super::serve_http) with what to change.
    pub fn with_server_card(mut self, card: ServerCard) -> Self {
        self.server_card = Some(card);
        self
    }
}

impl fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpOptions")
            .field("bind", &self.bind)
            .field("path", &self.path)
            .field(
                "bearer_token",
                &self.bearer_token.as_ref().map(|_| "<redacted>"),
            )
            .field("allowed_origins", &self.allowed_origins)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("max_sessions", &self.max_sessions)
            .field("stateless", &self.stateless)
            .field("server_card", &self.server_card)
            .field("sse_retry", &self.sse_retry)
            .finish()
    }
}
