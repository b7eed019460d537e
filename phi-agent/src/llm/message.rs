//! Conversation types shared by every adapter.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::Content;
use crate::schema::{Dialect, DialectError, DialectSchemas};

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions for the model.
    System {
        /// The instructions.
        text: String,
    },
    /// What the user said.
    User {
        /// The user's words.
        text: String,
    },
    /// What the model said, with the tools it asked to call.
    Assistant {
        /// The model's text (may be empty when it only calls tools).
        text: String,
        /// The calls it made, in order.
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call.
    Tool {
        /// The id of the call this answers.
        tool_call_id: String,
        /// The name of the tool that ran.
        name: String,
        /// The result.
        content: Vec<Content>,
        /// Whether the call failed.
        is_error: bool,
    },
}

impl Message {
    /// A user message.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User { text: text.into() }
    }

    /// A system message.
    pub fn system(text: impl Into<String>) -> Self {
        Message::System { text: text.into() }
    }

    /// An assistant message with text only.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message::Assistant {
            text: text.into(),
            tool_calls: Vec::new(),
        }
    }
}

/// A model's request to run one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments object. When the model sent text that is not JSON, adapters keep that text
    /// here as a JSON string, so the agent can tell the model what was wrong and the conversation
    /// can be sent back exactly as the model wrote it.
    pub arguments: Value,
}

impl ToolCall {
    /// A call of `name` with `arguments`, identified by `id`.
    ///
    /// ```
    /// use phi_agent::llm::ToolCall;
    /// let call = ToolCall::new("call_1", "calculator", serde_json::json!({"a": 1}));
    /// assert_eq!(call.name, "calculator");
    /// ```
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
}

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// The tool's description.
    pub description: &'static str,
    /// The tool's argument schema, in canonical form.
    pub schema: Arc<Value>,
    /// The schema in each provider dialect, derived on first use and shared by every clone.
    pub dialects: Arc<DialectSchemas>,
}

impl ToolSpec {
    /// A spec for a tool that is not in a registry; `schema` is brought into canonical form.
    pub fn new(name: &'static str, description: &'static str, schema: Value) -> Self {
        Self {
            name,
            description,
            schema: Arc::new(crate::schema::canonicalize(schema)),
            dialects: Arc::default(),
        }
    }

    /// The argument schema in `dialect`, computed at most once per tool and dialect; see
    /// [`crate::schema::definition`] for the provider tool objects built from it.
    pub fn dialect_schema(&self, dialect: Dialect) -> Result<&Value, &DialectError> {
        self.dialects.get(&self.schema, dialect)
    }
}

/// Everything the model sees for one turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LlmRequest {
    /// The system prompt, if any.
    pub system: Option<String>,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// The tools the model may call now, shared between turns while the set is unchanged.
    pub tools: Arc<[ToolSpec]>,
}

/// The model's answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmResponse {
    /// The model's text.
    pub text: String,
    /// The tools it wants to call, in order.
    pub tool_calls: Vec<ToolCall>,
    /// Tokens used.
    pub usage: Usage,
    /// Why the model stopped.
    pub stop_reason: StopReason,
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
        }
    }

    /// A turn that asks for `calls`, without text.
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        Self {
            text: String::new(),
            tool_calls: calls,
            usage: Usage::default(),
            stop_reason: StopReason::ToolUse,
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
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
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
