//! What each HTTP request meets before rmcp's [`StreamableHttpService`]: the bearer token, the
//! endpoint's path, the session cap at `initialize`, and the screen of each POST body (see
//! [`screen`]), so that a malformed message gets its JSON-RPC error.

use std::convert::Infallible;
use std::sync::Arc;

use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode, header};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, RequestId};
use rmcp::transport::streamable_http_server::StreamableHttpService;

use super::card::CardRoute;
use super::direct::DirectRoute;
use super::sessions::{SESSION_LIMIT_MARK, Sessions};
use crate::mcp::McpServer;
use crate::mcp::server::screen::{Refusal, Screened, is_tool_call, screen};

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// The largest POST body read (rmcp's own default): a larger one gets `413`.
pub(super) const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The JSON-RPC code of the session-limit refusal: the first of the codes JSON-RPC 2.0 leaves
/// to implementations for server errors.
const SESSION_LIMIT_CODE: ErrorCode = ErrorCode(-32000);

/// The MCP endpoint of one server: rmcp's service, and what is checked before it.
pub(super) struct Endpoint {
    pub(super) service: StreamableHttpService<McpServer, Sessions>,
    /// The server, for the stateless calls answered without rmcp's transport.
    pub(super) server: McpServer,
    /// Where a stateless `tools/call` is answered here ([`direct`](super::direct)); `None` on a
    /// stateful server, whose calls belong to their sessions.
    pub(super) direct: Option<DirectRoute>,
    /// The Server Card, when the server serves one: public, so answered before the token.
    pub(super) card: Option<CardRoute>,
    pub(super) sessions: Arc<Sessions>,
    pub(super) path: String,
    pub(super) bearer_token: Option<Arc<str>>,
    pub(super) stateless: bool,
    /// The `Retry-After` of the session-limit refusal, in seconds.
    pub(super) retry_after: u64,
}

impl Endpoint {
    /// Answers one HTTP request.
    pub(super) async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        if let Some(card) = &self.card
            && let Some(response) = card.answer(request.method(), request.uri().path())
        {
            return response;
        }
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
        if let Some(route) = &self.direct
            && let Some((call, protocol)) = route.accept(&parts, &body)
        {
            return call.answer(&self.server, &protocol).await;
        }
        // A well-formed `tools/call` is handed on unread: it opens no session, and rmcp reads it.
        let initialize = if is_tool_call(&body) {
            None
        } else {
            match screen(&body) {
                Screened::Refuse(refusal) => {
                    tracing::debug!(?refusal, "MCP HTTP: answering a malformed message");
                    // A method the request's protocol version lacks is `404` (MCP 2026-07-28's
                    // HTTP transport, as rmcp answers one it reads); anything else is malformed.
                    let status = if refusal.error.code == ErrorCode::METHOD_NOT_FOUND {
                        StatusCode::NOT_FOUND
                    } else {
                        StatusCode::BAD_REQUEST
                    };
                    return self.answer(parts, status, &refusal, None).await;
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

    /// The refusal of an `initialize` beyond [`HttpOptions::with_max_sessions`](super::HttpOptions::with_max_sessions).
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

/// A plain-text answer with `status`.
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
