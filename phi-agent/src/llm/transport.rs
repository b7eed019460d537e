//! The seam under the HTTP adapters: every request they send (plain or streamed, retries
//! included) goes through one [`HttpTransport`], reqwest's by default. Another transport can
//! stand in for it, to record the exchanges or to serve them back offline (`phi-agent-eval`'s
//! cassettes do both), without a middleware stack in the core.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::error::{AgentError, AgentResult};

/// One header of an [`HttpRequest`] or [`HttpReply`].
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpHeader {
    /// The name, lowercase.
    pub name: String,
    /// The value.
    pub value: String,
    /// Whether the value is a secret (an API key): `Debug` never shows it, and a transport
    /// that writes requests down must leave it out.
    pub sensitive: bool,
}

impl HttpHeader {
    /// A header that is no secret.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            name: name.into().to_ascii_lowercase(),
            value: value.into(),
            sensitive: false,
        }
    }
}

impl fmt::Debug for HttpHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value: &dyn fmt::Debug = if self.sensitive {
            &"<redacted>"
        } else {
            &self.value
        };
        f.debug_tuple("HttpHeader")
            .field(&self.name)
            .field(value)
            .finish()
    }
}

/// The method of an [`HttpRequest`]: the adapters POST; the MCP client also opens its event
/// stream with GET and ends its session with DELETE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum HttpMethod {
    /// `POST`, with a body.
    #[default]
    Post,
    /// `GET`, without a body.
    Get,
    /// `DELETE`, without a body.
    Delete,
}

impl HttpMethod {
    /// The method's name as HTTP spells it (`POST`, `GET`, `DELETE`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Post => "POST",
            Self::Get => "GET",
            Self::Delete => "DELETE",
        }
    }
}

impl fmt::Display for HttpMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request a client sends (an adapter's POST, or one of the MCP client's): every attempt of a
/// request is one (a retry sends it again).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpRequest {
    /// The adapter's provider name (`openai`, `anthropic`, ...; `mcp` for the MCP client), for
    /// messages.
    pub provider: &'static str,
    /// The method: [`HttpMethod::Post`] for every adapter.
    pub method: HttpMethod,
    /// The whole URL, query included.
    pub url: String,
    /// The headers, the key among them (marked [`sensitive`](HttpHeader::sensitive)).
    pub headers: Vec<HttpHeader>,
    /// The JSON body, exactly as sent (empty for a GET or a DELETE).
    pub body: Bytes,
    /// Whether the reply is a stream of server-sent events (read chunk by chunk, with no overall
    /// limit) rather than one JSON document.
    pub stream: bool,
}

impl HttpRequest {
    /// A POST of `body` to `url` for `provider`, without headers, its reply not streamed.
    pub fn new(provider: &'static str, url: impl Into<String>, body: Bytes) -> Self {
        Self {
            provider,
            method: HttpMethod::Post,
            url: url.into(),
            headers: Vec::new(),
            body,
            stream: false,
        }
    }

    /// This request sent with `method` instead.
    pub fn with_method(mut self, method: HttpMethod) -> Self {
        self.method = method;
        self
    }
}

/// The body of an [`HttpReply`], chunk by chunk as it arrives.
pub type HttpBody = BoxStream<'static, Result<Bytes, HttpError>>;

/// What a server answered: its status and headers at once, the body as it arrives.
#[non_exhaustive]
pub struct HttpReply {
    /// The HTTP status.
    pub status: u16,
    /// The headers (`retry-after` among them when the server asked for a wait).
    pub headers: Vec<HttpHeader>,
    /// The body.
    pub body: HttpBody,
}

impl HttpReply {
    /// A reply of `status` with `headers`, its body the chunks of `body`.
    pub fn new(status: u16, headers: Vec<HttpHeader>, body: HttpBody) -> Self {
        Self {
            status,
            headers,
            body,
        }
    }
}

impl fmt::Debug for HttpReply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpReply")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

/// Why a transport could not deliver a request or its reply.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct HttpError {
    /// What went wrong, for people.
    pub message: String,
    /// Whether another attempt may help (a broken connection may heal; a replayed request the
    /// cassette does not hold never will).
    pub retryable: bool,
}

impl HttpError {
    /// A failure another attempt may mend (the connection, a timeout).
    pub fn transient(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            retryable: true,
        }
    }

    /// A failure no retry mends.
    pub fn fatal(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            retryable: false,
        }
    }
}

