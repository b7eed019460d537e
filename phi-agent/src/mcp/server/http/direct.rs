//! The stateless `tools/call` answered here on hyper, without rmcp's transport: its checks of
//! the request's headers and body, and the writing of its answer.
//!
//! rmcp's stateless path reads the body into its message enum (serde's untagged variants, each
//! failed try building an error), opens a one-shot service with its own task and peer for the
//! request, and serializes what comes back: most of what a small call costs above HTTP and
//! JSON. A request takes this path only when every check rmcp would make certainly passes, so
//! that its answer is the one rmcp gives; anything else (another method, a `_meta`, an
//! `Origin`, a header in a form not read here, a stateful server) goes to rmcp as before:
//! - the body is a call in plain JSON ([`is_plain_call`]): no `_meta`, no other params;
//! - `Host` names an allowed host, and there is no `Origin` (a browser's request is left to
//!   rmcp's origin check);
//! - `Accept` lists both `application/json` and `text/event-stream` (rmcp's rule);
//! - `MCP-Protocol-Version` is absent or a version before 2026-07-28 (from that revision on a
//!   call carries `_meta`, and may be answered in rounds);
//! - no `Mcp-Method` or `Mcp-Name` header (SEP-2243's, which rmcp checks against the body).
//!
//! SEP-2243's `Mcp-Param-*` headers (a tool's `x-mcp-header` arguments) need no look here:
//! they exist from 2026-07-28 on, which this path never answers, and rmcp reads none on an
//! earlier revision either; so a call here is answered as rmcp would answer it, and a tool
//! without annotations costs nothing more on either path.

use std::convert::Infallible;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::http::request::Parts;
use hyper::{Response, StatusCode, header};
use rmcp::model::{JsonObject, ProtocolVersion, RequestId, ServerJsonRpcMessage};
use serde::Deserialize;

use crate::mcp::McpServer;
use crate::mcp::server::plain_call::is_plain_call;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// The hosts rmcp allows when the server names none (its own default).
const DEFAULT_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// A `tools/call` read from a plain body: what the call needs, nothing else.
#[derive(Deserialize)]
pub(super) struct DirectCall {
    id: RequestId,
    params: CallParams,
}

#[derive(Deserialize)]
struct CallParams {
    name: String,
    arguments: Option<JsonObject>,
}

/// What the transport knows of the server that a direct call checks against.
pub(super) struct DirectRoute {
    /// The hosts `Host` may name (`None`: rmcp's default loopback names).
    pub(super) allowed_hosts: Option<Vec<String>>,
}

impl DirectRoute {
    /// The call in `body`, with the protocol version it is on, when the request can be
    /// answered here (see the module docs); `None` sends it to rmcp.
    pub(super) fn accept(
        &self,
        parts: &Parts,
        body: &[u8],
    ) -> Option<(DirectCall, ProtocolVersion)> {
        let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
        if !is_plain_call(body) {
            return None;
        }
        let headers = &parts.headers;
        if parts.uri.authority().is_some()
            || headers.contains_key(header::ORIGIN)
            || headers.contains_key("mcp-method")
            || headers.contains_key("mcp-name")
            || !self.host_is_allowed(headers)
            || !accepts_json_and_events(headers)
        {
            return None;
        }
        let protocol = legacy_protocol(headers)?;
        // The scan said rmcp reads a call; this reads the same text into the few fields used.
        let call = serde_json::from_slice::<DirectCall>(body).ok()?;
        Some((call, protocol))
    }

