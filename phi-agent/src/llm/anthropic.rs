//! The Anthropic messages API.

use std::collections::VecDeque;
use std::fmt;

use std::borrow::Cow;

use async_trait::async_trait;
use reqwest::header::{HeaderMap, HeaderValue};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::adapter::{AdapterCore, FromSettings, adapter_setters};
use super::definition;
use super::http::WireError;
use super::lenient::{self, Listed};
use super::settings::process_env;
use super::sse::{Decoder, Failure, read_event};
use super::tool_cache::{DeferredJsonCache, SharedJson, ToolJsonCache};
use super::{
    DeltaStream, LlmClient, LlmRequest, LlmResponse, Message, StopReason, StreamDelta, ToolCall,
    ToolSearchCall, Usage,
};
use crate::content::Content;
use crate::error::{AgentError, AgentResult};

const PROVIDER: &str = "anthropic";
const API_VERSION: &str = "2023-06-01";
/// The server-side tool search (BM25 over the deferred definitions), as a tool entry's `type`.
const TOOL_SEARCH_TYPE: &str = "tool_search_tool_bm25_20251119";
/// Its name, in the tool entry and in the `server_tool_use` blocks it answers with.
const TOOL_SEARCH_NAME: &str = "tool_search_tool_bm25";
/// The code-execution server tool that calls the request's tools from the model's code
/// (programmatic tool calling), as a tool entry's `type` and as the `type` of a call's
/// `caller`.
const CODE_EXECUTION_TYPE: &str = "code_execution_20250825";
/// Its name, in the tool entry and in its `server_tool_use` blocks.
const CODE_EXECUTION_NAME: &str = "code_execution";
/// The key of this adapter's state on a [`ToolCall`]: the call's `caller`, the server blocks
/// that came before it, and the code-execution container (see [`AnthropicClient::with_code_execution`]).
const STATE_KEY: &str = "anthropic";
/// The beta the tool search, `input_examples` and programmatic tool calling need
/// (`anthropic-beta` header).
const TOOL_SEARCH_BETA: &str = "advanced-tool-use-2025-11-20";

/// A client of the Anthropic messages API (`POST {base_url}/v1/messages`).
///
/// Tool results keep their images (Anthropic reads images in tool results). The key never
/// appears in `Debug` or errors.
///
/// ```
/// use phi_agent::llm::AnthropicClient;
/// let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5")?;
/// assert_eq!(client.base_url(), "https://api.anthropic.com");
/// assert!(!format!("{client:?}").contains("sk-ant-not-real"));
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[derive(Clone)]
pub struct AnthropicClient {
    core: AdapterCore,
    tools: ToolJsonCache,
    native: DeferredJsonCache,
    /// Whether requests carry the code-execution tool and `allowed_callers`.
    code_execution: bool,
}

impl AnthropicClient {
    /// The public API's base URL (without `/v1`, as the official SDKs take it).
    pub const DEFAULT_BASE_URL: &'static str = "https://api.anthropic.com";
    /// The model used when `ANTHROPIC_MODEL` is not set.
    pub const DEFAULT_MODEL: &'static str = "claude-sonnet-4-5";
    /// The reply cap sent when [`with_max_tokens`](Self::with_max_tokens) set none (this API
    /// requires one).
    pub const DEFAULT_MAX_TOKENS: u32 = 4096;

    /// A client for `model` using `api_key`, against the public API, with `max_tokens`
    /// [`DEFAULT_MAX_TOKENS`](Self::DEFAULT_MAX_TOKENS).
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> AgentResult<Self> {
        Ok(Self {
            core: AdapterCore::new(
                PROVIDER,
                api_key.into(),
                model.into(),
                Self::DEFAULT_BASE_URL,
            )?,
            tools: ToolJsonCache::default(),
            native: DeferredJsonCache::default(),
            code_execution: false,
        })
    }

    /// This client with Anthropic's programmatic tool calling on or off (default off): every
    /// request then carries the code-execution server tool (`code_execution_20250825`) and each
    /// tool its `allowed_callers` from [`ToolOptions::callers`](crate::ToolOptions::callers) (`"direct"`,
    /// `"code_execution_20250825"` or both), so that the model can write one program, run in
    /// Anthropic's sandbox, that calls many tools. A call made by such a program carries its
    /// `caller` and the code-execution container back with it, and both are sent back on the
    /// next request (`docs/providers.md#anthropic-programmatic-tool-calling`).
    ///
    /// ```
    /// use phi_agent::llm::AnthropicClient;
    /// let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5")?.with_code_execution(true);
    /// assert!(client.code_execution());
    /// # Ok::<(), phi_agent::AgentError>(())
    /// ```
    pub fn with_code_execution(mut self, on: bool) -> Self {
        self.code_execution = on;
        self
    }

