//! rmcp's streamable HTTP client over the crate's [`HttpTransport`] seam, so that the MCP
//! client's exchanges (its POSTs, the GET of its event stream, the DELETE that ends its session)
//! go through the same transport as the adapters' and can be recorded and replayed.
//!
//! The status codes mean what the protocol says: 401 and 403 with a `WWW-Authenticate`
//! challenge become rmcp's auth errors (the reauthorization and step-up flows read them), 404 on
//! a session is an expired session, 405 on the GET a server without an event stream, 429 and 5xx
//! keep their status and `Retry-After`. A body is read within rmcp's
//! [`StreamableHttpResponseLimits`], an event stream's events are bounded as they arrive.

use std::borrow::Cow;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::stream::BoxStream;
use futures_util::{Stream, StreamExt};
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorData, JsonRpcMessage, ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, InsufficientScopeError, SseError, StreamableHttpClient,
    StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::{Sse, SseStream};

use super::dpop::{Dpop, asks_for_nonce};
use crate::llm::{
    HttpBody, HttpError, HttpHeader, HttpMethod, HttpReply, HttpRequest, HttpTransport,
};

type Failure = StreamableHttpError<HttpError>;
type Events = BoxStream<'static, Result<Sse, SseError>>;

/// The headers a caller's own may not replace: the protocol's, which this client sets.
/// (`mcp-protocol-version` is not among them: rmcp sends it as a custom header.)
const RESERVED: &[&str] = &["accept", "mcp-session-id", "last-event-id"];

/// What stands in for an error body that could not be read.
const UNREADABLE: &str = "<the body could not be read>";

/// rmcp's [`StreamableHttpClient`] on an [`HttpTransport`] (reqwest's by default).
#[derive(Clone, Debug)]
pub(super) struct SeamClient {
    transport: Arc<dyn HttpTransport>,
    /// With DPoP, a token bound to the key goes as `DPoP <token>` with a proof per request.
    dpop: Option<Arc<Dpop>>,
}

impl SeamClient {
    pub(super) fn new(transport: Arc<dyn HttpTransport>, dpop: Option<Arc<Dpop>>) -> Self {
        Self { transport, dpop }
    }

