//! The Gemini API's `generateContent`.

use std::collections::VecDeque;
use std::fmt;

use std::borrow::Cow;

use async_trait::async_trait;
use reqwest::header::HeaderMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::adapter::{AdapterCore, FromSettings, adapter_setters};
use super::definition;
use super::http::{ErrorCode, WireError};
use super::lenient::{self, Listed};
use super::settings::process_env;
use super::sse::{Decoder, Failure, read_event};
use super::tool_cache::{SharedJson, ToolJsonCache};
use super::{
    DeltaStream, LlmClient, LlmRequest, LlmResponse, Message, ProviderState, StopReason,
    StreamDelta, ToolCall, Usage,
};
use crate::error::{AgentError, AgentResult};

const PROVIDER: &str = "gemini";

/// What a call id made up for a call Gemini sent without one starts with.
const MADE_UP_ID: &str = "call_";

/// The name a call's [`ProviderState`] keeps this adapter's state under: the fields of the
/// call's part besides `functionCall` (its `thoughtSignature`), sent back with the call as they
/// came. Gemini 3 refuses a history whose function calls lost their signatures.
const STATE_KEY: &str = "gemini";

/// Which field of a `FunctionDeclaration` carries a tool's argument schema.
///
/// `docs/providers.md#gemini-function-declaration`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GeminiSchemaForm {
    /// `parametersJsonSchema`: the canonical JSON Schema as it is ([`Dialect::Mcp`]), which
    /// Gemini reads in full (maps, `additionalProperties`, nullable unions, `$ref`s).
    ///
    /// [`Dialect::Mcp`]: crate::schema::Dialect::Mcp
    #[default]
    JsonSchema,
    /// `parameters`: the OpenAPI-style `Schema` object ([`Dialect::Gemini`], built by
    /// [`definition::gemini`]). A tool whose schema that dialect cannot express is sent in the
    /// JSON Schema form instead, with a warning once per tool.
    ///
    /// [`Dialect::Gemini`]: crate::schema::Dialect::Gemini
    OpenApi,
}

/// A client of the Gemini API (`POST {base_url}/v1beta/models/{model}:generateContent`).
///
/// The key goes in the `x-goog-api-key` header, never in the URL, and never appears in `Debug`
/// or errors. Tools are declared with their full JSON Schema by default
/// ([`GeminiSchemaForm`]).
///
/// Calls: Gemini's older models send function calls without an `id`; those get `call_<n>` (`n`
/// the call's position in the reply) and are answered by name and order, as Gemini matches them.
/// A call's `thoughtSignature` (and any other field of its part) is kept in its
/// [`ToolCall::provider_state`] and sent back with it.
///
/// ```
/// use phi_agent::llm::{GeminiClient, GeminiSchemaForm};
/// let client = GeminiClient::new("AIza-not-a-real-key", "gemini-2.5-flash")?
///     .with_base_url("http://127.0.0.1:8000/")
///     .with_schema_form(GeminiSchemaForm::OpenApi);
/// assert_eq!(client.base_url(), "http://127.0.0.1:8000");
/// assert_eq!(client.endpoint(), "http://127.0.0.1:8000/v1beta/models/gemini-2.5-flash:generateContent");
/// assert!(!format!("{client:?}").contains("AIza-not-a-real-key"));
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[derive(Clone)]
pub struct GeminiClient {
    core: AdapterCore,
    form: GeminiSchemaForm,
    tools: ToolJsonCache,
}

impl GeminiClient {
    /// The public API's base URL (without `/v1beta`, as the official SDKs take it).
    pub const DEFAULT_BASE_URL: &'static str = "https://generativelanguage.googleapis.com";
    /// The model used when `GEMINI_MODEL` is not set.
    pub const DEFAULT_MODEL: &'static str = "gemini-2.5-flash";