    /// Whether programmatic tool calling is on; see
    /// [`with_code_execution`](Self::with_code_execution).
    pub fn code_execution(&self) -> bool {
        self.code_execution
    }

    /// A client configured the way the official SDKs read the environment:
    /// `ANTHROPIC_API_KEY` (required), `ANTHROPIC_BASE_URL` (default the public API) and
    /// `ANTHROPIC_MODEL` (default [`DEFAULT_MODEL`](Self::DEFAULT_MODEL)).
    pub fn from_env() -> AgentResult<Self> {
        Self::from_lookup(process_env)
    }

    adapter_setters!(
        base_url: "the part before `/v1/messages`",
        max_tokens: "`max_tokens`, which this API requires",
    );

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        format!("{}/v1/messages", self.core.base_url)
    }

    /// The headers of `request`: the key, the API version, and the advanced tool use beta when
    /// the request has deferred tools (the tool search) or a tool with `input_examples`.
    fn headers(&self, request: &LlmRequest) -> AgentResult<HeaderMap> {
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", self.core.key.header("")?);
        headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        let has_examples = || {
            request
                .tools
                .iter()
                .chain(request.deferred_tools.iter())
                .any(|tool| !tool.input_examples().is_empty())
        };
        if self.code_execution || !request.deferred_tools.is_empty() || has_examples() {
            headers.insert("anthropic-beta", HeaderValue::from_static(TOOL_SEARCH_BETA));
        }
        Ok(headers)
    }

    fn body(&self, request: &LlmRequest) -> MessagesBody<'_> {
        let mut system: Vec<&str> = request.system.iter().map(String::as_str).collect();
        let mut turns = Turns::default();
        for message in &request.messages {
            match message {
                Message::System { text } => system.push(text),
                Message::User { text } if !text.is_empty() => {
                    turns.push("user", json!({"type": "text", "text": text}))
                }
                Message::User { .. } => {}
                Message::Assistant { text, tool_calls } => {
                    if !text.is_empty() {
                        turns.push("assistant", json!({"type": "text", "text": text}));
                    }
                    for call in tool_calls {
                        // The server's blocks before the call (the code that made it), as
                        // they came.
                        let before = call
                            .provider_state
                            .get(STATE_KEY)
                            .and_then(|state| state.get("before"))
                            .and_then(Value::as_array);
                        for block in before.into_iter().flatten() {
                            turns.push("assistant", block.clone());
                        }
                        turns.push("assistant", tool_use(call));
                    }
                }
                Message::Tool {
                    tool_call_id,
                    content,
                    is_error,
                    ..
                } => turns.push("user", tool_result(tool_call_id, content, *is_error)),
                Message::ToolSearch(search) => {
                    // Replayed as the API reported it, so that the model keeps the tools it found.
                    turns.push(
                        "assistant",
                        json!({"type": "server_tool_use", "id": search.id,
                               "name": TOOL_SEARCH_NAME, "input": search.input}),
                    );
                    let references: Vec<Value> = search
                        .tools
                        .iter()
                        .map(|name| json!({"type": "tool_reference", "tool_name": name}))
                        .collect();
                    turns.push(
                        "assistant",
                        json!({"type": "tool_search_tool_result", "tool_use_id": search.id,
                               "content": {"type": "tool_search_tool_search_result",
                                           "tool_references": references}}),
                    );
                }
            }
        }
        let code_tools = self.code_execution.then_some(());
        let convert = match code_tools {
            Some(()) => definition::anthropic_with_callers_borrowed,
            None => definition::anthropic_borrowed,
        };
        MessagesBody {
            container: container(&request.messages).map(str::to_string),
            model: &self.core.model,
            max_tokens: self.core.max_tokens.unwrap_or(Self::DEFAULT_MAX_TOKENS),
            system: (!system.is_empty()).then(|| system.join("\n\n")),
            messages: turns.0,
            tools: if !request.deferred_tools.is_empty() {
                let extra = if self.code_execution {
                    server_tools().as_slice()
                } else {
                    &server_tools()[..1]
                };
                Some(
                    self.native
                        .get(&request.tools, &request.deferred_tools, convert, extra),
                )
            } else if self.code_execution {
                // The code-execution tool after the shown tools, none deferred.
                Some(
                    self.native
                        .get(&request.tools, no_tools(), convert, &server_tools()[1..]),
                )
            } else {
                (!request.tools.is_empty()).then(|| {
                    self.tools
                        .get(&request.tools, definition::anthropic_borrowed)
                })
            },
            stream: None,
        }
    }
}

/// The server tools' entries: the tool search, then the code-execution tool.
fn server_tools() -> &'static [Value; 2] {
    static TOOLS: std::sync::OnceLock<[Value; 2]> = std::sync::OnceLock::new();
    TOOLS.get_or_init(|| {
        [
            json!({"type": TOOL_SEARCH_TYPE, "name": TOOL_SEARCH_NAME}),
            json!({"type": CODE_EXECUTION_TYPE, "name": CODE_EXECUTION_NAME}),
        ]
    })
}

