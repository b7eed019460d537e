//! A message the API answered with, read into an [`LlmResponse`].

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::content::{ContentBlock, PROVIDER, STATE_KEY};
use crate::error::{AgentError, AgentResult};
use crate::llm::lenient::{self, Listed};
use crate::llm::{LlmResponse, StopReason, ToolCall, ToolSearchCall, Usage};

/// A message, as far as this adapter reads it.
#[derive(Deserialize, Default)]
struct Reply<'a> {
    #[serde(default, borrow)]
    content: Listed<ContentBlock<'a>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    /// The code-execution container the request ran in, if it used one.
    #[serde(default)]
    container: Option<WireContainer>,
}

/// A code-execution container, in a message and in stream events.
#[derive(Deserialize)]
pub(super) struct WireContainer {
    #[serde(default)]
    pub(super) id: Option<String>,
}

/// `usage`, in a message and in `message_delta` events (cumulative counts).
#[derive(Deserialize, Default, Clone, Copy)]
pub(super) struct WireUsage {
    #[serde(default, deserialize_with = "lenient::count")]
    pub(super) input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::count")]
    pub(super) output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::count")]
    pub(super) cache_read_input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::count")]
    pub(super) cache_creation_input_tokens: Option<u64>,
}

impl WireUsage {
    /// Writes the counts this usage reports into `usage`, leaving the others as they were (a
    /// `message_delta` may repeat only some of them).
    pub(super) fn update(self, usage: &mut Usage) {
        let set = |field: &mut u64, count: Option<u64>| {
            if let Some(count) = count {
                *field = count;
            }
        };
        // Kept apart until the end: Anthropic's `input_tokens` excludes the cached parts.
        let mut uncached = usage.uncached_input_tokens();
        set(&mut uncached, self.input_tokens);
        set(&mut usage.output_tokens, self.output_tokens);
        set(
            &mut usage.cache_read_input_tokens,
            self.cache_read_input_tokens,
        );
        set(
            &mut usage.cache_creation_input_tokens,
            self.cache_creation_input_tokens,
        );
        // The whole input, as `Usage` counts it.
        usage.input_tokens = uncached
            .saturating_add(usage.cache_read_input_tokens)
            .saturating_add(usage.cache_creation_input_tokens);
    }
}

/// Reads a message. Public to the crate for the wire tests.
pub(crate) fn parse_response(body: &Value) -> AgentResult<LlmResponse> {
    let invalid = |message: String| AgentError::InvalidResponse {
        provider: PROVIDER,
        message,
    };
    let reply: Reply =
        lenient::reply(body).map_err(|error| invalid(format!("unexpected shape: {error}")))?;
    let blocks = reply
        .content
        .array()
        .ok_or_else(|| invalid("it has no `content` array".into()))?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    let mut tool_searches: Vec<ToolSearchCall> = Vec::new();
    // The code-execution blocks, kept to go back before the calls they led to.
    let mut server_blocks: Vec<Value> = Vec::new();
    let mut callers: Vec<Option<Value>> = Vec::new();
    for (index, block) in blocks.into_iter().enumerate() {
        match block {
            // The server's own tool search: its call, then its result (in that order).
            ContentBlock::ServerToolUse { id, name, input }
                if name
                    .as_deref()
                    .is_some_and(|name| name.starts_with("tool_search_tool")) =>
            {
                tool_searches.push(ToolSearchCall {
                    id: id.unwrap_or_default().into_owned(),
                    input: input.map_or(Value::Null, Cow::into_owned),
                    tools: Vec::new(),
                    provider_state: Default::default(),
                });
            }
            ContentBlock::ToolSearchResult {
                tool_use_id,
                content,
            } => {
                let id = tool_use_id.unwrap_or_default();
                // An error result (`tool_search_tool_result_error`) found nothing.
                let found: Vec<String> = content
                    .map(|content| content.tool_references.array().unwrap_or_default())
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|r| r.tool_name.map(Cow::into_owned))
                    .collect();
                match tool_searches.iter_mut().find(|search| search.id == id) {
                    Some(search) => search.tools = found,
                    None => tool_searches.push(ToolSearchCall {
                        id: id.into_owned(),
                        input: Value::Null,
                        tools: found,
                        provider_state: Default::default(),
                    }),
                }
            }
            ContentBlock::Text { text: piece } => {
                text.push_str(piece.as_deref().unwrap_or_default())
            }
            ContentBlock::ToolUse {
                id,
                name,
                input,
                caller,
            } => {
                let (Some(id), Some(name)) = (id, name) else {
                    return Err(invalid(format!(
                        "tool_use block {index} lacks `id` or `name`"
                    )));
                };
                let input = input.map_or(Value::Null, Cow::into_owned);
                tool_calls.push(ToolCall::new(id, name, input));
                callers.push(indirect(caller.map(Cow::into_owned)));
            }
            ContentBlock::ServerToolUse { id, name, input } => {
                let input = input.map(Cow::into_owned);
                server_blocks.push(ContentBlock::server_tool_use(id, name, input).to_value());
            }
            ContentBlock::CodeExecutionResult {
                tool_use_id,
                content,
            } => server_blocks
                .push(ContentBlock::code_execution_result(tool_use_id, content).to_value()),
            // Thinking, and blocks only requests carry.
            ContentBlock::Image { .. }
            | ContentBlock::Document { .. }
            | ContentBlock::ToolResult { .. }
            | ContentBlock::Other => {}
        }
    }
    carry_code_execution(
        &mut tool_calls,
        callers,
        server_blocks,
        reply.container.and_then(|container| container.id),
    );
    let stop_reason = stop_reason(reply.stop_reason.as_deref(), !tool_calls.is_empty());
    let mut usage = Usage::default();
    reply.usage.unwrap_or_default().update(&mut usage);
    Ok(LlmResponse {
        tool_searches,
        text,
        tool_calls,
        usage,
        stop_reason,
    })
}

/// A call's `caller`, when its code made it: a direct call needs nothing carried, it is the
/// plain form.
pub(super) fn indirect(caller: Option<Value>) -> Option<Value> {
    caller.filter(|caller| caller["type"] != "direct")
}

/// Puts what programmatic tool calling needs back on the next request into the calls' state:
/// the server's code-execution blocks on the first call (they go back before it), each call's
/// `caller`, and the container on every call. A reply without calls keeps nothing: its code has
/// run to its end.
pub(super) fn carry_code_execution(
    calls: &mut [ToolCall],
    callers: Vec<Option<Value>>,
    server_blocks: Vec<Value>,
    container: Option<String>,
) {
    let mut server_blocks = Some(server_blocks).filter(|blocks| !blocks.is_empty());
    for (call, caller) in calls.iter_mut().zip(callers) {
        let mut state = Map::new();
        if let Some(blocks) = server_blocks.take() {
            state.insert("before".into(), Value::Array(blocks));
        }
        if let Some(caller) = caller {
            state.insert("caller".into(), caller);
        }
        if state.is_empty() {
            continue;
        }
        if let Some(container) = &container {
            state.insert("container".into(), Value::String(container.clone()));
        }
        call.provider_state.insert(STATE_KEY, Value::Object(state));
    }
}

pub(super) fn stop_reason(reason: Option<&str>, has_calls: bool) -> StopReason {
    match reason {
        Some("end_turn") | Some("stop_sequence") => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::MaxTokens,
        Some(other) => StopReason::Other(other.to_string()),
        None if has_calls => StopReason::ToolUse,
        None => StopReason::EndTurn,
    }
}
