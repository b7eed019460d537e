//! A `Response` the API answered with, read into an [`LlmResponse`].

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::item::{Item, Kept, LoadedTool, MessagePart, PROVIDER};
use crate::error::{AgentError, AgentResult};
use crate::llm::http::WireError;
use crate::llm::lenient::{self, Listed};
use crate::llm::openai::parse_arguments;
use crate::llm::{LlmResponse, ProviderState, StopReason, ToolCall, ToolSearchCall, Usage};

/// A `Response`, as far as this adapter reads it.
#[derive(Deserialize, Default)]
pub(super) struct WireResponse<'a> {
    /// Kept as it came: a stored reply's calls carry it back.
    #[serde(default)]
    pub(super) id: Option<Value>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    status: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    error: Option<WireError<'a>>,
    /// Raw values: reasoning and tool search items go back exactly as they came
    /// (`encrypted_content` included); each is read as an [`Item`] besides.
    #[serde(default)]
    pub(super) output: Listed<Value>,
    #[serde(default, borrow)]
    incomplete_details: Option<Incomplete<'a>>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

impl WireResponse<'_> {
    /// A response of `output` alone (and its `id`): what a stream has finished so far.
    pub(super) fn of_items(id: Option<Value>, output: Vec<Value>) -> Self {
        Self {
            id,
            output: Listed::Items(output),
            ..Self::default()
        }
    }
}

#[derive(Deserialize)]
struct Incomplete<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct WireUsage {
    #[serde(default, deserialize_with = "lenient::count")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::count")]
    output_tokens: Option<u64>,
    /// `input_tokens_details.cached_tokens`: the part of `input_tokens` read from the cache.
    #[serde(default, deserialize_with = "lenient::cached_tokens")]
    input_tokens_details: Option<u64>,
}

/// Reads a `Response`. Public to the crate for the wire tests.
pub(crate) fn parse_response(body: &Value) -> AgentResult<LlmResponse> {
    parse_reply(body, false)
}

/// Reads a `Response`, keeping its id with its calls when `stored`.
pub(super) fn parse_reply(body: &Value, stored: bool) -> AgentResult<LlmResponse> {
    let response = lenient::reply(body).map_err(|error| AgentError::InvalidResponse {
        provider: PROVIDER,
        message: format!("unexpected shape: {error}"),
    })?;
    read_reply(response, stored)
}