/// An empty tool list that stays the same `Arc`, so that the tools cache keeps holding.
fn no_tools() -> &'static std::sync::Arc<[super::ToolSpec]> {
    static NONE: std::sync::OnceLock<std::sync::Arc<[super::ToolSpec]>> =
        std::sync::OnceLock::new();
    NONE.get_or_init(|| std::sync::Arc::from(Vec::new()))
}

/// The code-execution container of the latest call that ran in one, to carry the program's
/// state on into the next request.
fn container(messages: &[Message]) -> Option<&str> {
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

/// A messages request; the tools are shared with earlier turns, not copied.
#[derive(serde::Serialize)]
struct MessagesBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<String>,
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    messages: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<SharedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
}

/// Messages under construction: consecutive blocks of one role share a message, because the
/// API wants user and assistant turns to alternate (all results of a turn go in one user turn).
#[derive(Default)]
struct Turns(Vec<Value>);

impl Turns {
    fn push(&mut self, role: &str, block: Value) {
        if let Some(last) = self.0.last_mut()
            && last["role"] == role
            && let Some(blocks) = last["content"].as_array_mut()
        {
            blocks.push(block);
            return;
        }
        self.0.push(json!({"role": role, "content": [block]}));
    }
}

fn tool_use(call: &ToolCall) -> Value {
    // The API only accepts an object here; arguments that were not JSON were already answered
    // with an error result, so the call is replayed with no input.
    let input = match &call.arguments {
        Value::Object(_) => call.arguments.clone(),
        _ => Value::Object(Map::new()),
    };
    let mut block = json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input});
    // A call made by the model's code goes back with the caller that made it.
    if let Some(caller) = call
        .provider_state
        .get(STATE_KEY)
        .and_then(|state| state.get("caller"))
    {
        block["caller"] = caller.clone();
    }
    block
}

fn tool_result(id: &str, content: &[Content], is_error: bool) -> Value {
    let blocks: Vec<Value> = content
        .iter()
        .filter_map(|piece| match piece {
            Content::Image { data, mime_type } => Some(json!({
                "type": "image",
                "source": {"type": "base64", "media_type": mime_type, "data": data},
            })),
            // A PDF resource is a document block; audio, other binary resources and resource
            // links become a text note (`to_model_text`), as the API takes neither.
            Content::Resource { resource }
                if resource.mime_type.as_deref() == Some("application/pdf") =>
            {
                let crate::content::ResourceBody::Blob(data) = &resource.body else {
                    return Some(json!({"type": "text", "text": piece.to_model_text()}));
                };
                Some(json!({
                    "type": "document",
                    "source": {"type": "base64", "media_type": "application/pdf", "data": data},
                }))
            }
            // Empty text blocks are rejected by the API.
            other => {
                let text = other.to_model_text();
                (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
            }
        })
        .collect();
    let mut result = json!({"type": "tool_result", "tool_use_id": id, "content": blocks});
    if is_error {
        result["is_error"] = Value::Bool(true);
    }
    result
}

/// A message, as far as this adapter reads it.
#[derive(Deserialize, Default)]
struct Reply<'a> {
    #[serde(default, borrow)]
    content: Listed<Block<'a>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    /// The code-execution container the request ran in, if it used one.
    #[serde(default)]
    container: Option<WireContainer>,
}

#[derive(Deserialize)]
struct WireContainer {
    #[serde(default)]
    id: Option<String>,
}

/// A content block of a message.
#[derive(Deserialize)]
#[serde(tag = "type")]
enum Block<'a> {
    #[serde(rename = "text")]
    Text {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        text: Option<Cow<'a, str>>,
    },
    #[serde(rename = "tool_use")]
    ToolUse {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        id: Option<Cow<'a, str>>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        name: Option<Cow<'a, str>>,
        /// The arguments: any JSON the model wrote.
        #[serde(default)]
        input: Option<Value>,
        /// Who made the call: the model (`direct`, or absent) or its code
        /// (`code_execution_20250825` with the server tool's id).
        #[serde(default)]
        caller: Option<Value>,
    },
    /// A call of a server tool (the tool search among them).
    #[serde(rename = "server_tool_use")]
    ServerToolUse {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        id: Option<Cow<'a, str>>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        name: Option<Cow<'a, str>>,
        /// The search's input, kept as it came to be replayed.
        #[serde(default)]
        input: Option<Value>,
    },
    #[serde(rename = "tool_search_tool_result")]
    ToolSearchResult {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        tool_use_id: Option<Cow<'a, str>>,
        #[serde(default, borrow)]
        content: Option<SearchResult<'a>>,
    },
    /// What the model's code returned, once it has run to its end.
    #[serde(rename = "code_execution_tool_result")]
    CodeExecutionResult {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        tool_use_id: Option<Cow<'a, str>>,
        #[serde(default)]
        content: Option<Value>,
    },
    /// Thinking, and block kinds added later: not part of the answer.
    #[serde(other)]
    Other,
}