    /// A `method` request to `uri` with the protocol's headers, then the caller's.
    fn request(
        &self,
        method: HttpMethod,
        uri: &str,
        session_id: Option<&str>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        body: Bytes,
    ) -> Result<HttpRequest, Failure> {
        let mut request = HttpRequest::new("mcp", uri, body).with_method(method);
        // A POST's or a GET's answer may be an event stream: read as it arrives (and recorded
        // chunk by chunk). A DELETE's is a status.
        request.stream = method != HttpMethod::Delete;
        let mut headers = Vec::new();
        if method != HttpMethod::Delete {
            headers.push(HttpHeader::new(
                "accept",
                "text/event-stream, application/json",
            ));
        }
        if method == HttpMethod::Post {
            headers.push(HttpHeader::new("content-type", "application/json"));
        }
        if let Some(token) = auth_token {
            let bound = self.dpop.as_ref().filter(|dpop| dpop.is_bound(&token));
            let scheme = if bound.is_some() { "DPoP" } else { "Bearer" };
            if let Some(dpop) = bound {
                let proof = dpop
                    .proof(method.as_str(), uri, Some(&token))
                    .map_err(|e| StreamableHttpError::Client(HttpError::fatal(e)))?;
                headers.push(HttpHeader::new("dpop", proof));
            }
            let mut header = HttpHeader::new("authorization", format!("{scheme} {token}"));
            header.sensitive = true;
            headers.push(header);
        }
        if let Some(id) = session_id {
            headers.push(HttpHeader::new("mcp-session-id", id));
        }
        // Sorted, so that the same request sends (and a cassette keeps) its headers in one order.
        let mut custom: Vec<_> = custom_headers.into_iter().collect();
        custom.sort_by(|(a, _), (b, _)| a.as_str().cmp(b.as_str()));
        for (name, value) in custom {
            if RESERVED.contains(&name.as_str()) {
                return Err(StreamableHttpError::ReservedHeaderConflict(
                    name.to_string(),
                ));
            }
            let mut header = HttpHeader::new(
                name.as_str(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            );
            header.sensitive = value.is_sensitive();
            headers.push(header);
        }
        request.headers = headers;
        Ok(request)
    }

    async fn send(&self, request: HttpRequest) -> Result<HttpReply, Failure> {
        self.transport
            .send(request)
            .await
            .map_err(StreamableHttpError::Client)
    }

    /// Sends the request `build` makes; with DPoP, keeps the nonce the server answers with and,
    /// when it refused the proof for want of a new one (RFC 9449 section 9), sends a new
    /// request (a fresh proof, with the nonce) once more.
    async fn exchange(
        &self,
        build: impl Fn() -> Result<HttpRequest, Failure>,
    ) -> Result<HttpReply, Failure> {
        let request = build()?;
        let uri = request.url.clone();
        let proved = header(&request.headers, "dpop").is_some();
        let reply = self.send(request).await?;
        let Some(dpop) = self.dpop.as_ref().filter(|_| proved) else {
            return Ok(reply);
        };
        let fresh = dpop.remember_nonce(&uri, header(&reply.headers, "dpop-nonce"));
        let challenge = header(&reply.headers, "www-authenticate");
        if !(fresh && asks_for_nonce(reply.status, challenge, b"")) {
            return Ok(reply);
        }
        // Read to its end, so that a recording keeps the exchange whole.
        read_prefix(reply.body, 4096).await;
        let reply = self.send(build()?).await?;
        dpop.remember_nonce(&uri, header(&reply.headers, "dpop-nonce"));
        Ok(reply)
    }
}

impl StreamableHttpClient for SeamClient {
    type Error = HttpError;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Failure> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Failure> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Failure> {
        let body = Bytes::from(serde_json::to_vec(&message)?);
        let attached = session_id.is_some();
        let reply = self
            .exchange(|| {
                self.request(
                    HttpMethod::Post,
                    &uri,
                    session_id.as_deref(),
                    auth_header.clone(),
                    custom_headers.clone(),
                    body.clone(),
                )
            })
            .await?;
        if let Some(refusal) = auth_refusal(&reply) {
            return Err(refusal);
        }
        let status = reply.status;
        if status == 202 || status == 204 {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == 404 && attached {
            return Err(StreamableHttpError::SessionExpired);
        }
        let content_type = header(&reply.headers, "content-type").map(str::to_owned);
        let is_json = content_type
            .as_deref()
            .is_some_and(|value| media_type_is(value, "application/json"));
        let is_events = content_type
            .as_deref()
            .is_some_and(|value| media_type_is(value, "text/event-stream"));
        let session = header(&reply.headers, "mcp-session-id").map(str::to_owned);
        // A notification, a reply or an error leaves no request waiting for an answer.
        let awaits_nothing = !matches!(message, ClientJsonRpcMessage::Request(_));
        let status_error = status_error(&reply);
        if !(200..300).contains(&status) {
            // A rate limit, or a failure that is not JSON, is its status: the body is not read.
            // A JSON failure may be a JSON-RPC error, worth more than the status.
            if (!is_json || status == 429)
                && let Some(error) = status_error
            {
                return Err(error.into());
            }
            let refused = status == 401 || status == 403;
            let text = if is_json && !refused {
                match read_bounded(reply.body, limits.max_json_response_size).await {
                    Ok(bytes) => {
                        let text = String::from_utf8_lossy(&bytes).into_owned();
                        if let Some(answer) = discover_rejection(&message, attached, status, &text)
                        {
                            return Ok(answer);
                        }
                        if let Ok(error @ JsonRpcMessage::Error(_)) =
                            serde_json::from_slice::<ServerJsonRpcMessage>(&bytes)
                        {
                            return Ok(StreamableHttpPostResponse::Json(error, session));
                        }
                        prefix(&text, limits.max_error_response_size)
                    }
                    Err(too_large @ StreamableHttpError::ResponseBodyTooLarge { .. }) => {
                        return Err(status_error.map_or(too_large, Into::into));
                    }
                    Err(StreamableHttpError::Client(_)) => UNREADABLE.to_string(),
                    Err(other) => return Err(other),
                }
            } else {
                read_prefix(reply.body, limits.max_error_response_size).await
            };
            if let Some(answer) = discover_rejection(&message, attached, status, &text) {
                return Ok(answer);
            }
            if let Some(error) = status_error {
                return Err(error.into());
            }
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!("HTTP {status}: {text}"),
            )));
        }
        if is_events {
            return Ok(StreamableHttpPostResponse::Sse(
                events(reply.body, limits.max_sse_event_size),
                session,
            ));
        }
        if is_json {
            let bytes = read_bounded(reply.body, limits.max_json_response_size).await?;
            return match serde_json::from_slice::<ServerJsonRpcMessage>(&bytes) {
                Ok(answer) => Ok(StreamableHttpPostResponse::Json(answer, session)),
                // Nothing waits for an answer: an empty or unusable body changes nothing.
                Err(_) if awaits_nothing => Ok(StreamableHttpPostResponse::Accepted),
                Err(error) => Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                    format!(
                        "the answer is not a JSON-RPC message ({error}): {}",
                        prefix(&String::from_utf8_lossy(&bytes), 256)
                    ),
                ))),
            };
        }
        // Servers that answer `notifications/initialized` with a bare 200 are common.
        if awaits_nothing {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        Err(StreamableHttpError::UnexpectedContentType(content_type))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Failure> {
        let reply = self
            .exchange(|| {
                self.request(
                    HttpMethod::Delete,
                    &uri,
                    Some(&*session_id),
                    auth_header.clone(),
                    custom_headers.clone(),
                    Bytes::new(),
                )
            })
            .await?;
        let status = reply.status;
        // Read to its end, so that a recording keeps the exchange whole.
        let text = read_prefix(reply.body, 4096).await;
        // A server that does not let clients end their sessions ends them itself.
        if status == 405 || (200..300).contains(&status) {
            return Ok(());
        }
        Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
            format!("HTTP {status} to the DELETE of the session: {text}"),
        )))
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<Events, Failure> {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default().max_sse_event_size,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<Events, Failure> {
        let reply = self
            .exchange(|| {
                let mut request = self.request(
                    HttpMethod::Get,
                    &uri,
                    session_id.as_deref(),
                    auth_header.clone(),
                    custom_headers.clone(),
                    Bytes::new(),
                )?;
                if let Some(id) = &last_event_id {
                    request
                        .headers
                        .push(HttpHeader::new("last-event-id", id.clone()));
                }
                Ok(request)
            })
            .await?;
        if reply.status == 405 {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if let Some(refusal) = auth_refusal(&reply) {
            return Err(refusal);
        }
        if let Some(error) = status_error(&reply) {
            return Err(error.into());
        }
        if !(200..300).contains(&reply.status) {
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
                format!("HTTP {} to the GET of the event stream", reply.status),
            )));
        }
        match header(&reply.headers, "content-type") {
            Some(value)
                if media_type_is(value, "text/event-stream")
                    || media_type_is(value, "application/json") =>
            {
                Ok(events(reply.body, max_sse_event_size))
            }
            other => Err(StreamableHttpError::UnexpectedContentType(
                other.map(str::to_owned),
            )),
        }
    }
}

