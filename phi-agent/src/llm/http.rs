//! The HTTP side of the provider adapters: one JSON POST with a timeout, bounded retries with
//! exponential backoff and jitter that honour `Retry-After` (or Google's `RetryInfo` in the error
//! body), and errors that quote the provider.
//!
//! API keys travel only in headers marked sensitive and are never formatted into errors or logs.

use std::borrow::Cow;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use super::lenient::{self, Listed};
use super::transport::{
    HttpBody, HttpError, HttpHeader, HttpMethod, HttpRequest, HttpTransport, ReqwestTransport,
    header, header_list,
};
use crate::error::{AgentError, AgentResult};
use crate::limits::snippet;

/// Timeout and retry policy of an HTTP adapter.
///
/// `#[non_exhaustive]`: start from [`HttpConfig::default`] and change fields with the `with_*`
/// setters; the fields stay public to read.
///
/// ```
/// use std::time::Duration;
/// use phi_agent::llm::HttpConfig;
/// let config = HttpConfig::default().with_max_retries(5);
/// assert_eq!(config.max_retries, 5);
/// assert_eq!(config.timeout, Duration::from_secs(120));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpConfig {
    /// Limit for one attempt, from sending the request to the end of the body (for a streamed
    /// reply, to its headers; see `stream_idle_timeout`). Default: 120 s.
    pub timeout: Duration,
    /// Retries after the first attempt, for 429, 500, 502, 503, 504, 529, timeouts and
    /// connection failures. Default: 3.
    pub max_retries: u32,
    /// Backoff before the first retry; it doubles with every retry. Default: 500 ms.
    pub initial_backoff: Duration,
    /// Longest backoff, and the longest `Retry-After` that is honoured as given. Default: 30 s.
    pub max_backoff: Duration,
    /// For streamed replies, which have no overall limit: the longest wait for the next event
    /// (`timeout` still bounds the wait for the response's headers). Default: 60 s.
    pub stream_idle_timeout: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(120),
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            stream_idle_timeout: Duration::from_secs(60),
        }
    }
}

impl HttpConfig {
    /// This configuration with [`timeout`](Self::timeout) set to `timeout`.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// This configuration with [`max_retries`](Self::max_retries) set to `retries`.
    pub fn with_max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// This configuration with [`initial_backoff`](Self::initial_backoff) set to `backoff`.
    pub fn with_initial_backoff(mut self, backoff: Duration) -> Self {
        self.initial_backoff = backoff;
        self
    }

    /// This configuration with [`max_backoff`](Self::max_backoff) set to `backoff`.
    pub fn with_max_backoff(mut self, backoff: Duration) -> Self {
        self.max_backoff = backoff;
        self
    }

    /// This configuration with [`stream_idle_timeout`](Self::stream_idle_timeout) set to
    /// `timeout`.
    pub fn with_stream_idle_timeout(mut self, timeout: Duration) -> Self {
        self.stream_idle_timeout = timeout;
        self
    }

    /// The wait before retry number `retry` (0 for the first retry): the server's `Retry-After`
    /// when it gave one no longer than `max_backoff`, otherwise exponential backoff with jitter
    /// (between half and all of `initial_backoff * 2^retry`, capped at `max_backoff`).
    pub(crate) fn retry_delay(
        &self,
        retry: u32,
        retry_after: Option<Duration>,
        jitter: f64,
    ) -> Duration {
        if let Some(wait) = retry_after.filter(|wait| *wait <= self.max_backoff) {
            return wait;
        }
        let exponential = self
            .initial_backoff
            .saturating_mul(2u32.saturating_pow(retry.min(31)))
            .min(self.max_backoff);
        exponential.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
    }
}

/// Whether a status is worth another attempt (rate limits, overload, gateway trouble).
pub(crate) fn is_retryable(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504 | 529)
}

/// Whether a status says the request was served.
pub(crate) fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// The wait a server asked for: `retry-after-ms`, or `Retry-After` in (possibly fractional)
/// seconds or as an HTTP date (the wait until then; a date already past means no wait).
pub(crate) fn retry_after(headers: &[HttpHeader]) -> Option<Duration> {
    retry_after_at(headers, SystemTime::now())
}