    /// Whether the one `Host` header names an allowed host, as rmcp compares them: the name
    /// case-insensitively without brackets, and the port where the allowed entry names one.
    fn host_is_allowed(&self, headers: &header::HeaderMap) -> bool {
        let mut hosts = headers.get_all(header::HOST).iter();
        let (Some(host), None) = (hosts.next(), hosts.next()) else {
            return false;
        };
        let Some(host) = host
            .to_str()
            .ok()
            .and_then(|host| host.parse::<hyper::http::uri::Authority>().ok())
        else {
            return false;
        };
        if host.as_str().contains('@') {
            return false;
        }
        let name = normalize(host.host());
        let port = host.port_u16();
        let allowed = |entry: &str| {
            let entry = entry.trim();
            match entry.parse::<hyper::http::uri::Authority>() {
                Ok(authority) => {
                    normalize(authority.host()) == name
                        && authority.port_u16().is_none_or(|want| port == Some(want))
                }
                Err(_) => normalize(entry) == name,
            }
        };
        match &self.allowed_hosts {
            // An empty list allows every host (rmcp's rule).
            Some(hosts) => hosts.is_empty() || hosts.iter().any(|entry| allowed(entry)),
            None => DEFAULT_HOSTS.iter().any(|entry| allowed(entry)),
        }
    }
}

fn normalize(host: &str) -> String {
    host.trim_matches(['[', ']']).to_ascii_lowercase()
}

/// Whether `Accept` lists both media types in the plain forms clients send (`a, b` with
/// optional `;q=` weights other than zero); any other form is left to rmcp's own reading.
fn accepts_json_and_events(headers: &header::HeaderMap) -> bool {
    let (mut json, mut events) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        if value.contains('"') {
            return false;
        }
        for entry in value.split(',') {
            let mut parts = entry.split(';');
            let essence = parts.next().unwrap_or_default().trim();
            let zero = parts.any(|parameter| {
                parameter.split_once('=').is_some_and(|(name, weight)| {
                    name.trim().eq_ignore_ascii_case("q") && is_zero_weight(weight.trim())
                })
            });
            if zero {
                continue;
            }
            json |= essence.eq_ignore_ascii_case("application/json");
            events |= essence.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && events
}

/// Whether a `q` weight excludes its media type: `0`, or `0.` with up to three zeros (RFC 9110
/// §12.4.2; rmcp ignores a weight outside that grammar, and so does this).
fn is_zero_weight(weight: &str) -> bool {
    let (whole, fraction) = weight.split_once('.').unwrap_or((weight, ""));
    whole == "0" && fraction.len() <= 3 && fraction.bytes().all(|digit| digit == b'0')
}

/// The protocol version of a request without `_meta`: its `MCP-Protocol-Version` header, or
/// 2025-03-26 without one (rmcp's reading); `None` for 2026-07-28 and later, or any value
/// rmcp would refuse or read otherwise.
fn legacy_protocol(headers: &header::HeaderMap) -> Option<ProtocolVersion> {
    let mut values = headers.get_all("mcp-protocol-version").iter();
    let Some(value) = values.next() else {
        return Some(ProtocolVersion::V_2025_03_26);
    };
    if values.next().is_some() {
        return None;
    }
    let version = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|known| known.as_str().as_bytes() == value.as_bytes())?;
    (version.as_str() < ProtocolVersion::V_2026_07_28.as_str()).then(|| version.clone())
}

impl DirectCall {
    /// Runs the call on a fresh session of `server` (a stateless request's, as rmcp makes one)
    /// and writes the answer: plain JSON, or an event stream when the call sent notifications
    /// first (as rmcp's JSON-response mode falls back to one).
    pub(super) async fn answer(
        self,
        server: &McpServer,
        protocol: &ProtocolVersion,
    ) -> Response<Body> {
        let answer = server
            .new_session()
            .serve_direct_call(self.id, &self.params.name, self.params.arguments, protocol)
            .await;
        if answer.notifications.is_empty() {
            return match serde_json::to_vec(&answer.response) {
                Ok(body) => with_type(body, "application/json"),
                Err(error) => unwritable(&error),
            };
        }
        let mut body = Vec::new();
        for message in answer.notifications.iter().chain([&answer.response]) {
            if let Err(error) = write_event(&mut body, message) {
                return unwritable(&error);
            }
        }
        let mut response = with_type(body, "text/event-stream");
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static("no-cache"),
        );
        response
    }
}

/// One server-sent event of `message`: its JSON (which has no newline) as the event's data.
fn write_event(body: &mut Vec<u8>, message: &ServerJsonRpcMessage) -> serde_json::Result<()> {
    body.extend_from_slice(b"data: ");
    serde_json::to_writer(&mut *body, message)?;
    body.extend_from_slice(b"\n\n");
    Ok(())
}

