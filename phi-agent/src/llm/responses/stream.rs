//! A streamed response: its events read into deltas and, at its end, the whole reply.

use std::borrow::Cow;
use std::collections::VecDeque;

use serde::Deserialize;
use serde_json::Value;

use super::item::PROVIDER;
use super::reply::{WireResponse, read_reply};
use crate::error::AgentResult;
use crate::llm::http::WireError;
use crate::llm::lenient::{self, Listed};
use crate::llm::openai::stream_error_status;
use crate::llm::sse::{Decoder, Failure, read_event};
use crate::llm::{LlmResponse, StreamDelta, ToolCall};

/// A streamed response being read, event by event (`type` in each event's data): calls begin
/// with `response.output_item.added`, their arguments come in
/// `response.function_call_arguments.delta`s, text in `response.output_text.delta`s, each item
/// whole in `response.output_item.done`, and the whole response in `response.completed` (or
/// `response.incomplete`), which ends the stream. `STORED`: keep the response id with the calls.
#[derive(Default)]
pub(super) struct ResponsesStream<const STORED: bool> {
    text: String,
    calls: Vec<StreamedCall>,
    /// Finished items (`response.output_item.done`) by their `output_index`.
    items: Vec<(u64, Value)>,
    /// The response's id, from `response.created` (a stored reply's calls carry it).
    response_id: Option<Value>,
    /// How many calls have been announced ready.
    ready: usize,
}

/// A call being streamed: its `output_index` and item `id`, and the argument text handed on so
/// far.
struct StreamedCall {
    output_index: Option<u64>,
    item_id: Option<String>,
    arguments: String,
}

/// One event of a streamed response.
#[derive(Deserialize)]
#[serde(tag = "type")]
enum Event<'a> {
    #[serde(
        rename = "response.output_text.delta",
        alias = "response.refusal.delta"
    )]
    TextDelta {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        delta: Option<Cow<'a, str>>,
    },
    #[serde(rename = "response.output_item.added")]
    ItemAdded {
        #[serde(default, deserialize_with = "lenient::count")]
        output_index: Option<u64>,
        #[serde(default, borrow)]
        item: Option<AddedItem<'a>>,
    },
    #[serde(rename = "response.function_call_arguments.delta")]
    ArgumentsDelta {
        #[serde(default, deserialize_with = "lenient::count")]
        output_index: Option<u64>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        item_id: Option<Cow<'a, str>>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        delta: Option<Cow<'a, str>>,
    },
    #[serde(rename = "response.output_item.done")]
    ItemDone {
        #[serde(default, deserialize_with = "lenient::count")]
        output_index: Option<u64>,
        /// Raw: the item goes back as it came (a reasoning item's `encrypted_content`).
        #[serde(default)]
        item: Option<Value>,
    },
    #[serde(rename = "response.created")]
    Created {
        #[serde(default)]
        response: Option<CreatedResponse>,
    },
    #[serde(rename = "response.completed", alias = "response.incomplete")]
    Completed {
        #[serde(default, borrow)]
        response: Option<WireResponse<'a>>,
    },
    #[serde(rename = "response.failed")]
    Failed {
        #[serde(default, borrow)]
        response: Option<FailedResponse<'a>>,
    },
    /// An error event: `code` and `message` at the top.
    #[serde(rename = "error")]
    Error {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        code: Option<Cow<'a, str>>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        message: Option<Cow<'a, str>>,
    },
    /// `.in_progress`, the arguments' and text's `.done`, reasoning summaries, and kinds added
    /// later: the items and the last event carry what they say.
    #[serde(other)]
    Unknown,
}

/// The item an `output_item.added` begins: only a call matters before it is done.
#[derive(Deserialize)]
#[serde(tag = "type")]
enum AddedItem<'a> {
    #[serde(rename = "function_call")]
    FunctionCall {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        call_id: Option<Cow<'a, str>>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        name: Option<Cow<'a, str>>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        id: Option<Cow<'a, str>>,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct CreatedResponse {
    /// Kept as it came, as [`WireResponse::id`].
    #[serde(default)]
    id: Option<Value>,
}

#[derive(Deserialize)]
struct FailedResponse<'a> {
    #[serde(default, borrow)]
    error: Option<WireError<'a>>,
}

impl<const STORED: bool> ResponsesStream<STORED> {
    /// The call at `output_index` (or, without one, of item `item_id`) among those begun, by
    /// its place in the reply.
    fn call_at(
        &self,
        output_index: Option<u64>,
        item_id: Option<&str>,
        data: &str,
    ) -> Result<usize, Failure> {
        self.calls
            .iter()
            .position(|call| match output_index {
                Some(index) => call.output_index == Some(index),
                // A server that leaves the index out still names the item.
                None => item_id.is_some() && call.item_id.as_deref() == item_id,
            })
            .ok_or_else(|| {
                Failure::malformed(PROVIDER, "arguments of a call that never began", data)
            })
    }