/// A tool search's result: the tools it found (none for `tool_search_tool_result_error`).
#[derive(Deserialize)]
struct SearchResult<'a> {
    #[serde(default, borrow)]
    tool_references: Listed<ToolReference<'a>>,
}

#[derive(Deserialize)]
struct ToolReference<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    tool_name: Option<Cow<'a, str>>,
}

/// `usage`, in a message and in `message_delta` events (cumulative counts).
#[derive(Deserialize, Default, Clone, Copy)]
struct WireUsage {
    #[serde(default, deserialize_with = "lenient::count")]
    input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::count")]
    output_tokens: Option<u64>,
}

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
            Block::ServerToolUse { id, name, input }
                if name
                    .as_deref()
                    .is_some_and(|name| name.starts_with("tool_search_tool")) =>
            {
                tool_searches.push(ToolSearchCall {
                    id: id.unwrap_or_default().into_owned(),
                    input: input.unwrap_or(Value::Null),
                    tools: Vec::new(),
                    provider_state: Default::default(),
                });
            }
            Block::ToolSearchResult {
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
            Block::Text { text: piece } => text.push_str(piece.as_deref().unwrap_or_default()),
            Block::ToolUse {
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
                tool_calls.push(ToolCall::new(id, name, input.unwrap_or(Value::Null)));
                // A direct call needs nothing carried: it is the plain form.
                callers.push(caller.filter(|caller| caller["type"] != "direct"));
            }
            Block::ServerToolUse { id, name, input } => {
                server_blocks.push(server_tool_use(id, name, input));
            }
            Block::CodeExecutionResult {
                tool_use_id,
                content,
            } => server_blocks.push(code_execution_result(tool_use_id, content)),
            Block::Other => {}
        }
    }
    carry_code_execution(
        &mut tool_calls,
        callers,
        server_blocks,
        reply.container.and_then(|container| container.id),
    );
    let stop_reason = stop_reason(reply.stop_reason.as_deref(), !tool_calls.is_empty());
    let usage = reply.usage.unwrap_or_default();
    Ok(LlmResponse {
        tool_searches,
        text,
        tool_calls,
        usage: Usage {
            input_tokens: usage.input_tokens.unwrap_or(0),
            output_tokens: usage.output_tokens.unwrap_or(0),
        },
        stop_reason,
    })
}

/// A `server_tool_use` block (the model's code) as it goes back on the next request.
fn server_tool_use(
    id: Option<Cow<'_, str>>,
    name: Option<Cow<'_, str>>,
    input: Option<Value>,
) -> Value {
    json!({
        "type": "server_tool_use",
        "id": id.unwrap_or_default(),
        "name": name.unwrap_or_default(),
        "input": input.unwrap_or_else(|| Value::Object(Map::new())),
    })
}

/// A `code_execution_tool_result` block as it goes back on the next request.
fn code_execution_result(tool_use_id: Option<Cow<'_, str>>, content: Option<Value>) -> Value {
    json!({
        "type": "code_execution_tool_result",
        "tool_use_id": tool_use_id.unwrap_or_default(),
        "content": content.unwrap_or(Value::Null),
    })
}

