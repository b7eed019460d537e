//! A `GenerateContentResponse` the API answered with (whole, or chunk by chunk), read into an
//! [`LlmResponse`].

use std::borrow::Cow;
use std::collections::VecDeque;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::content::{MADE_UP_ID, PROVIDER, Part, STATE_KEY, WireContent};
use crate::error::{AgentError, AgentResult};
use crate::llm::http::WireError;
use crate::llm::lenient::{self, Listed};
use crate::llm::{LlmResponse, ProviderState, StopReason, StreamDelta, ToolCall, Usage};

/// A `GenerateContentResponse`, whole or one chunk of a streamed one, as far as this adapter
/// reads it; a streamed chunk may be an error instead.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct GenerateResponse<'a> {
    #[serde(default, borrow)]
    candidates: Listed<Candidate<'a>>,
    #[serde(default)]
    usage_metadata: Option<UsageMetadata>,
    #[serde(default, borrow)]
    prompt_feedback: Option<PromptFeedback<'a>>,
    #[serde(default, borrow)]
    pub(super) error: Option<WireError<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate<'a> {
    #[serde(default, borrow)]
    content: Option<WireContent<'a>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMetadata {
    #[serde(default, deserialize_with = "lenient::count")]
    prompt_token_count: Option<u64>,
    #[serde(default, deserialize_with = "lenient::count")]
    candidates_token_count: Option<u64>,
    #[serde(default, deserialize_with = "lenient::count")]
    thoughts_token_count: Option<u64>,
    /// The part of `promptTokenCount` served from a cache (implicit or explicit).
    #[serde(default, deserialize_with = "lenient::count")]
    cached_content_token_count: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PromptFeedback<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    block_reason: Option<Cow<'a, str>>,
}

impl Part<'_> {
    /// The state a function call's part carries besides the call (its `thoughtSignature`):
    /// every field but `functionCall`.
    fn state(&mut self) -> ProviderState {
        let mut fields = std::mem::take(&mut self.rest);
        if let Some(text) = &self.text {
            fields.insert("text".into(), Value::from(text.as_ref()));
        }
        if self.thought {
            fields.insert("thought".into(), Value::Bool(true));
        }
        if fields.is_empty() {
            ProviderState::default()
        } else {
            ProviderState::default().with(STATE_KEY, Value::Object(fields))
        }
    }
}

/// Reads a `GenerateContentResponse`. Public to the crate for the wire tests.
pub(crate) fn parse_response(body: &Value) -> AgentResult<LlmResponse> {
    let invalid = |message: String| AgentError::InvalidResponse {
        provider: PROVIDER,
        message,
    };
    let response: GenerateResponse =
        lenient::reply(body).map_err(|error| invalid(format!("unexpected shape: {error}")))?;
    let mut reply = Reply::default();
    reply.read(response, None).map_err(invalid)?;
    Ok(reply.finish())
}

/// A reply being read: from one whole `GenerateContentResponse`, or from the chunks of a
/// streamed one (each a `GenerateContentResponse` with the next parts; the last has the
/// `finishReason`, and the usage so far comes with each).
#[derive(Default)]
pub(super) struct Reply {
    text: String,
    tool_calls: Vec<ToolCall>,
    pub(super) finish_reason: Option<String>,
    usage: Usage,
}

impl Reply {
    /// Reads one response or chunk, pushing the deltas it carries to `out` when streaming.
    pub(super) fn read(
        &mut self,
        body: GenerateResponse<'_>,
        mut out: Option<&mut VecDeque<StreamDelta>>,
    ) -> Result<(), String> {
        if let Some(usage) = body.usage_metadata {
            // `promptTokenCount` already includes the cached part: the convention `Usage`
            // states. Thinking tokens are written (and billed) as output.
            let output =
                usage.candidates_token_count.unwrap_or(0) + usage.thoughts_token_count.unwrap_or(0);
            self.usage = Usage::new(usage.prompt_token_count.unwrap_or(0), output)
                .with_cache_read_input_tokens(usage.cached_content_token_count.unwrap_or(0));
        }
        let Some(candidate) = body.candidates.array().and_then(|c| c.into_iter().next()) else {
            let blocked = body.prompt_feedback.and_then(|f| f.block_reason);
            return match blocked {
                Some(reason) => Err(format!(
                    "it has no candidates: the prompt was blocked ({reason})"
                )),
                // A streamed chunk may carry only the usage.
                None if out.is_some() => Ok(()),
                None => Err("it has no `candidates[0]`".into()),
            };
        };
        let parts = match candidate.content.map(|content| content.parts) {
            Some(Listed::Items(parts)) => parts,
            // A candidate stopped before writing anything (MAX_TOKENS, SAFETY) has no parts.
            None | Some(Listed::Absent) => Vec::new(),
            Some(Listed::Mistyped) => {
                return Err("`candidates[0].content.parts` is not an array".into());
            }
        };
        for (index, mut part) in parts.into_iter().enumerate() {
            if let Some(call) = part.function_call.take() {
                let Some(name) = call.name else {
                    return Err(format!("functionCall in part {index} lacks `name`"));
                };
                let id = match call.id {
                    Some(id) if !id.is_empty() => id.into_owned(),
                    _ => format!("{MADE_UP_ID}{}", self.tool_calls.len()),
                };
                let arguments = match call.args.map(Cow::into_owned) {
                    None | Some(Value::Null) => Value::Object(Map::new()),
                    Some(args) => args,
                };
                let fragment = out.is_some().then(|| arguments.to_string());
                let call = ToolCall::new(id, name, arguments).with_provider_state(part.state());
                if let (Some(out), Some(fragment)) = (out.as_deref_mut(), fragment) {
                    // Gemini streams a call whole, in one part: it is ready as soon as it starts.
                    let index = self.tool_calls.len();
                    out.push_back(StreamDelta::ToolCallStarted {
                        index,
                        id: call.id.clone(),
                        name: call.name.clone(),
                    });
                    out.push_back(StreamDelta::ToolArguments { index, fragment });
                    out.push_back(StreamDelta::ToolCallReady {
                        index,
                        call: call.clone(),
                    });
                }
                self.tool_calls.push(call);
            } else if part.thought {
                // A thought summary is not part of the answer.
            } else if let Some(piece) = part.text {
                self.text.push_str(&piece);
                if let Some(out) = out.as_deref_mut()
                    && !piece.is_empty()
                {
                    out.push_back(StreamDelta::Text(piece.into_owned()));
                }
            }
        }
        if let Some(reason) = candidate.finish_reason {
            self.finish_reason = Some(reason.into_owned());
        }
        Ok(())
    }

    pub(super) fn finish(&mut self) -> LlmResponse {
        let tool_calls = std::mem::take(&mut self.tool_calls);
        let stop_reason = match self.finish_reason.as_deref() {
            // Gemini says STOP after function calls too.
            _ if !tool_calls.is_empty() => StopReason::ToolUse,
            Some("STOP") | None => StopReason::EndTurn,
            Some("MAX_TOKENS") => StopReason::MaxTokens,
            Some(other) => StopReason::Other(other.to_string()),
        };
        LlmResponse {
            text: std::mem::take(&mut self.text),
            tool_calls,
            usage: self.usage,
            stop_reason,
            tool_searches: Vec::new(),
        }
    }
}
