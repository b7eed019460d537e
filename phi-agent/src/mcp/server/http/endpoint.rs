//! Serving a registry over MCP's streamable HTTP transport.
//!
//! rmcp's [`StreamableHttpService`] speaks the protocol and validates the `Host` and `Origin`
//! headers (the MCP specification requires `Origin` validation against DNS rebinding); this module
//! binds the socket (loopback unless told otherwise), checks the bearer token before a request
//! reaches rmcp, screens each POST body (see [`super::super::screen`]) so that a malformed message gets
//! its JSON-RPC error, caps the number of live sessions, and runs the connections on hyper.
//!
//! Sessions live in rmcp's [`LocalSessionManager`], whose keep-alive closes a session idle for
//! [`HttpOptions::session_idle_timeout`]; [`Sessions`] wraps it to refuse sessions beyond
//! [`HttpOptions::max_sessions`].

use std::convert::Infallible;
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use futures_util::Stream;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode, header};
use hyper_util::rt::TokioIo;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::mcp::McpServer;
use super::super::screen::{Refusal, Screened, is_tool_call, screen};
use crate::error::{AgentError, AgentResult};
use crate::registry::ToolRegistry;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// Where and how [`serve_http`] listens.
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
    bind: SocketAddr,
    path: String,
    bearer_token: Option<Arc<str>>,
    allowed_origins: Vec<String>,
    allowed_hosts: Option<Vec<String>>,
    session_idle_timeout: Duration,
    max_sessions: usize,
    stateless: bool,
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
        }
    }
}

impl HttpOptions {
    /// How long a session may go without a message before it is closed: 30 minutes.
    pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

    /// How many sessions may be live at once: 1,000.
    pub const DEFAULT_MAX_SESSIONS: usize = 1_000;

    /// The address to listen on. Default: `127.0.0.1:0` (a free port; see
    /// [`HttpServer::local_addr`]). Binding to a non-loopback address also needs
    /// [`with_allowed_hosts`](Self::with_allowed_hosts) and, outside a trusted network, a bearer
    /// token.
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
}

/// The setters' names before the crate had one configuration idiom, kept so that code written
/// against them still builds (with a warning that names the new setter).
impl HttpOptions {
    /// Old name of [`with_bind`](Self::with_bind).
    #[deprecated(since = "0.1.0", note = "use `with_bind`")]
    pub fn bind(self, address: SocketAddr) -> Self {
        self.with_bind(address)
    }

    /// Old name of [`with_path`](Self::with_path).
    #[deprecated(since = "0.1.0", note = "use `with_path`")]
    pub fn path(self, path: impl Into<String>) -> Self {
        self.with_path(path)
    }

    /// Old name of [`with_bearer_token`](Self::with_bearer_token).
    #[deprecated(since = "0.1.0", note = "use `with_bearer_token`")]
    pub fn bearer_token(self, token: impl Into<String>) -> Self {
        self.with_bearer_token(token)
    }

    /// Old name of [`with_allowed_origin`](Self::with_allowed_origin).
    #[deprecated(since = "0.1.0", note = "use `with_allowed_origin`")]
    pub fn allow_origin(self, origin: impl Into<String>) -> Self {
        self.with_allowed_origin(origin)
    }

    /// Old name of [`with_allowed_hosts`](Self::with_allowed_hosts).
    #[deprecated(since = "0.1.0", note = "use `with_allowed_hosts`")]
    pub fn allowed_hosts(self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.with_allowed_hosts(hosts)
    }

    /// Old name of [`with_session_idle_timeout`](Self::with_session_idle_timeout).
    #[deprecated(since = "0.1.0", note = "use `with_session_idle_timeout`")]
    pub fn session_idle_timeout(self, timeout: Duration) -> Self {
        self.with_session_idle_timeout(timeout)
    }

    /// Old name of [`with_max_sessions`](Self::with_max_sessions).
    #[deprecated(since = "0.1.0", note = "use `with_max_sessions`")]
    pub fn max_sessions(self, max: usize) -> Self {
        self.with_max_sessions(max)
    }

    /// Old name of [`with_stateless`](Self::with_stateless).
    #[deprecated(since = "0.1.0", note = "use `with_stateless`")]
    pub fn stateless(self, stateless: bool) -> Self {
        self.with_stateless(stateless)
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
            .finish()
    }
}

