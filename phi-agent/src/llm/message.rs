//! What goes to a model and what comes back: one request, one response, token usage.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Message, ToolCall, ToolSearchCall, ToolSpec};

/// Everything the model sees for one turn.
///
/// `#[non_exhaustive]`: a client of your own reads the fields; a request of your own (a test of
/// a client) starts from [`LlmRequest::new`] or [`Default`] and the `with_*` setters, so that a
/// field added later breaks no one.
///
/// ```
/// use phi_agent::llm::{LlmRequest, Message};
/// let request = LlmRequest::new(vec![Message::user("hi")]).with_system("Be brief.");
/// assert_eq!(request.system.as_deref(), Some("Be brief."));
/// assert!(request.tools.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct LlmRequest {
    /// The system prompt, if any.
    pub system: Option<String>,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The tools the model may call now, shared between turns while the set is unchanged.
    pub tools: Arc<[ToolSpec]>,
    /// Tools the provider's own tool search may find for the model
    /// ([`ToolSearch::Native`](crate::ToolSearch::Native) with a client whose
    /// [`native_tool_search`](super::LlmClient::native_tool_search) is `true`): sent as deferred
    /// definitions, loaded into the model's context only once found. Empty otherwise; clients
    /// without a native search ignore it.
    pub deferred_tools: Arc<[ToolSpec]>,
    /// The schema the reply's text must follow (the provider's structured output, e.g. OpenAI's
    /// `response_format: json_schema`), as a spec for its name, description and schema. Set
    /// only by a typed run ([`RunRequest::typed`](crate::RunRequest::typed)
    /// in [`AnswerMode::Native`](crate::AnswerMode::Native)), only on a turn that offers no
    /// tools, and only for a client whose
    /// [`structured_output`](super::LlmClient::structured_output) is `true`; other clients
    /// ignore it.
    pub response_format: Option<ToolSpec>,
    /// What routes the requests of one conversation to the same prompt cache (OpenAI's
    /// `prompt_cache_key`): an agent run sets its session's id. Clients whose provider routes
    /// by prefix alone ignore it.
    pub cache_key: Option<String>,
}

impl LlmRequest {
    /// A request with `messages`, no system prompt and no tools.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }

    /// This request with [`system`](Self::system) set to `system`.
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// This request with [`messages`](Self::messages) set to `messages`.
    pub fn with_messages(mut self, messages: Vec<Message>) -> Self {
        self.messages = messages;
        self
    }

    /// This request with [`tools`](Self::tools) set to `tools` (a `Vec<ToolSpec>` or an
    /// `Arc<[ToolSpec]>`).
    pub fn with_tools(mut self, tools: impl Into<Arc<[ToolSpec]>>) -> Self {
        self.tools = tools.into();
        self
    }

    /// This request with [`deferred_tools`](Self::deferred_tools) set to `tools`.
    pub fn with_deferred_tools(mut self, tools: impl Into<Arc<[ToolSpec]>>) -> Self {
        self.deferred_tools = tools.into();
        self
    }

    /// This request with [`cache_key`](Self::cache_key) set to `key`.
    pub fn with_cache_key(mut self, key: impl Into<String>) -> Self {
        self.cache_key = Some(key.into());
        self
    }

    /// This request with [`response_format`](Self::response_format) set to `format`.
    pub fn with_response_format(mut self, format: ToolSpec) -> Self {
        self.response_format = Some(format);
        self
    }
}

/// The model's answer to one request.
///
/// Serializable, as the journal entry of a durable run's model step (see
/// [`StepExecutor`](crate::StepExecutor)).
///
/// `#[non_exhaustive]`: a client of your own builds one with [`text`](Self::text),
/// [`tool_calls`](Self::tool_calls) or [`new`](Self::new) (text and calls in one turn) and the
/// `with_*` setters, so that a field added later breaks no one.
///
/// ```
/// use phi_agent::llm::{LlmResponse, StopReason, ToolCall, Usage};
/// let call = ToolCall::new("c1", "get_weather", serde_json::json!({"city": "Oslo"}));
/// let reply = LlmResponse::new("Let me look that up.", vec![call]).with_usage(Usage::new(12, 5));
/// assert_eq!(reply.stop_reason, StopReason::ToolUse);
/// assert_eq!(reply.text, "Let me look that up.");
/// assert_eq!(reply.usage.output_tokens, 5);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LlmResponse {
    /// The model's text.
    pub text: String,
    /// The tools it wants to call, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Tokens used.
    pub usage: Usage,
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// Tool searches the provider ran for the model while writing this reply (a native tool
    /// search); a tool found here may be called in this very reply.
    pub tool_searches: Vec<ToolSearchCall>,
}

impl LlmResponse {
    /// A turn with `text` and `tool_calls`, both of which may be empty: the model says something
    /// and asks for tools in one reply. Its stop reason is [`StopReason::ToolUse`] when there are
    /// calls, [`StopReason::EndTurn`] otherwise.
    pub fn new(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        let stop_reason = if tool_calls.is_empty() {
            StopReason::EndTurn
        } else {
            StopReason::ToolUse
        };
        Self {
            text: text.into(),
            tool_calls,
            usage: Usage::default(),
            stop_reason,
            tool_searches: Vec::new(),
        }
    }

