//! Where the calls of a run talk back: one peer set on the run's context, told which call
//! speaks, so that a context per call stays a reference count (no peer made per call).

use async_trait::async_trait;
use serde_json::Value;

use super::talk::{Elicitation, LogLevel, Progress, SampleRequest, Sampled};
use crate::error::AgentResult;

/// The call that talks: its id and turn.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Speaker<'a> {
    /// The provider's id of the call.
    pub(crate) call_id: &'a str,
    /// The call's turn, from 1.
    pub(crate) turn: usize,
}

/// A [`ToolPeer`](super::ToolPeer) for every call of a run: what the agent loop sets once with
/// [`ToolContext::with_run_peer`](super::ToolContext::with_run_peer). A call's own peer
/// ([`ToolContext::with_peer`](super::ToolContext::with_peer)) comes first.
#[async_trait]
pub(crate) trait RunPeer: Send + Sync + std::fmt::Debug {
    /// A progress report of `call`; must not fail the tool.
    async fn progress(&self, call: Speaker<'_>, progress: Progress);

    /// A log message of `call`; must not fail the tool.
    async fn log(&self, call: Speaker<'_>, level: LogLevel, data: Value);

    /// `call` asks the user `message` with a form of `schema`.
    async fn elicit(
        &self,
        call: Speaker<'_>,
        message: &str,
        schema: Value,
    ) -> AgentResult<Elicitation<Value>>;

    /// `call` asks a model.
    async fn sample(&self, call: Speaker<'_>, request: SampleRequest) -> AgentResult<Sampled>;
}
