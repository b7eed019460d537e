//! Incoming JSON-RPC text, screened before rmcp reads it, over stdio and HTTP alike.
//!
//! rmcp on its own drops a stdio line that is not JSON, or that nests deeper than serde_json's
//! 128 levels, without any answer (over HTTP it answers `415` with a plain-text body), and it
//! reads a standard request whose params do not fit the method (a `tools/call` whose `arguments`
//! is an array) as an unknown method, answering `-32601`. JSON-RPC 2.0 asks for `-32700` (with
//! `id: null`) and `-32602`: [`screen`] decides which message gets which, so that the transports
//! can answer it themselves and rmcp only ever sees messages it reads correctly.

use std::fmt;

use rmcp::model::{
    CallToolRequestMethod, CancelTaskMethod, ClientJsonRpcMessage, ClientRequest,
    CompleteRequestMethod, ConstString, DiscoverRequestMethod, ErrorCode, ErrorData,
    GetPromptRequestMethod, GetSkillRequestMethod, GetTaskMethod, InitializeResultMethod,
    ListPromptsRequestMethod, ListResourceTemplatesRequestMethod, ListResourcesRequestMethod,
    ListSkillsRequestMethod, ListToolsRequestMethod, PingRequestMethod, ProtocolVersion,
    ReadResourceDirectoryRequestMethod, ReadResourceRequestMethod, RequestId,
    SetLevelRequestMethod, SubscribeRequestMethod, SubscriptionsListenRequestMethod,
    UnsubscribeRequestMethod, UpdateTaskMethod,
};
use serde_json::Value;

/// What to do with one incoming message.
pub(crate) enum Screened {
    /// A message rmcp reads as what it is: hand it on.
    Message(Box<ClientJsonRpcMessage>),
    /// A malformed message: answer this error instead, and do not hand the message on.
    Refuse(Refusal),
    /// A malformed notification: JSON-RPC never answers a notification, so drop it.
    Ignore,
}

/// A JSON-RPC error answer to a message that never reaches rmcp.
pub(crate) struct Refusal {
    /// The request's id, when the message is a request with a readable id.
    pub(crate) id: Option<RequestId>,
    pub(crate) error: ErrorData,
}

impl Refusal {
    /// The error response as JSON text. Written by hand because rmcp leaves out an unknown `id`
    /// (MCP 2026-07-28), while JSON-RPC 2.0, and the clients of earlier revisions, expect
    /// `"id": null`.
    pub(crate) fn to_json(&self) -> Vec<u8> {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": self.id, "error": self.error});
        body.to_string().into_bytes()
    }
}

impl fmt::Debug for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Refusal")
            .field("id", &self.id)
            .field("code", &self.error.code.0)
            .field("message", &self.error.message)
            .finish()
    }
}

/// Screens one message's text (a stdio line without its newline, or an HTTP body).
pub(crate) fn screen(text: &[u8]) -> Screened {
    // A UTF-8 byte order mark is not part of the JSON; rmcp's own reader skips it too.
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    match serde_json::from_slice::<ClientJsonRpcMessage>(text) {
        Ok(ClientJsonRpcMessage::Request(request)) => {
            // The protocol version before the params: a method 2026-07-28 removed is not found
            // there, whatever its params (which, shaped for 2026-07-28, rarely fit the old
            // method's and would otherwise be refused as invalid).
            let method = request.request.method();
            if REMOVED_IN_2026_07_28.contains(&method) && declares_2026_07_28_or_later(text) {
                let message = format!(
                    "Method not found: `{method}` is not part of MCP 2026-07-28, which the request's _meta names (SEP-2575: send `server/discover`, and per-request _meta instead of a session)"
                );
                return Screened::Refuse(Refusal {
                    id: Some(request.id.clone()),
                    error: ErrorData::new(ErrorCode::METHOD_NOT_FOUND, message, None),
                });
            }
            if let ClientRequest::CustomRequest(custom) = &request.request
                && is_standard_request(&custom.method)
            {
                // A standard method whose params rmcp could not read as that method's: its
                // typed parse failed and it fell through to the catch-all custom request.
                let message = invalid_params_message(&custom.method, custom.params.as_ref());
                return Screened::Refuse(Refusal {
                    id: Some(request.id.clone()),
                    error: ErrorData::invalid_params(message, None),
                });
            }
            Screened::Message(Box::new(ClientJsonRpcMessage::Request(request)))
        }
        Ok(message) => Screened::Message(Box::new(message)),
        Err(error) => not_a_message(text, &error),
    }
}

