//! The model side of an agent: the [`LlmClient`] trait and the conversation types it speaks.

mod message;

use async_trait::async_trait;

use crate::error::AgentResult;

pub use message::{LlmRequest, LlmResponse, Message, StopReason, ToolCall, ToolSpec, Usage};

/// A chat model that can call tools. Object safe: agents hold an `Arc<dyn LlmClient>`.
#[async_trait]
pub trait LlmClient: Send + Sync {
    /// Sends one request (system prompt, history, visible tools) and returns the model's reply.
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse>;
}
