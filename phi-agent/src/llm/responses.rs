//! The OpenAI Responses API, and every server that speaks it.

use std::collections::VecDeque;
use std::fmt;

use std::borrow::Cow;

use async_trait::async_trait;
use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde::Deserialize;
use serde_json::{Value, json};

use super::adapter::{AdapterCore, FromSettings, adapter_setters};
use super::definition;
use super::http::WireError;
use super::lenient::{self, Listed};
use super::openai::{parse_arguments, replayed_arguments, stream_error_status, tool_result_text};
use super::settings::process_env;
use super::sse::{Decoder, Failure, read_event};
use super::tool_cache::{DeferredJsonCache, SharedJson, ToolJsonCache};
use super::{
    DeltaStream, LlmClient, LlmRequest, LlmResponse, Message, ProviderState, StopReason,
    StreamDelta, ToolCall, ToolSearchCall, Usage,
};
use crate::error::{AgentError, AgentResult};

const PROVIDER: &str = "openai";

/// The name a call's [`ProviderState`] keeps this adapter's state under: `items`, the output
/// items that came before the call and must go back with it (reasoning items, each as it came,
/// `encrypted_content` included), with `id`, the call item's own id, which pairs it with them;
/// and `response_id` when responses are stored ([`ResponsesClient::with_stored_responses`]).
const STATE_KEY: &str = "openai_responses";

/// What a stateless request asks for so that reasoning items can be sent back.
const ENCRYPTED_REASONING: &[&str] = &["reasoning.encrypted_content"];

/// A client of the OpenAI Responses API (`POST {base_url}/responses`).
///
/// Stateless by default: every request carries the whole conversation and says `store: false`,
/// so nothing is kept on the server and `previous_response_id` is never needed. A reasoning
/// model's reasoning items then come encrypted (`include: ["reasoning.encrypted_content"]`, asked
/// for reasoning models, see [`with_encrypted_reasoning`](Self::with_encrypted_reasoning)); they
/// are kept with the calls they preceded ([`ToolCall::provider_state`]) and sent back unchanged
/// on the next turn, so the model keeps its reasoning across tool calls.
/// [`with_stored_responses`](Self::with_stored_responses) lets the server keep the conversation
/// instead. Tools are function tools in
/// strict mode when their schema fits it, and without `strict` otherwise, as
/// [`OpenAiClient`](super::OpenAiClient) sends them. Calls and their results are `function_call`
/// and `function_call_output` items keyed by `call_id`.
///
/// Works with any server that speaks the API: point [`with_base_url`](Self::with_base_url) (or
/// `OPENAI_BASE_URL`) at it, including its `/v1`. The key never appears in `Debug` or errors.
/// [`OpenAiClient`](super::OpenAiClient) and this client read the same variables; a program that
/// lets its user choose between them reads `OPENAI_API` (`responses` for this one, see
/// [`API_VARIABLE`](Self::API_VARIABLE)), as `examples/custom-tool.rs` does.
///
/// ```
/// use phi_agent::llm::ResponsesClient;
/// let client = ResponsesClient::new("sk-not-a-real-key", "gpt-4o-mini")?
///     .with_base_url("http://127.0.0.1:8000/v1/");
/// assert_eq!(client.endpoint(), "http://127.0.0.1:8000/v1/responses");
/// assert!(!format!("{client:?}").contains("sk-not-a-real-key"));
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[derive(Clone)]
pub struct ResponsesClient {
    core: AdapterCore,
    tools: ToolJsonCache,
    store: bool,
    encrypted_reasoning: Option<bool>,
    native_search: bool,
    deferred: DeferredJsonCache,
    /// Whether requests carry the programmatic tool calling tool and `allowed_callers`.
    programmatic: bool,
}

impl ResponsesClient {
    /// The public API's base URL.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.openai.com/v1";
    /// The model used when `OPENAI_MODEL` is not set.
    pub const DEFAULT_MODEL: &'static str = "gpt-4o-mini";
    /// The variable that chooses between OpenAI's two APIs where a program offers both:
    /// `responses` means this client, `chat` (or unset) [`OpenAiClient`](super::OpenAiClient).
    /// [`from_env`](Self::from_env) itself does not read it.
    pub const API_VARIABLE: &'static str = "OPENAI_API";

