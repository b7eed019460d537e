//! A messages request, built from the conversation's types.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use super::cache::{CacheControl, System};
use super::code_version::CodeExecutionVersion;
use super::content::{
    CODE_EXECUTION_NAME, ContentBlock, STATE_KEY, SearchResult, Source, TOOL_SEARCH_NAME,
    TOOL_SEARCH_TYPE, ToolReference,
};
use super::context_editing::ContextManagement;
use crate::content::{Content, ResourceBody};
use crate::llm::lenient::Listed;
use crate::llm::tool_cache::SharedJson;
use crate::llm::{Message, ToolCall, ToolSearchCall};

/// A messages request; the tools are shared with earlier turns, not copied.
#[derive(Serialize)]
pub(super) struct MessagesBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) container: Option<&'a str>,
    pub(super) model: &'a str,
    pub(super) max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) system: Option<System>,
    pub(super) messages: Vec<Turn<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tools: Option<SharedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) stream: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) context_management: Option<ContextManagement<'a>>,
}

/// One message of a request: a role and its blocks.
#[derive(Serialize)]
pub(super) struct Turn<'a> {
    pub(super) role: &'static str,
    pub(super) content: Vec<Block<'a>>,
}

/// A block of a request: one this adapter writes, or one a reply left in a call's state.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum Block<'a> {
    Written(ContentBlock<'a>),
    /// A server block of an earlier reply (the code that made a call). A `Value`: it goes back
    /// exactly as it came.
    Kept(&'a Value),
    /// A block with a cache breakpoint (`cache.rs`).
    Marked(Value),
}

/// A server tool's entry in `tools`: `{"type": .., "name": ..}`.
#[derive(Serialize)]
pub(super) struct ServerTool {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'static str,
}

/// The server tools' entries: the tool search, then the code-execution tool of `version`.
pub(super) fn server_tools(version: CodeExecutionVersion) -> [ServerTool; 2] {
    [
        ServerTool {
            kind: TOOL_SEARCH_TYPE,
            name: TOOL_SEARCH_NAME,
        },
        ServerTool {
            kind: version.tool_type(),
            name: CODE_EXECUTION_NAME,
        },
    ]
}

/// The system text (the request's, then the conversation's system messages) and the turns of
/// `messages`. Consecutive blocks of one role share a message, because the API wants user and
/// assistant turns to alternate (all results of a turn go in one user turn).
pub(super) fn turns<'a>(
    system: Option<&'a str>,
    messages: &'a [Message],
) -> (Vec<&'a str>, Vec<Turn<'a>>) {
    let mut system: Vec<&str> = system.into_iter().collect();
    let mut turns = Turns::default();
    for message in messages {
        match message {
            Message::System { text } => system.push(text),
            Message::User { text } if !text.is_empty() => {
                turns.push("user", ContentBlock::text(text).into())
            }
            Message::User { .. } => {}
            Message::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    turns.push("assistant", ContentBlock::text(text).into());
                }
                for call in tool_calls {
                    // The server's blocks before the call (the code that made it), as they came.
                    let before = call
                        .provider_state
                        .get(STATE_KEY)
                        .and_then(|state| state.get("before"))
                        .and_then(Value::as_array);
                    for block in before.into_iter().flatten() {
                        turns.push("assistant", Block::Kept(block));
                    }
                    turns.push("assistant", ContentBlock::from(call).into());
                }
            }
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                ..
            } => turns.push(
                "user",
                ContentBlock::tool_result(tool_call_id, content, *is_error).into(),
            ),
            Message::ToolSearch(search) => {
                // Replayed as the API reported it, so that the model keeps the tools it found.
                let [call, result] = search_blocks(search);
                turns.push("assistant", call.into());
                turns.push("assistant", result.into());
            }
        }
    }
    (system, turns.0)
}

#[derive(Default)]
struct Turns<'a>(Vec<Turn<'a>>);

impl<'a> Turns<'a> {
    fn push(&mut self, role: &'static str, block: Block<'a>) {
        match self.0.last_mut() {
            Some(last) if last.role == role => last.content.push(block),
            _ => self.0.push(Turn {
                role,
                content: vec![block],
            }),
        }
    }
}

impl<'a> From<ContentBlock<'a>> for Block<'a> {
    fn from(block: ContentBlock<'a>) -> Self {
        Block::Written(block)
    }
}

