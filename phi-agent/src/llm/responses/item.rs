//! The API's items, written down once: a request's calls and results are serialized from
//! [`Item`], a reply's `output` is read into it, and what a call keeps for the next request is
//! [`Kept`], written by the reply and read by the request.
//!
//! Every field is optional and read leniently (`lenient`), as in all of this adapter's reply
//! types: a field of another type is an absent one, and the reader says what it lacks.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::llm::ProviderState;
use crate::llm::lenient::{self, Listed};

/// The adapter's name, in errors and telemetry.
pub(super) const PROVIDER: &str = "openai";

/// The name a call's [`ProviderState`] keeps this adapter's state under: `items`, the output
/// items that came before the call and must go back with it (reasoning items, each as it came,
/// `encrypted_content` included), with `id`, the call item's own id, which pairs it with them;
/// and `response_id` when responses are stored
/// ([`ResponsesClient::with_stored_responses`](super::ResponsesClient::with_stored_responses)).
pub(super) const STATE_KEY: &str = "openai_responses";

/// An item: of a request's `input`, or of a reply's `output`.
#[derive(Serialize, Deserialize)]
#[serde(tag = "type")]
pub(super) enum Item<'a> {
    #[serde(rename = "message")]
    Message {
        #[serde(default, borrow)]
        content: Listed<MessagePart<'a>>,
    },
    #[serde(rename = "function_call")]
    FunctionCall {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        call_id: Option<Cow<'a, str>>,
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        name: Option<Cow<'a, str>>,
        /// A `Value`: the API sends a string of JSON text; some compatible servers send the
        /// object itself. A request sends the string.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arguments: Option<Value>,
        /// The item's id, kept as it came to pair the call with its reasoning.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Value>,
        /// Who made the call: the model (`direct`, or absent) or a program. A `Value`: it
        /// goes back as it came.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        caller: Option<Value>,
        /// The namespace of the function called, when it is in one (a tool group sent as a
        /// `namespace`); it goes back with the call.
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        namespace: Option<Cow<'a, str>>,
    },
    /// A call's result, in a request.
    #[serde(rename = "function_call_output")]
    FunctionCallOutput {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        call_id: Option<Cow<'a, str>>,
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        output: Option<Cow<'a, str>>,
        /// The caller of the call it answers, when a program made it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        caller: Option<Value>,
    },
    /// A program the model wrote (programmatic tool calling), and what it returned: sent
    /// back as they came, before the next call.
    #[serde(rename = "program", alias = "program_output")]
    Program,
    #[serde(rename = "reasoning")]
    Reasoning {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        encrypted_content: Option<Cow<'a, str>>,
    },
    #[serde(rename = "tool_search_call")]
    ToolSearchCall {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        call_id: Option<Cow<'a, str>>,
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        id: Option<Cow<'a, str>>,
        /// The search's input, as the model wrote it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arguments: Option<Value>,
    },
    #[serde(rename = "tool_search_output")]
    ToolSearchOutput {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        call_id: Option<Cow<'a, str>>,
        #[serde(default, borrow)]
        tools: Listed<LoadedTool<'a>>,
    },
    /// Built-in tool items, and kinds added later: not part of the answer, never sent.
    #[serde(other, skip_serializing)]
    Other,
}

/// A part of a message item.
#[derive(Serialize, Deserialize)]
#[serde(tag = "type")]
pub(super) enum MessagePart<'a> {
    #[serde(rename = "output_text")]
    Text {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        text: Option<Cow<'a, str>>,
    },
    #[serde(rename = "refusal")]
    Refusal {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        refusal: Option<Cow<'a, str>>,
    },
    #[serde(other, skip_serializing)]
    Other,
}

/// A tool a `tool_search_output` loaded: a function, or a namespace of them.
#[derive(Serialize, Deserialize)]
pub(super) struct LoadedTool<'a> {
    #[serde(default, borrow, rename = "type", deserialize_with = "lenient::text")]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) tools: Listed<LoadedTool<'a>>,
}

/// What a call's (or a tool search's) [`ProviderState`] keeps under [`STATE_KEY`].
#[derive(Deserialize, Serialize, Default)]
pub(super) struct Kept {
    /// The output items that go back before the call, each as it came (`Value`s: a reasoning
    /// item's `encrypted_content` must go back byte for byte).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) items: Vec<Value>,
    /// The call item's own id, which pairs it with `items`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) id: Option<Value>,
    /// The id of the stored response the call came in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) response_id: Option<Value>,
    /// Who made the call, when a program did: `{"type": "program", "caller_id": ..}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) caller: Option<Value>,
    /// The namespace of the function called, when it is in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) namespace: Option<String>,
}

impl Kept {
    /// The state `state` holds; a state of another shape (made by hand) holds nothing.
    pub(super) fn of(state: Option<&Value>) -> Self {
        state
            .and_then(|state| Kept::deserialize(state).ok())
            .unwrap_or_default()
    }

    pub(super) fn into_state(self) -> ProviderState {
        // Serializing JSON values to a `Value` cannot fail.
        let state = serde_json::to_value(self).unwrap_or_default();
        ProviderState::default().with(STATE_KEY, state)
    }
}
