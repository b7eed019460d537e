//! Reaching a server over MCP's streamable HTTP (feature `mcp-http-client`): rmcp's transport on
//! the crate's [`HttpTransport`] (reqwest with rustls on ring, unless the options name another).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::AuthClient;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::address_policy::AddressPolicy;
use super::authorization::OAuthState;
use super::dpop::Dpop;
use super::dpop_http::TIMEOUT as OAUTH_TIMEOUT;
use super::oauth::McpOAuth;
use super::seam::SeamClient;
use crate::llm::{HttpTransport, ReqwestTransport};

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
    oauth: Option<McpOAuth>,
    http_transport: Option<Arc<dyn HttpTransport>>,
}

impl Default for McpHttpOptions {
    fn default() -> Self {
        Self {
            bearer_token: None,
            headers: Vec::new(),
            recover_expired_sessions: true,
            oauth: None,
            http_transport: None,
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

    /// Authorizes with OAuth 2.1 when the server asks (HTTP 401): see [`McpOAuth`]. The token
    /// then goes with every request in place of a [bearer token](Self::with_bearer_token), and
    /// is refreshed when it expires. Default: none.
    pub fn with_oauth(mut self, oauth: McpOAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Sends the connection's requests (every POST, the GET of the server's event stream, the
    /// DELETE that ends the session) through `transport`: a `Recorder` or `Replayer` of
    /// `phi-agent-eval` records the exchanges to a cassette or serves them back offline. With
    /// [OAuth](Self::with_oauth), the requests to the MCP server go through it with their
    /// token; OAuth's own requests (discovery, registration, tokens) stay on reqwest. Default:
    /// a [`ReqwestTransport`] of its own.
    pub fn with_http_transport(mut self, transport: Arc<dyn HttpTransport>) -> Self {
        self.http_transport = Some(transport);
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
            .field("oauth", &self.oauth)
            .field("http_transport", &self.http_transport)
            .finish()
    }
}

/// Everything needed to open a connection to one URL, again and again.
pub(super) struct HttpSpec {
    pub(super) url: Arc<str>,
    /// OAuth's client for the machine grants' token requests.
    client: reqwest::Client,
    /// The MCP requests' client, on the options' transport.
    mcp: SeamClient,
    options: McpHttpOptions,
    headers: HashMap<HeaderName, HeaderValue>,
    oauth: Option<OAuthState>,
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
        // The machine grants' token requests go to an endpoint the server's metadata names: held
        // to the addresses rmcp's own OAuth client allows (see `address_policy`).
        let client = AddressPolicy::for_server(url).client(true, OAUTH_TIMEOUT)?;
        let transport = match &options.http_transport {
            Some(transport) => transport.clone(),
            None => ReqwestTransport::shared().map_err(|e| e.to_string())?,
        };
        // One DPoP state for the token requests and the MCP requests: the nonces and the tokens
        // bound to the key are both sides' business.
        let dpop = (options.oauth.as_ref())
            .and_then(|oauth| oauth.dpop.clone())
            .map(|key| Arc::new(Dpop::new(key)));
        let mcp = SeamClient::new(transport, dpop.clone());
        let url: Arc<str> = Arc::from(url);
        let oauth = options
            .oauth
            .clone()
            .map(|config| OAuthState::new(config, url.clone(), dpop));
        Ok(Self {
            url,
            client,
            mcp,
            options,
            headers,
            oauth,
        })
    }

    /// Whether the server's 401 leads to an OAuth authorization.
    pub(super) fn has_oauth(&self) -> bool {
        self.oauth.is_some()
    }

    /// Authorizes as the server's `challenge` asks.
    pub(super) async fn authorize(&self, challenge: &str) -> Result<(), String> {
        match &self.oauth {
            Some(oauth) => oauth.authorize(&self.client, &self.mcp, challenge).await,
            None => Err("the server needs authorization".to_string()),
        }
    }

    /// The OAuth-authorized client to connect with, once there is one.
    pub(super) async fn authorized(&self) -> Result<Option<AuthClient<SeamClient>>, String> {
        match &self.oauth {
            Some(oauth) => oauth.client(&self.mcp).await,
            None => Ok(None),
        }
    }

    fn config(&self) -> StreamableHttpClientTransportConfig {
        StreamableHttpClientTransportConfig::with_uri(self.url.clone())
            .custom_headers(self.headers.clone())
            .reinit_on_expired_session(self.options.recover_expired_sessions)
    }

    /// A transport whose requests carry (and refresh) the OAuth token of `client`.
    pub(super) fn authorized_transport(
        &self,
        client: AuthClient<SeamClient>,
    ) -> StreamableHttpClientTransport<AuthClient<SeamClient>> {
        StreamableHttpClientTransport::with_client(client, self.config())
    }

    pub(super) fn transport(&self) -> Result<StreamableHttpClientTransport<SeamClient>, String> {
        let mut config = self.config();
        if let Some(token) = &self.options.bearer_token {
            config = config.auth_header(token.to_string());
        }
        Ok(StreamableHttpClientTransport::with_client(
            self.mcp.clone(),
            config,
        ))
    }
}
