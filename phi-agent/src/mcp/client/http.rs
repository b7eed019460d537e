//! Reaching a server over MCP's streamable HTTP (feature `mcp-http-client`): rmcp's transport on
//! reqwest, with rustls on ring as the rest of the crate.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

/// How [`McpClient::connect_http`](super::McpClient::connect_http) talks to a server: the
/// credentials and headers of every request, and what to do when a session expires.
///
/// The configuration idiom of the crate: `#[non_exhaustive]`, [`Default`], and a `with_*`
/// setter per field. The fields stay private because one is a secret, which `Debug` never prints.
///
/// ```
/// use phi_agent::mcp::McpHttpOptions;
///
/// let options = McpHttpOptions::default()
///     .with_bearer_token("s3cret")
///     .with_header("x-team", "search");
/// assert!(!format!("{options:?}").contains("s3cret"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct McpHttpOptions {
    bearer_token: Option<Arc<str>>,
    headers: Vec<(String, String)>,
    recover_expired_sessions: bool,
}

impl Default for McpHttpOptions {
    fn default() -> Self {
        Self {
            bearer_token: None,
            headers: Vec::new(),
            recover_expired_sessions: true,
        }
    }
}

impl McpHttpOptions {
    /// Sends `Authorization: Bearer <token>` with every request (a static token, such as an API
    /// key the server's operator issued). Default: none.
    pub fn with_bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(Arc::from(token.into()));
        self
    }

    /// Sends the header `name: value` with every request, besides those set before. A name or
    /// value HTTP does not allow is reported by `connect_http`.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Whether a call that the server answers with HTTP 404 (its session expired, or it
    /// restarted) opens a new session with the same handshake and is sent once more. A second
    /// 404 for that call is reported as the call's error, never retried again. Default: `true`.
    pub fn with_recover_expired_sessions(mut self, on: bool) -> Self {
        self.recover_expired_sessions = on;
        self
    }
}

impl fmt::Debug for McpHttpOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpHttpOptions")
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "<set>"))
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .map(|(name, _)| name)
                    .collect::<Vec<_>>(),
            )
            .field("recover_expired_sessions", &self.recover_expired_sessions)
            .finish()
    }
}

/// Everything needed to open a connection to one URL, again and again.
pub(super) struct HttpSpec {
    pub(super) url: Arc<str>,
    client: reqwest::Client,
    options: McpHttpOptions,
    headers: HashMap<HeaderName, HeaderValue>,
}

impl HttpSpec {
    pub(super) fn new(url: &str, options: McpHttpOptions) -> Result<Self, String> {
        let mut headers = HashMap::new();
        for (name, value) in &options.headers {
            let name = HeaderName::try_from(name.as_str())
                .map_err(|e| format!("the header name `{name}` is not valid HTTP: {e}"))?;
            let value = HeaderValue::try_from(value.as_str())
                .map_err(|e| format!("the value of the header `{name}` is not valid HTTP: {e}"))?;
            headers.insert(name, value);
        }
        // reqwest is built without a crypto provider of its own (ring is lighter to build than
        // its default, aws-lc); a provider the program installed first is kept and used.
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // A lost race is fine: whichever provider was installed first serves every client.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        let client = reqwest::Client::builder()
            .user_agent(concat!("phi-agent/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("could not set up the HTTP client: {e}"))?;
        Ok(Self {
            url: Arc::from(url),
            client,
            options,
            headers,
        })
    }

    pub(super) fn transport(
        &self,
    ) -> Result<StreamableHttpClientTransport<reqwest::Client>, String> {
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.clone())
            .custom_headers(self.headers.clone())
            .reinit_on_expired_session(self.options.recover_expired_sessions);
        if let Some(token) = &self.options.bearer_token {
            config = config.auth_header(token.to_string());
        }
        Ok(StreamableHttpClientTransport::with_client(
            self.client.clone(),
            config,
        ))
    }
}