/// Puts what programmatic tool calling needs back on the next request into the calls' state:
/// the server's code-execution blocks on the first call (they go back before it), each call's
/// `caller`, and the container on every call. A reply without calls keeps nothing: its code has
/// run to its end.
fn carry_code_execution(
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

fn stop_reason(reason: Option<&str>, has_calls: bool) -> StopReason {
    match reason {
        Some("end_turn") | Some("stop_sequence") => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::MaxTokens,
        Some(other) => StopReason::Other(other.to_string()),
        None if has_calls => StopReason::ToolUse,
        None => StopReason::EndTurn,
    }
}

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
        Some(server_tool_use(Some(id), Some(name), Some(input)))
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
struct MessageStream {
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
        content_block: Option<StartedBlock<'a>>,
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

/// The block a `content_block_start` opens.
#[derive(Deserialize)]
#[serde(tag = "type")]
enum StartedBlock<'a> {
    #[serde(rename = "text")]
    Text {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        text: Option<Cow<'a, str>>,
    },
    #[serde(rename = "tool_use")]
    ToolUse {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        id: Option<Cow<'a, str>>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        name: Option<Cow<'a, str>>,
        /// The arguments of a call without `partial_json` (`{}`): any JSON.
        #[serde(default)]
        input: Option<Value>,
        /// Who made the call, as in a plain reply's `tool_use` block.
        #[serde(default)]
        caller: Option<Value>,
    },
    /// A server tool's call: the model's code (its input streamed as a call's arguments are),
    /// or a tool search.
    #[serde(rename = "server_tool_use")]
    ServerToolUse {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        id: Option<Cow<'a, str>>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        name: Option<Cow<'a, str>>,
        #[serde(default)]
        input: Option<Value>,
    },
    /// What the model's code returned, whole in its start event.
    #[serde(rename = "code_execution_tool_result")]
    CodeExecutionResult {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        tool_use_id: Option<Cow<'a, str>>,
        #[serde(default)]
        content: Option<Value>,
    },
    /// Thinking and other blocks are not part of the answer.
    #[serde(other)]
    Other,
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
                    self.usage.input_tokens = usage.input_tokens.unwrap_or(0);
                    self.usage.output_tokens = usage.output_tokens.unwrap_or(0);
                }
                if let Some(id) = container.and_then(|container| container.id) {
                    self.container = Some(id);
                }
            }
            Event::BlockStart {
                index,
                content_block,
            } => match content_block {
                Some(StartedBlock::Text { text: Some(text) }) if !text.is_empty() => {
                    self.text.push_str(&text);
                    out.push_back(StreamDelta::Text(text.into_owned()));
                }
                Some(StartedBlock::ToolUse {
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
                        start_input: input.unwrap_or_else(|| json!({})),
                        json: String::new(),
                        ready: false,
                        // A direct call needs nothing carried: it is the plain form.
                        caller: caller.filter(|caller| caller["type"] != "direct"),
                    });
                    out.push_back(StreamDelta::ToolCallStarted {
                        index: self.calls.len() - 1,
                        id: id.into_owned(),
                        name: name.into_owned(),
                    });
                }
                Some(StartedBlock::ServerToolUse { id, name, input }) => {
                    let server_use = StreamedServerUse {
                        id: id.unwrap_or_default().into_owned(),
                        name: name.unwrap_or_default().into_owned(),
                        start_input: input.unwrap_or_else(|| json!({})),
                        json: String::new(),
                    };
                    let block = StreamedServerBlock::Use(server_use);
                    self.server.push((index.unwrap_or(u64::MAX), block));
                }
                Some(StartedBlock::CodeExecutionResult {
                    tool_use_id,
                    content,
                }) => {
                    let block = code_execution_result(tool_use_id, content);
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
                    if let Some(output) = usage.output_tokens {
                        self.usage.output_tokens = output;
                    }
                    if let Some(input) = usage.input_tokens {
                        self.usage.input_tokens = input;
                    }
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
                    .unwrap_or_else(|| super::http::provider_message(data.as_bytes()));
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

/// A streamed body in memory, read as [`LlmClient::stream`] reads the network's.
pub(crate) fn decode_stream(chunks: &[&[u8]]) -> AgentResult<Vec<StreamDelta>> {
    super::sse::decode_body::<MessageStream>(PROVIDER, chunks)
}

impl FromSettings for AnthropicClient {
    const PREFIX: &'static str = "ANTHROPIC";
    const NAME: &'static str = "Anthropic";
    const MODEL: &'static str = Self::DEFAULT_MODEL;

    fn with_key(key: String, model: String) -> AgentResult<Self> {
        Self::new(key, model)
    }

    fn core_mut(&mut self) -> &mut AdapterCore {
        &mut self.core
    }
}

#[async_trait]
impl LlmClient for AnthropicClient {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        let body = self
            .core
            .post(&self.endpoint(), self.headers(request), &self.body(request))
            .await?;
        parse_response(&body)
    }

    /// Streams the message (`stream: true`).
    fn stream<'a>(&'a self, request: &'a LlmRequest) -> DeltaStream<'a> {
        let mut body = self.body(request);
        body.stream = Some(true);
        self.core
            .stream::<MessageStream>(self.endpoint(), self.headers(request), &body)
    }

    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.core.model
    }

    /// The messages API's tool search (`tool_search_tool_bm25`): deferred tools are sent with
    /// `defer_loading: true` and the server finds them for the model.
    fn native_tool_search(&self) -> bool {
        true
    }

    /// Whether [`with_code_execution`](AnthropicClient::with_code_execution) is on.
    fn programmatic_tool_calling(&self) -> bool {
        self.code_execution
    }
}

