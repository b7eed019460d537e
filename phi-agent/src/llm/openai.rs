//! OpenAI chat completions, and every server that speaks the same API.

use std::collections::VecDeque;
use std::fmt;

use std::borrow::Cow;

use async_trait::async_trait;
use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::adapter::{AdapterCore, FromSettings, adapter_setters};
use super::definition;
use super::http::WireError;
use super::lenient::{self, Listed};
use super::settings::process_env;
use super::sse::{Decoder, Failure, read_event};
use super::tool_cache::{SharedJson, ToolJsonCache};
use super::{
    DeltaStream, LlmClient, LlmRequest, LlmResponse, Message, StopReason, StreamDelta, ToolCall,
    Usage,
};
use crate::error::{AgentError, AgentResult};

const PROVIDER: &str = "openai";

/// A client of the OpenAI chat completions API (`POST {base_url}/chat/completions`).
///
/// Works with any OpenAI-compatible server: point [`with_base_url`](Self::with_base_url) (or
/// `OPENAI_BASE_URL`) at it, including its `/v1`. The key never appears in `Debug` or errors.
///
/// ```
/// use phi_agent::llm::OpenAiClient;
/// let client = OpenAiClient::new("sk-not-a-real-key", "gpt-4o-mini")?
///     .with_base_url("http://127.0.0.1:8000/v1/");
/// assert_eq!(client.base_url(), "http://127.0.0.1:8000/v1");
/// assert!(!format!("{client:?}").contains("sk-not-a-real-key"));
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[derive(Clone)]
pub struct OpenAiClient {
    core: AdapterCore,
    tools: ToolJsonCache,
}

impl OpenAiClient {
    /// The public API's base URL.
    pub const DEFAULT_BASE_URL: &'static str = "https://api.openai.com/v1";
    /// The model used when `OPENAI_MODEL` is not set.
    pub const DEFAULT_MODEL: &'static str = "gpt-4o-mini";

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
        })
    }

    /// A client configured the way the official SDKs read the environment: `OPENAI_API_KEY`
    /// (required), `OPENAI_BASE_URL` (ending in `/v1`; default the public API) and
    /// `OPENAI_MODEL` (default [`DEFAULT_MODEL`](Self::DEFAULT_MODEL)).
    pub fn from_env() -> AgentResult<Self> {
        Self::from_lookup(process_env)
    }

    adapter_setters!(
        base_url: "e.g. `http://localhost:11434/v1`, with the `/v1`",
        max_tokens: "`max_completion_tokens`",
    );

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.core.base_url)
    }

    fn body(&self, request: &LlmRequest) -> ChatBody<'_> {
        let mut messages = Vec::with_capacity(request.messages.len() + 1);
        if let Some(system) = &request.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        messages.extend(request.messages.iter().filter_map(openai_message));
        ChatBody {
            model: &self.core.model,
            messages,
            tools: (!request.tools.is_empty())
                .then(|| self.tools.get(&request.tools, definition::openai_borrowed)),
            max_completion_tokens: self.core.max_tokens,
            response_format: request
                .response_format
                .as_ref()
                .map(definition::openai_response_format),
            stream: None,
            stream_options: None,
        }
    }

    fn headers(&self) -> AgentResult<HeaderMap> {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, self.core.key.header("Bearer ")?);
        Ok(headers)
    }
}

/// A chat completions request; the tools are shared with earlier turns, not copied.
#[derive(serde::Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<SharedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    /// Structured output (`json_schema`) for a typed run's answer turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
    /// `{"include_usage": true}` on streamed requests: the usage comes in a last chunk.
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<Value>,
}