/// A running streamable HTTP server. Dropping it (or [`shutdown`](Self::shutdown)) stops it:
/// keep it alive for as long as you serve, e.g. by awaiting Ctrl-C before calling
/// [`shutdown`](Self::shutdown).
#[derive(Debug)]
#[must_use = "the server stops when this value is dropped: keep it (e.g. await Ctrl-C, then `shutdown().await`)"]
pub struct HttpServer {
    local_addr: SocketAddr,
    path: String,
    stop: CancellationToken,
    task: Option<JoinHandle<()>>,
    sessions: Arc<Sessions>,
}

impl HttpServer {
    /// How many sessions are live now (always 0 in [`stateless`](HttpOptions::stateless) mode).
    /// A session counts from its `initialize` until the client deletes it, it idles out
    /// ([`HttpOptions::session_idle_timeout`]) or the server shuts down.
    pub async fn live_sessions(&self) -> usize {
        self.sessions.live().await
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The URL of the MCP endpoint, e.g. `http://127.0.0.1:8808/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local_addr, self.path)
    }

    /// Stops accepting connections, ends the sessions and waits for the server task.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Serves `registry` over streamable HTTP with `options`; returns once the socket is bound.
/// The server runs until the returned [`HttpServer`] is dropped or shut down, so keep it:
///
/// ```no_run
/// # async fn run(registry: phi_agent::registry::ToolRegistry) -> phi_agent::AgentResult<()> {
/// use phi_agent::mcp::{HttpOptions, serve_http};
///
/// let server = serve_http(registry, HttpOptions::default().with_bearer_token("s3cret")).await?;
/// println!("MCP endpoint: {}", server.url());
/// tokio::signal::ctrl_c().await.ok(); // serve until Ctrl-C (tokio's `signal` feature)
/// server.shutdown().await;
/// # Ok(())
/// # }
/// ```
pub async fn serve_http(
    registry: impl Into<Arc<ToolRegistry>>,
    options: HttpOptions,
) -> AgentResult<HttpServer> {
    McpServer::new(registry).serve_http(options).await
}

impl McpServer {
    /// Serves this server over streamable HTTP; see [`serve_http`]. Every client session gets
    /// its own [`new_session`](Self::new_session).
    pub async fn serve_http(self, options: HttpOptions) -> AgentResult<HttpServer> {
        let listener = TcpListener::bind(options.bind).await.map_err(|error| {
            http_error(
                &options,
                format!(
                    "cannot listen on {}: {error}; choose a free port or another address",
                    options.bind
                ),
            )
        })?;
        let local_addr = listener
            .local_addr()
            .map_err(|error| http_error(&options, error.to_string()))?;
        let stop = CancellationToken::new();
        let mut origins = options.allowed_origins.clone();
        origins.extend(own_origins(local_addr, options.allowed_hosts.as_deref()));
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_origins(origins)
            .enforce_origin_validation()
            .with_legacy_session_mode(!options.stateless)
            // Stateless answers need no stream: plain JSON is simpler for clients and proxies.
            .with_json_response(options.stateless)
            .with_max_request_body_bytes(MAX_BODY_BYTES)
            .with_cancellation_token(stop.child_token());
        if let Some(hosts) = &options.allowed_hosts {
            config = config.with_allowed_hosts(hosts.clone());
        }
        let sessions = Arc::new(Sessions::new(
            options.session_idle_timeout,
            options.max_sessions,
        ));
        let service =
            StreamableHttpService::new(move || Ok(self.new_session()), sessions.clone(), config);
        let endpoint = Arc::new(Endpoint {
            service,
            sessions: sessions.clone(),
            path: options.path.clone(),
            bearer_token: options.bearer_token.clone(),
            stateless: options.stateless,
            retry_after: retry_after(options.session_idle_timeout),
        });
        let task = tokio::spawn(accept_loop(listener, endpoint, stop.clone()));
        Ok(HttpServer {
            local_addr,
            path: options.path,
            stop,
            task: Some(task),
            sessions,
        })
    }
}

/// The origins a page served by this server itself has: the loopback names and the bound
/// address on the port it listens on, and each allowed host (on that port unless it names one).
fn own_origins(local_addr: SocketAddr, allowed_hosts: Option<&[String]>) -> Vec<String> {
    let port = local_addr.port();
    let mut origins: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .map(|host| format!("http://{host}:{port}"))
        .collect();
    let bound = format!("http://{local_addr}");
    if !origins.contains(&bound) && !local_addr.ip().is_unspecified() {
        origins.push(bound);
    }
    for host in allowed_hosts.unwrap_or_default() {
        let origin = if host.contains(':') && !host.ends_with(']') {
            format!("http://{host}")
        } else {
            format!("http://{host}:{port}")
        };
        if !origins.contains(&origin) {
            origins.push(origin);
        }
    }
    origins
}

/// The largest POST body read (rmcp's own default): a larger one gets `413`.
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The JSON-RPC code of the session-limit refusal: the first of the codes JSON-RPC 2.0 leaves
/// to implementations for server errors.
const SESSION_LIMIT_CODE: ErrorCode = ErrorCode(-32000);

/// The `Retry-After` of the session-limit refusal: sessions free up when clients close them or
/// when idle ones expire, so a minute at most (sooner with a shorter idle timeout).
fn retry_after(idle_timeout: Duration) -> u64 {
    idle_timeout.min(Duration::from_secs(60)).as_secs().max(1)
}

struct Endpoint {
    service: StreamableHttpService<McpServer, Sessions>,
    sessions: Arc<Sessions>,
    path: String,
    bearer_token: Option<Arc<str>>,
    stateless: bool,
    retry_after: u64,
}

impl Endpoint {
    async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        if !self.is_authorized(&request) {
            // RFC 6750 §3.1: a token that was sent and is wrong is `invalid_token`, so a client
            // can tell it from a missing one (for which the challenge carries no error) and
            // report it instead of starting an OAuth flow this server does not offer.
            let (text, challenge) = if request.headers().contains_key(header::AUTHORIZATION) {
                (
                    "Unauthorized: the bearer token sent is not the server's; send `Authorization: Bearer <token>` with the server's token",
                    "Bearer error=\"invalid_token\", error_description=\"the token is not this server's\"",
                )
            } else {
                (
                    "Unauthorized: send the header `Authorization: Bearer <token>` with the server's token",
                    "Bearer",
                )
            };
            let mut response = plain(StatusCode::UNAUTHORIZED, text);
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static(challenge),
            );
            return response;
        }
        if request.uri().path() != self.path {
            return plain(
                StatusCode::NOT_FOUND,
                &format!("Not found: the MCP endpoint is {}", self.path),
            );
        }
        if request.method() == Method::DELETE {
            // rmcp answers a session's DELETE with 202; the official SDKs accept 200 or 204
            // (the Python SDK logs "Session termination failed: 202"): nothing follows, so 204.
            let mut response = self.service.handle(request).await;
            if response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::NO_CONTENT;
            }
            return response;
        }
        if request.method() != Method::POST || !is_json(request.headers()) {
            // Nothing to screen: rmcp answers these (streams, a wrong media type).
            return self.service.handle(request).await;
        }
        let (mut parts, body) = request.into_parts();
        let body = match Limited::new(body, MAX_BODY_BYTES).collect().await {
            Ok(body) => body.to_bytes(),
            Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => {
                return plain(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!("Payload Too Large: the request body exceeds {MAX_BODY_BYTES} bytes"),
                );
            }
            Err(error) => {
                return plain(
                    StatusCode::BAD_REQUEST,
                    &format!("Bad Request: the request body could not be read: {error}"),
                );
            }
        };
        // A well-formed `tools/call` is handed on unread: it opens no session, and rmcp reads it.
        let initialize = if is_tool_call(&body) {
            None
        } else {
            match screen(&body) {
                Screened::Refuse(refusal) => {
                    tracing::debug!(?refusal, "MCP HTTP: answering a malformed message");
                    return self
                        .answer(parts, StatusCode::BAD_REQUEST, &refusal, None)
                        .await;
                }
                Screened::Message(message) => {
                    name_the_task(&mut parts.headers, &message);
                    initialize_id(&message)
                }
                Screened::Ignore => None,
            }
        };
        // A new session is one `initialize` without a session id (rmcp routes one with an id
        // into that session); stateless mode opens none.
        let opens_session = initialize.is_some()
            && !self.stateless
            && !parts.headers.contains_key(SESSION_ID_HEADER);
        if opens_session && self.sessions.live().await >= self.sessions.max {
            return self.session_limit(parts, initialize).await;
        }
        let response = self
            .service
            .handle(Request::from_parts(parts, Full::new(body)))
            .await;
        if opens_session && response.status() == StatusCode::INTERNAL_SERVER_ERROR {
            return self.session_limit_raced(response, initialize).await;
        }
        response
    }

    /// Answers `refusal` with `status`, once rmcp has accepted the request's headers.
    ///
    /// rmcp checks `Host`, `Origin` and `Accept` before it reads a body: it is asked with an
    /// empty body, which it refuses as unreadable (`415`) only once every header check passed.
    /// Any other answer (a `403` for a foreign origin) is the answer to the request.
    async fn answer(
        &self,
        parts: Parts,
        status: StatusCode,
        refusal: &Refusal,
        retry_after: Option<u64>,
    ) -> Response<Body> {
        let probe = self
            .service
            .handle(Request::from_parts(parts, Full::new(Bytes::new())))
            .await;
        if probe.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
            return probe;
        }
        json_refusal(status, refusal, retry_after)
    }

    /// The refusal of an `initialize` beyond [`HttpOptions::max_sessions`].
    async fn session_limit(&self, parts: Parts, id: Option<RequestId>) -> Response<Body> {
        let refusal = self.session_limit_refusal(id);
        self.answer(
            parts,
            StatusCode::SERVICE_UNAVAILABLE,
            &refusal,
            Some(self.retry_after),
        )
        .await
    }

    fn session_limit_refusal(&self, id: Option<RequestId>) -> Refusal {
        let message = format!(
            "The MCP server is at its session limit ({} live sessions); retry after {} s, or close a session you no longer use",
            self.sessions.max, self.retry_after
        );
        let data = serde_json::json!({
            "maxSessions": self.sessions.max,
            "retryAfterSeconds": self.retry_after,
        });
        Refusal {
            id,
            error: ErrorData::new(SESSION_LIMIT_CODE, message, Some(data)),
        }
    }

    /// Two `initialize` requests can pass the check in [`handle`](Self::handle) together and
    /// race for the last slot; [`Sessions::create_session`] refuses the loser, which rmcp turns
    /// into a `500` naming that error. That one gets the same `503` as the others (rmcp had
    /// already checked its headers).
    async fn session_limit_raced(
        &self,
        response: Response<Body>,
        id: Option<RequestId>,
    ) -> Response<Body> {
        let (parts, body) = response.into_parts();
        let body = body
            .collect()
            .await
            .map(|body| body.to_bytes())
            .unwrap_or_default();
        if !String::from_utf8_lossy(&body).contains(SESSION_LIMIT_MARK) {
            return Response::from_parts(parts, Full::new(body).boxed());
        }
        let refusal = self.session_limit_refusal(id);
        json_refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            &refusal,
            Some(self.retry_after),
        )
    }

    fn is_authorized(&self, request: &Request<Incoming>) -> bool {
        let Some(expected) = &self.bearer_token else {
            return true;
        };
        let presented = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        presented.is_some_and(|token| constant_time_eq(token.as_bytes(), expected.as_bytes()))
    }
}