impl fmt::Debug for AnthropicClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.core.debug(f, "AnthropicClient").finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::llm::ToolSpec;

    #[test]
    fn kinds_added_later_are_skipped_and_an_event_without_type_is_refused() {
        let body = concat!(
            "event: ping\ndata: {\"type\":\"ping\"}\n\n",
            "event: x\ndata: {\"type\":\"content_block_future\",\"index\":0,\"any\":[1,{}]}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"server_thing\",\"x\":1}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"s\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        let deltas = decode_stream(&[body.as_bytes()]).unwrap();
        assert_eq!(deltas[0], StreamDelta::Text("hi".into()));
        assert_eq!(deltas.len(), 2, "{deltas:?}");
        let error = decode_stream(&[b"data: {\"index\": 0}\n\n"]).unwrap_err();
        assert!(error.to_string().contains("without `type`"), "{error}");

        let reply = parse_response(&json!({"content": [
            {"type": "thinking", "thinking": "hmm", "signature": "c2ln"},
            {"type": "redacted_thinking", "data": "x"},
            {"type": "text", "text": "hi"}
        ], "usage": {"input_tokens": null, "output_tokens": 3}}))
        .unwrap();
        assert_eq!(reply.text, "hi");
        assert_eq!(reply.usage.output_tokens, 3);
        assert_eq!(
            reply.usage.input_tokens, 0,
            "a count of another type reads as none"
        );
    }

    #[test]
    fn results_of_one_turn_share_a_user_message_and_keep_images() {
        let client = AnthropicClient::new("k", "m").unwrap();
        let call = |id: &str| ToolCall::new(id, "shot", json!({}));
        let result = |id: &str, content| Message::Tool {
            tool_call_id: id.into(),
            name: "shot".into(),
            content,
            is_error: false,
        };
        let request = LlmRequest {
            system: Some("sys".into()),
            messages: vec![
                Message::user("take two"),
                Message::Assistant {
                    text: "ok".into(),
                    tool_calls: vec![call("a"), call("b")],
                },
                result("a", vec![Content::image("AAAA", "image/png")]),
                result("b", vec![Content::text("done")]),
            ],
            ..LlmRequest::default()
        };
        let body = client.request_body(&request);
        assert_eq!(body["system"], "sys");
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1]["content"][1]["type"], "tool_use");
        assert_eq!(messages[2]["role"], "user");
        assert_eq!(messages[2]["content"][0]["content"][0]["type"], "image");
        assert_eq!(messages[2]["content"][1]["tool_use_id"], "b");
    }

    fn spec(name: &'static str) -> ToolSpec {
        ToolSpec::new(name, "A tool", json!({"type": "object", "properties": {}}))
    }

    /// What Anthropic answers when the model's code calls a tool: the code-execution block, the
    /// call with its `caller`, and the container.
    fn programmatic_reply() -> Value {
        json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "content": [
                {"type": "text", "text": "Summing the records."},
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution",
                 "input": {"code": "print(sum(lookup(id=i) for i in range(3)))"}},
                {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"id": 0},
                 "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}},
                {"type": "tool_use", "id": "toolu_2", "name": "delete", "input": {"id": 9},
                 "caller": {"type": "direct"}}
            ],
            "container": {"id": "container_1", "expires_at": "2026-12-02T01:00:00Z"},
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 5}
        })
    }

    #[test]
    fn code_execution_sends_the_server_tool_and_each_tools_allowed_callers() {
        let client = AnthropicClient::new("k", "m")
            .unwrap()
            .with_code_execution(true);
        let request = LlmRequest {
            messages: vec![Message::user("sum them")],
            tools: Arc::from(vec![
                spec("lookup").with_callers(crate::ToolCallers::Code),
                spec("delete").with_callers(crate::ToolCallers::Direct),
                spec("both"),
            ]),
            ..LlmRequest::default()
        };
        let body = client.request_body(&request);
        let schema = json!({"type": "object", "properties": {}});
        assert_eq!(
            body["tools"],
            json!([
                {"name": "lookup", "description": "A tool", "input_schema": schema,
                 "allowed_callers": ["code_execution_20250825"]},
                {"name": "delete", "description": "A tool", "input_schema": schema,
                 "allowed_callers": ["direct"]},
                {"name": "both", "description": "A tool", "input_schema": schema,
                 "allowed_callers": ["direct", "code_execution_20250825"]},
                {"type": "code_execution_20250825", "name": "code_execution"}
            ])
        );
        assert_eq!(
            client.headers(&request).unwrap()["anthropic-beta"],
            TOOL_SEARCH_BETA
        );
        assert!(
            body.get("container").is_none(),
            "no container before one was used"
        );
        // With deferred tools too: the search tool, then the code-execution tool.
        let both = LlmRequest {
            deferred_tools: Arc::from(vec![spec("later")]),
            ..request
        };
        let tools = client.request_body(&both)["tools"].clone();
        assert_eq!(tools[3]["type"], TOOL_SEARCH_TYPE);
        assert_eq!(tools[4]["type"], CODE_EXECUTION_TYPE);
        assert_eq!(tools[5]["defer_loading"], true);
        // Off (the default): neither.
        let plain = AnthropicClient::new("k", "m").unwrap();
        let body = plain.request_body(&LlmRequest {
            tools: Arc::from(vec![spec("lookup")]),
            ..LlmRequest::default()
        });
        assert!(body["tools"][0].get("allowed_callers").is_none());
        assert_eq!(body["tools"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn a_streamed_reply_with_calls_from_code_carries_what_a_plain_one_does() {
        let events = [
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                "role": "assistant", "model": "m", "content": [],
                "usage": {"input_tokens": 10, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": "Summing the records."}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block":
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution", "input": {}}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta",
                "partial_json": "{\"code\": \"print(sum(lookup(id=i) "}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta",
                "partial_json": "for i in range(3)))\"}"}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "content_block_start", "index": 2, "content_block":
                {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {},
                 "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}}}),
            json!({"type": "content_block_delta", "index": 2,
                "delta": {"type": "input_json_delta", "partial_json": "{\"id\": 0}"}}),
            json!({"type": "content_block_stop", "index": 2}),
            json!({"type": "content_block_start", "index": 3, "content_block":
                {"type": "tool_use", "id": "toolu_2", "name": "delete", "input": {},
                 "caller": {"type": "direct"}}}),
            json!({"type": "content_block_delta", "index": 3,
                "delta": {"type": "input_json_delta", "partial_json": "{\"id\": 9}"}}),
            json!({"type": "content_block_stop", "index": 3}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use",
                "container": {"id": "container_1", "expires_at": "2026-12-02T01:00:00Z"}},
                "usage": {"output_tokens": 5}}),
            json!({"type": "message_stop"}),
        ];
        let body: String = events
            .iter()
            .map(|event| {
                format!(
                    "event: {}\ndata: {event}\n\n",
                    event["type"].as_str().unwrap()
                )
            })
            .collect();
        let deltas = decode_stream(&[body.as_bytes()]).unwrap();
        let Some(StreamDelta::Done(streamed)) = deltas.last() else {
            panic!("Done last: {deltas:?}")
        };
        let plain = parse_response(&programmatic_reply()).unwrap();
        assert_eq!(streamed.text, plain.text);
        assert_eq!(streamed.tool_calls, plain.tool_calls);
        let state = streamed.tool_calls[0]
            .provider_state
            .get(STATE_KEY)
            .unwrap();
        assert_eq!(state["caller"]["tool_id"], "srvtoolu_1");
        assert_eq!(state["container"], "container_1");
        // Each call is announced ready as the reply holds it, with what it carries back.
        let ready: Vec<&ToolCall> = deltas
            .iter()
            .filter_map(|delta| match delta {
                StreamDelta::ToolCallReady { call, .. } => Some(call),
                _ => None,
            })
            .collect();
        assert_eq!(ready, streamed.tool_calls.iter().collect::<Vec<_>>());
    }

    #[test]
    fn a_call_from_code_carries_its_caller_and_container_into_the_next_request() {
        let reply = parse_response(&programmatic_reply()).unwrap();
        assert_eq!(reply.text, "Summing the records.");
        assert_eq!(reply.tool_calls.len(), 2);
        let state = reply.tool_calls[0].provider_state.get(STATE_KEY).unwrap();
        assert_eq!(state["caller"]["tool_id"], "srvtoolu_1");
        assert_eq!(state["container"], "container_1");
        assert_eq!(state["before"][0]["name"], "code_execution");
        // A direct call in the same reply carries nothing of its own.
        assert!(reply.tool_calls[1].provider_state.get(STATE_KEY).is_none());

        let client = AnthropicClient::new("k", "m")
            .unwrap()
            .with_code_execution(true);
        let next = LlmRequest {
            messages: vec![
                Message::user("sum them"),
                Message::Assistant {
                    text: reply.text.clone(),
                    tool_calls: reply.tool_calls.clone(),
                },
                Message::Tool {
                    tool_call_id: "toolu_1".into(),
                    name: "lookup".into(),
                    content: vec![Content::text("7")],
                    is_error: false,
                },
                Message::Tool {
                    tool_call_id: "toolu_2".into(),
                    name: "delete".into(),
                    content: vec![Content::text("gone")],
                    is_error: false,
                },
            ],
            ..LlmRequest::default()
        };
        let body = client.request_body(&next);
        assert_eq!(body["container"], "container_1");
        assert_eq!(
            body["messages"][1]["content"],
            json!([
                {"type": "text", "text": "Summing the records."},
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "code_execution",
                 "input": {"code": "print(sum(lookup(id=i) for i in range(3)))"}},
                {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"id": 0},
                 "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}},
                {"type": "tool_use", "id": "toolu_2", "name": "delete", "input": {"id": 9}}
            ])
        );
        let results = body["messages"][2]["content"].as_array().unwrap();
        assert!(results.iter().all(|block| block["type"] == "tool_result"));
    }

    #[test]
    fn deferred_tools_go_after_the_search_tool_with_defer_loading() {
        let client = AnthropicClient::new("k", "m").unwrap();
        let request = LlmRequest {
            messages: vec![Message::user("hi")],
            tools: Arc::from(vec![spec("shown")]),
            deferred_tools: Arc::from(vec![spec("later"), spec("shown")]),
            ..LlmRequest::default()
        };
        let body = client.request_body(&request);
        assert_eq!(
            body["tools"],
            json!([
                {"name": "shown", "description": "A tool", "input_schema": {"type": "object", "properties": {}}},
                {"type": TOOL_SEARCH_TYPE, "name": TOOL_SEARCH_NAME},
                {"name": "later", "description": "A tool", "input_schema": {"type": "object", "properties": {}}, "defer_loading": true}
            ]),
            "a tool both shown and deferred is sent once, shown"
        );
        let headers = client.headers(&request).unwrap();
        assert_eq!(headers["anthropic-beta"], TOOL_SEARCH_BETA);

        // With every tool deferred, the search tool is still not: no request is all deferred.
        let only_deferred = LlmRequest {
            deferred_tools: Arc::from(vec![spec("later")]),
            ..LlmRequest::default()
        };
        let tools = client.request_body(&only_deferred)["tools"].clone();
        assert!(
            tools
                .as_array()
                .unwrap()
                .iter()
                .any(|tool| tool.get("defer_loading").is_none())
        );
        assert!(
            client
                .headers(&LlmRequest::default())
                .unwrap()
                .get("anthropic-beta")
                .is_none()
        );
        assert!(
            client
                .request_body(&LlmRequest::default())
                .get("tools")
                .is_none()
        );
    }

    #[test]
    fn server_tool_searches_are_read_and_replayed() {
        let body = json!({
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {"query": "weather"}},
                {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
                 "content": {"type": "tool_search_tool_search_result",
                             "tool_references": [{"type": "tool_reference", "tool_name": "get_weather"}]}},
                {"type": "tool_use", "id": "tu_1", "name": "get_weather", "input": {"city": "Oslo"}}
            ],
            "stop_reason": "tool_use"
        });
        let reply = parse_response(&body).unwrap();
        let search = ToolSearchCall {
            id: "srvtoolu_1".into(),
            input: json!({"query": "weather"}),
            tools: vec!["get_weather".into()],
            provider_state: Default::default(),
        };
        assert_eq!(reply.tool_searches, std::slice::from_ref(&search));
        assert_eq!(search.query(), "weather");
        assert_eq!(reply.tool_calls[0].name, "get_weather");

        let client = AnthropicClient::new("k", "m").unwrap();
        let request = LlmRequest {
            messages: vec![
                Message::user("weather in Oslo?"),
                Message::ToolSearch(search),
                Message::Assistant {
                    text: String::new(),
                    tool_calls: reply.tool_calls.clone(),
                },
            ],
            ..LlmRequest::default()
        };
        let messages = client.request_body(&request)["messages"].clone();
        assert_eq!(messages.as_array().unwrap().len(), 2, "one assistant turn");
        let blocks = &messages[1]["content"];
        assert_eq!(blocks[0]["type"], "server_tool_use");
        assert_eq!(blocks[0]["input"]["query"], "weather");
        assert_eq!(blocks[1]["type"], "tool_search_tool_result");
        assert_eq!(
            blocks[1]["content"]["tool_references"][0]["tool_name"],
            "get_weather"
        );
        assert_eq!(blocks[2]["type"], "tool_use");

        let failed = json!({"content": [
            {"type": "server_tool_use", "id": "s", "name": "tool_search_tool_bm25", "input": {}},
            {"type": "tool_search_tool_result", "tool_use_id": "s",
             "content": {"type": "tool_search_tool_result_error", "error_code": "unavailable"}}
        ]});
        assert_eq!(
            parse_response(&failed).unwrap().tool_searches[0].tools,
            Vec::<String>::new()
        );
    }

    #[test]
    fn tool_use_blocks_are_read() {
        let body = json!({
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "tu_1", "name": "calc", "input": {"a": 2}}
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 7, "output_tokens": 5}
        });
        let reply = parse_response(&body).unwrap();
        assert_eq!(reply.text, "Let me check.");
        assert_eq!(
            reply.tool_calls,
            vec![ToolCall::new("tu_1", "calc", json!({"a": 2}))]
        );
        assert_eq!(reply.stop_reason, StopReason::ToolUse);
        assert_eq!(reply.usage.output_tokens, 5);
    }

    fn settings(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn settings_are_read_like_the_official_sdk() {
        let error =
            AnthropicClient::from_lookup(settings(&[("ANTHROPIC_API_KEY", "")])).unwrap_err();
        assert!(
            error.to_string().contains("ANTHROPIC_API_KEY is not set"),
            "{error}"
        );
        let client = AnthropicClient::from_lookup(settings(&[
            ("ANTHROPIC_API_KEY", "k"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9999"),
            ("ANTHROPIC_MODEL", "claude-test"),
        ]))
        .unwrap();
        assert_eq!(client.base_url(), "http://127.0.0.1:9999");
        assert_eq!(client.model(), "claude-test");
    }
}