/// The message on the wire; `None` for a native tool search, which chat completions have no
/// place for (this adapter never asks for one).
fn openai_message(message: &Message) -> Option<Value> {
    Some(match message {
        Message::ToolSearch(_) => return None,
        Message::System { text } => json!({"role": "system", "content": text}),
        Message::User { text } => json!({"role": "user", "content": text}),
        Message::Assistant { text, tool_calls } => {
            let mut out = Map::new();
            out.insert("role".into(), "assistant".into());
            let content = if text.is_empty() && !tool_calls.is_empty() {
                Value::Null
            } else {
                Value::from(text.as_str())
            };
            out.insert("content".into(), content);
            if !tool_calls.is_empty() {
                let calls = tool_calls.iter().map(openai_tool_call).collect();
                out.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(out)
        }
        Message::Tool {
            tool_call_id,
            content,
            is_error,
            ..
        } => {
            let text = tool_result_text(content, *is_error);
            json!({"role": "tool", "tool_call_id": tool_call_id, "content": text})
        }
    })
}

/// A tool result as the text both OpenAI APIs take: images become a note
/// (`Content::to_model_text`), and a failure says so.
pub(crate) fn tool_result_text(content: &[crate::Content], is_error: bool) -> String {
    let text = content
        .iter()
        .map(crate::Content::to_model_text)
        .collect::<Vec<_>>()
        .join("\n");
    if is_error {
        format!("Error: {text}")
    } else {
        text
    }
}

/// A call's arguments as the string both OpenAI APIs take. Arguments the model sent as non-JSON
/// text go back exactly as it wrote them.
pub(crate) fn replayed_arguments(call: &ToolCall) -> String {
    match &call.arguments {
        Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

fn openai_tool_call(call: &ToolCall) -> Value {
    json!({
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": replayed_arguments(call)},
    })
}

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
    message: Option<ChatMessage<'a>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ChatMessage<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Listed<WireCall<'a>>,
}

#[derive(Deserialize)]
struct WireCall<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    function: Option<WireFunction<'a>>,
}

#[derive(Deserialize)]
struct WireFunction<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    name: Option<Cow<'a, str>>,
    /// A `Value`: the API sends a string of JSON text; some compatible servers send the object
    /// itself.
    #[serde(default)]
    arguments: Option<Value>,
}

/// `usage`: the whole reply's, or (streamed) the last chunk's.
#[derive(Deserialize, Default, Clone, Copy)]
struct ChatUsage {
    #[serde(default, deserialize_with = "lenient::count")]
    prompt_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient::count")]
    completion_tokens: Option<u64>,
}