fn retry_after_at(headers: &[HttpHeader], now: SystemTime) -> Option<Duration> {
    let text = |name: &str| Some(header(headers, name)?.trim());
    let number = |name: &str| text(name)?.parse::<f64>().ok();
    let seconds = match number("retry-after-ms") {
        Some(ms) => ms / 1000.0,
        None => match number("retry-after") {
            Some(seconds) => seconds,
            None => {
                let date = httpdate::parse_http_date(text("retry-after")?).ok()?;
                return Some(date.duration_since(now).unwrap_or(Duration::ZERO));
            }
        },
    };
    // `try_`: a huge or negative value from the network must not panic.
    Duration::try_from_secs_f64(seconds).ok()
}

/// The wait an error body asked for, Google's way (Gemini sends no `Retry-After`): a
/// `google.rpc.RetryInfo` among `error.details`, whose `retryDelay` is a protobuf `Duration` in
/// JSON, seconds with an `s` (`"33s"`, `"0.5s"`).
fn body_retry_delay(bytes: &[u8]) -> Option<Duration> {
    let body: WireError = serde_json::from_slice(bytes).ok()?;
    let delay = body
        .error?
        .details
        .array()?
        .into_iter()
        .filter(|detail| {
            detail
                .kind
                .as_deref()
                .is_some_and(|kind| kind.ends_with("google.rpc.RetryInfo"))
        })
        .find_map(|detail| detail.retry_delay)?;
    let seconds: f64 = delay.trim().strip_suffix('s')?.parse().ok()?;
    Duration::try_from_secs_f64(seconds).ok()
}

/// An error as the providers write it, in an error body or an error event of a stream: under
/// `error`, or (some compatible servers, Anthropic's stream events) at the top level; its kind
/// in `type` (OpenAI, Anthropic) or `status` (Google), its `code` a string (OpenAI) or the HTTP
/// status (Google).
// Each adapter reads its part of it: a build with one adapter leaves the rest unread.
#[cfg_attr(
    not(all(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code)
)]
#[derive(serde::Deserialize, Default)]
pub(crate) struct WireError<'a> {
    #[serde(default, borrow)]
    pub(crate) error: Option<Box<WireError<'a>>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    pub(crate) message: Option<Cow<'a, str>>,
    #[serde(default, borrow, rename = "type", deserialize_with = "lenient::text")]
    pub(crate) kind: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    pub(crate) status: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(crate) code: ErrorCode<'a>,
    /// Google's `google.rpc.Status` details (`RetryInfo` among them).
    #[serde(default, borrow)]
    details: Listed<ErrorDetail<'a>>,
}

/// An error's `code`: OpenAI's name for it, or Google's HTTP status.
// Each adapter reads its part of it: a build with one adapter leaves the rest unread.
#[cfg_attr(
    not(all(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code)
)]
#[derive(serde::Deserialize, Default)]
#[serde(untagged)]
pub(crate) enum ErrorCode<'a> {
    Name(#[serde(borrow)] Cow<'a, str>),
    Status(u64),
    #[default]
    #[serde(skip)]
    Absent,
    /// `null`, or a value of another type.
    Other(serde::de::IgnoredAny),
}

// Each adapter reads its part of it: a build with one adapter leaves the rest unread.
#[cfg_attr(
    not(all(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code)
)]
impl ErrorCode<'_> {
    /// The code as a name, if it is one.
    pub(crate) fn name(&self) -> Option<&str> {
        match self {
            ErrorCode::Name(name) => Some(name),
            _ => None,
        }
    }
}

/// One of `error.details`.
#[derive(serde::Deserialize)]
struct ErrorDetail<'a> {
    #[serde(default, borrow, rename = "@type", deserialize_with = "lenient::text")]
    kind: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        rename = "retryDelay",
        deserialize_with = "lenient::text"
    )]
    retry_delay: Option<Cow<'a, str>>,
}

impl<'a> WireError<'a> {
    /// The error object itself: `error` if there is one, else the body.
    pub(crate) fn inner(self) -> WireError<'a> {
        match self.error {
            Some(error) => *error,
            None => self,
        }
    }

    /// `kind: message` (the kind from `type`, else `status`), or the message alone.
    pub(crate) fn describe(&self) -> Option<String> {
        let message = self.message.as_deref()?;
        Some(match self.kind.as_deref().or(self.status.as_deref()) {
            Some(kind) => format!("{kind}: {message}"),
            None => message.to_string(),
        })
    }
}