/// Whether `text` is a well-formed `tools/call` request (what nearly every message a serving
/// loop receives is): then [`screen`] would hand it on as it is, and the HTTP transport, which
/// needs nothing from a screened message but the id of an `initialize`, can skip it.
///
/// [`screen`] reads the whole message as rmcp's `ClientJsonRpcMessage` (an untagged enum, so
/// serde buffers every value of the message first), and rmcp then reads the same text again: for
/// a 10 KB argument that first read was a sixth of serving the call. This reads the message once
/// without keeping any of it ([`ToolCall`](super::tool_call::ToolCall)), through the same serde_json
/// calls as rmcp's read; anything it is not sure rmcp reads as a `tools/call` (another method, a
/// malformed message, a rare shape) answers `false`, and `screen` decides. A call in plain JSON
/// (what clients send) is recognised before that by one pass over its bytes
/// ([`is_plain_call`](super::plain_call::is_plain_call)), which finds a long string's end with
/// SIMD instead of serde_json's eight bytes at a time.
#[cfg(feature = "mcp-http-server")] // only the HTTP transport skips the screen
pub(crate) fn is_tool_call(text: &[u8]) -> bool {
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    super::plain_call::is_plain_call(text)
        || serde_json::from_slice::<super::tool_call::ToolCall>(text).is_ok()
}

/// The answer to text rmcp cannot read as a client message.
fn not_a_message(text: &[u8], error: &serde_json::Error) -> Screened {
    use serde_json::error::Category;
    if matches!(error.classify(), Category::Syntax | Category::Eof) {
        // Not JSON at all, or nested deeper than serde_json's recursion limit (128), which
        // serde_json reports as a syntax error: there is no id to answer to.
        return Screened::Refuse(Refusal {
            id: None,
            error: ErrorData::parse_error(format!("Parse error: {error}"), None),
        });
    }
    // JSON, but not a JSON-RPC message rmcp reads (a batch, a wrong `jsonrpc` version, a missing
    // `method`). Parsing it again as a plain value finds out whether it was a request.
    let Ok(value) = serde_json::from_slice::<Value>(text) else {
        return Screened::Refuse(Refusal {
            id: None,
            error: ErrorData::parse_error(format!("Parse error: {error}"), None),
        });
    };
    let is_notification = value
        .as_object()
        .is_some_and(|object| object.contains_key("method") && !object.contains_key("id"));
    if is_notification {
        tracing::debug!(%error, "ignoring a malformed MCP notification");
        return Screened::Ignore;
    }
    let id = value
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let message = if value.is_array() {
        "Invalid Request: batches are not supported (MCP removed JSON-RPC batching in 2025-06-18); send one message at a time".to_string()
    } else {
        format!("Invalid Request: not a JSON-RPC 2.0 request: {error}")
    };
    Screened::Refuse(Refusal {
        id,
        error: ErrorData::invalid_request(message, None),
    })
}

/// The request methods MCP 2026-07-28 removed (SEP-2575, SEP-2577): the handshake, `ping`, the
/// session's log level and resource subscriptions (now `subscriptions/listen`).
const REMOVED_IN_2026_07_28: [&str; 5] = [
    InitializeResultMethod::VALUE,
    PingRequestMethod::VALUE,
    SetLevelRequestMethod::VALUE,
    SubscribeRequestMethod::VALUE,
    UnsubscribeRequestMethod::VALUE,
];

/// Whether a request's `params._meta` names protocol 2026-07-28 or a later revision. Read from
/// the text again, as rmcp's typed params of these methods keep no `_meta` of an unreadable
/// request; only the five rare methods above pay for it. A version that is not a date
/// (`v999`) is left to rmcp, which answers that it is unsupported.
fn declares_2026_07_28_or_later(text: &[u8]) -> bool {
    let Ok(value) = serde_json::from_slice::<Value>(text) else {
        return false;
    };
    let version = value
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let is_date = version.len() == 10
        && version.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    is_date && version >= ProtocolVersion::V_2026_07_28.as_str()
}

/// The request methods rmcp's server reads into typed requests. A request for one of them that
/// comes out as a custom request had params of the wrong shape.
fn is_standard_request(method: &str) -> bool {
    [
        InitializeResultMethod::VALUE,
        DiscoverRequestMethod::VALUE,
        PingRequestMethod::VALUE,
        CompleteRequestMethod::VALUE,
        SetLevelRequestMethod::VALUE,
        GetPromptRequestMethod::VALUE,
        ListPromptsRequestMethod::VALUE,
        ListResourcesRequestMethod::VALUE,
        ListResourceTemplatesRequestMethod::VALUE,
        ReadResourceRequestMethod::VALUE,
        SubscriptionsListenRequestMethod::VALUE,
        SubscribeRequestMethod::VALUE,
        UnsubscribeRequestMethod::VALUE,
        CallToolRequestMethod::VALUE,
        ListToolsRequestMethod::VALUE,
        GetTaskMethod::VALUE,
        UpdateTaskMethod::VALUE,
        CancelTaskMethod::VALUE,
        ListSkillsRequestMethod::VALUE,
        GetSkillRequestMethod::VALUE,
        ReadResourceDirectoryRequestMethod::VALUE,
    ]
    .contains(&method)
}

