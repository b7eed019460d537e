//! A Responses request, built from the conversation's types.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::item::{Item, Kept, STATE_KEY};
use crate::llm::definition::JsonSchemaFormat;
use crate::llm::openai::{replayed_arguments, tool_result_text};
use crate::llm::tool_cache::SharedJson;
use crate::llm::{Message, ToolCall};

/// What a stateless request asks for so that reasoning items can be sent back.
pub(super) const ENCRYPTED_REASONING: &[&str] = &["reasoning.encrypted_content"];

/// A Responses request; the tools are shared with earlier turns, not copied.
#[derive(Serialize)]
pub(super) struct ResponsesBody<'a> {
    pub(super) model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) instructions: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) previous_response_id: Option<String>,
    pub(super) input: Vec<InputItem<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tools: Option<SharedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) max_output_tokens: Option<u32>,
    /// Structured output for a typed run's answer turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) text: Option<TextFormat<'a>>,
    pub(super) store: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) include: Option<&'static [&'static str]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) stream: Option<bool>,
    /// The session's id, so that its turns reach the same prompt cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) prompt_cache_key: Option<std::borrow::Cow<'a, str>>,
}

/// `text`: `{"format": json_schema}`.
#[derive(Serialize)]
pub(super) struct TextFormat<'a> {
    pub(super) format: JsonSchemaFormat<'a>,
}

/// An item of a request's `input`.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum InputItem<'a> {
    Message(RoleMessage<'a>),
    /// Boxed: a call item is several times the size of the others.
    Item(Box<Item<'a>>),
    /// An item an earlier reply left in a call's or a search's state. A `Value`: reasoning
    /// (`encrypted_content`), programs and searches go back exactly as they came.
    Kept(Value),
}

/// A message given by its role and text.
#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub(super) enum RoleMessage<'a> {
    System { content: &'a str },
    User { content: &'a str },
    Assistant { content: &'a str },
}

/// A server tool's entry in `tools`: `{"type": ..}`.
#[derive(Serialize)]
pub(super) struct ServerTool {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The API's own tools' entries: the tool search, then programmatic tool calling.
pub(super) const SERVER_TOOLS: [ServerTool; 2] = [
    ServerTool {
        kind: "tool_search",
    },
    ServerTool {
        kind: "programmatic_tool_calling",
    },
];

/// The `input` of `messages`; `stored`: the server keeps the items, so their ids name them.
pub(super) fn input(messages: &[Message], stored: bool) -> Vec<InputItem<'_>> {
    let mut input = Vec::with_capacity(messages.len());
    // The caller of each call a program made, for its output.
    let mut callers: Vec<(&str, Value)> = Vec::new();
    for message in messages {
        match message {
            Message::System { text } => {
                input.push(InputItem::Message(RoleMessage::System { content: text }))
            }
            Message::User { text } => {
                input.push(InputItem::Message(RoleMessage::User { content: text }))
            }
            // This API's search, replayed as it came; another provider's is nothing this API
            // could read.
            Message::ToolSearch(search) => input.extend(
                replayed_items(search.provider_state.get(STATE_KEY), stored).map(InputItem::Kept),
            ),
            Message::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    input.push(InputItem::Message(RoleMessage::Assistant { content: text }));
                }
                for call in tool_calls {
                    if let Some(caller) = push_call(&mut input, call) {
                        callers.push((call.id.as_str(), caller));
                    }
                }
            }
            Message::Tool {
                tool_call_id,
                content,
                is_error,
                ..
            } => input.push(InputItem::Item(Box::new(Item::FunctionCallOutput {
                call_id: Some(Cow::Borrowed(tool_call_id)),
                output: Some(Cow::Owned(tool_result_text(content, *is_error))),
                caller: callers
                    .iter()
                    .find(|(id, _)| id == tool_call_id)
                    .map(|(_, caller)| caller.clone()),
            }))),
        }
    }
    input
}

/// Whether `model` is one of OpenAI's reasoning models, which accept (and need, when nothing is
/// stored) `include: ["reasoning.encrypted_content"]`.
pub(super) fn is_reasoning_model(model: &str) -> bool {
    let model = model.rsplit('/').next().unwrap_or(model);
    let o_series = model.starts_with('o') && model[1..].starts_with(|c: char| c.is_ascii_digit());
    let gpt5 = model.starts_with("gpt-5") && !model.contains("-chat");
    o_series || gpt5
}

/// The id of the last stored reply the history names, and the messages after that reply.
pub(super) fn continue_from(messages: &[Message]) -> (Option<String>, &[Message]) {
    for (index, message) in messages.iter().enumerate().rev() {
        if let Message::Assistant { tool_calls, .. } = message
            && let Some(id) = tool_calls.iter().find_map(|call| {
                match Kept::of(call.provider_state.get(STATE_KEY)).response_id {
                    Some(Value::String(id)) => Some(id),
                    _ => None,
                }
            })
        {
            return (Some(id), &messages[index + 1..]);
        }
    }
    (None, messages)
}

/// The items a tool search left, to send back: as they came, but without their `id` when
/// nothing is stored (it would name an item the server never kept).
fn replayed_items(state: Option<&Value>, stored: bool) -> impl Iterator<Item = Value> {
    Kept::of(state).items.into_iter().map(move |mut item| {
        if !stored
            && item["type"] != "reasoning"
            && let Some(fields) = item.as_object_mut()
        {
            fields.shift_remove("id");
        }
        item
    })
}

/// A call as input items: the items that came before it, as they came, then the call; the
/// caller that made it, if a program did.
fn push_call<'a>(input: &mut Vec<InputItem<'a>>, call: &'a ToolCall) -> Option<Value> {
    let kept = Kept::of(call.provider_state.get(STATE_KEY));
    let paired = !kept.items.is_empty();
    input.extend(kept.items.into_iter().map(InputItem::Kept));
    input.push(InputItem::Item(Box::new(Item::FunctionCall {
        call_id: Some(Cow::Borrowed(&call.id)),
        name: Some(Cow::Borrowed(&call.name)),
        arguments: Some(Value::String(replayed_arguments(call))),
        // The item's id only beside the reasoning it pairs with: without `store`, an id alone
        // names an item the server never kept.
        id: kept.id.filter(|_| paired),
        caller: kept.caller.clone(),
        namespace: kept.namespace.map(Cow::Owned),
    })));
    kept.caller
}