/// A JSON-RPC error response with `status` (and `Retry-After`, when given).
fn json_refusal(status: StatusCode, refusal: &Refusal, retry_after: Option<u64>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(refusal.to_json())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    if let Some(seconds) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from(seconds));
    }
    response
}

const SESSION_ID_HEADER: &str = "mcp-session-id";

/// Whether the request says its body is JSON, judged as rmcp judges it (the media type's
/// essence, case-insensitive), so that every body screened here is one rmcp would read.
fn is_json(headers: &header::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

/// Gives a `tasks/get`, `tasks/update` or `tasks/cancel` without an `Mcp-Name` header the one
/// its body names (its `taskId`).
///
/// The tasks extension asks clients to send it, so that a load balancer can route the request
/// to the instance that holds the task, and rmcp refuses a request without it; some clients
/// (FastMCP's tasks extension 4.1) leave it out. This server holds its tasks itself, so the
/// header tells it nothing the body does not: it is filled in rather than the client refused.
/// A header that disagrees with the body is left for rmcp to refuse.
fn name_the_task(headers: &mut header::HeaderMap, message: &ClientJsonRpcMessage) {
    let ClientJsonRpcMessage::Request(request) = message else {
        return;
    };
    let task_id = match &request.request {
        ClientRequest::GetTaskRequest(request) => &request.params.task_id,
        ClientRequest::UpdateTaskRequest(request) => &request.params.task_id,
        ClientRequest::CancelTaskRequest(request) => &request.params.task_id,
        _ => return,
    };
    // A value that reads as base64-encoded would be decoded into another id: leave it.
    if headers.contains_key(MCP_NAME_HEADER) || task_id.starts_with("=?") {
        return;
    }
    if let Ok(value) = header::HeaderValue::from_str(task_id) {
        headers.insert(MCP_NAME_HEADER, value);
    }
}

const MCP_NAME_HEADER: &str = "mcp-name";

/// The id of an `initialize` request.
fn initialize_id(message: &ClientJsonRpcMessage) -> Option<RequestId> {
    match message {
        ClientJsonRpcMessage::Request(request)
            if matches!(request.request, ClientRequest::InitializeRequest(_)) =>
        {
            Some(request.id.clone())
        }
        _ => None,
    }
}

/// Part of [`SessionsError::Full`]'s text, which rmcp puts into the body of its `500`.
const SESSION_LIMIT_MARK: &str = "phi-agent: session limit reached";

/// Why [`Sessions`] failed.
#[derive(Debug)]
enum SessionsError {
    /// At the cap (the cap is the payload).
    Full(usize),
    Local(LocalSessionManagerError),
}

impl fmt::Display for SessionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full(max) => write!(f, "{SESSION_LIMIT_MARK} ({max} live sessions)"),
            Self::Local(error) => fmt::Display::fmt(error, f),
        }
    }
}

