//! A streamed message: its events read into deltas and, at its end, the whole reply.

use std::borrow::Cow;
use std::collections::VecDeque;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::content::{ContentBlock, PROVIDER};
use super::reply::{WireContainer, WireUsage, carry_code_execution, indirect, stop_reason};
use crate::error::AgentResult;
use crate::llm::http::WireError;
use crate::llm::lenient;
use crate::llm::sse::{Decoder, Failure, read_event};
use crate::llm::{LlmResponse, StreamDelta, ToolCall, Usage};

/// One `tool_use` block of a streamed message: its id, name, the `input` of its start event and
/// the `partial_json` pieces so far.
struct StreamedCall {
    id: String,
    name: String,
    start_input: Value,
    json: String,
    /// Whether [`StreamDelta::ToolCallReady`] is out for it.
    ready: bool,
    /// Who made the call, when it was the model's code (see [`carry_code_execution`]).
    caller: Option<Value>,
}

/// A `server_tool_use` block being streamed (the model's code, or a tool search): its input
/// comes in `input_json_delta`s like a call's arguments.
struct StreamedServerUse {
    id: String,
    name: String,
    start_input: Value,
    json: String,
}

impl StreamedServerUse {
    /// Its block as [`parse_response`] keeps it; `None` for a tool search (a streamed reply
    /// carries none, see [`MessageStream::reply`]).
    fn block(&self) -> Option<Value> {
        if self.name.starts_with("tool_search_tool") {
            return None;
        }
        let input = if self.json.trim().is_empty() {
            self.start_input.clone()
        } else {
            serde_json::from_str(&self.json).unwrap_or_else(|_| Value::String(self.json.clone()))
        };
        let (id, name) = (
            Cow::Borrowed(self.id.as_str()),
            Cow::Borrowed(self.name.as_str()),
        );
        Some(ContentBlock::server_tool_use(Some(id), Some(name), Some(input)).to_value())
    }
}

/// A server block of a streamed message, in the order they came.
enum StreamedServerBlock {
    Use(StreamedServerUse),
    Result(Value),
}

impl StreamedCall {
    /// The call, its arguments parsed: the start event's `input` for a call without
    /// `partial_json` (a call without arguments); text that is not JSON stays a string, so
    /// the agent can tell the model.
    fn to_call(&self) -> ToolCall {
        let arguments = if self.json.trim().is_empty() {
            self.start_input.clone()
        } else {
            serde_json::from_str(&self.json).unwrap_or_else(|_| Value::String(self.json.clone()))
        };
        ToolCall::new(&self.id, &self.name, arguments)
    }
}

/// Announces `streamed`'s call `call` ready; a call that came without `partial_json` gets its
/// start event's `input` as its last delta first, so that every call's deltas make JSON of its
/// arguments.
fn announce(
    index: usize,
    streamed: &StreamedCall,
    call: ToolCall,
    out: &mut VecDeque<StreamDelta>,
) {
    if streamed.json.trim().is_empty() {
        out.push_back(StreamDelta::ToolArguments {
            index,
            fragment: streamed.start_input.to_string(),
        });
    }
    out.push_back(StreamDelta::ToolCallReady { index, call });
}

/// A streamed message being read: `message_start`, then per content block
/// `content_block_start` (text or tool_use), its deltas (`text_delta`, `input_json_delta`) and
/// `content_block_stop` (a tool_use block's call is then ready); `message_delta` with the stop
/// reason and output tokens; `message_stop`. `ping` is ignored; an `error` event ends the
/// stream with the provider's error.
#[derive(Default)]
pub(super) struct MessageStream {
    text: String,
    calls: Vec<StreamedCall>,
    /// The block index of each call, in `calls`' order.
    blocks: Vec<u64>,
    /// The code-execution blocks (programmatic tool calling), by block index, in order.
    server: Vec<(u64, StreamedServerBlock)>,
    /// The code-execution container, from `message_start` or `message_delta`.
    container: Option<String>,
    stop_reason: Option<String>,
    usage: Usage,
}

impl MessageStream {
    /// Announces the call at `index` ready. A call that came without `partial_json` gets its
    /// start event's `input` as its last delta, so that every call's deltas make JSON of its
    /// arguments.
    ///
    /// In a reply with programmatic tool calling (code-execution blocks, or a call made by the
    /// model's code) the announcement waits for the end of the message: what the calls carry
    /// back ([`carry_code_execution`]) is whole only then (the container comes last, in
    /// `message_delta`), and a call announced ready is the call the reply holds.
    fn ready(&mut self, index: usize, out: &mut VecDeque<StreamDelta>) {
        let programmatic = !self.server.is_empty() || self.calls[index].caller.is_some();
        let call = &mut self.calls[index];
        if call.ready || programmatic {
            return;
        }
        call.ready = true;
        announce(index, call, call.to_call(), out);
    }

