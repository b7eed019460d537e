//! The OpenAI Responses API, and every server that speaks it.

use std::fmt;

use async_trait::async_trait;
use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde_json::{Value, json};

use super::definition;
use super::http::{ApiKey, JsonPoster};
use super::openai::{parse_arguments, replayed_arguments, tool_result_text};
use super::settings::{EnvSettings, process_env};
use super::tool_cache::{SharedJson, ToolJsonCache};
use super::{HttpConfig, LlmClient, LlmRequest, LlmResponse, Message, StopReason, ToolCall, Usage};
use crate::error::{AgentError, AgentResult};

const PROVIDER: &str = "openai";

/// A client of the OpenAI Responses API (`POST {base_url}/responses`).
///
/// Stateless: every request carries the whole conversation and says `store: false`, so nothing
/// is kept on the server and `previous_response_id` is never needed. Tools are function tools in
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
    http: JsonPoster,
    key: ApiKey,
    base_url: String,
    model: String,
    max_tokens: Option<u32>,
    tools: ToolJsonCache,
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
            http: JsonPoster::new(PROVIDER)?,
            key: ApiKey::new(api_key),
            base_url: Self::DEFAULT_BASE_URL.to_string(),
            model: model.into(),
            max_tokens: None,
            tools: ToolJsonCache::default(),
        })
    }

    /// A client configured the way the official SDKs read the environment: `OPENAI_API_KEY`
    /// (required), `OPENAI_BASE_URL` (ending in `/v1`; default the public API) and
    /// `OPENAI_MODEL` (default [`DEFAULT_MODEL`](Self::DEFAULT_MODEL)).
    pub fn from_env() -> AgentResult<Self> {
        Self::from_lookup(process_env)
    }

    /// [`from_env`](Self::from_env) over any source of settings; blank values count as unset.
    fn from_lookup(get: impl Fn(&str) -> Option<String>) -> AgentResult<Self> {
        let settings = EnvSettings::read("OPENAI", "OpenAI", get)?;
        let model = settings
            .model
            .unwrap_or_else(|| Self::DEFAULT_MODEL.to_string());
        let client = Self::new(settings.key, model)?;
        Ok(match settings.base_url {
            Some(url) => client.with_base_url(url),
            None => client,
        })
    }

    /// Sends requests to `base_url` (e.g. `http://localhost:8000/v1`) instead.
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into().trim_end_matches('/').to_string();
        self
    }

    /// Uses `config` for timeouts and retries.
    pub fn with_http_config(mut self, config: HttpConfig) -> Self {
        self.http.config = config;
        self
    }

    /// Caps the reply length (`max_output_tokens`).
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        format!("{}/responses", self.base_url)
    }

    /// The JSON body this client sends for `request`.
    pub fn request_body(&self, request: &LlmRequest) -> Value {
        serde_json::to_value(self.body(request)).unwrap_or_default()
    }

    fn body<'a>(&'a self, request: &'a LlmRequest) -> ResponsesBody<'a> {
        let mut input = Vec::with_capacity(request.messages.len());
        for message in &request.messages {
            match message {
                Message::System { text } => input.push(json!({"role": "system", "content": text})),
                Message::User { text } => input.push(json!({"role": "user", "content": text})),
                // Another provider's server-side search: nothing this API could read.
                Message::ToolSearch(_) => {}
                Message::Assistant { text, tool_calls } => {
                    if !text.is_empty() {
                        input.push(json!({"role": "assistant", "content": text}));
                    }
                    // No item `id`: without `store`, an id names an item the server never kept
                    // (and, for reasoning models, one whose reasoning item is not sent).
                    input.extend(tool_calls.iter().map(|call| {
                        json!({
                            "type": "function_call",
                            "call_id": call.id,
                            "name": call.name,
                            "arguments": replayed_arguments(call),
                        })
                    }));
                }
                Message::Tool {
                    tool_call_id,
                    content,
                    is_error,
                    ..
                } => input.push(json!({
                    "type": "function_call_output",
                    "call_id": tool_call_id,
                    "output": tool_result_text(content, *is_error),
                })),
            }
        }
        ResponsesBody {
            model: &self.model,
            instructions: request.system.as_deref(),
            input,
            tools: (!request.tools.is_empty()).then(|| {
                self.tools
                    .get(&request.tools, definition::openai_responses_borrowed)
            }),
            max_output_tokens: self.max_tokens,
            text: request
                .response_format
                .as_ref()
                .map(|spec| json!({"format": definition::openai_responses_format(spec)})),
            store: false,
        }
    }
}

