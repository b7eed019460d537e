//! A chat completions request, built from the conversation's types.

use std::borrow::Cow;

use serde::Serialize;

use super::message::{AssistantMessage, WireCall};
use crate::llm::definition::ChatResponseFormat;
use crate::llm::lenient::Listed;
use crate::llm::tool_cache::SharedJson;
use crate::llm::{LlmRequest, Message};

/// A chat completions request; the tools are shared with earlier turns, not copied.
#[derive(Serialize)]
pub(super) struct ChatBody<'a> {
    pub(super) model: &'a str,
    pub(super) messages: Vec<ChatMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tools: Option<SharedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_completion_tokens: Option<u32>,
    /// Structured output (`json_schema`) for a typed run's answer turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) response_format: Option<ChatResponseFormat<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) stream: Option<bool>,
    /// The session's id, so that its turns reach the same prompt cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) prompt_cache_key: Option<std::borrow::Cow<'a, str>>,
    /// `{"include_usage": true}` on streamed requests: the usage comes in a last chunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) stream_options: Option<StreamOptions>,
}

/// What a streamed request asks for besides the deltas.
#[derive(Serialize)]
pub(super) struct StreamOptions {
    pub(super) include_usage: bool,
}

/// A message of a request's history.
#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub(super) enum ChatMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: &'a str,
    },
    Assistant(AssistantMessage<'a>),
    Tool {
        tool_call_id: &'a str,
        content: String,
    },
}

/// The messages of `request`: its system prompt, then its history.
pub(super) fn messages(request: &LlmRequest) -> Vec<ChatMessage<'_>> {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if let Some(system) = &request.system {
        messages.push(ChatMessage::System { content: system });
    }
    messages.extend(
        request
            .messages
            .iter()
            .filter_map(|message| ChatMessage::try_from(message).ok()),
    );
    messages
}

/// A native tool search, which chat completions have no place for (this adapter never asks
/// for one).
pub(super) struct NoPlace;

impl<'a> TryFrom<&'a Message> for ChatMessage<'a> {
    type Error = NoPlace;

    fn try_from(message: &'a Message) -> Result<Self, NoPlace> {
        Ok(match message {
            Message::ToolSearch(_) => return Err(NoPlace),
            Message::System { text } => ChatMessage::System { content: text },
            Message::User { text } => ChatMessage::User { content: text },
            Message::Assistant { text, tool_calls } => ChatMessage::Assistant(AssistantMessage {
                content: (!text.is_empty() || tool_calls.is_empty()).then_some(Cow::Borrowed(text)),
                tool_calls: Listed::Items(tool_calls.iter().map(WireCall::from).collect()),
            }),
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                ..
            } => ChatMessage::Tool {
                tool_call_id,
                content: tool_result_text(content, *is_error),
            },
        })
    }
}

/// A tool result as the text both OpenAI APIs take: images become a note
/// (`Content::to_model_text`), and a failure says so.
pub(crate) fn tool_result_text(content: &[crate::Content], is_error: bool) -> String {
    let text = content
        .iter()
        .map(crate::Content::to_model_text)
        .collect::<Vec<_>>()
        .join("\n");
    if is_error {
        format!("Error: {text}")
    } else {
        text
    }
}