impl std::error::Error for SessionsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Full(_) => None,
            Self::Local(error) => error.source(),
        }
    }
}

impl From<LocalSessionManagerError> for SessionsError {
    fn from(error: LocalSessionManagerError) -> Self {
        Self::Local(error)
    }
}

/// rmcp's in-memory sessions, at most `max` of them.
///
/// Idle expiry is rmcp's own: the session worker ends after its keep-alive without a message,
/// and rmcp then calls [`close_session`](SessionManager::close_session), which removes it here.
#[derive(Debug)]
struct Sessions {
    local: LocalSessionManager,
    max: usize,
    /// Held while a session is created, so that concurrent `initialize`s cannot both take the
    /// last slot.
    creating: tokio::sync::Mutex<()>,
}

impl Sessions {
    fn new(idle_timeout: Duration, max: usize) -> Self {
        let mut local = LocalSessionManager::default();
        local.session_config.keep_alive = Some(idle_timeout);
        Self {
            local,
            max,
            creating: tokio::sync::Mutex::new(()),
        }
    }

    async fn live(&self) -> usize {
        self.local.sessions.read().await.len()
    }
}

impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _creating = self.creating.lock().await;
        if self.live().await >= self.max {
            return Err(SessionsError::Full(self.max));
        }
        Ok(self.local.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.local.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.local.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.local.close_session(id).await?;
        // A hash map keeps its largest size: after a burst of sessions has expired, give the
        // memory back instead of holding room for the burst for ever.
        let mut sessions = self.local.sessions.write().await;
        if sessions.capacity() > 64 && sessions.len() * 4 < sessions.capacity() {
            let keep = sessions.len() * 2;
            sessions.shrink_to(keep);
        }
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(through_trait::create_stream(&self.local, id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.local.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(through_trait::create_standalone_stream(&self.local, id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(through_trait::resume(&self.local, id, last_event_id).await?)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.local.event_store()
    }
}

/// Calls into a session manager through [`SessionManager`]'s signatures, which promise `Sync`
/// streams; `LocalSessionManager`'s own method signatures state only `Send`, although its streams
/// are `Sync` too.
mod through_trait {
    use super::{ClientJsonRpcMessage, ServerSseMessage, SessionId, SessionManager, Stream};

    pub(super) async fn create_stream<M: SessionManager>(
        manager: &M,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, M::Error> {
        manager.create_stream(id, message).await
    }

    pub(super) async fn create_standalone_stream<M: SessionManager>(
        manager: &M,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, M::Error> {
        manager.create_standalone_stream(id).await
    }

    pub(super) async fn resume<M: SessionManager>(
        manager: &M,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, M::Error> {
        manager.resume(id, last_event_id).await
    }
}

async fn accept_loop(listener: TcpListener, endpoint: Arc<Endpoint>, stop: CancellationToken) {
    loop {
        let stream = tokio::select! {
            () = stop.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(error) => {
                    tracing::warn!(%error, "MCP HTTP server: accepting a connection failed");
                    continue;
                }
            },
        };
        // An answer goes out in several small writes (headers, then each event of a stream):
        // with Nagle's algorithm on, each waits for the client's delayed ACK, ~40 ms a call.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "MCP HTTP server: could not set TCP_NODELAY");
        }
        let endpoint = endpoint.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let endpoint = endpoint.clone();
                async move { Ok::<_, Infallible>(endpoint.handle(request).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(error) = result {
                        tracing::debug!(%error, "MCP HTTP connection ended with an error");
                    }
                }
                () = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
}

fn plain(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(message.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Compares without an early exit, so response timing does not reveal how much of a guessed
/// token was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

fn http_error(options: &HttpOptions, message: String) -> AgentError {
    AgentError::Mcp {
        server: format!("http {}", options.bind),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::constant_time_eq;

    #[test]
    fn token_comparison() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
        assert!(!constant_time_eq(b"", b"a"));
    }
}