    /// A client for `model` using `api_key`, against the public API.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> AgentResult<Self> {
        Ok(Self {
            core: AdapterCore::new(
                PROVIDER,
                api_key.into(),
                model.into(),
                Self::DEFAULT_BASE_URL,
            )?,
            tools: ToolJsonCache::default(),
            store: false,
            encrypted_reasoning: None,
            native_search: false,
            deferred: DeferredJsonCache::default(),
            programmatic: false,
        })
    }

    /// A client configured the way the official SDKs read the environment: `OPENAI_API_KEY`
    /// (required), `OPENAI_BASE_URL` (ending in `/v1`; default the public API) and
    /// `OPENAI_MODEL` (default [`DEFAULT_MODEL`](Self::DEFAULT_MODEL)).
    pub fn from_env() -> AgentResult<Self> {
        Self::from_lookup(process_env)
    }

    adapter_setters!(
        base_url: "e.g. `http://localhost:8000/v1`, with the `/v1`",
        max_tokens: "`max_output_tokens`",
    );

    /// With `true`, lets the server keep each response (`store: true`) and continues from the last one
    /// (`previous_response_id`), sending only what came after it: the tool results and new
    /// messages. The id travels with the reply's calls ([`ToolCall::provider_state`]); after a
    /// reply without calls, the next request sends the whole conversation again (still
    /// stored). Reasoning items then stay on the server.
    pub fn with_stored_responses(mut self, on: bool) -> Self {
        self.store = on;
        self
    }

    /// Whether stateless requests ask for encrypted reasoning items
    /// (`include: ["reasoning.encrypted_content"]`). The default asks for it for OpenAI's
    /// reasoning models (names starting with `o` and a digit, or `gpt-5` but not `gpt-5-chat`),
    /// as other models refuse it; set it for a reasoning model of another name.
    pub fn with_encrypted_reasoning(mut self, on: bool) -> Self {
        self.encrypted_reasoning = Some(on);
        self
    }

    /// Lets the API's own tool search find the agent's discoverable tools
    /// ([`ToolSearch::Native`](crate::ToolSearch::Native), and `Auto`): requests then carry a
    /// `{"type": "tool_search"}` tool, after the shown tools, and the discoverable ones as
    /// function tools with `defer_loading: true`. The search runs on OpenAI's side; its
    /// `tool_search_call` and `tool_search_output` items are kept
    /// ([`Message::ToolSearch`]) and sent back as they came, and the tools they loaded become
    /// callable. Off by default: only models from `gpt-5.4` on accept the tool.
    pub fn with_native_tool_search(mut self, on: bool) -> Self {
        self.native_search = on;
        self
    }

    /// Turns the API's programmatic tool calling on or off (default off): requests then carry a
    /// `{"type": "programmatic_tool_calling"}` tool, and each function tool its
    /// `allowed_callers` from [`ToolOptions::callers`](crate::ToolOptions::callers) (`"direct"`,
    /// `"programmatic"` or both), so that the model can write one program, run on OpenAI's side,
    /// that calls many tools. The `program` item and each call's `caller` are kept with the calls
    /// ([`ToolCall::provider_state`]) and sent back on the next request, the caller also on the
    /// call's output (`docs/providers.md#responses-programmatic-tool-calling`).
    ///
    /// ```
    /// use phi_agent::llm::ResponsesClient;
    /// let client = ResponsesClient::new("sk-not-real", "gpt-5.4")?.with_programmatic_tool_calling(true);
    /// assert!(client.programmatic_tool_calling());
    /// # Ok::<(), phi_agent::AgentError>(())
    /// ```
    pub fn with_programmatic_tool_calling(mut self, on: bool) -> Self {
        self.programmatic = on;
        self
    }

    /// Whether programmatic tool calling is on; see
    /// [`with_programmatic_tool_calling`](Self::with_programmatic_tool_calling).
    pub fn programmatic_tool_calling(&self) -> bool {
        self.programmatic
    }

    /// Whether requests ask for encrypted reasoning items.
    fn asks_encrypted_reasoning(&self) -> bool {
        !self.store
            && self
                .encrypted_reasoning
                .unwrap_or_else(|| is_reasoning_model(&self.core.model))
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        format!("{}/responses", self.core.base_url)
    }

    fn headers(&self) -> AgentResult<HeaderMap> {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, self.core.key.header("Bearer ")?);
        Ok(headers)
    }

    fn body<'a>(&'a self, request: &'a LlmRequest) -> ResponsesBody<'a> {
        let convert = if self.programmatic {
            definition::openai_responses_with_callers_borrowed
        } else {
            definition::openai_responses_borrowed
        };
        // Stored: continue from the last reply whose id is known, with what came after it.
        let (previous_response_id, messages) = match self.store {
            true => continue_from(&request.messages),
            false => (None, request.messages.as_slice()),
        };
        let mut input = Vec::with_capacity(messages.len());
        // The caller of each call a program made, for its output.
        let mut callers: Vec<(&str, Value)> = Vec::new();
        for message in messages {
            match message {
                Message::System { text } => input.push(json!({"role": "system", "content": text})),
                Message::User { text } => input.push(json!({"role": "user", "content": text})),
                // This API's search, replayed as it came; another provider's is nothing this
                // API could read.
                Message::ToolSearch(search) => input.extend(replayed_items(
                    search.provider_state.get(STATE_KEY),
                    self.store,
                )),
                Message::Assistant { text, tool_calls } => {
                    if !text.is_empty() {
                        input.push(json!({"role": "assistant", "content": text}));
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
                } => {
                    let mut output = json!({
                        "type": "function_call_output",
                        "call_id": tool_call_id,
                        "output": tool_result_text(content, *is_error),
                    });
                    if let Some((_, caller)) = callers.iter().find(|(id, _)| id == tool_call_id) {
                        output["caller"] = caller.clone();
                    }
                    input.push(output);
                }
            }
        }
        ResponsesBody {
            model: &self.core.model,
            instructions: request.system.as_deref(),
            previous_response_id,
            input,
            tools: if !request.deferred_tools.is_empty() {
                let extra = if self.programmatic {
                    &server_tools()[..]
                } else {
                    &server_tools()[..1]
                };
                Some(
                    self.deferred
                        .get(&request.tools, &request.deferred_tools, convert, extra),
                )
            } else if self.programmatic {
                Some(
                    self.deferred
                        .get(&request.tools, no_tools(), convert, &server_tools()[1..]),
                )
            } else {
                (!request.tools.is_empty()).then(|| {
                    self.tools
                        .get(&request.tools, definition::openai_responses_borrowed)
                })
            },
            max_output_tokens: self.core.max_tokens,
            store: self.store,
            include: self
                .asks_encrypted_reasoning()
                .then_some(ENCRYPTED_REASONING),
            stream: None,
            text: request
                .response_format
                .as_ref()
                .map(|spec| json!({"format": definition::openai_responses_format(spec)})),
        }
    }
}