    /// The whole reply; calls not announced ready yet (their block never stopped, or the reply
    /// calls from code) are announced first.
    fn reply(&mut self, out: &mut VecDeque<StreamDelta>) -> LlmResponse {
        let calls = std::mem::take(&mut self.calls);
        let mut tool_calls: Vec<ToolCall> = calls.iter().map(StreamedCall::to_call).collect();
        // What programmatic tool calling carries, as a plain reply's parse keeps it.
        let callers = calls.iter().map(|call| call.caller.clone()).collect();
        let server_blocks = std::mem::take(&mut self.server)
            .into_iter()
            .filter_map(|(_, block)| match block {
                StreamedServerBlock::Use(server_use) => server_use.block(),
                StreamedServerBlock::Result(block) => Some(block),
            })
            .collect();
        carry_code_execution(
            &mut tool_calls,
            callers,
            server_blocks,
            self.container.take(),
        );
        for (index, call) in calls.iter().enumerate() {
            if !call.ready {
                announce(index, call, tool_calls[index].clone(), out);
            }
        }
        LlmResponse {
            text: std::mem::take(&mut self.text),
            stop_reason: stop_reason(self.stop_reason.as_deref(), !tool_calls.is_empty()),
            tool_calls,
            usage: self.usage,
            // A streamed reply carries no server-side tool search (read from plain replies only).
            tool_searches: Vec::new(),
        }
    }

    /// The `server_tool_use` block at `block` (an event's `index`), if it is one.
    fn server_use_of(&mut self, block: Option<u64>) -> Option<&mut StreamedServerUse> {
        let block = block?;
        self.server
            .iter_mut()
            .find_map(|(index, server)| match server {
                StreamedServerBlock::Use(server_use) if *index == block => Some(server_use),
                _ => None,
            })
    }

    /// The place in `calls` of the tool_use block at `block` (an event's `index`), if it is one.
    fn call_of(&self, block: Option<u64>) -> Option<usize> {
        let block = block?;
        self.blocks.iter().position(|b| *b == block)
    }
}

/// One event of a streamed message.
#[derive(Deserialize)]
#[serde(tag = "type")]
enum Event<'a> {
    #[serde(rename = "message_start")]
    MessageStart {
        #[serde(default)]
        message: Option<StartedMessage>,
    },
    #[serde(rename = "content_block_start")]
    BlockStart {
        #[serde(default, deserialize_with = "lenient::count")]
        index: Option<u64>,
        #[serde(default, borrow)]
        /// The block it opens, as a reply holds it (its text or input empty).
        content_block: Option<ContentBlock<'a>>,
    },
    #[serde(rename = "content_block_delta")]
    BlockDelta {
        #[serde(default, deserialize_with = "lenient::count")]
        index: Option<u64>,
        #[serde(default, borrow)]
        delta: Option<Delta<'a>>,
    },
    #[serde(rename = "content_block_stop")]
    BlockStop {
        #[serde(default, deserialize_with = "lenient::count")]
        index: Option<u64>,
    },
    #[serde(rename = "message_delta")]
    MessageDelta {
        #[serde(default, borrow)]
        delta: Option<MessageChange<'a>>,
        #[serde(default)]
        usage: Option<WireUsage>,
    },
    #[serde(rename = "message_stop")]
    MessageStop,
    #[serde(rename = "error")]
    Error {
        #[serde(default, borrow)]
        error: Option<WireError<'a>>,
    },
    /// `ping`, and event kinds added later.
    #[serde(other)]
    Unknown,
}

#[derive(Deserialize)]
struct StartedMessage {
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    container: Option<WireContainer>,
}

/// A `content_block_delta`'s delta.
#[derive(Deserialize)]
#[serde(tag = "type")]
enum Delta<'a> {
    #[serde(rename = "text_delta")]
    Text {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        text: Option<Cow<'a, str>>,
    },
    #[serde(rename = "input_json_delta")]
    InputJson {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        partial_json: Option<Cow<'a, str>>,
    },
    /// Thinking, signatures, and kinds added later.
    #[serde(other)]
    Other,
}

/// A `message_delta`'s delta.
#[derive(Deserialize)]
struct MessageChange<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    stop_reason: Option<Cow<'a, str>>,
    /// The code-execution container, when the request used one.
    #[serde(default)]
    container: Option<WireContainer>,
}