impl From<ChatUsage> for Usage {
    fn from(usage: ChatUsage) -> Self {
        Usage {
            input_tokens: usage.prompt_tokens.unwrap_or(0),
            output_tokens: usage.completion_tokens.unwrap_or(0),
        }
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

fn stop_reason(finish_reason: Option<&str>, has_calls: bool) -> StopReason {
    match finish_reason {
        Some("stop") => StopReason::EndTurn,
        Some("tool_calls") | Some("function_call") => StopReason::ToolUse,
        Some("length") => StopReason::MaxTokens,
        Some(other) => StopReason::Other(other.to_string()),
        None if has_calls => StopReason::ToolUse,
        None => StopReason::EndTurn,
    }
}

/// A streamed chat completion being read: chunks of `choices[0].delta`, tool calls gathered by
/// their `index` (id and name come on a call's first fragment only, and the fragments of
/// parallel calls may interleave), the usage in a last chunk without choices, then `[DONE]`.
///
/// A call is ready when the next call begins and its arguments so far are a whole JSON object
/// (the API writes calls one after the other; should the pieces of an earlier call still be
/// open, it waits), and at the latest when the choice finishes.
#[derive(Default)]
struct ChatStream {
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
pub(super) fn stream_error_status(code: Option<&str>) -> u16 {
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
                .unwrap_or_else(|| super::http::provider_message(data.as_bytes()));
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

/// The arguments string as JSON; empty means no arguments; text that is not JSON stays a string
/// so the agent can tell the model.
pub(crate) fn parse_arguments(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
}

/// A streamed body in memory, read as [`LlmClient::stream`] reads the network's.
pub(crate) fn decode_stream(chunks: &[&[u8]]) -> AgentResult<Vec<StreamDelta>> {
    super::sse::decode_body::<ChatStream>(PROVIDER, chunks)
}

impl FromSettings for OpenAiClient {
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
impl LlmClient for OpenAiClient {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        let body = self
            .core
            .post(&self.endpoint(), self.headers(), &self.body(request))
            .await?;
        parse_response(&body)
    }

    /// Streams the chat completion (`stream: true`, with the usage in a last chunk).
    fn stream<'a>(&'a self, request: &'a LlmRequest) -> DeltaStream<'a> {
        let mut body = self.body(request);
        body.stream = Some(true);
        body.stream_options = Some(json!({"include_usage": true}));
        self.core
            .stream::<ChatStream>(self.endpoint(), self.headers(), &body)
    }

    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.core.model
    }

    fn structured_output(&self) -> bool {
        true
    }
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.core.debug(f, "OpenAiClient").finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_and_usage_are_read() {
        let body = json!({
            "choices": [{
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{\"a\":1}"}},
                    {"id": "c2", "type": "function", "function": {"name": "calc", "arguments": "{oops"}},
                    {"id": "c3", "type": "function", "function": {"name": "now", "arguments": ""}},
                    {"id": "c4", "type": "function", "function": {"name": "calc", "arguments": {"a": 2}}}
                ]}
            }],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3}
        });
        let reply = parse_response(&body).unwrap();
        assert_eq!(reply.stop_reason, StopReason::ToolUse);
        assert_eq!(reply.tool_calls[0].arguments, json!({"a": 1}));
        assert_eq!(reply.tool_calls[1].arguments, json!("{oops"));
        assert_eq!(reply.tool_calls[2].arguments, json!({}));
        assert_eq!(reply.tool_calls[3].arguments, json!({"a": 2}));
        assert_eq!(
            reply.usage,
            Usage {
                input_tokens: 12,
                output_tokens: 3
            }
        );
    }

    #[test]
    fn a_body_without_choices_is_an_error() {
        let error = parse_response(&json!({"object": "list"})).unwrap_err();
        assert!(error.to_string().contains("choices"), "{error}");
    }

    #[test]
    fn history_round_trips_raw_arguments_and_notes_images() {
        let client = OpenAiClient::new("k", "m").unwrap();
        let request = LlmRequest {
            system: Some("be brief".into()),
            messages: vec![
                Message::user("hi"),
                Message::Assistant {
                    text: String::new(),
                    tool_calls: vec![ToolCall::new("c1", "calc", json!("{oops"))],
                },
                Message::Tool {
                    tool_call_id: "c1".into(),
                    name: "calc".into(),
                    content: vec![crate::Content::image("AAAA", "image/png")],
                    is_error: false,
                },
            ],
            ..LlmRequest::default()
        };
        let body = client.request_body(&request);
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["messages"][2]["content"], Value::Null);
        assert_eq!(
            body["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{oops"
        );
        let note = body["messages"][3]["content"].as_str().unwrap();
        assert!(note.contains("image/png"), "{note}");
        assert!(body.get("tools").is_none(), "no tools, no `tools` key");
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
        let error = OpenAiClient::from_lookup(settings(&[])).unwrap_err();
        assert!(
            error.to_string().contains("OPENAI_API_KEY is not set"),
            "{error}"
        );
        let client = OpenAiClient::from_lookup(settings(&[
            ("OPENAI_API_KEY", "k"),
            ("OPENAI_BASE_URL", " "),
        ]))
        .unwrap();
        assert_eq!(
            client.base_url(),
            OpenAiClient::DEFAULT_BASE_URL,
            "blank means unset"
        );
        assert_eq!(client.model(), OpenAiClient::DEFAULT_MODEL);
        let client = OpenAiClient::from_lookup(settings(&[
            ("OPENAI_API_KEY", "k"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1/"),
            ("OPENAI_MODEL", "local-model"),
        ]))
        .unwrap();
        assert_eq!(client.base_url(), "http://127.0.0.1:9999/v1");
        assert_eq!(client.model(), "local-model");
    }
}
