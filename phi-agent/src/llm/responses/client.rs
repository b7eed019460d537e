//! The client: its settings, the headers and body of a request, and the [`LlmClient`] that
//! posts it and reads the answer.

use std::fmt;

use async_trait::async_trait;
use reqwest::header::{AUTHORIZATION, HeaderMap};

use super::item::PROVIDER;
use super::reply::parse_reply;
use super::request::{
    ENCRYPTED_REASONING, ResponsesBody, SERVER_TOOLS, TextFormat, continue_from, input,
    is_reasoning_model,
};
use super::stream::ResponsesStream;
use crate::error::AgentResult;
use crate::llm::adapter::{AdapterCore, FromSettings, adapter_setters, cache_setters};
use crate::llm::cache::openai_key;
use crate::llm::definition;
use crate::llm::settings::process_env;
use crate::llm::tool_cache::{DeferredJsonCache, ToolJsonCache, no_tools};
use crate::llm::{DeltaStream, LlmClient, LlmRequest, LlmResponse};

/// A client of the OpenAI Responses API (`POST {base_url}/responses`).
///
/// Stateless by default: every request carries the whole conversation and says `store: false`,
/// so nothing is kept on the server and `previous_response_id` is never needed. A reasoning
/// model's reasoning items then come encrypted (`include: ["reasoning.encrypted_content"]`, asked
/// for reasoning models, see [`with_encrypted_reasoning`](Self::with_encrypted_reasoning)); they
/// are kept with the calls they preceded ([`ToolCall::provider_state`](crate::llm::ToolCall::provider_state)) and sent back unchanged
/// on the next turn, so the model keeps its reasoning across tool calls.
/// [`with_stored_responses`](Self::with_stored_responses) lets the server keep the conversation
/// instead. Tools are function tools in
/// strict mode when their schema fits it, and without `strict` otherwise, as
/// [`OpenAiClient`](crate::llm::OpenAiClient) sends them. Calls and their results are `function_call`
/// and `function_call_output` items keyed by `call_id`.
///
/// Works with any server that speaks the API: point [`with_base_url`](Self::with_base_url) (or
/// `OPENAI_BASE_URL`) at it, including its `/v1`. The key never appears in `Debug` or errors.
/// [`OpenAiClient`](crate::llm::OpenAiClient) and this client read the same variables; a program that
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
    /// `responses` means this client, `chat` (or unset) [`OpenAiClient`](crate::llm::OpenAiClient).
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

    cache_setters!(
        default: "on (`prompt_cache_key` is the session's id) against the public API, off against any other server (which may refuse the field).",
        only_at: Some(Self::DEFAULT_BASE_URL),
    );

    /// With `true`, lets the server keep each response (`store: true`) and continues from the last one
    /// (`previous_response_id`), sending only what came after it: the tool results and new
    /// messages. The id travels with the reply's calls ([`ToolCall::provider_state`](crate::llm::ToolCall::provider_state)); after a
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
    /// ([`Message::ToolSearch`](crate::llm::Message::ToolSearch)) and sent back as they came, and the tools they loaded become
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
    /// ([`ToolCall::provider_state`](crate::llm::ToolCall::provider_state)) and sent back on the next request, the caller also on the
    /// call's output (`docs/src/providers.md#responses-programmatic-tool-calling`).
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

    /// `prompt_cache_key`: the request's key when caching is on.
    fn cache_key<'a>(&self, request: &'a LlmRequest) -> Option<std::borrow::Cow<'a, str>> {
        let key = request.cache_key.as_deref()?;
        self.prompt_cache().is_on().then(|| openai_key(key))
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
        ResponsesBody {
            model: &self.core.model,
            instructions: request.system.as_deref(),
            previous_response_id,
            input: input(messages, self.store),
            tools: if !request.deferred_tools.is_empty() {
                let extra = if self.programmatic {
                    &SERVER_TOOLS[..]
                } else {
                    &SERVER_TOOLS[..1]
                };
                Some(self.deferred.get(
                    &request.tools,
                    &request.deferred_tools,
                    convert,
                    extra,
                    true,
                ))
            } else if self.programmatic {
                Some(self.deferred.get(
                    &request.tools,
                    no_tools(),
                    convert,
                    &SERVER_TOOLS[1..],
                    true,
                ))
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
            prompt_cache_key: self.cache_key(request),
            text: request.response_format.as_ref().map(|spec| TextFormat {
                format: definition::openai_responses_format_borrowed(spec),
            }),
        }
    }
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
