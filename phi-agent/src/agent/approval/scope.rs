//! How far a person's decision reaches: this call only ([`Remember::Once`]), every later call
//! of the tool in the session ([`Remember::Session`]), or the calls an [`DecisionRule`] matches,
//! for a while or a number of times. What is remembered is a [`RememberedDecision`], kept in
//! the session's state and in a paused run.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Approval;

/// What an [`Approver`](crate::Approver) answers: a decision, and how far it reaches.
///
/// An [`Approval`] converts into one that reaches this call only, so an approver may return
/// either.
///
/// ```
/// use phi_agent::{Approval, Decided, Remember};
///
/// let once: Decided = Approval::Approve.into();
/// assert_eq!(once.remember, Remember::Once);
/// let session = Approval::Approve.remember(Remember::Session);
/// assert_eq!(session.remember, Remember::Session);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Decided {
    /// The decision about the call asked.
    pub approval: Approval,
    /// Which later calls it decides as well.
    pub remember: Remember,
}

impl From<Approval> for Decided {
    fn from(approval: Approval) -> Self {
        Decided {
            approval,
            remember: Remember::Once,
        }
    }
}

impl Approval {
    /// This decision, reaching the later calls `remember` names as well.
    ///
    /// Only [`Approval::Approve`] and [`Approval::Deny`] are remembered: arguments edited for
    /// one call say nothing about another's, so an [`Approval::ApproveWith`] decides its own
    /// call only, whatever `remember` says.
    pub fn remember(self, remember: Remember) -> Decided {
        Decided {
            approval: self,
            remember,
        }
    }
}

/// Which later calls a decision decides as well; see [`Approval::remember`].
///
/// Its JSON form (in a stored [`PausedRun`](crate::PausedRun)) is `{"scope": "once"}`,
/// `{"scope": "session"}` or `{"scope": "rule", "tool": .., "arguments": .., "duration": ..,
/// "uses": ..}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(tag = "scope", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Remember {
    /// None: the next call is asked again (the default).
    #[default]
    Once,
    /// Every later call of the same tool in the session, whatever its arguments.
    Session,
    /// The later calls the rule matches, until it expires or is used up.
    Rule(DecisionRule),
}

/// A rule a decision is remembered by: a tool, what its arguments must hold, and how long or
/// how many times it applies.
///
/// The arguments of a call match when they hold every field of the rule's pattern with the same
/// value (objects compare field by field, so a pattern names only the fields it cares about;
/// other values compare whole). The time limit runs from the moment the decision is made, on
/// the agent's clock ([`AgentBuilder::approval_clock`](crate::AgentBuilder::approval_clock)).
///
/// ```
/// use std::time::Duration;
/// use phi_agent::{Approval, DecisionRule, Remember};
///
/// // Payments to this shop, for ten minutes, at most three of them.
/// let rule = DecisionRule::tool("pay")
///     .matching(serde_json::json!({"to": "corner-shop"}))
///     .for_duration(Duration::from_secs(600))
///     .uses(3);
/// let decided = Approval::Approve.remember(Remember::Rule(rule));
/// # let _ = decided;
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DecisionRule {
    tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    arguments: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    duration: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uses: Option<u32>,
}

impl DecisionRule {
    /// A rule over every call of `tool`, with no limit until one is set.
    pub fn tool(tool: impl Into<String>) -> Self {
        Self {
            tool: tool.into(),
            arguments: None,
            duration: None,
            uses: None,
        }
    }

    /// Only calls whose arguments hold `pattern` (see the type's documentation).
    pub fn matching(mut self, pattern: Value) -> Self {
        self.arguments = Some(pattern);
        self
    }

    /// It stops applying `duration` after the decision.
    pub fn for_duration(mut self, duration: Duration) -> Self {
        self.duration = Some(duration);
        self
    }

    /// It decides `uses` later calls at most (the call that made it not counted).
    pub fn uses(mut self, uses: u32) -> Self {
        self.uses = Some(uses);
        self
    }
}

/// A decision the session remembers, as it is kept in the session's state and in a stored
/// [`PausedRun`](crate::PausedRun) (where, with a signing key, the agent's MAC covers it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RememberedDecision {
    /// The call whose decision it is, which names it in events.
    pub decided_call: String,
    /// The tool it decides.
    pub tool: String,
    /// What the arguments must hold; `None`: any arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// The decision: [`Approval::Approve`] or [`Approval::Deny`].
    pub approval: Approval,
    /// When it stops applying, in milliseconds since the Unix epoch; `None`: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<u64>,
    /// How many more calls it decides; `None`: any number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uses_left: Option<u32>,
}

impl RememberedDecision {
    /// The decision `decided` made about `call` of `tool` at `now`; `None` when it reaches
    /// that call only.
    pub(in crate::agent) fn new(
        tool: &str,
        call: &str,
        decided: &Decided,
        now: SystemTime,
    ) -> Option<Self> {
        if matches!(decided.approval, Approval::ApproveWith { .. }) {
            return None;
        }
        let (arguments, expires_at_ms, uses_left) = match &decided.remember {
            Remember::Once => return None,
            // A rule over another tool would decide calls nobody was shown.
            Remember::Rule(rule) if rule.tool != tool => return None,
            Remember::Session => (None, None, None),
            Remember::Rule(rule) => (
                rule.arguments.clone(),
                rule.duration.map(|duration| millis(now + duration)),
                rule.uses,
            ),
        };
        Some(Self {
            decided_call: call.to_string(),
            tool: tool.to_string(),
            arguments,
            approval: decided.approval.clone(),
            expires_at_ms,
            uses_left,
        })
    }

    /// Whether it still applies at `now` (not expired, not used up).
    pub(in crate::agent) fn live(&self, now: SystemTime) -> bool {
        let unexpired = self.expires_at_ms.is_none_or(|end| millis(now) < end);
        unexpired && self.uses_left != Some(0)
    }

    /// Whether it decides a call of `tool` with `arguments`.
    pub(in crate::agent) fn matches(&self, tool: &str, arguments: &Value) -> bool {
        self.tool == tool
            && self
                .arguments
                .as_ref()
                .is_none_or(|pattern| holds(arguments, pattern))
    }
}

/// Whether `value` holds `pattern`: every field of an object pattern held, other values equal.
fn holds(value: &Value, pattern: &Value) -> bool {
    match (value, pattern) {
        (Value::Object(value), Value::Object(pattern)) => pattern
            .iter()
            .all(|(name, wanted)| value.get(name).is_some_and(|field| holds(field, wanted))),
        _ => value == pattern,
    }
}

/// `time` in milliseconds since the Unix epoch (0 before it).
fn millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |since| {
        u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pattern_matches_the_fields_it_names() {
        let pattern = json!({"to": "shop", "meta": {"kind": "card"}});
        assert!(holds(
            &json!({"to": "shop", "amount": 5, "meta": {"kind": "card", "x": 1}}),
            &pattern
        ));
        assert!(!holds(
            &json!({"to": "bank", "meta": {"kind": "card"}}),
            &pattern
        ));
        assert!(!holds(&json!({"to": "shop"}), &pattern));
    }

    #[test]
    fn an_edit_or_another_tools_rule_is_not_remembered() {
        let now = SystemTime::now();
        let edit = Approval::approve_with(json!({})).remember(Remember::Session);
        assert!(RememberedDecision::new("pay", "c1", &edit, now).is_none());
        let other = Approval::Approve.remember(Remember::Rule(DecisionRule::tool("delete")));
        assert!(RememberedDecision::new("pay", "c1", &other, now).is_none());
    }
}