/// The API's own tools' entries: the tool search, then programmatic tool calling.
fn server_tools() -> &'static [Value; 2] {
    static TOOLS: std::sync::OnceLock<[Value; 2]> = std::sync::OnceLock::new();
    TOOLS.get_or_init(|| {
        [
            json!({"type": "tool_search"}),
            json!({"type": "programmatic_tool_calling"}),
        ]
    })
}

/// An empty tool list that stays the same `Arc`, so that the tools cache keeps holding.
fn no_tools() -> &'static std::sync::Arc<[super::ToolSpec]> {
    static NONE: std::sync::OnceLock<std::sync::Arc<[super::ToolSpec]>> =
        std::sync::OnceLock::new();
    NONE.get_or_init(|| std::sync::Arc::from(Vec::new()))
}

/// Whether `model` is one of OpenAI's reasoning models, which accept (and need, when nothing is
/// stored) `include: ["reasoning.encrypted_content"]`.
fn is_reasoning_model(model: &str) -> bool {
    let model = model.rsplit('/').next().unwrap_or(model);
    let o_series = model.starts_with('o') && model[1..].starts_with(|c: char| c.is_ascii_digit());
    let gpt5 = model.starts_with("gpt-5") && !model.contains("-chat");
    o_series || gpt5
}

/// What a call's (or a tool search's) [`ProviderState`] keeps under [`STATE_KEY`].
#[derive(Deserialize, serde::Serialize, Default)]
struct Kept {
    /// The output items that go back before the call, each as it came.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    items: Vec<Value>,
    /// The call item's own id, which pairs it with `items`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<Value>,
    /// The id of the stored response the call came in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    response_id: Option<Value>,
    /// Who made the call, when a program did: `{"type": "program", "caller_id": ..}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    caller: Option<Value>,
}

impl Kept {
    /// The state `state` holds; a state of another shape (made by hand) holds nothing.
    fn of(state: Option<&Value>) -> Self {
        state
            .and_then(|state| Kept::deserialize(state).ok())
            .unwrap_or_default()
    }

    fn into_state(self) -> ProviderState {
        // Serializing JSON values to a `Value` cannot fail.
        let state = serde_json::to_value(self).unwrap_or_default();
        ProviderState::default().with(STATE_KEY, state)
    }
}

/// The id of the last stored reply the history names, and the messages after that reply.
fn continue_from(messages: &[Message]) -> (Option<String>, &[Message]) {
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
fn replayed_items(state: Option<&Value>, stored: bool) -> Vec<Value> {
    Kept::of(state)
        .items
        .into_iter()
        .map(|mut item| {
            if !stored
                && item["type"] != "reasoning"
                && let Some(fields) = item.as_object_mut()
            {
                fields.shift_remove("id");
            }
            item
        })
        .collect()
}

/// A call as input items: the items that came before it, as they came, then the call; the
/// caller that made it, if a program did.
fn push_call(input: &mut Vec<Value>, call: &ToolCall) -> Option<Value> {
    let kept = Kept::of(call.provider_state.get(STATE_KEY));
    let paired = !kept.items.is_empty();
    input.extend(kept.items);
    let mut item = json!({
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": replayed_arguments(call),
    });
    // The item's id only beside the reasoning it pairs with: without `store`, an id alone names
    // an item the server never kept.
    if paired && let Some(id) = kept.id {
        item["id"] = id;
    }
    if let Some(caller) = &kept.caller {
        item["caller"] = caller.clone();
    }
    input.push(item);
    kept.caller
}

/// A Responses request; the tools are shared with earlier turns, not copied.
#[derive(serde::Serialize)]
struct ResponsesBody<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    previous_response_id: Option<String>,
    input: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<SharedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    /// `{"format": json_schema}`: structured output for a typed run's answer turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Value>,
    store: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    include: Option<&'static [&'static str]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
}