    /// The whole reply from the last event's response, with the deltas the events left out
    /// (a call streamed without argument text gets its arguments in one piece).
    fn reply(
        &mut self,
        mut response: WireResponse<'_>,
        out: &mut VecDeque<StreamDelta>,
    ) -> Result<LlmResponse, Failure> {
        // The items of the `output_item.done` events are the ones to send back (the API's
        // reference says so of a reasoning item's `encrypted_content`); the last event's
        // `output` stands when the events did not finish every item.
        if !self.items.is_empty() && self.items.len() >= response.output.items().len() {
            self.items.sort_by_key(|(index, _)| *index);
            let items = std::mem::take(&mut self.items);
            response.output = Listed::Items(items.into_iter().map(|(_, item)| item).collect());
        }
        let reply = read_reply(response, STORED).map_err(Failure::fatal)?;
        if let Some(rest) = reply.text.strip_prefix(self.text.as_str())
            && !rest.is_empty()
        {
            out.push_back(StreamDelta::Text(rest.to_string()));
        }
        for (index, call) in reply.tool_calls.iter().enumerate() {
            let streamed = match self.calls.get(index) {
                Some(streamed) => !streamed.arguments.is_empty(),
                None => {
                    out.push_back(StreamDelta::ToolCallStarted {
                        index,
                        id: call.id.clone(),
                        name: call.name.clone(),
                    });
                    false
                }
            };
            if !streamed {
                out.push_back(StreamDelta::ToolArguments {
                    index,
                    fragment: match &call.arguments {
                        Value::String(raw) => raw.clone(),
                        other => other.to_string(),
                    },
                });
            }
        }
        self.announce(&reply.tool_calls, out);
        Ok(reply)
    }

    /// Announces the calls of `calls` (the reply so far) not yet announced ready.
    fn announce(&mut self, calls: &[ToolCall], out: &mut VecDeque<StreamDelta>) {
        for (index, call) in calls.iter().enumerate().skip(self.ready) {
            out.push_back(StreamDelta::ToolCallReady {
                index,
                call: call.clone(),
            });
        }
        self.ready = self.ready.max(calls.len());
    }

    /// A call's item is whole: the calls so far, read as the whole reply will read them (with
    /// the reasoning items before them), are ready.
    fn call_done(&mut self, out: &mut VecDeque<StreamDelta>) {
        let mut items = self.items.clone();
        items.sort_by_key(|(index, _)| *index);
        let so_far = WireResponse::of_items(
            self.response_id.clone(),
            items.into_iter().map(|(_, item)| item).collect(),
        );
        // A call the reply so far cannot read is left to the whole reply, which says why.
        if let Ok(reply) = read_reply(so_far, STORED) {
            self.announce(&reply.tool_calls, out);
        }
    }
}

impl<const STORED: bool> Decoder for ResponsesStream<STORED> {
    fn feed(
        &mut self,
        event: &sse_stream::Sse,
        out: &mut VecDeque<StreamDelta>,
    ) -> Result<Option<LlmResponse>, Failure> {
        let data = event.data.as_deref().unwrap_or_default();
        if data.trim().is_empty() || data.trim() == "[DONE]" {
            return Ok(None);
        }
        let event: Event = read_event(PROVIDER, data)?;
        match event {
            Event::TextDelta { delta: Some(piece) } if !piece.is_empty() => {
                self.text.push_str(&piece);
                out.push_back(StreamDelta::Text(piece.into_owned()));
            }
            Event::ItemAdded {
                output_index,
                item: Some(AddedItem::FunctionCall { call_id, name, id }),
            } => {
                let (Some(call_id), Some(name)) = (call_id, name) else {
                    return Err(Failure::malformed(
                        PROVIDER,
                        "a function_call item lacks `call_id` or `name`",
                        data,
                    ));
                };
                out.push_back(StreamDelta::ToolCallStarted {
                    index: self.calls.len(),
                    id: call_id.into_owned(),
                    name: name.into_owned(),
                });
                self.calls.push(StreamedCall {
                    output_index,
                    item_id: id.map(Cow::into_owned),
                    arguments: String::new(),
                });
            }
            Event::ArgumentsDelta {
                output_index,
                item_id,
                delta,
            } => {
                let index = self.call_at(output_index, item_id.as_deref(), data)?;
                if let Some(fragment) = delta
                    && !fragment.is_empty()
                {
                    self.calls[index].arguments.push_str(&fragment);
                    out.push_back(StreamDelta::ToolArguments {
                        index,
                        fragment: fragment.into_owned(),
                    });
                }
            }
            Event::ItemDone {
                output_index: Some(output_index),
                item: Some(item),
            } => {
                let is_call = item["type"] == "function_call";
                self.items.push((output_index, item));
                if is_call {
                    self.call_done(out);
                }
            }
            Event::Created { response } => {
                self.response_id = response.and_then(|response| response.id);
            }
            Event::Completed { response } => {
                return self.reply(response.unwrap_or_default(), out).map(Some);
            }
            Event::Failed { response } => {
                let error = response.and_then(|response| response.error);
                let (code, message) = match error {
                    Some(error) => (error.code.name().map(str::to_string), error.message),
                    None => (None, None),
                };
                return Err(stream_failure(code.as_deref(), message.as_deref(), data));
            }
            Event::Error { code, message } => {
                return Err(stream_failure(code.as_deref(), message.as_deref(), data));
            }
            _ => {}
        }
        Ok(None)
    }

    fn finish(&mut self, _out: &mut VecDeque<StreamDelta>) -> Option<LlmResponse> {
        // Only `response.completed` says the reply is whole.
        None
    }
}

/// What a `response.failed` or `error` event says: its `code` decides whether a retry may help,
/// as the status would have.
fn stream_failure(code: Option<&str>, message: Option<&str>, data: &str) -> Failure {
    let status = stream_error_status(code);
    let message = message.map_or_else(
        || snippet(data),
        |message| message.chars().take(500).collect(),
    );
    Failure::provider(PROVIDER, status, message)
}

/// The start of `data`, quoted, for an error message.
fn snippet(data: &str) -> String {
    format!("{:?}", crate::limits::snippet(data.as_bytes()))
}

/// A streamed body in memory, read as [`LlmClient::stream`](crate::llm::LlmClient::stream) reads the network's.
pub(crate) fn decode_stream(chunks: &[&[u8]]) -> AgentResult<Vec<StreamDelta>> {
    crate::llm::sse::decode_body::<ResponsesStream<false>>(PROVIDER, chunks)
}