    /// A final answer: text, no tool calls.
    ///
    /// ```
    /// use phi_agent::llm::{LlmResponse, StopReason};
    /// let reply = LlmResponse::text("42");
    /// assert_eq!(reply.stop_reason, StopReason::EndTurn);
    /// assert!(reply.tool_calls.is_empty());
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            tool_calls: Vec::new(),
            usage: Usage::default(),
            stop_reason: StopReason::EndTurn,
            tool_searches: Vec::new(),
        }
    }

    /// A turn that asks for `calls`, without text.
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        Self {
            text: String::new(),
            tool_calls: calls,
            usage: Usage::default(),
            stop_reason: StopReason::ToolUse,
            tool_searches: Vec::new(),
        }
    }

    /// This response with [`text`](Self::text) set to `text`.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = text.into();
        self
    }

    /// This response with [`tool_calls`](Self::tool_calls) set to `calls` (the stop reason is
    /// left as it was; see [`with_stop_reason`](Self::with_stop_reason)).
    pub fn with_tool_calls(mut self, calls: Vec<ToolCall>) -> Self {
        self.tool_calls = calls;
        self
    }

    /// This response with `usage`.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// This response with [`stop_reason`](Self::stop_reason) set to `reason`.
    pub fn with_stop_reason(mut self, reason: StopReason) -> Self {
        self.stop_reason = reason;
        self
    }

    /// This response with [`tool_searches`](Self::tool_searches) set to `searches`.
    pub fn with_tool_searches(mut self, searches: Vec<ToolSearchCall>) -> Self {
        self.tool_searches = searches;
        self
    }
}

/// Token counts of one request, or summed over a run or a session.
///
/// One convention for every adapter, the OpenTelemetry GenAI one: [`input_tokens`](Self::input_tokens)
/// counts *all* the input of a request, cached or not, and the two cache counts say how much of
/// it the provider's prompt cache read or wrote. OpenAI and Gemini report their totals that
/// way; Anthropic reports the three parts apart (its `input_tokens` excludes cached tokens), so
/// its adapter adds them up. The input billed at the full price is therefore
/// `input_tokens - cache_read_input_tokens - cache_creation_input_tokens`.
///
/// `#[non_exhaustive]` (providers report more kinds of tokens every year): build one with
/// [`Usage::new`] or [`Default`] and the `with_*` setters.
///
/// ```
/// use phi_agent::llm::Usage;
/// let mut total = Usage::new(10, 2).with_cache_read_input_tokens(8);
/// total += Usage::default().with_output_tokens(3);
/// assert_eq!((total.input_tokens, total.output_tokens), (10, 5));
/// assert_eq!(total.uncached_input_tokens(), 2);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Tokens read: the whole input, including the cached part.
    pub input_tokens: u64,
    /// Tokens written.
    pub output_tokens: u64,
    /// Of [`input_tokens`](Self::input_tokens), those read from the provider's prompt cache
    /// (billed at a fraction of the input price). OTel: `gen_ai.usage.cache_read.input_tokens`.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// Of [`input_tokens`](Self::input_tokens), those written to the provider's prompt cache
    /// (Anthropic bills them above the input price; the other providers report none).
    /// OTel: `gen_ai.usage.cache_creation.input_tokens`.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
}

impl Usage {
    /// `input_tokens` read and `output_tokens` written, nothing cached.
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens,
            output_tokens,
            ..Self::default()
        }
    }

    /// These counts with [`input_tokens`](Self::input_tokens) set to `tokens`.
    pub fn with_input_tokens(mut self, tokens: u64) -> Self {
        self.input_tokens = tokens;
        self
    }

    /// These counts with [`output_tokens`](Self::output_tokens) set to `tokens`.
    pub fn with_output_tokens(mut self, tokens: u64) -> Self {
        self.output_tokens = tokens;
        self
    }

    /// These counts with [`cache_read_input_tokens`](Self::cache_read_input_tokens) set to
    /// `tokens`.
    pub fn with_cache_read_input_tokens(mut self, tokens: u64) -> Self {
        self.cache_read_input_tokens = tokens;
        self
    }

    /// These counts with [`cache_creation_input_tokens`](Self::cache_creation_input_tokens) set
    /// to `tokens`.
    pub fn with_cache_creation_input_tokens(mut self, tokens: u64) -> Self {
        self.cache_creation_input_tokens = tokens;
        self
    }

    /// The input neither read from nor written to a cache: what is billed at the plain input
    /// price. Never below zero, whatever a provider reported.
    pub fn uncached_input_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_sub(self.cache_read_input_tokens)
            .saturating_sub(self.cache_creation_input_tokens)
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        // Saturating: usage read back from a stored paused run may hold any number.
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_input_tokens = self
            .cache_read_input_tokens
            .saturating_add(other.cache_read_input_tokens);
        self.cache_creation_input_tokens = self
            .cache_creation_input_tokens
            .saturating_add(other.cache_creation_input_tokens);
    }
}

/// Why a model stopped writing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// It finished its answer.
    EndTurn,
    /// It wants tool results.
    ToolUse,
    /// It hit the output token limit.
    MaxTokens,
    /// Anything else the provider reported.
    Other(String),
}