/// The value of header `name` in `headers`.
fn header<'a>(headers: &'a [HttpHeader], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|header| header.name.eq_ignore_ascii_case(name))
        .map(|header| header.value.as_str())
}

/// Whether the `content-type` value `value` is `media` (parameters such as a charset aside).
fn media_type_is(value: &str, media: &str) -> bool {
    value
        .split(';')
        .next()
        .is_some_and(|kind| kind.trim().eq_ignore_ascii_case(media))
}

/// The `scope` parameter of a `Bearer` challenge (RFC 6750 section 3), quoted or not; empty
/// when there is none.
pub(super) fn challenge_scope(challenge: &str) -> &str {
    let mut rest = challenge;
    while let Some(at) = rest.find("scope=") {
        // A parameter name starts the header, or follows a space or a comma (not `xscope=`).
        let starts_a_name = at == 0 || matches!(rest.as_bytes()[at - 1], b' ' | b',' | b'\t');
        let value = &rest[at + "scope=".len()..];
        if starts_a_name {
            return match value.strip_prefix('"') {
                Some(quoted) => quoted.split('"').next().unwrap_or_default(),
                None => value.split([',', ' ']).next().unwrap_or_default(),
            };
        }
        rest = value;
    }
    ""
}

/// rmcp's auth error for a 401 or 403 that carries a challenge: the reauthorization and step-up
/// flows read the challenge from it.
fn auth_refusal(reply: &HttpReply) -> Option<Failure> {
    let challenge = header(&reply.headers, "www-authenticate")?.to_string();
    match reply.status {
        401 => Some(StreamableHttpError::AuthRequired(AuthRequiredError::new(
            challenge,
        ))),
        403 => {
            let scope = Some(challenge_scope(&challenge).to_string()).filter(|s| !s.is_empty());
            Some(StreamableHttpError::InsufficientScope(
                InsufficientScopeError::new(challenge, scope),
            ))
        }
        _ => None,
    }
}

/// The status of a rate limit (429) or a server failure (5xx), with its `Retry-After`.
fn status_error(reply: &HttpReply) -> Option<HttpStatusError> {
    (reply.status == 429 || (500..600).contains(&reply.status)).then(|| {
        HttpStatusError::new(
            reply.status,
            header(&reply.headers, "retry-after").map(str::to_owned),
        )
    })
}