    /// A client for `model` (with or without the `models/` prefix) using `api_key`, against the
    /// public API.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> AgentResult<Self> {
        let model = model.into();
        let model = model.strip_prefix("models/").unwrap_or(&model).to_string();
        Ok(Self {
            core: AdapterCore::new(PROVIDER, api_key.into(), model, Self::DEFAULT_BASE_URL)?,
            form: GeminiSchemaForm::default(),
            tools: ToolJsonCache::default(),
        })
    }

    /// A client configured from the environment: `GEMINI_API_KEY` (required), `GEMINI_BASE_URL`
    /// (default the public API) and `GEMINI_MODEL` (default
    /// [`DEFAULT_MODEL`](Self::DEFAULT_MODEL)).
    pub fn from_env() -> AgentResult<Self> {
        Self::from_lookup(process_env)
    }

    adapter_setters!(
        base_url: "the part before `/v1beta/models/...`",
        max_tokens: "`generationConfig.maxOutputTokens`",
    );

    /// Declares tools' schemas in `form` (default [`GeminiSchemaForm::JsonSchema`]).
    pub fn with_schema_form(mut self, form: GeminiSchemaForm) -> Self {
        self.form = form;
        // The cache holds declarations in the old form.
        self.tools = ToolJsonCache::default();
        self
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        format!(
            "{}/v1beta/models/{}:generateContent",
            self.core.base_url, self.core.model
        )
    }

    fn body(&self, request: &LlmRequest) -> GenerateBody {
        let mut system: Vec<&str> = request.system.iter().map(String::as_str).collect();
        let mut contents = Contents::default();
        // The calls of the last assistant turn, to answer its results by name and order.
        let mut open_calls: &[ToolCall] = &[];
        for message in &request.messages {
            match message {
                Message::System { text } => system.push(text),
                Message::User { text } if !text.is_empty() => {
                    contents.push("user", json!({"text": text}))
                }
                Message::User { .. } => {}
                // Another provider's server-side search: nothing Gemini could read.
                Message::ToolSearch(_) => {}
                Message::Assistant { text, tool_calls } => {
                    if !text.is_empty() {
                        contents.push("model", json!({"text": text}));
                    }
                    for call in tool_calls {
                        contents.push("model", function_call(call));
                    }
                    open_calls = tool_calls;
                }
                Message::Tool {
                    tool_call_id,
                    name,
                    content,
                    is_error,
                } => {
                    // The call it answers gives the name Gemini knows; a result without one
                    // (a history edited by hand) keeps its own.
                    let call = open_calls.iter().find(|call| &call.id == tool_call_id);
                    let name = call.map_or(name.as_str(), |call| call.name.as_str());
                    let text = content
                        .iter()
                        .map(crate::Content::to_model_text)
                        .collect::<Vec<_>>()
                        .join("\n");
                    contents.push(
                        "user",
                        function_response(name, tool_call_id, &text, *is_error),
                    );
                }
            }
        }
        let declarations = (!request.tools.is_empty()).then(|| match self.form {
            GeminiSchemaForm::JsonSchema => self
                .tools
                .get(&request.tools, definition::gemini_json_schema_borrowed),
            GeminiSchemaForm::OpenApi => self
                .tools
                .get(&request.tools, definition::gemini_openapi_or_json_schema),
        });
        GenerateBody {
            system_instruction: (!system.is_empty())
                .then(|| json!({"parts": [{"text": system.join("\n\n")}]})),
            contents: contents.0,
            tools: declarations.map(|declarations| {
                vec![FunctionDeclarations {
                    function_declarations: declarations,
                }]
            }),
            generation_config: self
                .core
                .max_tokens
                .map(|max| json!({"maxOutputTokens": max})),
        }
    }
}

/// A `generateContent` request; the declarations are shared with earlier turns, not copied.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct GenerateBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    system_instruction: Option<Value>,
    contents: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<Vec<FunctionDeclarations>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    generation_config: Option<Value>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct FunctionDeclarations {
    function_declarations: SharedJson,
}

/// Contents under construction: consecutive parts of one role share a content, so that the
/// results of parallel calls go back in one user turn, as Gemini expects them.
#[derive(Default)]
struct Contents(Vec<Value>);

impl Contents {
    fn push(&mut self, role: &str, part: Value) {
        if let Some(last) = self.0.last_mut()
            && last["role"] == role
            && let Some(parts) = last["parts"].as_array_mut()
        {
            parts.push(part);
            return;
        }
        self.0.push(json!({"role": role, "parts": [part]}));
    }
}

