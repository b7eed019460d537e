//! The program's own rules about calls that need approval, consulted before anyone is asked.

use super::ApprovalRequest;

/// What an [`ApprovalPolicy`] says about a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The call runs; no one is asked.
    Approve,
    /// The call does not run; the model reads the reason as the call's (error) result.
    Deny(String),
    /// The policy has no say: the session's remembered decisions, then a person, decide.
    Ask,
}

/// Decides calls that need approval before a person is asked; set it with
/// [`AgentBuilder::approval_policy`](crate::AgentBuilder::approval_policy).
///
/// A call that needs approval is decided, in this order, by the policy, then by a decision
/// the session remembers ([`Remember`](crate::Remember)), then by a person (the
/// [`Approver`](crate::Approver), or a paused run's decision). The policy comes first because
/// it is the program's standing rule: a person's "allow for this session" must not override a
/// call the program forbids. It is consulted for the model's calls and for the calls a tool
/// makes while it runs ([`ToolContext::call_tool`](crate::ToolContext::call_tool)) alike.
///
/// It is synchronous, as a rule evaluation is: a decision that needs I/O belongs to the
/// approver. A closure `Fn(&ApprovalRequest) -> Verdict` is a policy.
///
/// ```
/// use phi_agent::{ApprovalPolicy, ApprovalRequest, Verdict};
///
/// // Small payments go through, large ones are refused, the rest are asked.
/// let policy = |request: &ApprovalRequest| match request.arguments["amount"].as_u64() {
///     Some(amount) if amount <= 10 => Verdict::Approve,
///     Some(amount) if amount > 1000 => Verdict::Deny("payments over 1000 are not allowed".into()),
///     _ => Verdict::Ask,
/// };
/// fn takes(_: impl ApprovalPolicy) {}
/// takes(policy);
/// ```
pub trait ApprovalPolicy: Send + Sync {
    /// The verdict on `request`.
    fn check(&self, request: &ApprovalRequest) -> Verdict;
}

impl<F> ApprovalPolicy for F
where
    F: Fn(&ApprovalRequest) -> Verdict + Send + Sync,
{
    fn check(&self, request: &ApprovalRequest) -> Verdict {
        self(request)
    }
}
