//! The messages API's content blocks, written down once: a request's blocks are serialized from
//! these types, and a reply's (and a stream's `content_block_start`) are read into them.
//!
//! Every field is optional and read leniently (`lenient`), as in all of this adapter's reply
//! types: a field of another type is an absent one, and the reader says what it lacks. A
//! request sets the fields its block needs, and an absent one is not written.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::llm::lenient::{self, Listed};

/// The adapter's name, in errors and telemetry.
pub(super) const PROVIDER: &str = "anthropic";
/// The server-side tool search (BM25 over the deferred definitions), as a tool entry's `type`.
pub(super) const TOOL_SEARCH_TYPE: &str = "tool_search_tool_bm25_20251119";
/// Its name, in the tool entry and in the `server_tool_use` blocks it answers with.
pub(super) const TOOL_SEARCH_NAME: &str = "tool_search_tool_bm25";
/// The name of the code-execution server tool that calls the request's tools from the model's
/// code (programmatic tool calling; its `type` is a `CodeExecutionVersion`'s), in the tool
/// entry and in its `server_tool_use` blocks.
pub(super) const CODE_EXECUTION_NAME: &str = "code_execution";
/// The key of this adapter's state on a [`ToolCall`](crate::llm::ToolCall): the call's
/// `caller`, the server blocks that came before it, and the code-execution container (see
/// [`AnthropicClient::with_code_execution`](super::AnthropicClient::with_code_execution)).
pub(super) const STATE_KEY: &str = "anthropic";

/// A content block of a message, in a request or a reply.
#[derive(Serialize, Deserialize)]
#[serde(tag = "type")]
pub(super) enum ContentBlock<'a> {
    #[serde(rename = "text")]
    Text {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        text: Option<Cow<'a, str>>,
    },
    /// An image in a tool result.
    #[serde(rename = "image")]
    Image {
        #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
        source: Option<Source<'a>>,
    },
    /// A PDF in a tool result.
    #[serde(rename = "document")]
    Document {
        #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
        source: Option<Source<'a>>,
    },
    #[serde(rename = "tool_use")]
    ToolUse {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        id: Option<Cow<'a, str>>,
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        name: Option<Cow<'a, str>>,
        /// The arguments: any JSON the model wrote (an object when sent back).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input: Option<Cow<'a, Value>>,
        /// Who made the call: the model (`direct`, or absent) or its code
        /// (`code_execution_20250825` with the server tool's id). A `Value`: it goes back as
        /// it came.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        caller: Option<Cow<'a, Value>>,
    },
    /// The result of a call, in a user turn.
    #[serde(rename = "tool_result")]
    ToolResult {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        tool_use_id: Option<Cow<'a, str>>,
        #[serde(default, borrow)]
        content: Listed<ContentBlock<'a>>,
        #[serde(
            default,
            deserialize_with = "lenient::flag",
            skip_serializing_if = "std::ops::Not::not"
        )]
        is_error: bool,
    },
    /// A call of a server tool (the tool search among them).
    #[serde(rename = "server_tool_use")]
    ServerToolUse {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        id: Option<Cow<'a, str>>,
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        name: Option<Cow<'a, str>>,
        /// The input (a search's query, the model's code), kept as it came to be replayed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input: Option<Cow<'a, Value>>,
    },
    #[serde(rename = "tool_search_tool_result")]
    ToolSearchResult {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        tool_use_id: Option<Cow<'a, str>>,
        #[serde(default, borrow, skip_serializing_if = "Option::is_none")]
        content: Option<SearchResult<'a>>,
    },
    /// What the model's code returned, once it has run to its end. Its `content` is a
    /// `Value`: it goes back on the next request as it came.
    #[serde(rename = "code_execution_tool_result")]
    CodeExecutionResult {
        #[serde(
            default,
            borrow,
            deserialize_with = "lenient::text",
            skip_serializing_if = "Option::is_none"
        )]
        tool_use_id: Option<Cow<'a, str>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Value>,
    },
    /// Thinking, and block kinds added later: not part of the answer, never sent.
    #[serde(other, skip_serializing)]
    Other,
}

/// An image's or a document's bytes: `{"type": "base64", media_type, data}`.
#[derive(Serialize, Deserialize)]
pub(super) struct Source<'a> {
    #[serde(
        default,
        borrow,
        rename = "type",
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    kind: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    media_type: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    data: Option<Cow<'a, str>>,
}

impl<'a> Source<'a> {
    /// Base64 `data` of type `media_type`.
    pub(super) fn base64(media_type: &'a str, data: &'a str) -> Self {
        Self {
            kind: Some(Cow::Borrowed("base64")),
            media_type: Some(Cow::Borrowed(media_type)),
            data: Some(Cow::Borrowed(data)),
        }
    }
}

/// A tool search's result: the tools it found (none for `tool_search_tool_result_error`).
#[derive(Serialize, Deserialize)]
pub(super) struct SearchResult<'a> {
    #[serde(
        default,
        borrow,
        rename = "type",
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) tool_references: Listed<ToolReference<'a>>,
}

/// A tool a search found.
#[derive(Serialize, Deserialize)]
pub(super) struct ToolReference<'a> {
    #[serde(
        default,
        borrow,
        rename = "type",
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(
        default,
        borrow,
        deserialize_with = "lenient::text",
        skip_serializing_if = "Option::is_none"
    )]
    pub(super) tool_name: Option<Cow<'a, str>>,
}

impl<'a> ContentBlock<'a> {
    /// A text block.
    pub(super) fn text(text: &'a str) -> Self {
        ContentBlock::Text {
            text: Some(Cow::Borrowed(text)),
        }
    }

    /// A `server_tool_use` block, absent parts written empty, as it goes back on the next
    /// request.
    pub(super) fn server_tool_use(
        id: Option<Cow<'a, str>>,
        name: Option<Cow<'a, str>>,
        input: Option<Value>,
    ) -> Self {
        ContentBlock::ServerToolUse {
            id: Some(id.unwrap_or_default()),
            name: Some(name.unwrap_or_default()),
            input: Some(Cow::Owned(
                input.unwrap_or_else(|| Value::Object(Map::new())),
            )),
        }
    }

    /// A `code_execution_tool_result` block as it goes back on the next request.
    pub(super) fn code_execution_result(
        tool_use_id: Option<Cow<'a, str>>,
        content: Option<Value>,
    ) -> Self {
        ContentBlock::CodeExecutionResult {
            tool_use_id: Some(tool_use_id.unwrap_or_default()),
            content: Some(content.unwrap_or(Value::Null)),
        }
    }

    /// The block as the JSON a call's state keeps (see `reply::carry_code_execution`).
    pub(super) fn to_value(&self) -> Value {
        // Serializing strings and JSON values to a `Value` cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }
}
