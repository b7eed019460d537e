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
    CompleteRequestMethod, ConstString, DiscoverRequestMethod, ErrorData, GetPromptRequestMethod,
    GetSkillRequestMethod, GetTaskMethod, InitializeResultMethod, ListPromptsRequestMethod,
    ListResourceTemplatesRequestMethod, ListResourcesRequestMethod, ListSkillsRequestMethod,
    ListToolsRequestMethod, PingRequestMethod, ReadResourceDirectoryRequestMethod,
    ReadResourceRequestMethod, RequestId, SetLevelRequestMethod, SubscribeRequestMethod,
    SubscriptionsListenRequestMethod, UnsubscribeRequestMethod, UpdateTaskMethod,
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