/// A uniform number in `[0, 1)` from the standard library's per-process random hash keys.
pub(crate) fn jitter() -> f64 {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0);
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

/// An API key. Its `Debug` never shows it.
#[derive(Clone)]
pub(crate) struct ApiKey(String);

impl ApiKey {
    pub(crate) fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// A header value carrying `prefix` + key, marked sensitive so that it is never printed.
    pub(crate) fn header(&self, prefix: &str) -> AgentResult<HeaderValue> {
        let mut value = HeaderValue::from_str(&format!("{prefix}{}", self.0)).map_err(|_| {
            AgentError::Config(
                "the API key contains characters that cannot go in an HTTP header".into(),
            )
        })?;
        value.set_sensitive(true);
        Ok(value)
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"<redacted>\"")
    }
}

/// A provider's JSON endpoint with the retry policy around it.
#[derive(Clone)]
pub(crate) struct JsonPoster {
    /// Reqwest's unless the program set another (`with_http_transport`).
    pub(crate) transport: Arc<dyn HttpTransport>,
    pub(crate) provider: &'static str,
    pub(crate) config: HttpConfig,
}

impl fmt::Debug for JsonPoster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonPoster")
            .field("provider", &self.provider)
            .field("config", &self.config)
            .field("transport", &self.transport)
            .finish()
    }
}

impl JsonPoster {
    pub(crate) fn new(provider: &'static str) -> AgentResult<Self> {
        let transport = ReqwestTransport::new().map_err(|error| match error {
            AgentError::Config(message) => AgentError::Config(format!("{provider}: {message}")),
            other => other,
        })?;
        Ok(Self {
            transport: Arc::new(transport),
            provider,
            config: HttpConfig::default(),
        })
    }

    /// One attempt of a POST of `body` to `url`, as the transport gets it.
    pub(crate) fn request(
        &self,
        url: &str,
        headers: &HeaderMap,
        body: &bytes::Bytes,
        stream: bool,
    ) -> HttpRequest {
        let mut list = header_list(headers);
        list.push(HttpHeader::new("content-type", "application/json"));
        if stream {
            list.push(HttpHeader::new("accept", "text/event-stream"));
        }
        HttpRequest {
            provider: self.provider,
            method: HttpMethod::Post,
            url: url.to_string(),
            headers: list,
            body: body.clone(),
            stream,
        }
    }

    /// POSTs `body` to `url` and returns the parsed JSON of a 2xx answer, retrying as configured.
    pub(crate) async fn post(
        &self,
        url: &str,
        headers: &HeaderMap,
        body: &(impl serde::Serialize + Sync),
    ) -> AgentResult<Value> {
        // Shared by every attempt: reqwest takes a body by value, and a copy per attempt would
        // cost as much as serializing it (hundreds of kilobytes with a thousand tools).
        let body = bytes::Bytes::from(serde_json::to_vec(body).map_err(AgentError::Output)?);
        let mut retry = 0;
        loop {
            let outcome = self.attempt(url, headers, &body).await;
            let wait = match outcome {
                Attempt::Done(result) => return result,
                Attempt::Retry { error, retry_after } if retry < self.config.max_retries => {
                    let wait = self.config.retry_delay(retry, retry_after, jitter());
                    tracing::warn!(
                        provider = self.provider,
                        attempt = retry + 1,
                        wait_ms = wait.as_millis() as u64,
                        error = %error,
                        "retrying the model request"
                    );
                    wait
                }
                Attempt::Retry { error, .. } => return Err(self.give_up(error, retry + 1)),
            };
            tokio::time::sleep(wait).await;
            retry += 1;
        }
    }

