//! Approving tool calls: what a person decides ([`Approval`]), what they are shown
//! ([`ApprovalRequest`]), and who decides during [`PhiAgent::run`](crate::PhiAgent::run)
//! ([`Approver`]).
//!
//! A call needs approval when its tool says so ([`ToolOptions::approval`](crate::ToolOptions::approval)).
//! `run` asks the builder's approver and, with none set, denies the call: failing closed is the
//! only safe default for a program that forgot to wire one up. `start` and `resume` never ask
//! anyone; they pause instead (see [`PausedRun`](crate::PausedRun)).

use std::future::Future;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::llm::ToolCall;

#[cfg(feature = "cedar")]
mod cedar;
pub(super) mod ledger;
mod policy;
mod scope;
pub(super) mod seal;
mod wire;

#[cfg(feature = "cedar")]
pub use cedar::CedarPolicy;
pub use policy::{ApprovalPolicy, Verdict};
pub use scope::{Decided, DecisionRule, Remember, RememberedDecision};

/// What a person decided about one tool call.
///
/// Also what [`ToolCallRecord::approval`](crate::ToolCallRecord::approval) shows afterwards.
///
/// Its JSON form is `{"decision": "approve"}`, `{"decision": "approve_with", "arguments": {..}}`
/// or `{"decision": "deny", "message": ".."}`. A field it does not have is refused, not dropped:
/// `{"decision": "approve", "arguments": {..}}` (meant as an edit) would otherwise run the call
/// with the model's arguments.
///
/// ```
/// use phi_agent::Approval;
/// let edit: Result<Approval, _> =
///     serde_json::from_str(r#"{"decision": "approve", "arguments": {"amount": 10}}"#);
/// assert!(edit.unwrap_err().to_string().contains("unknown field `arguments`"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "decision",
    rename_all = "snake_case",
    try_from = "wire::ApprovalWire"
)]
pub enum Approval {
    /// Run the call with the model's arguments.
    Approve,
    /// Run the call with these arguments instead. They go through the same checks as the
    /// model's: arguments the tool cannot use become an argument error the model reads.
    ApproveWith {
        /// The arguments to run the call with.
        arguments: Value,
    },
    /// Do not run the call; the model reads `message` as the call's (error) result.
    Deny {
        /// Why, written for the model.
        message: String,
    },
}

impl Approval {
    /// [`Approval::ApproveWith`] with `arguments`.
    ///
    /// ```
    /// use phi_agent::Approval;
    /// let edited = Approval::approve_with(serde_json::json!({"path": "/tmp/scratch.txt"}));
    /// assert!(matches!(edited, Approval::ApproveWith { .. }));
    /// ```
    pub fn approve_with(arguments: Value) -> Self {
        Approval::ApproveWith { arguments }
    }

    /// [`Approval::Deny`] with `message`.
    ///
    /// ```
    /// use phi_agent::Approval;
    /// assert_eq!(
    ///     Approval::deny("not today"),
    ///     Approval::Deny { message: "not today".into() }
    /// );
    /// ```
    pub fn deny(message: impl Into<String>) -> Self {
        Approval::Deny {
            message: message.into(),
        }
    }

    /// Whether the call may run (approved as sent, or with edited arguments).
    pub fn is_approved(&self) -> bool {
        !matches!(self, Approval::Deny { .. })
    }
}

/// One tool call waiting for a decision, as an [`Approver`] is shown it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The session the run belongs to.
    pub session_id: String,
    /// The turn of the call, from 1.
    pub turn: usize,
    /// The provider's id of the call.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments the model sent.
    pub arguments: Value,
}

impl ApprovalRequest {
    /// The request about `call`, made in turn `turn` of session `session_id`; to test an
    /// approver without an agent.
    ///
    /// ```
    /// use phi_agent::llm::ToolCall;
    /// use phi_agent::ApprovalRequest;
    ///
    /// let call = ToolCall::new("c1", "delete_file", serde_json::json!({"path": "a.txt"}));
    /// let request = ApprovalRequest::new("session-1", 1, &call);
    /// assert_eq!((request.tool.as_str(), request.call_id.as_str()), ("delete_file", "c1"));
    /// ```
    pub fn new(session_id: impl Into<String>, turn: usize, call: &ToolCall) -> Self {
        Self {
            session_id: session_id.into(),
            turn,
            call_id: call.id.clone(),
            tool: call.name.clone(),
            arguments: call.arguments.clone(),
        }
    }
}

/// Decides tool calls that need approval during [`PhiAgent::run`](crate::PhiAgent::run); set it
/// with [`AgentBuilder::approver`](crate::AgentBuilder::approver).
///
/// An async closure `Fn(ApprovalRequest) -> impl Future<Output = D>` is an approver, where `D`
/// is an [`Approval`] (this call only) or a [`Decided`] (a decision the session remembers for
/// later calls as well: [`Approval::remember`]). The
/// calls of one turn are put to the approver one after the other, in call order (a prompt on a
/// terminal is never interleaved), while the turn's calls that need no approval already run.
///
/// ```
/// use phi_agent::{Approval, ApprovalRequest, Approver};
///
/// // Anything under /tmp may go; everything else is refused.
/// let approver = |request: ApprovalRequest| async move {
///     match request.arguments["path"].as_str() {
///         Some(path) if path.starts_with("/tmp/") => Approval::Approve,
///         _ => Approval::deny("only files under /tmp may be deleted"),
///     }
/// };
/// fn takes(_: impl Approver) {}
/// takes(approver);
/// ```
#[async_trait]
pub trait Approver: Send + Sync {
    /// The decision about `request`, and which later calls it decides as well.
    async fn decide(&self, request: ApprovalRequest) -> Decided;
}

#[async_trait]
impl<F, Fut, D> Approver for F
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync,
    Fut: Future<Output = D> + Send,
    D: Into<Decided>,
{
    async fn decide(&self, request: ApprovalRequest) -> Decided {
        self(request).await.into()
    }
}