/// A Responses request; the tools are shared with earlier turns, not copied.
#[derive(serde::Serialize)]
struct ResponsesBody<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    input: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<SharedJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    /// `{"format": json_schema}`: structured output for a typed run's answer turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Value>,
    store: bool,
}

/// Reads a `Response`. Public to the crate for the wire tests.
pub(crate) fn parse_response(body: &Value) -> AgentResult<LlmResponse> {
    let invalid = |message: String| AgentError::InvalidResponse {
        provider: PROVIDER,
        message,
    };
    let status = body.get("status").and_then(Value::as_str);
    if status == Some("failed") {
        let message = body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("no reason given");
        return Err(invalid(format!("the response failed: {message}")));
    }
    let items = body
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("it has no `output` array".into()))?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for (index, item) in items.iter().enumerate() {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                {
                    match part.get("type").and_then(Value::as_str) {
                        Some("output_text") => {
                            text.push_str(part["text"].as_str().unwrap_or_default())
                        }
                        Some("refusal") => {
                            text.push_str(part["refusal"].as_str().unwrap_or_default())
                        }
                        _ => {}
                    }
                }
            }
            Some("function_call") => {
                let field = |name: &str| item.get(name).and_then(Value::as_str);
                let (Some(call_id), Some(name)) = (field("call_id"), field("name")) else {
                    return Err(invalid(format!(
                        "function_call item {index} lacks `call_id` or `name`"
                    )));
                };
                let arguments = match item.get("arguments") {
                    Some(Value::String(raw)) => parse_arguments(raw),
                    Some(object @ Value::Object(_)) => object.clone(),
                    None | Some(Value::Null) => Value::Object(Default::default()),
                    Some(other) => other.clone(),
                };
                tool_calls.push(ToolCall::new(call_id, name, arguments));
            }
            // Reasoning and built-in tool items are not part of the answer.
            _ => {}
        }
    }
    let incomplete = body
        .pointer("/incomplete_details/reason")
        .and_then(Value::as_str);
    let stop_reason = match (status, incomplete) {
        (Some("incomplete"), Some("max_output_tokens")) => StopReason::MaxTokens,
        (Some("incomplete"), reason) => StopReason::Other(reason.unwrap_or("incomplete").into()),
        _ if !tool_calls.is_empty() => StopReason::ToolUse,
        (Some("completed") | None, _) => StopReason::EndTurn,
        (Some(other), _) => StopReason::Other(other.to_string()),
    };
    let count = |name: &str| {
        body.pointer(&format!("/usage/{name}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Ok(LlmResponse {
        text,
        tool_calls,
        usage: Usage {
            input_tokens: count("input_tokens"),
            output_tokens: count("output_tokens"),
        },
        stop_reason,
        tool_searches: Vec::new(),
    })
}

#[async_trait]
impl LlmClient for ResponsesClient {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, self.key.header("Bearer ")?);
        let body = self
            .http
            .post(&self.endpoint(), &headers, &self.body(request))
            .await?;
        parse_response(&body)
    }

    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn structured_output(&self) -> bool {
        true
    }
}

impl fmt::Debug for ResponsesClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponsesClient")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.key)
            .field("http", &self.http.config)
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
