//! What a run consults before a person is asked: the agent's policy, then the decisions the
//! session remembers. One per run, shared by its turns and by the calls its tools make.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::policy::{ApprovalPolicy, Verdict};
use super::scope::{Decided, RememberedDecision};
use super::{Approval, ApprovalRequest};

/// The clock remembered decisions expire by.
pub(in crate::agent) type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

/// Who decided a call that no person was asked about.
pub(in crate::agent) enum Source {
    /// The agent's [`ApprovalPolicy`].
    Policy,
    /// A decision the session remembers, as it was before this call used it.
    Remembered(Box<RememberedDecision>),
}

/// What [`Ledger::decide`] consults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::agent) enum Consult {
    /// The policy, then the remembered decisions.
    All,
    /// The remembered decisions only (the policy has had its say on this call).
    Memory,
}

/// The run's policy, clock and remembered decisions.
pub(in crate::agent) struct Ledger {
    policy: Option<Arc<dyn ApprovalPolicy>>,
    clock: Clock,
    remembered: Mutex<Vec<RememberedDecision>>,
}

impl fmt::Debug for Ledger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ledger")
            .field("policy", &self.policy.is_some())
            .field("remembered", &self.snapshot())
            .finish_non_exhaustive()
    }
}

impl Ledger {
    /// A run's ledger, starting from the session's `remembered` decisions.
    pub(in crate::agent) fn new(
        policy: Option<Arc<dyn ApprovalPolicy>>,
        clock: Clock,
        remembered: Vec<RememberedDecision>,
    ) -> Self {
        Self {
            policy,
            clock,
            remembered: Mutex::new(remembered),
        }
    }

    /// The decision on `request` made without asking anyone, and by whom; `None` when a
    /// person must decide. A remembered decision that decides it has one use less.
    pub(in crate::agent) fn decide(
        &self,
        request: &ApprovalRequest,
        consult: Consult,
    ) -> Option<(Approval, Source)> {
        if let (Some(policy), Consult::All) = (&self.policy, consult) {
            match policy.check(request) {
                Verdict::Approve => return Some((Approval::Approve, Source::Policy)),
                Verdict::Deny(message) => return Some((Approval::deny(message), Source::Policy)),
                Verdict::Ask => {}
            }
        }
        let now = (self.clock)();
        let mut remembered = self.lock();
        // Expired and used-up decisions stop applying, and are forgotten.
        remembered.retain(|decision| decision.live(now));
        // The latest decision that matches is the person's current mind.
        let decision = remembered
            .iter_mut()
            .rev()
            .find(|decision| decision.matches(&request.tool, &request.arguments))?;
        let before = decision.clone();
        if let Some(uses) = &mut decision.uses_left {
            *uses = uses.saturating_sub(1);
        }
        Some((
            before.approval.clone(),
            Source::Remembered(Box::new(before)),
        ))
    }

    /// Remembers `decided`, the decision about `call` of `tool`, when it reaches later calls.
    pub(in crate::agent) fn remember(&self, tool: &str, call: &str, decided: &Decided) {
        if let Some(decision) = RememberedDecision::new(tool, call, decided, (self.clock)()) {
            self.lock().push(decision);
        }
    }

    /// The decisions remembered now, those used up or expired left out.
    pub(in crate::agent) fn snapshot(&self) -> Vec<RememberedDecision> {
        let now = (self.clock)();
        let mut remembered = self.lock().clone();
        remembered.retain(|decision| decision.live(now));
        remembered
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<RememberedDecision>> {
        self.remembered.lock().unwrap_or_else(|p| p.into_inner())
    }
}