/// Reads a response, keeping its id with its calls when `stored`.
pub(super) fn read_reply(body: WireResponse<'_>, stored: bool) -> AgentResult<LlmResponse> {
    let invalid = |message: String| AgentError::InvalidResponse {
        provider: PROVIDER,
        message,
    };
    let status = body.status.as_deref();
    if status == Some("failed") {
        let message = body
            .error
            .as_ref()
            .and_then(|error| error.message.as_deref())
            .unwrap_or("no reason given");
        return Err(invalid(format!("the response failed: {message}")));
    }
    let items = body
        .output
        .array()
        .ok_or_else(|| invalid("it has no `output` array".into()))?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    // Each search with the items that go back for it.
    let mut tool_searches: Vec<(ToolSearchCall, Vec<Value>)> = Vec::new();
    let mut kept = CallState::new(if stored { body.id } else { None });
    for (index, raw) in items.into_iter().enumerate() {
        let item = Item::deserialize(&raw)
            .map_err(|error| invalid(format!("output item {index}: {error}")))?;
        match item {
            Item::Message { content } => {
                for part in content.items() {
                    match part {
                        MessagePart::Text { text: piece } => {
                            text.push_str(piece.as_deref().unwrap_or_default())
                        }
                        MessagePart::Refusal { refusal } => {
                            text.push_str(refusal.as_deref().unwrap_or_default())
                        }
                        MessagePart::Other => {}
                    }
                }
            }
            Item::FunctionCall {
                call_id,
                name,
                arguments,
                id,
                caller,
                namespace,
            } => {
                let (Some(call_id), Some(name)) = (call_id, name) else {
                    return Err(invalid(format!(
                        "function_call item {index} lacks `call_id` or `name`"
                    )));
                };
                let arguments = match arguments {
                    Some(Value::String(raw)) => parse_arguments(&raw),
                    None | Some(Value::Null) => Value::Object(Default::default()),
                    Some(other) => other,
                };
                let call = ToolCall::new(call_id, name, arguments);
                let caller = caller.filter(|caller| caller["type"] != "direct");
                let namespace = namespace.map(Cow::into_owned);
                tool_calls.push(kept.attach(call, id, caller, namespace));
            }
            Item::Program => kept.keep(raw, true),
            Item::Reasoning { encrypted_content } => {
                let sendable = stored || encrypted_content.is_some();
                drop(encrypted_content);
                kept.keep(raw, sendable);
            }
            Item::ToolSearchCall {
                call_id,
                id,
                arguments,
            } => {
                let id = call_id.or(id).unwrap_or_default().into_owned();
                // The reasoning that led to the search goes back before it.
                let mut items = kept.take_items();
                let search = ToolSearchCall {
                    id,
                    input: arguments.unwrap_or(Value::Null),
                    tools: Vec::new(),
                    provider_state: ProviderState::default(),
                };
                items.push(raw);
                tool_searches.push((search, items));
            }
            Item::ToolSearchOutput { call_id, tools } => {
                // Its call: the one with its `call_id`, else the last one.
                let search = match &call_id {
                    Some(id) => tool_searches
                        .iter_mut()
                        .rev()
                        .find(|(search, _)| search.id == *id),
                    None => tool_searches.last_mut(),
                };
                let Some((search, items)) = search else {
                    return Err(invalid(format!(
                        "tool_search_output item {index} answers no tool_search_call"
                    )));
                };
                loaded_names(tools.items(), &mut search.tools);
                drop((call_id, tools));
                items.push(raw);
            }
            // Kinds only requests carry, built-in tools' items, and kinds added later.
            Item::FunctionCallOutput { .. } | Item::Other => {}
        }
    }
    let tool_searches = tool_searches
        .into_iter()
        .map(|(mut search, items)| {
            search.provider_state = Kept {
                items,
                ..Kept::default()
            }
            .into_state();
            search
        })
        .collect();
    let incomplete = body
        .incomplete_details
        .as_ref()
        .and_then(|details| details.reason.as_deref());
    let stop_reason = match (status, incomplete) {
        (Some("incomplete"), Some("max_output_tokens")) => StopReason::MaxTokens,
        (Some("incomplete"), reason) => StopReason::Other(reason.unwrap_or("incomplete").into()),
        _ if !tool_calls.is_empty() => StopReason::ToolUse,
        (Some("completed") | None, _) => StopReason::EndTurn,
        (Some(other), _) => StopReason::Other(other.to_string()),
    };
    let usage = body.usage.unwrap_or_default();
    Ok(LlmResponse {
        text,
        tool_calls,
        // `input_tokens` already includes the cached part: the convention `Usage` states.
        usage: Usage::new(
            usage.input_tokens.unwrap_or(0),
            usage.output_tokens.unwrap_or(0),
        )
        .with_cache_read_input_tokens(usage.input_tokens_details.unwrap_or(0)),
        stop_reason,
        tool_searches,
    })
}

/// The names of the tools a `tool_search_output` loaded: functions, and the functions of
/// namespaces.
fn loaded_names(tools: &[LoadedTool<'_>], out: &mut Vec<String>) {
    for tool in tools {
        match tool.kind.as_deref() {
            Some("namespace") => loaded_names(tool.tools.items(), out),
            _ => {
                if let Some(name) = &tool.name {
                    out.push(name.to_string());
                }
            }
        }
    }
}

/// The items of a reply that go back with its next call.
struct CallState {
    response_id: Option<Value>,
    items: Vec<Value>,
}

impl CallState {
    fn new(response_id: Option<Value>) -> Self {
        Self {
            response_id,
            items: Vec::new(),
        }
    }

    /// Keeps a reasoning item for the next call, if it can be sent back (`sendable`:
    /// stateless, only with its `encrypted_content`, as the server kept nothing an id could
    /// name).
    fn keep(&mut self, item: Value, sendable: bool) {
        if sendable {
            self.items.push(item);
        }
    }

    /// The items kept since the last call, for an item that is not a call.
    fn take_items(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.items)
    }

    /// `call` with the items kept since the last call (and the reply's id).
    fn attach(
        &mut self,
        call: ToolCall,
        item_id: Option<Value>,
        caller: Option<Value>,
        namespace: Option<String>,
    ) -> ToolCall {
        let items = std::mem::take(&mut self.items);
        // The call's id pairs it with the reasoning just before it; a program item needs none.
        let paired = items.last().is_some_and(|item| item["type"] == "reasoning");
        let kept = Kept {
            id: if paired { item_id } else { None },
            items,
            response_id: self.response_id.clone(),
            caller,
            namespace,
        };
        if kept.items.is_empty()
            && kept.response_id.is_none()
            && kept.caller.is_none()
            && kept.namespace.is_none()
        {
            return call;
        }
        call.with_provider_state(kept.into_state())
    }
}