/// Whether `id` was made up here for a call Gemini sent without one (so it is not sent back).
fn is_made_up(id: &str) -> bool {
    id.strip_prefix(MADE_UP_ID)
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

fn function_call(call: &ToolCall) -> Value {
    // `args` is a Struct: arguments that were not a JSON object were already answered with an
    // error result, so the call is replayed with none.
    let args = match &call.arguments {
        Value::Object(_) => call.arguments.clone(),
        _ => Value::Object(Map::new()),
    };
    let mut function = json!({"name": call.name, "args": args});
    if !is_made_up(&call.id) {
        function["id"] = call.id.as_str().into();
    }
    let mut part = Map::new();
    part.insert("functionCall".into(), function);
    if let Some(Value::Object(fields)) = call.provider_state.get(STATE_KEY) {
        for (name, value) in fields {
            // The call itself is ours to write; every other field goes back as it came.
            if name != "functionCall" {
                part.insert(name.clone(), value.clone());
            }
        }
    }
    Value::Object(part)
}

fn function_response(name: &str, id: &str, text: &str, is_error: bool) -> Value {
    // `response` is a Struct; Gemini's documentation names `output` and `error` as its keys.
    let key = if is_error { "error" } else { "output" };
    let mut function = json!({"name": name, "response": {key: text}});
    if !is_made_up(id) {
        function["id"] = id.into();
    }
    json!({"functionResponse": function})
}

/// A `GenerateContentResponse`, whole or one chunk of a streamed one, as far as this adapter
/// reads it; a streamed chunk may be an error instead.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct GenerateResponse<'a> {
    #[serde(default, borrow)]
    candidates: Listed<Candidate<'a>>,
    #[serde(default)]
    usage_metadata: Option<UsageMetadata>,
    #[serde(default, borrow)]
    prompt_feedback: Option<PromptFeedback<'a>>,
    #[serde(default, borrow)]
    error: Option<WireError<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate<'a> {
    #[serde(default, borrow)]
    content: Option<CandidateContent<'a>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct CandidateContent<'a> {
    #[serde(default, borrow)]
    parts: Listed<Part<'a>>,
}

/// A part: text (perhaps a thought summary), or a function call with the fields that go back
/// with it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part<'a> {
    #[serde(default, borrow)]
    function_call: Option<FunctionCall<'a>>,
    #[serde(default, deserialize_with = "lenient::flag")]
    thought: bool,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    text: Option<Cow<'a, str>>,
    /// Every other field (`thoughtSignature`), kept as raw values: they go back with the call
    /// exactly as they came, whatever Gemini puts there.
    #[serde(flatten)]
    rest: Map<String, Value>,
}

#[derive(Deserialize)]
struct FunctionCall<'a> {
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "lenient::text")]
    id: Option<Cow<'a, str>>,
    /// The arguments: any JSON the model wrote (a `Struct` when all is well).
    #[serde(default)]
    args: Option<Value>,
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
struct Reply {
    text: String,
    tool_calls: Vec<ToolCall>,
    finish_reason: Option<String>,
    usage: Usage,
}