/// A `Response`, as far as this adapter reads it.
#[derive(Deserialize, Default)]
struct WireResponse<'a> {
    /// Kept as it came: a stored reply's calls carry it back.
    #[serde(default)]
    id: Option<Value>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    status: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    error: Option<WireError<'a>>,
    /// Raw values: reasoning and tool search items go back exactly as they came
    /// (`encrypted_content` included); each is read as an [`OutputItem`] besides.
    #[serde(default)]
    output: Listed<Value>,
    #[serde(default, borrow)]
    incomplete_details: Option<Incomplete<'a>>,
    #[serde(default)]
    usage: Option<WireUsage>,
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
}

/// An item of a response's `output`.
#[derive(Deserialize)]
#[serde(tag = "type")]
enum OutputItem<'a> {
    #[serde(rename = "message")]
    Message {
        #[serde(default, borrow)]
        content: Listed<MessagePart<'a>>,
    },
    #[serde(rename = "function_call")]
    FunctionCall {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        call_id: Option<Cow<'a, str>>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        name: Option<Cow<'a, str>>,
        /// A `Value`: the API sends a string of JSON text; some compatible servers send the
        /// object itself.
        #[serde(default)]
        arguments: Option<Value>,
        /// The item's id, kept as it came to pair the call with its reasoning.
        #[serde(default)]
        id: Option<Value>,
        /// Who made the call: the model (`direct`, or absent) or a program.
        #[serde(default)]
        caller: Option<Value>,
    },
    /// A program the model wrote (programmatic tool calling), and what it returned: sent
    /// back as they came, before the next call.
    #[serde(rename = "program", alias = "program_output")]
    Program,
    #[serde(rename = "reasoning")]
    Reasoning {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        encrypted_content: Option<Cow<'a, str>>,
    },
    #[serde(rename = "tool_search_call")]
    ToolSearchCall {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        call_id: Option<Cow<'a, str>>,
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        id: Option<Cow<'a, str>>,
        /// The search's input, as the model wrote it.
        #[serde(default)]
        arguments: Option<Value>,
    },
    #[serde(rename = "tool_search_output")]
    ToolSearchOutput {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        call_id: Option<Cow<'a, str>>,
        #[serde(default, borrow)]
        tools: Listed<LoadedTool<'a>>,
    },
    /// Built-in tool items, and kinds added later: not part of the answer.
    #[serde(other)]
    Other,
}

/// A part of a message item.
#[derive(Deserialize)]
#[serde(tag = "type")]
enum MessagePart<'a> {
    #[serde(rename = "output_text")]
    Text {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        text: Option<Cow<'a, str>>,
    },
    #[serde(rename = "refusal")]
    Refusal {
        #[serde(default, borrow, deserialize_with = "lenient::text")]
        refusal: Option<Cow<'a, str>>,
    },
    #[serde(other)]
    Other,
}

/// A tool a `tool_search_output` loaded: a function, or a namespace of them.
#[derive(Deserialize)]
struct LoadedTool<'a> {
    #[serde(default, borrow, rename = "type", deserialize_with = "lenient::text")]
    kind: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tools: Listed<LoadedTool<'a>>,
}

/// Reads a `Response`. Public to the crate for the wire tests.
pub(crate) fn parse_response(body: &Value) -> AgentResult<LlmResponse> {
    parse_reply(body, false)
}

/// Reads a `Response`, keeping its id with its calls when `stored`.
fn parse_reply(body: &Value, stored: bool) -> AgentResult<LlmResponse> {
    let response = lenient::reply(body).map_err(|error| AgentError::InvalidResponse {
        provider: PROVIDER,
        message: format!("unexpected shape: {error}"),
    })?;
    read_reply(response, stored)
}

