//! Serving a registry over MCP's streamable HTTP transport.
//!
//! rmcp's [`StreamableHttpService`] speaks the protocol and validates the `Host` and `Origin`
//! headers (the MCP specification requires `Origin` validation against DNS rebinding); this module
//! binds the socket (loopback unless told otherwise), checks the bearer token before a request
//! reaches rmcp, and runs the connections on hyper.

use std::convert::Infallible;
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode, header};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::McpServer;
use crate::error::{AgentError, AgentResult};
use crate::registry::ToolRegistry;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// Where and how [`serve_http`] listens.
///
/// The defaults are safe for a local server: bind to `127.0.0.1` on a free port, serve at
/// `/mcp`, accept only loopback `Host` headers, and refuse every request that carries an `Origin`
/// header (browsers send one; MCP clients that are programs do not). Allow a browser-based client
/// with [`allow_origin`](Self::allow_origin), and require a token with
/// [`bearer_token`](Self::bearer_token).
///
/// ```
/// use phi_agent::mcp::HttpOptions;
///
/// let options = HttpOptions::default()
///     .bind(([127, 0, 0, 1], 8808).into())
///     .bearer_token("s3cret")
///     .allow_origin("http://localhost:6274");
/// assert!(!format!("{options:?}").contains("s3cret"), "tokens are never printed");
/// ```
#[derive(Clone)]
pub struct HttpOptions {
    bind: SocketAddr,
    path: String,
    bearer_token: Option<Arc<str>>,
    allowed_origins: Vec<String>,
    allowed_hosts: Option<Vec<String>>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            bind: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            path: "/mcp".to_string(),
            bearer_token: None,
            allowed_origins: Vec::new(),
            allowed_hosts: None,
        }
    }
}

impl HttpOptions {
    /// The address to listen on. Default: `127.0.0.1:0` (a free port; see
    /// [`HttpServer::local_addr`]). Binding to a non-loopback address also needs
    /// [`allowed_hosts`](Self::allowed_hosts) and, outside a trusted network, a bearer token.
    pub fn bind(mut self, address: SocketAddr) -> Self {
        self.bind = address;
        self
    }

    /// The URL path of the MCP endpoint. Default: `/mcp`.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Requires `Authorization: Bearer <token>` on every request; others get 401 and reach no tool.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(Arc::from(token.into()));
        self
    }

    /// Accepts requests whose `Origin` is `origin` (scheme, host and port, e.g.
    /// `http://localhost:6274`; `:*` matches any port). Requests without an `Origin` header are
    /// always accepted; requests with any other `Origin` get 403.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins.push(origin.into());
        self
    }

    /// The `Host` header values accepted (`name` or `name:port`). Default: `localhost`,
    /// `127.0.0.1` and `::1`.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
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
            .finish()
    }
}

/// A running streamable HTTP server. Dropping it (or [`shutdown`](Self::shutdown)) stops it.
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    path: String,
    stop: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl HttpServer {
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
///
/// ```no_run
/// # async fn run(registry: phi_agent::registry::ToolRegistry) -> phi_agent::AgentResult<()> {
/// use phi_agent::mcp::{HttpOptions, serve_http};
///
/// let server = serve_http(registry, HttpOptions::default().bearer_token("s3cret")).await?;
/// println!("MCP endpoint: {}", server.url());
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
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_origins(options.allowed_origins.clone())
            .enforce_origin_validation()
            .with_cancellation_token(stop.child_token());
        if let Some(hosts) = &options.allowed_hosts {
            config = config.with_allowed_hosts(hosts.clone());
        }
        let service = StreamableHttpService::new(
            move || Ok(self.new_session()),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let endpoint = Arc::new(Endpoint {
            service,
            path: options.path.clone(),
            bearer_token: options.bearer_token.clone(),
        });
        let task = tokio::spawn(accept_loop(listener, endpoint, stop.clone()));
        Ok(HttpServer {
            local_addr,
            path: options.path,
            stop,
            task: Some(task),
        })
    }
}

struct Endpoint {
    service: StreamableHttpService<McpServer, LocalSessionManager>,
    path: String,
    bearer_token: Option<Arc<str>>,
}

impl Endpoint {
    async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        if !self.is_authorized(&request) {
            let mut response = plain(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send the header `Authorization: Bearer <token>` with the server's token",
            );
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
            return response;
        }
        if request.uri().path() != self.path {
            return plain(
                StatusCode::NOT_FOUND,
                &format!("Not found: the MCP endpoint is {}", self.path),
            );
        }
        self.service.handle(request).await
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
