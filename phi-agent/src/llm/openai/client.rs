//! The client: its settings, the headers and body of a request, and the [`LlmClient`] that
//! posts it and reads the answer.

use std::fmt;

use async_trait::async_trait;
use reqwest::header::{AUTHORIZATION, HeaderMap};

use super::message::PROVIDER;
use super::reply::parse_response;
use super::request::{ChatBody, StreamOptions, messages};
use super::stream::ChatStream;
use crate::error::AgentResult;
use crate::llm::adapter::{AdapterCore, FromSettings, adapter_setters, cache_setters};
use crate::llm::cache::openai_key;
use crate::llm::definition;
use crate::llm::settings::process_env;
use crate::llm::tool_cache::ToolJsonCache;
use crate::llm::{DeltaStream, LlmClient, LlmRequest, LlmResponse};

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

    cache_setters!(
        default: "on (`prompt_cache_key` is the session's id) against the public API, off against any other server (which may refuse the field).",
        only_at: Some(Self::DEFAULT_BASE_URL),
    );

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.core.base_url)
    }

    /// `prompt_cache_key`: the request's key when caching is on.
    fn cache_key<'a>(&self, request: &'a LlmRequest) -> Option<std::borrow::Cow<'a, str>> {
        let key = request.cache_key.as_deref()?;
        self.prompt_cache().is_on().then(|| openai_key(key))
    }

    fn body<'a>(&'a self, request: &'a LlmRequest) -> ChatBody<'a> {
        ChatBody {
            model: &self.core.model,
            messages: messages(request),
            tools: (!request.tools.is_empty())
                .then(|| self.tools.get(&request.tools, definition::openai_borrowed)),
            max_completion_tokens: self.core.max_tokens,
            response_format: request
                .response_format
                .as_ref()
                .map(definition::openai_response_format_borrowed),
            stream: None,
            stream_options: None,
            prompt_cache_key: self.cache_key(request),
        }
    }

    fn headers(&self) -> AgentResult<HeaderMap> {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, self.core.key.header("Bearer ")?);
        Ok(headers)
    }
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
        body.stream_options = Some(StreamOptions {
            include_usage: true,
        });
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
