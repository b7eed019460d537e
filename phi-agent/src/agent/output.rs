//! What a run returns.

use std::time::Duration;

use serde_json::Value;

use crate::content::Content;
use crate::llm::{Message, Usage};

/// The outcome of one run: the answer and how it came about.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutput {
    /// The model's answer.
    pub text: String,
    /// The messages this run added to the conversation: the input, every assistant turn and
    /// tool result, and the answer.
    pub messages: Vec<Message>,
    /// Every tool call of the run, in the order the model made them.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Model turns taken (requests sent).
    pub turns: usize,
    /// Tokens used over the run.
    pub usage: Usage,
}

/// One tool call of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRecord {
    /// The provider's id for the call.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments the model sent.
    pub arguments: Value,
    /// What the model read back.
    pub result: Vec<Content>,
    /// Whether the call failed.
    pub is_error: bool,
    /// How long it took.
    pub duration: Duration,
    /// The turn it belongs to, from 1.
    pub turn: usize,
}
