//! The API's contents and parts, written down once: a request's contents are serialized from
//! these types, and a reply's candidates (whole or streamed) are read into them.
//!
//! Every field is optional and read leniently (`lenient`), as in all of this adapter's reply
//! types: a field of another type is an absent one, and the reader says what it lacks.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::llm::lenient::{self, Listed};

/// The adapter's name, in errors.
pub(super) const PROVIDER: &str = "gemini";

/// What a call id made up for a call Gemini sent without one starts with.
pub(super) const MADE_UP_ID: &str = "call_";

/// The name a call's [`ProviderState`](crate::llm::ProviderState) keeps this adapter's state
/// under: the fields of the call's part besides `functionCall` (its `thoughtSignature`), sent
/// back with the call as they came. Gemini 3 refuses a history whose function calls lost their
/// signatures.
pub(super) const STATE_KEY: &str = "gemini";

/// A `Content`: a role (absent in a system instruction) and its parts.
#[derive(Serialize, Deserialize)]
pub(super) struct WireContent<'a> {
    #[serde(
        default,
        borrow,
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    pub(super) role: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) parts: Listed<Part<'a>>,
}

/// A part: text (perhaps a thought summary), or a function call with the fields that go back
/// with it, or (in a request) a function's response.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Part<'a> {
    #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
    pub(super) function_call: Option<FunctionCall<'a>>,
    /// Only requests carry it.
    #[serde(skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub(super) function_response: Option<FunctionResponse<'a>>,
    #[serde(
        default,
        deserialize_with = "lenient::flag",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub(super) thought: bool,
    #[serde(
        default,
        borrow,
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    pub(super) text: Option<Cow<'a, str>>,
    /// Every other field (`thoughtSignature`), kept as raw values: they go back with the call
    /// exactly as they came, whatever Gemini puts there.
    #[serde(flatten)]
    pub(super) rest: Map<String, Value>,
}

/// A `FunctionCall`: `{name, args, id}`.
#[derive(Serialize, Deserialize)]
pub(super) struct FunctionCall<'a> {
    #[serde(
        default,
        borrow,
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    pub(super) name: Option<Cow<'a, str>>,
    /// The arguments: any JSON the model wrote (a `Struct` when all is well).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) args: Option<Cow<'a, Value>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    pub(super) id: Option<Cow<'a, str>>,
}

/// A `FunctionResponse`: `{name, response, id}`.
#[derive(Serialize)]
pub(super) struct FunctionResponse<'a> {
    pub(super) name: &'a str,
    pub(super) response: FunctionResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) id: Option<&'a str>,
}

/// A `FunctionResponse`'s `response`, a `Struct`: Gemini's documentation names `output` and
/// `error` as its keys.
#[derive(Serialize)]
pub(super) enum FunctionResult {
    #[serde(rename = "output")]
    Output(String),
    #[serde(rename = "error")]
    Error(String),
}

impl<'a> Part<'a> {
    /// A text part.
    pub(super) fn text(text: Cow<'a, str>) -> Self {
        Part {
            function_call: None,
            function_response: None,
            thought: false,
            text: Some(text),
            rest: Map::new(),
        }
    }
}

impl<'a> From<FunctionResponse<'a>> for Part<'a> {
    fn from(response: FunctionResponse<'a>) -> Self {
        Part {
            function_response: Some(response),
            text: None,
            ..Part::text(Cow::Borrowed(""))
        }
    }
}

/// Whether `id` was made up here for a call Gemini sent without one (so it is not sent back).
pub(super) fn is_made_up(id: &str) -> bool {
    id.strip_prefix(MADE_UP_ID)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}