/// Reads a response, keeping its id with its calls when `stored`.
fn read_reply(body: WireResponse<'_>, stored: bool) -> AgentResult<LlmResponse> {
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
        let item = OutputItem::deserialize(&raw)
            .map_err(|error| invalid(format!("output item {index}: {error}")))?;
        match item {
            OutputItem::Message { content } => {
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
            OutputItem::FunctionCall {
                call_id,
                name,
                arguments,
                id,
                caller,
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
                tool_calls.push(kept.attach(call, id, caller));
            }
            OutputItem::Program => kept.keep(raw, true),
            OutputItem::Reasoning { encrypted_content } => {
                let sendable = stored || encrypted_content.is_some();
                drop(encrypted_content);
                kept.keep(raw, sendable);
            }
            OutputItem::ToolSearchCall {
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
            OutputItem::ToolSearchOutput { call_id, tools } => {
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
            OutputItem::Other => {}
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
        usage: Usage {
            input_tokens: usage.input_tokens.unwrap_or(0),
            output_tokens: usage.output_tokens.unwrap_or(0),
        },
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
    ) -> ToolCall {
        let items = std::mem::take(&mut self.items);
        // The call's id pairs it with the reasoning just before it; a program item needs none.
        let paired = items.last().is_some_and(|item| item["type"] == "reasoning");
        let kept = Kept {
            id: if paired { item_id } else { None },
            items,
            response_id: self.response_id.clone(),
            caller,
        };
        if kept.items.is_empty() && kept.response_id.is_none() && kept.caller.is_none() {
            return call;
        }
        call.with_provider_state(kept.into_state())
    }
}

/// A streamed response being read, event by event (`type` in each event's data): calls begin
/// with `response.output_item.added`, their arguments come in
/// `response.function_call_arguments.delta`s, text in `response.output_text.delta`s, each item
/// whole in `response.output_item.done`, and the whole response in `response.completed` (or
/// `response.incomplete`), which ends the stream. `STORED`: keep the response id with the calls.
#[derive(Default)]
struct ResponsesStream<const STORED: bool> {
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
        let so_far = WireResponse {
            id: self.response_id.clone(),
            output: Listed::Items(items.into_iter().map(|(_, item)| item).collect()),
            ..WireResponse::default()
        };
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

/// A streamed body in memory, read as [`LlmClient::stream`] reads the network's.
pub(crate) fn decode_stream(chunks: &[&[u8]]) -> AgentResult<Vec<StreamDelta>> {
    super::sse::decode_body::<ResponsesStream<false>>(PROVIDER, chunks)
}

impl FromSettings for ResponsesClient {
    const PREFIX: &'static str = "OPENAI";
    const NAME: &'static str = "OpenAI";
    const MODEL: &'static str = Self::DEFAULT_MODEL;

    fn with_key(key: String, model: String) -> AgentResult<Self> {
        Self::new(key, model)
    }

    fn core_mut(&mut self) -> &mut AdapterCore {
        &mut self.core
    }
}

#[async_trait]
impl LlmClient for ResponsesClient {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        let body = self
            .core
            .post(&self.endpoint(), self.headers(), &self.body(request))
            .await?;
        parse_reply(&body, self.store)
    }

    /// Streams the response (`stream: true`; the body is otherwise the one `complete` sends).
    fn stream<'a>(&'a self, request: &'a LlmRequest) -> DeltaStream<'a> {
        let mut body = self.body(request);
        body.stream = Some(true);
        let (url, headers) = (self.endpoint(), self.headers());
        match self.store {
            true => self
                .core
                .stream::<ResponsesStream<true>>(url, headers, &body),
            false => self
                .core
                .stream::<ResponsesStream<false>>(url, headers, &body),
        }
    }

    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.core.model
    }

    /// Whether [`with_native_tool_search`](ResponsesClient::with_native_tool_search) is on.
    fn native_tool_search(&self) -> bool {
        self.native_search
    }

    fn structured_output(&self) -> bool {
        true
    }

    /// Whether [`with_programmatic_tool_calling`](ResponsesClient::with_programmatic_tool_calling) is on.
    fn programmatic_tool_calling(&self) -> bool {
        self.programmatic
    }
}

impl fmt::Debug for ResponsesClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.core
            .debug(f, "ResponsesClient")
            .field("store", &self.store)
            .field("native_tool_search", &self.native_search)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::Content;
    use crate::llm::ToolSpec;

    #[test]
    fn programmatic_tool_calling_sends_allowed_callers_and_replays_the_program() {
        let client = ResponsesClient::new("k", "m")
            .unwrap()
            .with_programmatic_tool_calling(true);
        let schema = json!({"type": "object", "properties": {}});
        let request = LlmRequest {
            messages: vec![Message::user("sum them")],
            tools: Arc::from(vec![
                ToolSpec::new("lookup", "Look up", schema.clone())
                    .with_callers(crate::ToolCallers::Code),
                ToolSpec::new("delete", "Delete", schema.clone())
                    .with_callers(crate::ToolCallers::Direct),
            ]),
            ..LlmRequest::default()
        };
        let body = serde_json::to_value(client.body(&request)).unwrap();
        let tools = body["tools"].as_array().unwrap();
        assert_eq!(tools[0]["allowed_callers"], json!(["programmatic"]));
        assert_eq!(tools[1]["allowed_callers"], json!(["direct"]));
        assert_eq!(tools[2], json!({"type": "programmatic_tool_calling"}));
        assert_eq!(tools.len(), 3);

        let reply = parse_response(&json!({
            "id": "resp_1", "object": "response", "status": "completed",
            "output": [
                {"type": "program", "id": "prog_1", "call_id": "pc_1", "code": "lookup({})", "fingerprint": "fp"},
                {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "lookup", "arguments": "{}",
                 "caller": {"type": "program", "caller_id": "pc_1"}}
            ]
        }))
        .unwrap();
        assert_eq!(reply.tool_calls.len(), 1);
        let next = LlmRequest {
            messages: vec![
                Message::user("sum them"),
                Message::Assistant {
                    text: String::new(),
                    tool_calls: reply.tool_calls.clone(),
                },
                Message::Tool {
                    tool_call_id: "call_a".into(),
                    name: "lookup".into(),
                    content: vec![Content::text("7")],
                    is_error: false,
                },
            ],
            ..request
        };
        let body = serde_json::to_value(client.body(&next)).unwrap();
        let input = body["input"].as_array().unwrap();
        assert_eq!(input[1]["type"], "program");
        assert_eq!(input[1]["fingerprint"], "fp");
        assert_eq!(input[2]["type"], "function_call");
        assert_eq!(
            input[2]["caller"],
            json!({"type": "program", "caller_id": "pc_1"})
        );
        assert_eq!(input[3]["type"], "function_call_output");
        assert_eq!(
            input[3]["caller"],
            json!({"type": "program", "caller_id": "pc_1"})
        );
        // Off (the default): none of it.
        let plain = ResponsesClient::new("k", "m").unwrap();
        let body = serde_json::to_value(plain.body(&next)).unwrap();
        assert!(body["tools"][0].get("allowed_callers").is_none());
        assert_eq!(body["tools"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn function_calls_text_and_usage_are_read() {
        let body = json!({
            "id": "resp_1", "object": "response", "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": "Checking.", "annotations": []}]},
                {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "calc", "arguments": "{\"a\":1}"},
                {"type": "function_call", "id": "fc_2", "call_id": "call_b", "name": "calc", "arguments": "{oops"}
            ],
            "usage": {"input_tokens": 11, "output_tokens": 4, "total_tokens": 15}
        });
        let reply = parse_response(&body).unwrap();
        assert_eq!(reply.text, "Checking.");
        assert_eq!(reply.stop_reason, StopReason::ToolUse);
        assert_eq!(
            reply.tool_calls,
            vec![
                ToolCall::new("call_a", "calc", json!({"a": 1})),
                ToolCall::new("call_b", "calc", json!("{oops")),
            ]
        );
        assert_eq!(reply.usage.input_tokens, 11);
        assert_eq!(reply.usage.output_tokens, 4);
    }

    #[test]
    fn incomplete_and_failed_responses_are_read() {
        let cut = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": []});
        assert_eq!(
            parse_response(&cut).unwrap().stop_reason,
            StopReason::MaxTokens
        );
        let failed = json!({"status": "failed", "error": {"code": "server_error", "message": "boom"}, "output": []});
        let error = parse_response(&failed).unwrap_err();
        assert!(error.to_string().contains("boom"), "{error}");
        let error = parse_response(&json!({"choices": []})).unwrap_err();
        assert!(error.to_string().contains("`output`"), "{error}");
    }

    #[test]
    fn history_becomes_items_keyed_by_call_id_and_nothing_is_stored() {
        let client = ResponsesClient::new("k", "m").unwrap().with_max_tokens(99);
        let request = LlmRequest {
            system: Some("be brief".into()),
            messages: vec![
                Message::user("hi"),
                Message::Assistant {
                    text: "Let me see.".into(),
                    tool_calls: vec![ToolCall::new("call_a", "calc", json!("{oops"))],
                },
                Message::Tool {
                    tool_call_id: "call_a".into(),
                    name: "calc".into(),
                    content: vec![Content::text("bad arguments")],
                    is_error: true,
                },
            ],
            tools: Arc::from(vec![ToolSpec::new(
                "calc",
                "Calculate",
                json!({"type": "object", "properties": {"a": {"type": "number"}}}),
            )]),
            ..Default::default()
        };
        let body = client.request_body(&request);
        assert_eq!(body["instructions"], "be brief");
        assert_eq!(body["store"], false);
        assert_eq!(body["max_output_tokens"], 99);
        assert_eq!(
            body["input"],
            json!([
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "Let me see."},
                {"type": "function_call", "call_id": "call_a", "name": "calc", "arguments": "{oops"},
                {"type": "function_call_output", "call_id": "call_a", "output": "Error: bad arguments"}
            ])
        );
        assert_eq!(
            body["tools"][0],
            definition::openai_responses(&request.tools[0])
        );
        assert_eq!(body["tools"][0]["strict"], true);
    }

    #[test]
    fn a_schema_strict_mode_cannot_express_goes_out_without_strict() {
        let map = ToolSpec::new(
            "tag",
            "Tag things",
            json!({"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}}),
        );
        let request = LlmRequest {
            tools: Arc::from(vec![map.clone()]),
            ..LlmRequest::default()
        };
        let body = ResponsesClient::new("k", "m")
            .unwrap()
            .request_body(&request);
        assert_eq!(body["tools"][0]["strict"], false);
        assert_eq!(body["tools"][0]["parameters"], *map.schema);
        assert_eq!(
            body["tools"][0]["parameters"],
            definition::openai(&map)["function"]["parameters"],
            "the same fallback as chat completions"
        );
    }

    fn reasoning_reply() -> Value {
        json!({
            "id": "resp_7", "object": "response", "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Add."}], "encrypted_content": "gAAA-opaque-1"},
                {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "calc", "arguments": "{}"},
                {"type": "reasoning", "id": "rs_2", "summary": []},
                {"type": "reasoning", "id": "rs_3", "summary": [], "encrypted_content": "gAAA-opaque-3"},
                {"type": "function_call", "id": "fc_2", "call_id": "call_b", "name": "calc", "arguments": "{}"},
                {"type": "function_call", "id": "fc_3", "call_id": "call_c", "name": "calc", "arguments": "{}"}
            ]
        })
    }

    #[test]
    fn reasoning_items_go_back_unchanged_before_the_calls_they_preceded() {
        let body = reasoning_reply();
        let reply = parse_response(&body).unwrap();
        let state = |n: usize| reply.tool_calls[n].provider_state.get(STATE_KEY).cloned();
        assert_eq!(
            state(0),
            Some(json!({"items": [body["output"][0]], "id": "fc_1"}))
        );
        // An item without encrypted content names what a stateless server never kept.
        assert_eq!(
            state(1),
            Some(json!({"items": [body["output"][3]], "id": "fc_2"}))
        );
        assert_eq!(state(2), None);

        let client = ResponsesClient::new("k", "o4-mini").unwrap();
        let request = LlmRequest {
            messages: vec![
                Message::user("add"),
                Message::Assistant {
                    text: String::new(),
                    tool_calls: reply.tool_calls.clone(),
                },
            ],
            ..Default::default()
        };
        let sent = client.request_body(&request);
        assert_eq!(sent["include"], json!(["reasoning.encrypted_content"]));
        let input = sent["input"].as_array().unwrap();
        assert_eq!(input[1], body["output"][0], "byte for byte");
        assert_eq!(
            input[2],
            json!({"type": "function_call", "call_id": "call_a", "name": "calc", "arguments": "{}", "id": "fc_1"})
        );
        assert_eq!(input[3], body["output"][3]);
        assert_eq!(input[4]["id"], "fc_2");
        assert!(input[5].get("id").is_none(), "no reasoning, no item id");
        assert_eq!(input.len(), 6);
    }

    #[test]
    fn encrypted_reasoning_is_asked_of_reasoning_models_only_unless_set() {
        let asks = |client: ResponsesClient| {
            client.request_body(&LlmRequest::default()).get("include")
                == Some(&json!(["reasoning.encrypted_content"]))
        };
        let client = |model: &str| ResponsesClient::new("k", model).unwrap();
        for model in ["o3", "o4-mini", "gpt-5", "gpt-5-mini", "openai/o1"] {
            assert!(asks(client(model)), "{model}");
        }
        for model in [
            "gpt-4o-mini",
            "gpt-4.1",
            "gpt-5-chat-latest",
            "omni",
            "local",
        ] {
            assert!(!asks(client(model)), "{model}");
        }
        assert!(asks(client("local").with_encrypted_reasoning(true)));
        assert!(!asks(client("o3").with_encrypted_reasoning(false)));
        assert!(
            !asks(client("o3").with_stored_responses(true)),
            "stored: kept on the server"
        );
    }

    #[test]
    fn stored_responses_continue_from_the_last_reply_with_what_came_after() {
        let client = ResponsesClient::new("k", "o3")
            .unwrap()
            .with_stored_responses(true);
        let reply = parse_reply(&reasoning_reply(), true).unwrap();
        let first = client.request_body(&LlmRequest {
            messages: vec![Message::user("add")],
            ..Default::default()
        });
        assert_eq!(first["store"], true);
        assert!(first.get("previous_response_id").is_none());
        let result = |id: &str| Message::Tool {
            tool_call_id: id.into(),
            name: "calc".into(),
            content: vec![Content::text("2")],
            is_error: false,
        };
        let request = LlmRequest {
            messages: vec![
                Message::user("add"),
                Message::Assistant {
                    text: String::new(),
                    tool_calls: reply.tool_calls.clone(),
                },
                result("call_a"),
                result("call_b"),
                result("call_c"),
            ],
            ..Default::default()
        };
        let body = client.request_body(&request);
        assert_eq!(body["previous_response_id"], "resp_7");
        let kinds: Vec<&str> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["function_call_output"; 3]);
    }

    #[test]
    fn native_tool_search_sends_the_search_tool_and_deferred_functions() {
        let spec = |name: &'static str| {
            ToolSpec::new(name, "A tool", json!({"type": "object", "properties": {}}))
        };
        let client = ResponsesClient::new("k", "gpt-5.4")
            .unwrap()
            .with_native_tool_search(true);
        assert!(client.native_tool_search());
        assert!(!ResponsesClient::new("k", "m").unwrap().native_tool_search());
        let request = LlmRequest {
            tools: Arc::from(vec![spec("shown")]),
            deferred_tools: Arc::from(vec![spec("later"), spec("shown")]),
            ..Default::default()
        };
        let body = client.request_body(&request);
        let mut later = definition::openai_responses(&spec("later"));
        later["defer_loading"] = true.into();
        assert_eq!(
            body["tools"],
            json!([definition::openai_responses(&spec("shown")), {"type": "tool_search"}, later]),
            "a tool both shown and deferred is sent once, shown"
        );
        let plain = client.request_body(&LlmRequest {
            tools: Arc::from(vec![spec("shown")]),
            ..Default::default()
        });
        assert_eq!(
            plain["tools"].as_array().unwrap().len(),
            1,
            "no deferred tools, no search"
        );
    }

    #[test]
    fn tool_search_items_are_read_and_sent_back_as_they_came() {
        let body = json!({
            "id": "resp_9", "status": "completed",
            "output": [
                {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA-1"},
                {"type": "tool_search_call", "id": "tsc_1", "call_id": null, "arguments": {"query": "weather"}, "execution": "server", "status": "completed"},
                {"type": "tool_search_output", "id": "tso_1", "call_id": null, "execution": "server", "status": "completed", "tools": [
                    {"type": "function", "name": "get_weather", "parameters": {"type": "object"}, "defer_loading": true},
                    {"type": "namespace", "name": "crm", "description": "CRM", "tools": [{"type": "function", "name": "list_orders"}]}
                ]},
                {"type": "function_call", "id": "fc_1", "call_id": "call_w", "name": "get_weather", "arguments": "{}"}
            ]
        });
        let reply = parse_response(&body).unwrap();
        let [search] = &reply.tool_searches[..] else {
            panic!("{:?}", reply.tool_searches);
        };
        assert_eq!(search.id, "tsc_1");
        assert_eq!(search.query(), "weather");
        assert_eq!(search.tools, ["get_weather", "list_orders"]);
        assert!(
            reply.tool_calls[0].provider_state.is_empty(),
            "the reasoning goes back before the search, not the call"
        );
        let error = parse_response(
            &json!({"output": [{"type": "tool_search_output", "call_id": "x", "tools": []}]}),
        )
        .unwrap_err();
        assert!(
            error.to_string().contains("answers no tool_search_call"),
            "{error}"
        );

        let client = ResponsesClient::new("k", "gpt-5.4").unwrap();
        let request = LlmRequest {
            messages: vec![
                Message::user("weather?"),
                Message::ToolSearch(search.clone()),
                Message::Assistant {
                    text: String::new(),
                    tool_calls: reply.tool_calls.clone(),
                },
            ],
            ..Default::default()
        };
        let input = client.request_body(&request)["input"].clone();
        let without_id = |n: usize| {
            let mut item = body["output"][n].clone();
            item.as_object_mut().unwrap().shift_remove("id");
            item
        };
        assert_eq!(
            input[1], body["output"][0],
            "reasoning with its id and content"
        );
        // Compared as text: the fields keep their order.
        assert_eq!(input[2].to_string(), without_id(1).to_string());
        assert_eq!(input[3].to_string(), without_id(2).to_string());
        assert_eq!(input[4]["type"], "function_call");
        assert_eq!(input.as_array().unwrap().len(), 5);
    }

    #[test]
    fn streamed_arguments_find_their_call_by_index_or_item_id() {
        let event = |data: Value| format!("data: {data}\n\n");
        let added = event(
            json!({"type": "response.output_item.added", "item": {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "calc", "arguments": ""}}),
        );
        let delta = event(
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "{\"a\":1}"}),
        );
        let done = event(
            json!({"type": "response.completed", "response": {"status": "completed", "output": [
                {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "calc", "arguments": "{\"a\":1}"}
            ]}}),
        );
        let body = format!("{added}{delta}{done}");
        let deltas = decode_stream(&[body.as_bytes()]).unwrap();
        assert_eq!(
            deltas[1],
            StreamDelta::ToolArguments {
                index: 0,
                fragment: "{\"a\":1}".into()
            }
        );
        assert!(
            matches!(&deltas[2], StreamDelta::ToolCallReady { index: 0, call } if call.id == "c1"),
            "{deltas:?}"
        );
        assert_eq!(
            deltas.len(),
            4,
            "started, arguments, ready, done: {deltas:?}"
        );

        let stray = event(
            json!({"type": "response.function_call_arguments.delta", "output_index": 4, "delta": "{}"}),
        );
        let error = decode_stream(&[format!("{added}{stray}").as_bytes()]).unwrap_err();
        assert!(error.to_string().contains("never began"), "{error}");
        let untyped = decode_stream(&[b"data: {\"delta\": \"x\"}\n\n"]).unwrap_err();
        assert!(untyped.to_string().contains("without `type`"), "{untyped}");
    }

    #[test]
    fn settings_are_read_like_the_official_sdk() {
        let lookup = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let error = ResponsesClient::from_lookup(lookup(&[])).unwrap_err();
        assert!(error.to_string().contains("OPENAI_API_KEY"), "{error}");
        let client = ResponsesClient::from_lookup(lookup(&[
            ("OPENAI_API_KEY", "k"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/"),
            ("OPENAI_MODEL", "local"),
        ]))
        .unwrap();
        assert_eq!(client.endpoint(), "http://127.0.0.1:9/v1/responses");
        assert_eq!(client.model(), "local");
    }
}