    async fn attempt(&self, url: &str, headers: &HeaderMap, body: &bytes::Bytes) -> Attempt {
        let request = self.request(url, headers, body, false);
        let timeout = self.config.timeout;
        let exchange = async {
            let reply = self.transport.send(request).await?;
            let bytes = read_body(reply.body).await?;
            Ok::<_, HttpError>((reply.status, reply.headers, bytes))
        };
        let (status, reply_headers, bytes) = match tokio::time::timeout(timeout, exchange).await {
            Err(_) => {
                return Attempt::Retry {
                    error: AgentError::Http {
                        provider: self.provider,
                        message: format!("no complete answer within the timeout of {timeout:?}"),
                    },
                    retry_after: None,
                };
            }
            Ok(Err(error)) => return self.transport_failure(error),
            Ok(Ok(parts)) => parts,
        };
        let wait = retry_after(&reply_headers);
        if is_success(status) {
            return Attempt::Done(self.parse(&bytes).map_err(|error| match error {
                AgentError::InvalidResponse { provider, message } => AgentError::InvalidResponse {
                    provider,
                    message: redact_secrets(message, headers),
                },
                other => other,
            }));
        }
        // A proxy or a misconfigured server may echo the request's key in its error body.
        let error = AgentError::Provider {
            provider: self.provider,
            status,
            message: redact_secrets(provider_message(&bytes), headers),
        };
        if is_retryable(status) {
            Attempt::Retry {
                error,
                retry_after: wait.or_else(|| body_retry_delay(&bytes)),
            }
        } else {
            Attempt::Done(Err(error))
        }
    }

    pub(crate) fn transport_failure(&self, error: HttpError) -> Attempt {
        let failure = AgentError::Http {
            provider: self.provider,
            message: error.message,
        };
        if error.retryable {
            Attempt::Retry {
                error: failure,
                retry_after: None,
            }
        } else {
            Attempt::Done(Err(failure))
        }
    }

    pub(crate) fn give_up(&self, error: AgentError, attempts: u32) -> AgentError {
        match error {
            AgentError::Http { provider, message } if attempts > 1 => AgentError::Http {
                provider,
                message: format!("{message} (gave up after {attempts} attempts)"),
            },
            other => other,
        }
    }

    fn parse(&self, bytes: &[u8]) -> AgentResult<Value> {
        parse_json(self.provider, bytes)
    }
}

/// A 2xx body as JSON, or an error that says whether it was cut short or not JSON at all.
pub(crate) fn parse_json(provider: &'static str, bytes: &[u8]) -> AgentResult<Value> {
    serde_json::from_slice(bytes).map_err(|error| {
        let what = if error.is_eof() {
            "the body ended in the middle of the JSON (truncated)"
        } else {
            "the body is not valid JSON"
        };
        AgentError::InvalidResponse {
            provider,
            message: format!("{what}: {error}; body starts with {:?}", snippet(bytes)),
        }
    })
}

pub(crate) enum Attempt {
    Done(AgentResult<Value>),
    Retry {
        error: AgentError,
        retry_after: Option<Duration>,
    },
}

/// What the provider said in an error body: `error.message` (with `error.type` when given), or
/// the start of the body when it is not the usual JSON.
pub(crate) fn provider_message(bytes: &[u8]) -> String {
    let said = serde_json::from_slice::<WireError>(bytes)
        .ok()
        .and_then(|body| body.inner().describe());
    match said {
        Some(message) => message,
        None if bytes.is_empty() => "(empty body)".to_string(),
        None => snippet(bytes),
    }
}

/// `text` with every secret of `headers` (the values marked sensitive, and their last word, the
/// token after `Bearer `) replaced by `<redacted>`. Values shorter than 8 bytes are left alone:
/// they are no real keys, and replacing them would garble the message.
pub(crate) fn redact_secrets(mut text: String, headers: &HeaderMap) -> String {
    for value in headers.values().filter(|value| value.is_sensitive()) {
        let Ok(value) = value.to_str() else { continue };
        let token = value.rsplit(' ').next().unwrap_or(value);
        for secret in [value, token] {
            if secret.len() >= 8 && text.contains(secret) {
                text = text.replace(secret, "<redacted>");
            }
        }
    }
    text
}