/// Sends the HTTP requests of the adapters and of the MCP client (`with_http_transport` on each,
/// and `McpHttpOptions::with_http_transport`). Timeouts and
/// retries stay the adapter's ([`HttpConfig`](super::HttpConfig)): a transport sends one
/// attempt and hands the reply back as it comes.
///
/// [`ReqwestTransport`] is the default; a recorder wraps it, a replayer stands in for it.
#[async_trait]
pub trait HttpTransport: Send + Sync + fmt::Debug {
    /// Sends `request` and returns the reply once its status and headers are in.
    async fn send(&self, request: HttpRequest) -> Result<HttpReply, HttpError>;
}

/// The transport of the adapters by default: reqwest, with rustls on ring.
#[derive(Clone)]
pub struct ReqwestTransport {
    client: reqwest::Client,
}

impl fmt::Debug for ReqwestTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ReqwestTransport")
    }
}

impl ReqwestTransport {
    /// A transport with its own connection pool; an error if TLS cannot be set up.
    pub fn new() -> AgentResult<Self> {
        // reqwest is built without a crypto provider of its own (ring is lighter to build than
        // its default, aws-lc); a provider the program installed first is kept and used.
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // A lost race is fine: whichever provider was installed first serves every client.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        let client = reqwest::Client::builder()
            .user_agent(concat!("phi-agent/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|error| {
                AgentError::Config(format!(
                    "could not set up the HTTP client: {}",
                    error_chain(&error)
                ))
            })?;
        Ok(Self { client })
    }

    /// The shared default transport, as an [`HttpTransport`] to wrap.
    pub fn shared() -> AgentResult<Arc<dyn HttpTransport>> {
        Ok(Arc::new(Self::new()?))
    }
}

#[async_trait]
impl HttpTransport for ReqwestTransport {
    async fn send(&self, request: HttpRequest) -> Result<HttpReply, HttpError> {
        let method = match request.method {
            HttpMethod::Post => reqwest::Method::POST,
            HttpMethod::Get => reqwest::Method::GET,
            HttpMethod::Delete => reqwest::Method::DELETE,
        };
        let response = self
            .client
            .request(method, &request.url)
            .headers(header_map(&request.headers)?)
            .body(request.body)
            .send()
            .await
            .map_err(failure)?;
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| HttpHeader {
                name: name.as_str().to_string(),
                value: String::from_utf8_lossy(value.as_bytes()).into_owned(),
                sensitive: value.is_sensitive(),
            })
            .collect();
        Ok(HttpReply {
            status: response.status().as_u16(),
            headers,
            body: response
                .bytes_stream()
                .map(|chunk| chunk.map_err(failure))
                .boxed(),
        })
    }
}

/// reqwest's failure without its URL (a Gemini URL may carry a key), with its sources.
fn failure(error: reqwest::Error) -> HttpError {
    HttpError::transient(error_chain(&error.without_url()))
}

fn header_map(headers: &[HttpHeader]) -> Result<HeaderMap, HttpError> {
    let mut map = HeaderMap::with_capacity(headers.len());
    for header in headers {
        let name = HeaderName::from_bytes(header.name.as_bytes())
            .map_err(|_| HttpError::fatal(format!("`{}` is no header name", header.name)))?;
        let mut value = HeaderValue::from_str(&header.value).map_err(|_| {
            HttpError::fatal(format!(
                "the value of header `{}` has characters HTTP does not allow",
                header.name
            ))
        })?;
        value.set_sensitive(header.sensitive);
        map.append(name, value);
    }
    Ok(map)
}

// The adapters' helpers: a build with the MCP client alone has no use for them.
#[cfg_attr(
    not(any(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code)
)]
/// `headers` as a list, the sensitive flags kept.
pub(crate) fn header_list(headers: &HeaderMap) -> Vec<HttpHeader> {
    headers
        .iter()
        .map(|(name, value)| HttpHeader {
            name: name.as_str().to_string(),
            value: String::from_utf8_lossy(value.as_bytes()).into_owned(),
            sensitive: value.is_sensitive(),
        })
        .collect()
}

// The adapters' helpers: a build with the MCP client alone has no use for them.
#[cfg_attr(
    not(any(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code)
)]
/// The value of header `name` (lowercase) in `headers`.
pub(crate) fn header<'a>(headers: &'a [HttpHeader], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|header| header.name.eq_ignore_ascii_case(name))
        .map(|header| header.value.as_str())
}

/// An error with its sources, which reqwest keeps out of its own `Display`.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}
