//! What goes to a model and what comes back: one request, one response, token usage.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Message, ToolCall, ToolSearchCall, ToolSpec};

/// Everything the model sees for one turn.
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// only by a typed run ([`AgentSession::run_typed_with`](crate::AgentSession::run_typed_with)
    /// in [`AnswerMode::Native`](crate::AnswerMode::Native)), only on a turn that offers no
    /// tools, and only for a client whose
    /// [`structured_output`](super::LlmClient::structured_output) is `true`; other clients
    /// ignore it.
    pub response_format: Option<ToolSpec>,
}

/// The model's answer to one request.
///
/// Serializable, as the journal entry of a durable run's model step (see
/// [`StepExecutor`](crate::StepExecutor)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

    /// This response with `usage`.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }
}

/// Token counts of one request, or summed over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read.
    pub input_tokens: u64,
    /// Tokens written.
    pub output_tokens: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        // Saturating: usage read back from a stored paused run may hold any number.
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
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
