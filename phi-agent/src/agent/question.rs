//! A call of a paused turn that asked the user a question ([`ToolContext::elicit`] with no
//! [`ElicitationHandler`](crate::ElicitationHandler) on the agent): the question as the paused
//! state holds it, and its answer. `asking.rs` answers it on a [`PausedRun`].
//!
//! [`ToolContext::elicit`]: crate::ToolContext::elicit
//! [`PausedRun`]: crate::PausedRun

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::Elicitation;
use crate::llm::{ProviderState, ToolCall};

/// A call of a paused turn that asked the user a question and waits for the answer; see
/// [`PausedRun::questions`](crate::PausedRun::questions). Resuming runs the call again, and its question is answered at
/// once with the answer given to [`PausedRun::answer`](crate::PausedRun::answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingQuestion {
    pub(super) id: String,
    pub(super) tool: String,
    pub(super) arguments: Value,
    #[serde(default, skip_serializing_if = "ProviderState::is_empty")]
    pub(super) provider_state: ProviderState,
    message: String,
    schema: Value,
    pub(super) answer: Option<Elicitation<Value>>,
}

impl PendingQuestion {
    /// The question `message` with the form `schema`, asked by `call`.
    pub(super) fn new(call: &ToolCall, message: String, schema: Value) -> Self {
        Self {
            id: call.id.clone(),
            tool: call.name.clone(),
            arguments: call.arguments.clone(),
            provider_state: call.provider_state.clone(),
            message,
            schema,
            answer: None,
        }
    }

    /// The provider's id of the call that asked, which [`PausedRun::answer`](crate::PausedRun::answer) takes.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The arguments the model sent.
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    /// The question, for a person to read.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The form to fill in: a flat JSON Schema object of primitive properties.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The answer so far; `None` while unanswered.
    pub fn answer(&self) -> Option<&Elicitation<Value>> {
        self.answer.as_ref()
    }

    /// The call as the model made it.
    pub(super) fn to_tool_call(&self) -> ToolCall {
        ToolCall::new(&self.id, &self.tool, self.arguments.clone())
            .with_provider_state(self.provider_state.clone())
    }
}
