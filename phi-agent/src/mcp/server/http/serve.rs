//! Binding the socket and running the connections on hyper: [`serve_http`] and the
//! [`HttpServer`] it returns.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::card::CardRoute;
use super::direct::DirectRoute;
use super::endpoint::{Endpoint, MAX_BODY_BYTES};
use super::options::HttpOptions;
use super::sessions::Sessions;
use crate::error::{AgentError, AgentResult};
use crate::mcp::McpServer;
use crate::registry::ToolRegistry;

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
    /// How many sessions are live now (always 0 in [`stateless`](HttpOptions::with_stateless) mode).
    /// A session counts from its `initialize` until the client deletes it, it idles out
    /// ([`HttpOptions::with_session_idle_timeout`]) or the server shuts down.
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
        let card = match &options.server_card {
            Some(card) => {
                // The address it listens on, unless that is every address (no URL to give).
                let url = (!local_addr.ip().is_unspecified())
                    .then(|| format!("http://{local_addr}{}", options.path));
                let route = CardRoute::new(card, &self.shared.implementation, &options.path, url)
                    .map_err(|message| http_error(&options, message))?;
                Some(route)
            }
            None => None,
        };
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
            .with_sse_retry(options.sse_retry)
            .with_cancellation_token(stop.child_token());
        if let Some(hosts) = &options.allowed_hosts {
            config = config.with_allowed_hosts(hosts.clone());
        }
        let sessions = Arc::new(Sessions::new(
            options.session_idle_timeout,
            options.max_sessions,
            options.sse_retry,
        ));
        let server = self.clone();
        let service =
            StreamableHttpService::new(move || Ok(self.new_session()), sessions.clone(), config);
        let direct = options.stateless.then(|| DirectRoute {
            allowed_hosts: options.allowed_hosts.clone(),
        });
        let endpoint = Arc::new(Endpoint {
            service,
            server,
            direct,
            card,
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

/// The `Retry-After` of the session-limit refusal: sessions free up when clients close them or
/// when idle ones expire, so a minute at most (sooner with a shorter idle timeout).
fn retry_after(idle_timeout: Duration) -> u64 {
    idle_timeout.min(Duration::from_secs(60)).as_secs().max(1)
}

/// Accepts connections until `stop`, each served on its own task.
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

/// An error of the server at `options`' address.
fn http_error(options: &HttpOptions, message: String) -> AgentError {
    AgentError::Mcp {
        server: format!("http {}", options.bind),
        message,
    }
}
