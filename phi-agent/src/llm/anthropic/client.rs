//! The client: its settings, the headers and body of a request, and the [`LlmClient`] that
//! posts it and reads the answer.

use std::fmt;

use async_trait::async_trait;
use reqwest::header::{HeaderMap, HeaderValue};

use super::cache::{CacheControl, System};
use super::code_version::CodeExecutionVersion;
use super::content::PROVIDER;
use super::context_editing::{CONTEXT_MANAGEMENT_BETA, ContextEditing, ContextManagement};
use super::reply::parse_response;
use super::request::{MessagesBody, container, mark_turns, server_tools, turns};
use super::stream::MessageStream;
use crate::error::AgentResult;
use crate::llm::adapter::{AdapterCore, FromSettings, adapter_setters, cache_setters};
use crate::llm::definition;
use crate::llm::settings::process_env;
use crate::llm::tool_cache::{DeferredJsonCache, ToolJsonCache, no_tools};
use crate::llm::{DeltaStream, LlmClient, LlmRequest, LlmResponse};

const API_VERSION: &str = "2023-06-01";
/// The beta the tool search, `input_examples` and programmatic tool calling need
/// (`anthropic-beta` header).
pub(super) const TOOL_SEARCH_BETA: &str = "advanced-tool-use-2025-11-20";
/// Both betas, comma-separated as the header takes several.
const BOTH_BETAS: &str = "advanced-tool-use-2025-11-20,context-management-2025-06-27";

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
    /// Which version of it.
    code_version: CodeExecutionVersion,
    /// Server-side clearing of old tool results, when the user picks it.
    context_editing: Option<ContextEditing>,
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
            code_version: CodeExecutionVersion::default(),
            context_editing: None,
        })
    }

    /// This client with Anthropic's programmatic tool calling on or off (default off): every
    /// request then carries the code-execution server tool (`code_execution_20250825`, or the
    /// [`with_code_execution_version`](Self::with_code_execution_version)'s) and each
    /// tool its `allowed_callers` from [`ToolOptions::callers`](crate::ToolOptions::callers) (`"direct"`,
    /// `"code_execution_20250825"` or both), so that the model can write one program, run in
    /// Anthropic's sandbox, that calls many tools. A call made by such a program carries its
    /// `caller` and the code-execution container back with it, and both are sent back on the
    /// next request (`docs/src/providers.md#anthropic-programmatic-tool-calling`).
    ///
    /// ```
    /// use phi_agent::llm::AnthropicClient;
    /// let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5")?.with_code_execution(true);
    /// assert!(client.code_execution());
    /// # Ok::<(), phi_agent::AgentError>(())
    /// ```
    pub fn with_code_execution(mut self, on: bool) -> Self {
        self.code_execution = on;
        // A clone shares its tool-list cache, whose text depends on this setting.
        self.native = DeferredJsonCache::default();
        self
    }

    /// This client sending `version` of the code-execution tool when
    /// [`with_code_execution`](Self::with_code_execution) is on (default
    /// [`CodeExecutionVersion::V20250825`](crate::llm::CodeExecutionVersion::V20250825)): the
    /// tool entry's `type` and the caller each tool allows.
    ///
    /// ```
    /// use phi_agent::llm::{AnthropicClient, CodeExecutionVersion};
    /// let client = AnthropicClient::new("sk-ant-not-real", "claude-opus-4-6")?
    ///     .with_code_execution(true)
    ///     .with_code_execution_version(CodeExecutionVersion::V20260120);
    /// assert_eq!(client.code_execution_version(), CodeExecutionVersion::V20260120);
    /// # Ok::<(), phi_agent::AgentError>(())
    /// ```
    pub fn with_code_execution_version(mut self, version: CodeExecutionVersion) -> Self {
        self.code_version = version;
        self.native = DeferredJsonCache::default();
        self
    }

    /// The code-execution tool's version; see
    /// [`with_code_execution_version`](Self::with_code_execution_version).
    pub fn code_execution_version(&self) -> CodeExecutionVersion {
        self.code_version
    }

    /// Whether programmatic tool calling is on; see
    /// [`with_code_execution`](Self::with_code_execution).
    pub fn code_execution(&self) -> bool {
        self.code_execution
    }

    /// This client asking the API to clear old tool results itself ([`ContextEditing`]; default
    /// none): every request then carries `context_management` and its beta.
    pub fn with_context_editing(mut self, editing: ContextEditing) -> Self {
        self.context_editing = Some(editing);
        self
    }

    /// The server-side context editing, if any; see
    /// [`with_context_editing`](Self::with_context_editing).
    pub fn context_editing(&self) -> Option<&ContextEditing> {
        self.context_editing.as_ref()
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

    cache_setters!(
        default: "on, for 5 minutes ([`PromptCache::FiveMinutes`](crate::llm::PromptCache::FiveMinutes)): breakpoints at the end of the system prompt and of the last two user turns.",
        only_at: None,
    );

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        format!("{}/v1/messages", self.core.base_url)
    }

    /// The headers of `request`: the key, the API version, and the betas it needs: advanced tool
    /// use when the request has deferred tools (the tool search) or a tool with
    /// `input_examples`, context management with [`ContextEditing`].
    pub(super) fn headers(&self, request: &LlmRequest) -> AgentResult<HeaderMap> {
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
        let tool_search =
            self.code_execution || !request.deferred_tools.is_empty() || has_examples();
        let betas = match (tool_search, self.context_editing.is_some()) {
            (true, true) => Some(BOTH_BETAS),
            (true, false) => Some(TOOL_SEARCH_BETA),
            (false, true) => Some(CONTEXT_MANAGEMENT_BETA),
            (false, false) => None,
        };
        if let Some(betas) = betas {
            headers.insert("anthropic-beta", HeaderValue::from_static(betas));
        }
        Ok(headers)
    }

    fn body<'a>(&'a self, request: &'a LlmRequest) -> MessagesBody<'a> {
        let (system, mut messages) = turns(request.system.as_deref(), &request.messages);
        let control = CacheControl::of(self.prompt_cache());
        if let Some(control) = control {
            mark_turns(&mut messages, control);
        }
        let convert = if self.code_execution {
            self.code_version.with_callers()
        } else {
            definition::anthropic_borrowed
        };
        let server = server_tools(self.code_version);
        MessagesBody {
            container: container(&request.messages),
            model: &self.core.model,
            max_tokens: self.core.max_tokens.unwrap_or(Self::DEFAULT_MAX_TOKENS),
            system: (!system.is_empty()).then(|| System::new(system.join("\n\n"), control)),
            messages,
            tools: if !request.deferred_tools.is_empty() {
                let extra = if self.code_execution {
                    &server[..]
                } else {
                    &server[..1]
                };
                Some(self.native.get(
                    &request.tools,
                    &request.deferred_tools,
                    convert,
                    extra,
                    false,
                ))
            } else if self.code_execution {
                // The code-execution tool after the shown tools, none deferred.
                Some(
                    self.native
                        .get(&request.tools, no_tools(), convert, &server[1..], false),
                )
            } else {
                (!request.tools.is_empty()).then(|| {
                    self.tools
                        .get(&request.tools, definition::anthropic_borrowed)
                })
            },
            stream: None,
            context_management: self
                .context_editing
                .as_ref()
                .map(|editing| ContextManagement { edits: [editing] }),
        }
    }
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