fn with_type(body: Vec<u8>, content_type: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
}

/// A result that could not be written as JSON (a tool's output JSON cannot hold): `500`, as
/// rmcp answers it.
fn unwritable(error: &serde_json::Error) -> Response<Body> {
    let mut response = Response::new(
        Full::new(Bytes::from(format!(
            "Internal Server Error: the answer could not be written as JSON: {error}"
        )))
        .boxed(),
    );
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::Request;

    const CALL: &[u8] =
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}"#;

    fn parts(headers: &[(&str, &str)]) -> Parts {
        let mut request = Request::post("/mcp");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.body(()).unwrap().into_parts().0
    }

    fn plain_headers() -> Vec<(&'static str, &'static str)> {
        vec![
            ("host", "127.0.0.1:8808"),
            ("accept", "application/json, text/event-stream"),
            ("content-type", "application/json"),
        ]
    }

    fn route() -> DirectRoute {
        DirectRoute {
            allowed_hosts: None,
        }
    }

    #[test]
    fn a_plain_call_with_plain_headers_is_answered_here() {
        let (call, protocol) = route().accept(&parts(&plain_headers()), CALL).unwrap();
        assert_eq!(call.id, RequestId::Number(7));
        assert_eq!(call.params.name, "add");
        assert_eq!(protocol, ProtocolVersion::V_2025_03_26);
        let mut headers = plain_headers();
        headers.push(("mcp-protocol-version", "2025-11-25"));
        let (_, protocol) = route().accept(&parts(&headers), CALL).unwrap();
        assert_eq!(protocol, ProtocolVersion::V_2025_11_25);
    }

    #[test]
    fn anything_rmcp_might_answer_otherwise_goes_to_rmcp() {
        let with = |name: &'static str, value: &'static str| {
            let mut headers: Vec<_> = plain_headers()
                .into_iter()
                .filter(|(other, _)| *other != name)
                .collect();
            headers.push((name, value));
            parts(&headers)
        };
        let refused = [
            with("host", "evil.example"),
            with("host", "127.0.0.1.evil.example:8808"),
            with("origin", "http://127.0.0.1:8808"),
            with("accept", "application/json"),
            with("accept", "text/event-stream"),
            with("accept", "application/json, text/event-stream;q=0"),
            with("accept", "application/json;q=0.0, text/event-stream"),
            with("mcp-protocol-version", "2026-07-28"),
            with("mcp-protocol-version", "1999-01-01"),
            with("mcp-method", "tools/call"),
            with("mcp-name", "add"),
        ];
        for parts in refused {
            assert!(
                route().accept(&parts, CALL).is_none(),
                "{:?}",
                parts.headers
            );
        }
        let headers = parts(&plain_headers());
        let other: [&[u8]; 3] = [
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#,
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","_meta":{"progressToken":1}}}"#,
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":[1]}}"#,
        ];
        for body in other {
            assert!(
                route().accept(&headers, body).is_none(),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn hosts_are_compared_as_rmcp_compares_them() {
        let accepts = |allowed: Option<Vec<&str>>, host: &'static str| {
            let route = DirectRoute {
                allowed_hosts: allowed.map(|hosts| hosts.into_iter().map(String::from).collect()),
            };
            let mut headers = plain_headers();
            headers[0] = ("host", host);
            route.accept(&parts(&headers), CALL).is_some()
        };
        assert!(accepts(None, "LOCALHOST:1"));
        assert!(accepts(None, "[::1]:8808"));
        assert!(accepts(None, "127.0.0.1"));
        assert!(!accepts(None, "example.com"));
        assert!(accepts(Some(vec!["example.com:8080"]), "example.com:8080"));
        assert!(!accepts(Some(vec!["example.com:8080"]), "example.com:9090"));
        assert!(accepts(Some(vec!["example.com"]), "Example.com:9090"));
        assert!(accepts(Some(vec![]), "anything.example"));
    }
}