impl Reply {
    /// Reads one response or chunk, pushing the deltas it carries to `out` when streaming.
    fn read(
        &mut self,
        body: GenerateResponse<'_>,
        mut out: Option<&mut VecDeque<StreamDelta>>,
    ) -> Result<(), String> {
        if let Some(usage) = body.usage_metadata {
            self.usage = Usage {
                input_tokens: usage.prompt_token_count.unwrap_or(0),
                // Thinking tokens are written (and billed) as output.
                output_tokens: usage.candidates_token_count.unwrap_or(0)
                    + usage.thoughts_token_count.unwrap_or(0),
            };
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
                let arguments = match call.args {
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

    fn finish(&mut self) -> LlmResponse {
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

/// A streamed `streamGenerateContent?alt=sse`: one chunk per event, no closing event; the reply
/// is complete once a chunk has said why it finished and the body ends.
#[derive(Default)]
struct GeminiStream(Reply);

impl Decoder for GeminiStream {
    fn feed(
        &mut self,
        event: &sse_stream::Sse,
        out: &mut VecDeque<StreamDelta>,
    ) -> Result<Option<LlmResponse>, Failure> {
        let data = event.data.as_deref().unwrap_or_default();
        if data.trim().is_empty() {
            return Ok(None);
        }
        let mut chunk: GenerateResponse = read_event(PROVIDER, data)?;
        if let Some(error) = chunk.error.take() {
            // An error after a 200, in the shape of an error body: its code is an HTTP status.
            let status = match error.code {
                ErrorCode::Status(code) => u16::try_from(code).unwrap_or(200),
                _ => 200,
            };
            let message = error
                .describe()
                .unwrap_or_else(|| super::http::provider_message(data.as_bytes()));
            return Err(Failure::provider(PROVIDER, status, message));
        }
        self.0.read(chunk, Some(out)).map_err(|message| {
            Failure::fatal(AgentError::InvalidResponse {
                provider: PROVIDER,
                message,
            })
        })?;
        Ok(None)
    }

    fn finish(&mut self, _out: &mut VecDeque<StreamDelta>) -> Option<LlmResponse> {
        self.0.finish_reason.is_some().then(|| self.0.finish())
    }
}

/// A streamed body in memory, read as [`LlmClient::stream`] reads the network's.
pub(crate) fn decode_stream(chunks: &[&[u8]]) -> AgentResult<Vec<StreamDelta>> {
    super::sse::decode_body::<GeminiStream>(PROVIDER, chunks)
}

impl GeminiClient {
    fn headers(&self) -> AgentResult<HeaderMap> {
        let mut headers = HeaderMap::new();
        headers.insert("x-goog-api-key", self.core.key.header("")?);
        Ok(headers)
    }

    /// The URL streamed requests are posted to (`streamGenerateContent?alt=sse`).
    pub fn stream_endpoint(&self) -> String {
        format!(
            "{}/v1beta/models/{}:streamGenerateContent?alt=sse",
            self.core.base_url, self.core.model
        )
    }
}

impl FromSettings for GeminiClient {
    const PREFIX: &'static str = "GEMINI";
    const NAME: &'static str = "Gemini";
    const MODEL: &'static str = Self::DEFAULT_MODEL;

    fn with_key(key: String, model: String) -> AgentResult<Self> {
        Self::new(key, model)
    }

    fn core_mut(&mut self) -> &mut AdapterCore {
        &mut self.core
    }
}

#[async_trait]
impl LlmClient for GeminiClient {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        let body = self
            .core
            .post(&self.endpoint(), self.headers(), &self.body(request))
            .await?;
        parse_response(&body)
    }

    /// Streams the reply (`streamGenerateContent?alt=sse`; the body is the one `complete` sends).
    fn stream<'a>(&'a self, request: &'a LlmRequest) -> DeltaStream<'a> {
        self.core.stream::<GeminiStream>(
            self.stream_endpoint(),
            self.headers(),
            &self.body(request),
        )
    }

    fn provider(&self) -> &str {
        // The `gen_ai.provider.name` of the OpenTelemetry conventions for this API.
        "gcp.gemini"
    }

    fn model(&self) -> &str {
        &self.core.model
    }
}

impl fmt::Debug for GeminiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.core
            .debug(f, "GeminiClient")
            .field("schema_form", &self.form)
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
    fn calls_without_ids_get_positions_and_signatures_are_kept_as_provider_state() {
        let body = json!({
            "candidates": [{
                "content": {"role": "model", "parts": [
                    {"text": "thinking...", "thought": true},
                    {"text": "Let me compute."},
                    {"functionCall": {"name": "calc", "args": {"a": 1}}, "thoughtSignature": "c2ln"},
                    {"functionCall": {"name": "calc", "args": "oops"}},
                    {"functionCall": {"id": "g-7", "name": "now"}}
                ]},
                "finishReason": "STOP"
            }],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4, "thoughtsTokenCount": 3}
        });
        let reply = parse_response(&body).unwrap();
        assert_eq!(reply.text, "Let me compute.");
        assert_eq!(reply.stop_reason, StopReason::ToolUse);
        let ids: Vec<&str> = reply.tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["call_0", "call_1", "g-7"]);
        assert_eq!(
            reply.tool_calls[0].provider_state.get(STATE_KEY),
            Some(&json!({"thoughtSignature": "c2ln"}))
        );
        assert!(reply.tool_calls[1].provider_state.is_empty());
        assert_eq!(reply.tool_calls[1].arguments, json!("oops"));
        assert_eq!(reply.tool_calls[2].arguments, json!({}));
        assert_eq!(
            reply.usage,
            Usage {
                input_tokens: 9,
                output_tokens: 7
            }
        );
    }

    #[test]
    fn blocked_prompts_and_empty_candidates_are_read() {
        let error =
            parse_response(&json!({"promptFeedback": {"blockReason": "SAFETY"}})).unwrap_err();
        assert!(error.to_string().contains("blocked (SAFETY)"), "{error}");
        let reply =
            parse_response(&json!({"candidates": [{"finishReason": "MAX_TOKENS"}]})).unwrap();
        assert_eq!(reply.stop_reason, StopReason::MaxTokens);
        assert!(reply.text.is_empty());
    }

    #[test]
    fn history_sends_signatures_back_and_answers_by_name_and_order() {
        let client = GeminiClient::new("k", "models/gemini-test")
            .unwrap()
            .with_max_tokens(64);
        assert_eq!(client.model(), "gemini-test");
        let result = |id: &str, text: &str, is_error| Message::Tool {
            tool_call_id: id.into(),
            name: "calc".into(),
            content: vec![Content::text(text)],
            is_error,
        };
        let request = LlmRequest {
            system: Some("be brief".into()),
            messages: vec![
                Message::user("hi"),
                Message::Assistant {
                    text: String::new(),
                    tool_calls: vec![
                        ToolCall::new("call_0", "calc", json!({"a": 1})).with_provider_state(
                            ProviderState::default()
                                .with(STATE_KEY, json!({"thoughtSignature": "c2ln"}))
                                .with("other", json!("not ours")),
                        ),
                        ToolCall::new("g-7", "calc", json!("oops")),
                    ],
                },
                result("call_0", "1", false),
                result("g-7", "not an object", true),
            ],
            tools: Arc::from(vec![ToolSpec::new(
                "calc",
                "Calculate",
                json!({"type": "object", "properties": {"a": {"type": "number"}}}),
            )]),
            ..Default::default()
        };
        let body = client.request_body(&request);
        assert_eq!(body["systemInstruction"]["parts"][0]["text"], "be brief");
        assert_eq!(body["generationConfig"]["maxOutputTokens"], 64);
        let contents = body["contents"].as_array().unwrap();
        assert_eq!(contents.len(), 3, "{contents:?}");
        assert_eq!(
            contents[1],
            json!({"role": "model", "parts": [
                {"functionCall": {"name": "calc", "args": {"a": 1}}, "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "calc", "args": {}, "id": "g-7"}}
            ]})
        );
        assert_eq!(
            contents[2],
            json!({"role": "user", "parts": [
                {"functionResponse": {"name": "calc", "response": {"output": "1"}}},
                {"functionResponse": {"name": "calc", "response": {"error": "not an object"}, "id": "g-7"}}
            ]})
        );
        let declaration = &body["tools"][0]["functionDeclarations"][0];
        assert_eq!(
            declaration["parametersJsonSchema"],
            *request.tools[0].schema
        );
        assert!(declaration.get("parameters").is_none());
    }

    #[test]
    fn the_openapi_form_falls_back_to_json_schema_for_a_tool_it_cannot_express() {
        let client = GeminiClient::new("k", "m")
            .unwrap()
            .with_schema_form(GeminiSchemaForm::OpenApi);
        let fits = ToolSpec::new(
            "fits",
            "",
            json!({"type": "object", "properties": {"n": {"type": ["integer", "null"]}}}),
        );
        let map = ToolSpec::new(
            "map",
            "",
            json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}),
        );
        let request = LlmRequest {
            tools: Arc::from(vec![fits.clone(), map.clone()]),
            ..LlmRequest::default()
        };
        let body = client.request_body(&request);
        let declarations = &body["tools"][0]["functionDeclarations"];
        assert_eq!(declarations[0], definition::gemini(&fits).unwrap());
        assert_eq!(declarations[1]["parametersJsonSchema"], *map.schema);
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
    fn settings_are_read_from_the_environment() {
        let error = GeminiClient::from_lookup(settings(&[])).unwrap_err();
        assert!(
            error.to_string().contains("GEMINI_API_KEY is not set"),
            "{error}"
        );
        let client = GeminiClient::from_lookup(settings(&[("GEMINI_API_KEY", "k")])).unwrap();
        assert_eq!(client.base_url(), GeminiClient::DEFAULT_BASE_URL);
        assert_eq!(client.model(), GeminiClient::DEFAULT_MODEL);
        let client = GeminiClient::from_lookup(settings(&[
            ("GEMINI_API_KEY", "k"),
            ("GEMINI_BASE_URL", "http://127.0.0.1:9999/"),
            ("GEMINI_MODEL", "gemini-test"),
        ]))
        .unwrap();
        assert_eq!(
            client.endpoint(),
            "http://127.0.0.1:9999/v1beta/models/gemini-test:generateContent"
        );
    }
}
