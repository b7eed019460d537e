//! A streamed chat completion: its chunks read into deltas and, at its end, the whole reply.

use std::borrow::Cow;
use std::collections::VecDeque;

use serde::Deserialize;
use serde_json::Value;

use super::message::PROVIDER;
use super::reply::{ChatUsage, parse_arguments, stop_reason};
use crate::error::AgentResult;
use crate::llm::http::WireError;
use crate::llm::lenient::{self, Listed};
use crate::llm::sse::{Decoder, Failure, read_event};
use crate::llm::{LlmResponse, StreamDelta, ToolCall, Usage};

/// A streamed chat completion being read: chunks of `choices[0].delta`, tool calls gathered by
/// their `index` (id and name come on a call's first fragment only, and the fragments of
/// parallel calls may interleave), the usage in a last chunk without choices, then `[DONE]`.
///
/// A call is ready when the next call begins and its arguments so far are a whole JSON object
/// (the API writes calls one after the other; should the pieces of an earlier call still be
/// open, it waits), and at the latest when the choice finishes.
#[derive(Default)]
pub(super) struct ChatStream {
    text: String,
    /// The calls in the order they began.
    calls: Vec<StreamedCall>,
    finish_reason: Option<String>,
    usage: Usage,
}

/// One call of a streamed completion.
struct StreamedCall {
    /// The provider's index of the call.
    wire_index: u64,
    id: String,
    name: String,
    /// The arguments' text so far.
    arguments: String,
    /// Whether [`StreamDelta::ToolCallReady`] is out for it.
    ready: bool,
}

impl StreamedCall {
    fn to_call(&self) -> ToolCall {
        ToolCall::new(&self.id, &self.name, parse_arguments(&self.arguments))
    }
}

impl ChatStream {
    /// Announces the call at `index` ready if its arguments are a whole JSON object already.
    fn ready_if_whole(&mut self, index: usize, out: &mut VecDeque<StreamDelta>) {
        let call = &mut self.calls[index];
        if call.ready
            || !serde_json::from_str::<Value>(&call.arguments).is_ok_and(|value| value.is_object())
        {
            return;
        }
        call.ready = true;
        out.push_back(StreamDelta::ToolCallReady {
            index,
            call: call.to_call(),
        });
    }

    /// Announces every call not yet ready: the choice is finished. A call that came without
    /// argument text gets `{}` as its last delta, so that every call's deltas make JSON of its
    /// arguments.
    fn ready_all(&mut self, out: &mut VecDeque<StreamDelta>) {
        for (index, call) in self.calls.iter_mut().enumerate() {
            if call.ready {
                continue;
            }
            if call.arguments.trim().is_empty() {
                out.push_back(StreamDelta::ToolArguments {
                    index,
                    fragment: "{}".into(),
                });
            }
            call.ready = true;
            out.push_back(StreamDelta::ToolCallReady {
                index,
                call: call.to_call(),
            });
        }
    }

    /// The whole reply, its calls parsed as they were announced ready.
    fn reply(&mut self, out: &mut VecDeque<StreamDelta>) -> LlmResponse {
        self.ready_all(out);
        let tool_calls: Vec<ToolCall> = std::mem::take(&mut self.calls)
            .iter()
            .map(StreamedCall::to_call)
            .collect();
        LlmResponse {
            text: std::mem::take(&mut self.text),
            stop_reason: stop_reason(self.finish_reason.as_deref(), !tool_calls.is_empty()),
            tool_calls,
            usage: self.usage,
            tool_searches: Vec::new(),
        }
    }
}

/// The HTTP status an OpenAI error code met inside a stream stands for (both APIs name their
/// errors the same way), so that a retry is tried where the status would have been retried;
/// 200 (not retried) for any other code.
pub(crate) fn stream_error_status(code: Option<&str>) -> u16 {
    match code {
        Some("rate_limit_exceeded") => 429,
        Some("server_error" | "internal_error") => 500,
        Some("overloaded" | "server_is_overloaded" | "service_unavailable") => 503,
        _ => 200,
    }
}

/// One chunk of a streamed completion: `choices[0].delta`, the usage (a last chunk without
/// choices), or an error after the 200.
#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    error: Option<WireError<'a>>,
    #[serde(default)]
    usage: Option<ChatUsage>,
    #[serde(default, borrow)]
    choices: Listed<StreamChoice<'a>>,
}

#[derive(Deserialize)]
struct StreamChoice<'a> {
    #[serde(default, borrow)]
    delta: Option<ChatDelta<'a>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ChatDelta<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Listed<CallFragment<'a>>,
}

