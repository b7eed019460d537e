//! The client: its settings, the headers and body of a request, and the [`LlmClient`] that
//! posts it and reads the answer.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::HeaderMap;
use serde_json::Value;

use super::cache::{GeminiCache, create_body, system_text};
use super::content::PROVIDER;
use super::reply::parse_response;
use super::request::{FunctionDeclarations, GenerateBody, GenerationConfig, contents};
use super::stream::GeminiStream;
use crate::error::{AgentError, AgentResult};
use crate::llm::adapter::{AdapterCore, FromSettings, adapter_setters};
use crate::llm::definition;
use crate::llm::settings::process_env;
use crate::llm::tool_cache::ToolJsonCache;
use crate::llm::{DeltaStream, LlmClient, LlmRequest, LlmResponse};

/// Which field of a `FunctionDeclaration` carries a tool's argument schema.
///
/// `docs/src/providers.md#gemini-function-declaration`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GeminiSchemaForm {
    /// `parametersJsonSchema`: the canonical JSON Schema as it is (less MCP's own `x-mcp-*`
    /// keywords), which Gemini reads in full (maps, `additionalProperties`, nullable unions,
    /// `$ref`s).
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
/// [`ToolCall::provider_state`](crate::llm::ToolCall::provider_state) and sent back with it.
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
    cache: Option<GeminiCache>,
    /// Whether a request that could not use the cache was already warned about.
    warned: Arc<AtomicBool>,
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
            cache: None,
            warned: Arc::default(),
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

    /// This client naming `cache` in every request whose system prompt and tools are the ones
    /// the cache holds, instead of sending them ([`GeminiCache`]; default none).
    pub fn with_cache(mut self, cache: GeminiCache) -> Self {
        self.cache = Some(cache);
        self
    }

    /// The explicit cache, if any; see [`with_cache`](Self::with_cache).
    pub fn cache(&self) -> Option<&GeminiCache> {
        self.cache.as_ref()
    }

    /// Stores `request`'s system instruction and tools as a Gemini `cachedContents` resource
    /// living `ttl`, and returns it for [`with_cache`](Self::with_cache). Gemini caches only
    /// prompts above a minimum size (1,024 tokens for Gemini 2.5 Flash at the time of writing)
    /// and refuses smaller ones with an error quoted here.
    pub async fn create_cache(
        &self,
        request: &LlmRequest,
        ttl: Duration,
    ) -> AgentResult<GeminiCache> {
        let full = self.full_body(request);
        let encode = |value: Option<Value>| value.filter(|value| !value.is_null());
        let body = create_body(
            &self.core.model,
            encode(serde_json::to_value(&full.system_instruction).ok()),
            encode(serde_json::to_value(&full.tools).ok()),
            ttl,
        );
        let url = format!("{}/v1beta/cachedContents", self.core.base_url);
        let reply = self.core.post(&url, self.headers(), &body).await?;
        let name = reply.get("name").and_then(Value::as_str).ok_or_else(|| {
            AgentError::InvalidResponse {
                provider: PROVIDER,
                message: "the created cache has no `name`".into(),
            }
        })?;
        Ok(GeminiCache::new(
            name,
            system_text(request).as_deref(),
            request.tools.iter().map(|tool| tool.name),
        ))
    }

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        format!(
            "{}/v1beta/models/{}:generateContent",
            self.core.base_url, self.core.model
        )
    }

    /// The request's body: with the cache when it holds this request's system prompt and tools.
    fn body<'a>(&'a self, request: &'a LlmRequest) -> GenerateBody<'a> {
        let mut body = self.full_body(request);
        let Some(cache) = &self.cache else {
            return body;
        };
        let tools = request.tools.iter().map(|tool| tool.name);
        if cache.holds(system_text(request).as_deref(), tools) {
            body.cached_content = Some(cache.name());
            body.system_instruction = None;
            body.tools = None;
        } else if !self.warned.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                cache = cache.name(),
                "the Gemini cache holds another system prompt or other tools than this request's; sent whole, without the cache"
            );
        }
        body
    }

    fn full_body<'a>(&'a self, request: &'a LlmRequest) -> GenerateBody<'a> {
        let (system_instruction, contents) = contents(request.system.as_deref(), &request.messages);
        let declarations = (!request.tools.is_empty()).then(|| match self.form {
            GeminiSchemaForm::JsonSchema => self
                .tools
                .get(&request.tools, definition::gemini_json_schema_borrowed),
            GeminiSchemaForm::OpenApi => self
                .tools
                .get(&request.tools, definition::gemini_openapi_or_json_schema),
        });
        GenerateBody {
            cached_content: None,
            system_instruction,
            contents,
            tools: declarations.map(|declarations| {
                vec![FunctionDeclarations {
                    function_declarations: declarations,
                }]
            }),
            generation_config: self
                .core
                .max_tokens
                .map(|max_output_tokens| GenerationConfig { max_output_tokens }),
        }
    }

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