impl Decoder for MessageStream {
    fn feed(
        &mut self,
        event: &sse_stream::Sse,
        out: &mut VecDeque<StreamDelta>,
    ) -> Result<Option<LlmResponse>, Failure> {
        let data = event.data.as_deref().unwrap_or_default();
        if data.trim().is_empty() {
            return Ok(None);
        }
        let event: Event = read_event(PROVIDER, data)?;
        match event {
            Event::MessageStart { message } => {
                let (usage, container) = message.map_or((None, None), |m| (m.usage, m.container));
                if let Some(usage) = usage {
                    usage.update(&mut self.usage);
                }
                if let Some(id) = container.and_then(|container| container.id) {
                    self.container = Some(id);
                }
            }
            Event::BlockStart {
                index,
                content_block,
            } => match content_block {
                Some(ContentBlock::Text { text: Some(text) }) if !text.is_empty() => {
                    self.text.push_str(&text);
                    out.push_back(StreamDelta::Text(text.into_owned()));
                }
                Some(ContentBlock::ToolUse {
                    id,
                    name,
                    input,
                    caller,
                }) => {
                    let (Some(id), Some(name), Some(index)) = (id, name, index) else {
                        return Err(Failure::malformed(
                            PROVIDER,
                            "a tool_use block start lacks `index`, `id` or `name`",
                            data,
                        ));
                    };
                    self.blocks.push(index);
                    self.calls.push(StreamedCall {
                        id: id.to_string(),
                        name: name.to_string(),
                        start_input: input
                            .map_or_else(|| Value::Object(Map::new()), Cow::into_owned),
                        json: String::new(),
                        ready: false,
                        caller: indirect(caller.map(Cow::into_owned)),
                    });
                    out.push_back(StreamDelta::ToolCallStarted {
                        index: self.calls.len() - 1,
                        id: id.into_owned(),
                        name: name.into_owned(),
                    });
                }
                Some(ContentBlock::ServerToolUse { id, name, input }) => {
                    let server_use = StreamedServerUse {
                        id: id.unwrap_or_default().into_owned(),
                        name: name.unwrap_or_default().into_owned(),
                        start_input: input
                            .map_or_else(|| Value::Object(Map::new()), Cow::into_owned),
                        json: String::new(),
                    };
                    let block = StreamedServerBlock::Use(server_use);
                    self.server.push((index.unwrap_or(u64::MAX), block));
                }
                Some(ContentBlock::CodeExecutionResult {
                    tool_use_id,
                    content,
                }) => {
                    let block =
                        ContentBlock::code_execution_result(tool_use_id, content).to_value();
                    let block = StreamedServerBlock::Result(block);
                    self.server.push((index.unwrap_or(u64::MAX), block));
                }
                _ => {}
            },
            Event::BlockDelta { index, delta } => match delta {
                Some(Delta::Text { text: Some(text) }) if !text.is_empty() => {
                    self.text.push_str(&text);
                    out.push_back(StreamDelta::Text(text.into_owned()));
                }
                Some(Delta::InputJson { partial_json }) => {
                    if let Some(server_use) = self.server_use_of(index) {
                        // The model's code, or a search's query: kept, not shown as a call.
                        server_use
                            .json
                            .push_str(partial_json.as_deref().unwrap_or_default());
                        return Ok(None);
                    }
                    let Some(index) = self.call_of(index) else {
                        return Err(Failure::malformed(
                            PROVIDER,
                            "arguments for a block that is no started tool_use",
                            data,
                        ));
                    };
                    if self.calls[index].ready {
                        return Err(Failure::malformed(
                            PROVIDER,
                            "arguments for a tool_use block that has stopped",
                            data,
                        ));
                    }
                    if let Some(fragment) = partial_json
                        && !fragment.is_empty()
                    {
                        self.calls[index].json.push_str(&fragment);
                        out.push_back(StreamDelta::ToolArguments {
                            index,
                            fragment: fragment.into_owned(),
                        });
                    }
                }
                _ => {}
            },
            Event::MessageDelta { delta, usage } => {
                let (reason, container) =
                    delta.map_or((None, None), |delta| (delta.stop_reason, delta.container));
                if let Some(reason) = reason {
                    self.stop_reason = Some(reason.into_owned());
                }
                if let Some(id) = container.and_then(|container| container.id) {
                    self.container = Some(id);
                }
                if let Some(usage) = usage {
                    // Cumulative counts: the last one is the message's.
                    usage.update(&mut self.usage);
                }
            }
            Event::BlockStop { index } => {
                // A tool_use block's arguments are complete: its call can run.
                if let Some(index) = self.call_of(index) {
                    self.ready(index, out);
                }
            }
            Event::MessageStop => return Ok(Some(self.reply(out))),
            Event::Error { error } => {
                let error = error.unwrap_or_default();
                let status = match error.kind.as_deref() {
                    Some("overloaded_error") => 529,
                    Some("api_error") => 500,
                    Some("rate_limit_error") => 429,
                    Some("invalid_request_error") => 400,
                    _ => 200,
                };
                let message = error
                    .describe()
                    .unwrap_or_else(|| crate::llm::http::provider_message(data.as_bytes()));
                return Err(Failure::provider(PROVIDER, status, message));
            }
            Event::Unknown => {}
        }
        Ok(None)
    }

    fn finish(&mut self, out: &mut VecDeque<StreamDelta>) -> Option<LlmResponse> {
        // The stop reason comes after every block is complete: the reply is whole without
        // `message_stop`.
        self.stop_reason.is_some().then(|| self.reply(out))
    }
}

/// A streamed body in memory, read as [`LlmClient::stream`](crate::llm::LlmClient::stream) reads the network's.
pub(crate) fn decode_stream(chunks: &[&[u8]]) -> AgentResult<Vec<StreamDelta>> {
    crate::llm::sse::decode_body::<MessageStream>(PROVIDER, chunks)
}
