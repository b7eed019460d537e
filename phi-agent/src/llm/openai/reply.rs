//! A chat completion the API answered with, read into an [`LlmResponse`].

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::message::{AssistantMessage, PROVIDER, WireFunction};
use crate::error::{AgentError, AgentResult};
use crate::llm::lenient::{self, Listed};
use crate::llm::{LlmResponse, StopReason, ToolCall, Usage};

/// A chat completion, as far as this adapter reads it (`choices[0]` and `usage`).
#[derive(Deserialize, Default)]
struct Completion<'a> {
    #[serde(default, borrow)]
    choices: Listed<Choice<'a>>,
    #[serde(default)]
    usage: Option<ChatUsage>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    message: Option<AssistantMessage<'a>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    finish_reason: Option<Cow<'a, str>>,
}

/// `usage`: the whole reply's, or (streamed) the last chunk's.
#[derive(Deserialize, Default, Clone, Copy)]
pub(super) struct ChatUsage {
    #[serde(default, deserialize_with = "lenient::count")]
    prompt_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::count")]
    completion_tokens: Option<u64>,
    /// `prompt_tokens_details.cached_tokens`: the part of `prompt_tokens` read from the cache.
    #[serde(default, deserialize_with = "lenient::cached_tokens")]
    prompt_tokens_details: Option<u64>,
}

impl From<ChatUsage> for Usage {
    fn from(usage: ChatUsage) -> Self {
        // `prompt_tokens` already includes the cached part: the convention `Usage` states.
        Usage::new(
            usage.prompt_tokens.unwrap_or(0),
            usage.completion_tokens.unwrap_or(0),
        )
        .with_cache_read_input_tokens(usage.prompt_tokens_details.unwrap_or(0))
    }
}

/// Reads a chat completion. Public to the crate for the wire tests.
pub(crate) fn parse_response(body: &Value) -> AgentResult<LlmResponse> {
    let invalid = |message: String| AgentError::InvalidResponse {
        provider: PROVIDER,
        message,
    };
    let completion: Completion =
        lenient::reply(body).map_err(|error| invalid(format!("unexpected shape: {error}")))?;
    let usage = completion.usage.unwrap_or_default().into();
    let Some(choice) = completion
        .choices
        .array()
        .and_then(|c| c.into_iter().next())
    else {
        return Err(invalid("it has no `choices[0]`".into()));
    };
    let message = choice
        .message
        .ok_or_else(|| invalid("`choices[0]` has no `message`".into()))?;
    let text = message.content.unwrap_or_default().into_owned();
    let mut tool_calls = Vec::new();
    for (index, call) in message
        .tool_calls
        .array()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        let (id, function) = (call.id, call.function);
        let (
            Some(id),
            Some(WireFunction {
                name: Some(name),
                arguments,
            }),
        ) = (id, function)
        else {
            return Err(invalid(format!(
                "tool call {index} lacks `id` or `function.name`"
            )));
        };
        let arguments = match arguments {
            Some(Value::String(raw)) => parse_arguments(&raw),
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(other) => other,
        };
        tool_calls.push(ToolCall::new(id, name, arguments));
    }
    let stop_reason = stop_reason(choice.finish_reason.as_deref(), !tool_calls.is_empty());
    Ok(LlmResponse {
        tool_searches: Vec::new(),
        text,
        tool_calls,
        usage,
        stop_reason,
    })
}

pub(super) fn stop_reason(finish_reason: Option<&str>, has_calls: bool) -> StopReason {
    match finish_reason {
        Some("stop") => StopReason::EndTurn,
        Some("tool_calls") | Some("function_call") => StopReason::ToolUse,
        Some("length") => StopReason::MaxTokens,
        Some(other) => StopReason::Other(other.to_string()),
        None if has_calls => StopReason::ToolUse,
        None => StopReason::EndTurn,
    }
}

/// The arguments string as JSON; empty means no arguments; text that is not JSON stays a string
/// so the agent can tell the model.
pub(crate) fn parse_arguments(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
}
