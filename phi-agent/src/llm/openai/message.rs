//! The assistant message and its tool calls, written down once: a request's history is
//! serialized from these types, and a reply's `choices[0].message` is read into them.
//!
//! Every field is optional and read leniently (`lenient`), as in all of this adapter's reply
//! types: a field of another type is an absent one, and the reader says what it lacks.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::llm::ToolCall;
use crate::llm::lenient::{self, Listed};

/// The adapter's name, in errors and telemetry (the Responses API's too).
pub(super) const PROVIDER: &str = "openai";

/// An assistant message: its text and its calls.
#[derive(Serialize, Deserialize)]
pub(super) struct AssistantMessage<'a> {
    /// `null` in a request for a turn that only calls tools.
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    pub(super) content: Option<Cow<'a, str>>,
    #[serde(default, borrow, skip_serializing_if = "Listed::is_empty")]
    pub(super) tool_calls: Listed<WireCall<'a>>,
}

/// A tool call: `{id, type: "function", function: {name, arguments}}`.
#[derive(Serialize, Deserialize)]
pub(super) struct WireCall<'a> {
    #[serde(
        default,
        borrow,
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        rename = "type",
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    pub(super) function: Option<WireFunction<'a>>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct WireFunction<'a> {
    #[serde(
        default,
        borrow,
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    pub(super) name: Option<Cow<'a, str>>,
    /// A `Value`: the API sends a string of JSON text; some compatible servers send the object
    /// itself. A request sends the string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) arguments: Option<Value>,
}

/// A call, as the history sends it back.
impl<'a> From<&'a ToolCall> for WireCall<'a> {
    fn from(call: &'a ToolCall) -> Self {
        WireCall {
            id: Some(Cow::Borrowed(&call.id)),
            kind: Some(Cow::Borrowed("function")),
            function: Some(WireFunction {
                name: Some(Cow::Borrowed(&call.name)),
                arguments: Some(Value::String(replayed_arguments(call))),
            }),
        }
    }
}

/// A call's arguments as the string both OpenAI APIs take. Arguments the model sent as non-JSON
/// text go back exactly as it wrote them.
pub(crate) fn replayed_arguments(call: &ToolCall) -> String {
    match &call.arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}