/// A call, as the `tool_use` block it came in.
impl<'a> From<&'a ToolCall> for ContentBlock<'a> {
    fn from(call: &'a ToolCall) -> Self {
        // The API only accepts an object here; arguments that were not JSON were already
        // answered with an error result, so the call is replayed with no input.
        let input = match &call.arguments {
            Value::Object(_) => Cow::Borrowed(&call.arguments),
            _ => Cow::Owned(Value::Object(Map::new())),
        };
        ContentBlock::ToolUse {
            id: Some(Cow::Borrowed(&call.id)),
            name: Some(Cow::Borrowed(&call.name)),
            input: Some(input),
            // A call made by the model's code goes back with the caller that made it.
            caller: call
                .provider_state
                .get(STATE_KEY)
                .and_then(|state| state.get("caller"))
                .map(Cow::Borrowed),
        }
    }
}

/// A server-side tool search, as its `server_tool_use` and `tool_search_tool_result` blocks.
fn search_blocks(search: &ToolSearchCall) -> [ContentBlock<'_>; 2] {
    let references = search
        .tools
        .iter()
        .map(|name| ToolReference {
            kind: Some(Cow::Borrowed("tool_reference")),
            tool_name: Some(Cow::Borrowed(name)),
        })
        .collect();
    [
        ContentBlock::ServerToolUse {
            id: Some(Cow::Borrowed(&search.id)),
            name: Some(Cow::Borrowed(TOOL_SEARCH_NAME)),
            input: Some(Cow::Borrowed(&search.input)),
        },
        ContentBlock::ToolSearchResult {
            tool_use_id: Some(Cow::Borrowed(&search.id)),
            content: Some(SearchResult {
                kind: Some(Cow::Borrowed("tool_search_tool_search_result")),
                tool_references: Listed::Items(references),
            }),
        },
    ]
}

impl<'a> ContentBlock<'a> {
    /// The `tool_result` block of call `id`. Anthropic reads images in tool results.
    fn tool_result(id: &'a str, content: &'a [Content], is_error: bool) -> Self {
        ContentBlock::ToolResult {
            tool_use_id: Some(Cow::Borrowed(id)),
            content: Listed::Items(content.iter().filter_map(ContentBlock::of_result).collect()),
            is_error,
        }
    }

    /// A piece of a tool result as a block; `None` for an empty text, which the API refuses.
    fn of_result(piece: &'a Content) -> Option<Self> {
        match piece {
            Content::Image { data, mime_type } => Some(ContentBlock::Image {
                source: Some(Source::base64(mime_type, data)),
            }),
            // A PDF resource is a document block; audio, other binary resources and resource
            // links become a text note (`to_model_text`), as the API takes neither.
            Content::Resource { resource }
                if resource.mime_type.as_deref() == Some("application/pdf") =>
            {
                Some(match &resource.body {
                    ResourceBody::Blob(data) => ContentBlock::Document {
                        source: Some(Source::base64("application/pdf", data)),
                    },
                    ResourceBody::Text(_) => ContentBlock::Text {
                        text: Some(Cow::Owned(piece.to_model_text())),
                    },
                })
            }
            other => {
                let text = other.to_model_text();
                (!text.is_empty()).then_some(ContentBlock::Text {
                    text: Some(Cow::Owned(text)),
                })
            }
        }
    }
}

/// The code-execution container of the latest call that ran in one, to carry the program's
/// state on into the next request.
pub(super) fn container(messages: &[Message]) -> Option<&str> {
    messages.iter().rev().find_map(|message| match message {
        Message::Assistant { tool_calls, .. } => tool_calls.iter().find_map(|call| {
            call.provider_state
                .get(STATE_KEY)?
                .get("container")?
                .as_str()
        }),
        _ => None,
    })
}

/// How many breakpoints the messages get.
const MESSAGE_BREAKPOINTS: usize = 2;

/// Puts `control` on the last block of each of the last two user turns.
pub(super) fn mark_turns(turns: &mut [Turn<'_>], control: CacheControl) {
    let users = turns.iter_mut().rev().filter(|turn| turn.role == "user");
    for turn in users.take(MESSAGE_BREAKPOINTS) {
        if let Some(last) = turn.content.last_mut() {
            mark(last, control);
        }
    }
}

/// `block` with `cache_control`, as JSON (one or two blocks a request: the copy is small).
fn mark(block: &mut Block<'_>, control: CacheControl) {
    let Ok(Value::Object(mut fields)) = serde_json::to_value(&*block) else {
        // Every block serializes to an object; should one not, it goes without a breakpoint.
        return;
    };
    fields.insert(
        "cache_control".to_string(),
        serde_json::to_value(control).unwrap_or_default(),
    );
    *block = Block::Marked(Value::Object(fields));
}