/// A legacy server's refusal of `server/discover` (a 4xx without a session) as the JSON-RPC
/// error the handshake reads to fall back to `initialize`: the server's own error when the body
/// is one, and always with the probe's id, which a middleware's refusal cannot echo.
fn discover_rejection(
    message: &ClientJsonRpcMessage,
    attached: bool,
    status: u16,
    body: &str,
) -> Option<StreamableHttpPostResponse> {
    if attached || !(400..500).contains(&status) || status == 401 || status == 403 {
        return None;
    }
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    if !matches!(request.request, ClientRequest::DiscoverRequest(_)) {
        return None;
    }
    let error = match serde_json::from_str::<ServerJsonRpcMessage>(body) {
        Ok(JsonRpcMessage::Error(error)) => error.error,
        _ => ErrorData::invalid_request(
            format!("server/discover rejected with HTTP {status}: {body}"),
            None,
        ),
    };
    Some(StreamableHttpPostResponse::Json(
        ServerJsonRpcMessage::error(error, Some(request.id.clone())),
        None,
    ))
}

/// The whole of `body`, or [`ResponseBodyTooLarge`](StreamableHttpError::ResponseBodyTooLarge)
/// as soon as it passes `limit` bytes.
async fn read_bounded(mut body: HttpBody, limit: usize) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(StreamableHttpError::Client)?;
        if bytes.len() + chunk.len() > limit {
            return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: limit });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// At most `limit` bytes of `body`, as text, for a message: an error body is a diagnostic.
async fn read_prefix(mut body: HttpBody, limit: usize) -> String {
    let mut bytes = Vec::new();
    while bytes.len() < limit {
        match body.next().await {
            Some(Ok(chunk)) => {
                let room = limit - bytes.len();
                bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Some(Err(_)) => return UNREADABLE.to_string(),
            None => break,
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// At most `limit` bytes of `text`, cut on a character boundary.
fn prefix(text: &str, limit: usize) -> String {
    text[..crate::limits::floor_char_boundary(text, limit.min(text.len()))].to_string()
}

/// The server-sent events of `body`, none longer than `limit` bytes.
fn events(body: HttpBody, limit: usize) -> Events {
    SseStream::from_bytes_stream(EventBound::new(body, limit)).boxed()
}

/// A body passed on as it arrives, ended with an error once one event (the bytes between two
/// blank lines) passes its limit: a server that never ends an event cannot fill the memory.
struct EventBound {
    body: HttpBody,
    limit: usize,
    /// Bytes of the event so far.
    event: usize,
    /// Whether the line so far is empty (a blank line ends the event).
    line_empty: bool,
    /// Whether the last byte was a CR (a CR LF is one line end).
    after_cr: bool,
    done: bool,
}

impl EventBound {
    fn new(body: HttpBody, limit: usize) -> Self {
        Self {
            body,
            limit,
            event: 0,
            line_empty: true,
            after_cr: false,
            done: false,
        }
    }

    /// Counts `chunk`; false once an event is over the limit.
    fn count(&mut self, chunk: &[u8]) -> bool {
        for &byte in chunk {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\r' | b'\n' => {
                    self.after_cr = byte == b'\r';
                    if self.line_empty {
                        self.event = 0;
                    }
                    self.line_empty = true;
                }
                _ => {
                    self.after_cr = false;
                    self.line_empty = false;
                    self.event += 1;
                    if self.event > self.limit {
                        return false;
                    }
                }
            }
        }
        true
    }
}

impl Stream for EventBound {
    type Item = Result<Bytes, HttpError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let item = std::task::ready!(this.body.poll_next_unpin(cx));
        if let Some(Ok(chunk)) = &item
            && !this.count(chunk)
        {
            this.done = true;
            return Poll::Ready(Some(Err(HttpError::fatal(format!(
                "an event of the server's stream is over {} bytes",
                this.limit
            )))));
        }
        Poll::Ready(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn bound(limit: usize, chunks: &[&str]) -> Vec<Result<String, String>> {
        let body = futures_util::stream::iter(
            chunks
                .iter()
                .map(|chunk| Ok(Bytes::copy_from_slice(chunk.as_bytes())))
                .collect::<Vec<_>>(),
        )
        .boxed();
        EventBound::new(body, limit)
            .map(|item| {
                item.map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                    .map_err(|error| error.message)
            })
            .collect()
            .await
    }

    #[tokio::test]
    async fn an_event_over_its_limit_ends_the_stream_and_blank_lines_start_a_new_count() {
        // Two events of 10 bytes each, CR LF line ends: under a limit of 12 each.
        let fine = bound(12, &["data: abcd\r\n\r\n", "data: ef", "gh\r\n\r\n"]).await;
        assert!(fine.iter().all(Result::is_ok), "{fine:?}");
        let over = bound(12, &["data: abcd\n", "data: efgh\n\n"]).await;
        assert_eq!(over.len(), 2, "{over:?}");
        assert!(over[0].is_ok());
        assert!(over[1].as_ref().unwrap_err().contains("over 12 bytes"));
    }

    #[test]
    fn media_types_ignore_parameters_and_case() {
        assert!(media_type_is(
            "Application/JSON; charset=utf-8",
            "application/json"
        ));
        assert!(!media_type_is("application/jsonl", "application/json"));
    }
}