/// What is wrong with the params of a standard request, as precisely as a client can act on.
fn invalid_params_message(method: &str, params: Option<&Value>) -> String {
    if method == CallToolRequestMethod::VALUE {
        let Some(params) = params.and_then(Value::as_object) else {
            return format!(
                "Invalid params: `tools/call` takes an object with the tool's `name` and its `arguments`, not {}",
                kind(params)
            );
        };
        if !params.get("name").is_some_and(Value::is_string) {
            return format!(
                "Invalid params: `name` must be the tool's name as a string, not {}",
                kind(params.get("name"))
            );
        }
        if let Some(arguments) = params.get("arguments")
            && !(arguments.is_object() || arguments.is_null())
        {
            return format!(
                "Invalid params: `arguments` must be an object of named arguments, not {}",
                kind(Some(arguments))
            );
        }
    }
    format!("Invalid params: the params do not have the shape `{method}` takes")
}

/// A JSON value's kind, for error messages ("an array").
fn kind(value: Option<&Value>) -> &'static str {
    match value {
        None => "nothing",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "a boolean",
        Some(Value::Number(_)) => "a number",
        Some(Value::String(_)) => "a string",
        Some(Value::Array(_)) => "an array",
        Some(Value::Object(_)) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused_with(text: &str) -> Option<i32> {
        match screen(text.as_bytes()) {
            Screened::Refuse(refusal) => Some(refusal.error.code.0),
            _ => None,
        }
    }

    #[test]
    fn a_method_2026_07_28_removed_is_not_found_before_its_params_are_judged() {
        let meta = |version: &str| {
            format!(
                r#"{{"io.modelcontextprotocol/protocolVersion":"{version}","io.modelcontextprotocol/clientCapabilities":{{}}}}"#
            )
        };
        let initialize = |version: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"_meta":{}}}}}"#,
                meta(version)
            )
        };
        assert_eq!(refused_with(&initialize("2026-07-28")), Some(-32601));
        // Earlier revisions had the method: its params are judged as before.
        assert_eq!(refused_with(&initialize("2025-11-25")), Some(-32602));
        // Not a date: rmcp answers that the version is unsupported.
        assert_eq!(refused_with(&initialize("v999.0.0")), Some(-32602));
        let set_level = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{{"level":"info","_meta":{}}}}}"#,
            meta("2026-07-28")
        );
        assert_eq!(refused_with(&set_level), Some(-32601));
        let list = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{"_meta":{}}}}}"#,
            meta("2026-07-28")
        );
        assert_eq!(refused_with(&list), None);
    }

    #[cfg(feature = "mcp-http-server")]
    #[test]
    fn only_well_formed_tool_calls_skip_the_screen() {
        let call: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
        assert!(is_tool_call(call));
        assert!(is_tool_call(&[b"\xEF\xBB\xBF".as_slice(), call].concat()));
        assert!(
            matches!(screen(call), Screened::Message(_)),
            "the screen agrees"
        );
        // Each of these is refused by the screen (or is not a tool call): none may skip it.
        let refused: [&[u8]; 6] = [
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":[1]}}"#,
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":3}}"#,
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":[1]}"#,
            br#"{"jsonrpc":"1.0","id":7,"method":"tools/call","params":{"name":"echo"}}"#,
            br#"{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{"name":"echo"}}"#,
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo""#,
        ];
        for text in refused {
            assert!(!is_tool_call(text), "{}", String::from_utf8_lossy(text));
            assert!(
                matches!(screen(text), Screened::Refuse(_)),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        // Arguments a scan of the text would pass but rmcp's read refuses (a float out of
        // range, a lone surrogate): not a well-formed call, so the screen answers them.
        let unreadable: [&[u8]; 2] = [
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"x":1e400}}}"#,
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\ud800"}}}"#,
        ];
        for text in unreadable {
            assert!(!is_tool_call(text), "{}", String::from_utf8_lossy(text));
            assert!(
                matches!(screen(text), Screened::Refuse(_)),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        let other = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert!(!is_tool_call(other));
        assert!(matches!(screen(other), Screened::Message(_)));
    }
}
