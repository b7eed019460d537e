//! The user's side of a tool's question ([`ToolContext::elicit`](crate::ToolContext::elicit)):
//! what a handler is given and how it answers. Below both users of it: an agent run asks its
//! builder's handler, and an MCP client asks its own for the questions of a server.

use std::future::Future;

use async_trait::async_trait;
use serde_json::Value;

use super::Elicitation;

/// A question a tool of a run asks the user
/// ([`ToolContext::elicit`](crate::ToolContext::elicit)), as an [`ElicitationHandler`] gets it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// The session the run belongs to.
    pub session_id: String,
    /// The turn of the call that asks, from 1.
    pub turn: usize,
    /// The provider's id of the call that asks.
    pub call_id: String,
    /// The question, for a person to read.
    pub message: String,
    /// The form to fill in: a flat JSON Schema object of primitive properties.
    pub schema: Value,
}

impl ElicitationRequest {
    /// The question `message` with the form `schema`, asked by the call `call_id` of `turn`
    /// (to test a handler without an agent).
    pub fn new(
        session_id: impl Into<String>,
        turn: usize,
        call_id: impl Into<String>,
        message: impl Into<String>,
        schema: Value,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            turn,
            call_id: call_id.into(),
            message: message.into(),
            schema,
        }
    }
}

/// Answers the questions the tools of a run ask the user; set it with
/// [`AgentBuilder::elicitation_handler`](crate::AgentBuilder::elicitation_handler). An async
/// closure `Fn(ElicitationRequest) -> impl Future<Output = Elicitation<Value>>` is a handler.
///
/// ```
/// use phi_agent::{Elicitation, ElicitationHandler, ElicitationRequest};
///
/// // Every question is answered with the same form.
/// let handler = |_request: ElicitationRequest| async move {
///     Elicitation::Accept(serde_json::json!({"ship": true}))
/// };
/// fn takes(_: impl ElicitationHandler) {}
/// takes(handler);
/// ```
#[async_trait]
pub trait ElicitationHandler: Send + Sync {
    /// The user's answer to `request`: the filled-in form, or declined, or cancelled.
    async fn answer(&self, request: ElicitationRequest) -> Elicitation<Value>;
}

#[async_trait]
impl<F, Fut> ElicitationHandler for F
where
    F: Fn(ElicitationRequest) -> Fut + Send + Sync,
    Fut: Future<Output = Elicitation<Value>> + Send,
{
    async fn answer(&self, request: ElicitationRequest) -> Elicitation<Value> {
        self(request).await
    }
}