/// A whole body, its chunks joined.
async fn read_body(mut body: HttpBody) -> Result<bytes::Bytes, HttpError> {
    let mut whole = bytes::BytesMut::new();
    while let Some(chunk) = body.next().await {
        whole.extend_from_slice(&chunk?);
    }
    Ok(whole.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_jitter_and_is_capped() {
        let config = HttpConfig {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1000),
            ..HttpConfig::default()
        };
        assert_eq!(config.retry_delay(0, None, 1.0), Duration::from_millis(100));
        assert_eq!(config.retry_delay(0, None, 0.0), Duration::from_millis(50));
        assert_eq!(config.retry_delay(2, None, 1.0), Duration::from_millis(400));
        assert_eq!(
            config.retry_delay(10, None, 1.0),
            Duration::from_millis(1000)
        );
        assert_eq!(
            config.retry_delay(u32::MAX, None, 1.0),
            Duration::from_millis(1000)
        );
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_cap() {
        let config = HttpConfig {
            max_backoff: Duration::from_secs(10),
            ..HttpConfig::default()
        };
        let asked = Some(Duration::from_secs(3));
        assert_eq!(config.retry_delay(0, asked, 0.0), Duration::from_secs(3));
        let too_long = Some(Duration::from_secs(3600));
        assert!(config.retry_delay(0, too_long, 1.0) <= Duration::from_secs(10));
    }

    #[test]
    fn retry_after_dates_become_the_wait_until_then() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        let date = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        let before = date - Duration::from_secs(7);
        assert_eq!(
            retry_after_at(&header_list(&headers), before),
            Some(Duration::from_secs(7))
        );
        let after = date + Duration::from_secs(60);
        assert_eq!(
            retry_after_at(&header_list(&headers), after),
            Some(Duration::ZERO),
            "a date already past: retry now"
        );
    }

    #[test]
    fn retry_after_headers_are_read() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&header_list(&headers)), None);
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(
            retry_after(&header_list(&headers)),
            Some(Duration::from_secs(2))
        );
        headers.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(
            retry_after(&header_list(&headers)),
            Some(Duration::from_millis(250))
        );
        headers.remove("retry-after-ms");
        for nonsense in ["-1", "1e300", "NaN", "inf", "Someday, 99 Foo 2015", ""] {
            headers.insert("retry-after", HeaderValue::from_static(nonsense));
            assert_eq!(retry_after(&header_list(&headers)), None, "{nonsense}");
        }
    }

    #[test]
    fn retry_info_in_a_google_error_body_is_read() {
        let body = |delay: &str| {
            format!(
                r#"{{"error": {{"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [
                    {{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []}},
                    {{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "{delay}"}}
                ]}}}}"#
            )
        };
        assert_eq!(
            body_retry_delay(body("33s").as_bytes()),
            Some(Duration::from_secs(33))
        );
        assert_eq!(
            body_retry_delay(body("0.25s").as_bytes()),
            Some(Duration::from_millis(250))
        );
        for nonsense in ["33", "-1s", "1e400s", "soon"] {
            assert_eq!(
                body_retry_delay(body(nonsense).as_bytes()),
                None,
                "{nonsense}"
            );
        }
        assert_eq!(body_retry_delay(b"rate limited"), None);
        assert_eq!(body_retry_delay(br#"{"error": {"message": "x"}}"#), None);
    }

    #[test]
    fn jitter_stays_in_range() {
        for _ in 0..100 {
            let value = jitter();
            assert!((0.0..1.0).contains(&value), "{value}");
        }
    }

    #[test]
    fn provider_messages_are_quoted() {
        let openai = br#"{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}"#;
        assert_eq!(
            provider_message(openai),
            "invalid_request_error: Incorrect API key"
        );
        let anthropic =
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(provider_message(anthropic), "overloaded_error: Overloaded");
        let gemini =
            br#"{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}"#;
        assert_eq!(
            provider_message(gemini),
            "RESOURCE_EXHAUSTED: Quota exceeded"
        );
        assert_eq!(
            provider_message(b"<html>Bad Gateway</html>"),
            "<html>Bad Gateway</html>"
        );
        assert_eq!(provider_message(b""), "(empty body)");
    }

    #[test]
    fn secrets_echoed_by_a_server_are_redacted() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "authorization",
            ApiKey::new("sk-echoed-123").header("Bearer ").unwrap(),
        );
        headers.insert("x-api-key", ApiKey::new("short").header("").unwrap());
        headers.insert("x-visible", HeaderValue::from_static("not-a-secret-value"));
        let shown = redact_secrets(
            "bad key sk-echoed-123 in `Bearer sk-echoed-123`; short; not-a-secret-value".into(),
            &headers,
        );
        assert_eq!(
            shown,
            "bad key <redacted> in `<redacted>`; short; not-a-secret-value"
        );
    }

    #[test]
    fn keys_are_redacted() {
        let key = ApiKey::new("sk-secret-123");
        assert!(!format!("{key:?}").contains("secret"));
        let header = key.header("Bearer ").unwrap();
        assert!(header.is_sensitive());
        assert!(!format!("{header:?}").contains("secret"));
    }
}