/// A piece of a streamed call: its `index` always, its id and name on its first piece.
#[derive(Deserialize)]
struct CallFragment<'a> {
    #[serde(default, deserialize_with = "lenient::count")]
    index: Option<u64>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    function: Option<FunctionFragment<'a>>,
}

#[derive(Deserialize)]
struct FunctionFragment<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    arguments: Option<Cow<'a, str>>,
}

impl Decoder for ChatStream {
    fn feed(
        &mut self,
        event: &sse_stream::Sse,
        out: &mut VecDeque<StreamDelta>,
    ) -> Result<Option<LlmResponse>, Failure> {
        let data = event.data.as_deref().unwrap_or_default();
        if data.trim() == "[DONE]" {
            return Ok(Some(self.reply(out)));
        }
        if data.trim().is_empty() {
            return Ok(None);
        }
        let chunk: Chunk = read_event(PROVIDER, data)?;
        if let Some(error) = chunk.error {
            // An error after a 200: its `code` or `type` decides whether a retry may help.
            let status = stream_error_status(error.code.name().or(error.kind.as_deref()));
            let message = error
                .describe()
                .unwrap_or_else(|| crate::llm::http::provider_message(data.as_bytes()));
            return Err(Failure::provider(PROVIDER, status, message));
        }
        if let Some(usage) = chunk.usage {
            self.usage = usage.into();
        }
        let Some(choice) = chunk.choices.array().and_then(|c| c.into_iter().next()) else {
            return Ok(None);
        };
        let finished = choice.finish_reason.is_some();
        if let Some(reason) = choice.finish_reason {
            self.finish_reason = Some(reason.into_owned());
        }
        if let Some(delta) = choice.delta {
            self.read_delta(delta, data, out)?;
        }
        if finished {
            self.ready_all(out);
        }
        Ok(None)
    }

    fn finish(&mut self, out: &mut VecDeque<StreamDelta>) -> Option<LlmResponse> {
        // A server that closes after the finishing chunk without `[DONE]` still sent it all.
        self.finish_reason.is_some().then(|| self.reply(out))
    }
}

impl ChatStream {
    /// Reads one chunk's `delta`: text, and fragments of tool calls.
    fn read_delta(
        &mut self,
        delta: ChatDelta<'_>,
        data: &str,
        out: &mut VecDeque<StreamDelta>,
    ) -> Result<(), Failure> {
        if let Some(text) = delta.content
            && !text.is_empty()
        {
            self.text.push_str(&text);
            out.push_back(StreamDelta::Text(text.into_owned()));
        }
        for call in delta.tool_calls.array().unwrap_or_default() {
            let Some(wire_index) = call.index else {
                return Err(Failure::malformed(
                    PROVIDER,
                    "a tool call fragment without `index`",
                    data,
                ));
            };
            let (name, fragment) = match call.function {
                Some(function) => (function.name, function.arguments),
                None => (None, None),
            };
            let index = match self.calls.iter().position(|c| c.wire_index == wire_index) {
                Some(index) => index,
                None => {
                    let (Some(id), Some(name)) = (call.id, name) else {
                        return Err(Failure::malformed(
                            PROVIDER,
                            "the first fragment of a tool call lacks `id` or `function.name`",
                            data,
                        ));
                    };
                    // The next call begins: the one before is done if its JSON is whole.
                    if let Some(last) = self.calls.len().checked_sub(1) {
                        self.ready_if_whole(last, out);
                    }
                    self.calls.push(StreamedCall {
                        wire_index,
                        id: id.to_string(),
                        name: name.to_string(),
                        arguments: String::new(),
                        ready: false,
                    });
                    out.push_back(StreamDelta::ToolCallStarted {
                        index: self.calls.len() - 1,
                        id: id.into_owned(),
                        name: name.into_owned(),
                    });
                    self.calls.len() - 1
                }
            };
            if let Some(fragment) = fragment
                && !fragment.is_empty()
            {
                let streamed = &mut self.calls[index];
                if streamed.ready && !fragment.trim().is_empty() {
                    // Its arguments were a whole object: more text would make them no JSON.
                    return Err(Failure::malformed(
                        PROVIDER,
                        "arguments continue after the call's JSON object was complete",
                        data,
                    ));
                }
                streamed.arguments.push_str(&fragment);
                out.push_back(StreamDelta::ToolArguments {
                    index,
                    fragment: fragment.into_owned(),
                });
            }
        }
        Ok(())
    }
}

/// A streamed body in memory, read as [`LlmClient::stream`](crate::llm::LlmClient::stream) reads the network's.
pub(crate) fn decode_stream(chunks: &[&[u8]]) -> AgentResult<Vec<StreamDelta>> {
    crate::llm::sse::decode_body::<ChatStream>(PROVIDER, chunks)
}
