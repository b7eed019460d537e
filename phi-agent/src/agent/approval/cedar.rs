//! An [`ApprovalPolicy`] written in Cedar, the policy language of the `cedar-policy` crate.

use std::fmt;
use std::str::FromStr;

use cedar_policy::{
    Authorizer, Context, Decision, Entities, EntityId, EntityTypeName, EntityUid, PolicySet,
    Request,
};
use serde_json::Value;

use super::ApprovalRequest;
use super::policy::{ApprovalPolicy, Verdict};
use crate::error::{AgentError, AgentResult};

/// An [`ApprovalPolicy`] in [Cedar](https://www.cedarpolicy.com): feature `cedar`.
///
/// Each call that needs approval is one Cedar request:
///
/// | Cedar | the call's |
/// |---|---|
/// | principal | session: `Session::"<session id>"` |
/// | action | tool: `Action::"<tool name>"` |
/// | resource | tool: `Tool::"<tool name>"` |
/// | context | arguments, as a record (`context.amount`, `context.to`) |
///
/// A `permit` that applies approves the call; a `forbid` that applies denies it, with the
/// policy's `@reason("..")` annotation as what the model reads (its id without one); when no
/// policy applies, a person decides ([`Verdict::Ask`]), where Cedar alone would deny. Arguments
/// Cedar cannot hold (a fractional number, say) or a policy that fails to evaluate leave the
/// call to a person as well: the policy never lets through a call it could not judge.
///
/// ```
/// use phi_agent::llm::ToolCall;
/// use phi_agent::{ApprovalPolicy, ApprovalRequest, CedarPolicy, Verdict};
///
/// let policy = CedarPolicy::new(r#"
///     permit(principal, action == Action::"pay", resource) when { context.amount <= 10 };
///     @reason("payments go to the shop only")
///     forbid(principal, action == Action::"pay", resource) unless { context.to == "shop" };
/// "#)?;
/// let ask = |arguments| {
///     let call = ToolCall::new("c1", "pay", arguments);
///     policy.check(&ApprovalRequest::new("s1", 1, &call))
/// };
/// assert_eq!(ask(serde_json::json!({"to": "shop", "amount": 5})), Verdict::Approve);
/// assert_eq!(ask(serde_json::json!({"to": "shop", "amount": 50})), Verdict::Ask);
/// assert_eq!(
///     ask(serde_json::json!({"to": "elsewhere", "amount": 5})),
///     Verdict::Deny("payments go to the shop only".into())
/// );
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
pub struct CedarPolicy {
    policies: PolicySet,
    authorizer: Authorizer,
    entities: Entities,
}

impl fmt::Debug for CedarPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CedarPolicy")
            .field("policies", &self.policies.policies().count())
            .finish_non_exhaustive()
    }
}

impl CedarPolicy {
    /// The policy written in `source`, Cedar's policy syntax; a source that does not parse is
    /// an [`AgentError::Config`] with Cedar's message.
    pub fn new(source: &str) -> AgentResult<Self> {
        let policies = PolicySet::from_str(source)
            .map_err(|error| AgentError::Config(format!("Cedar policy: {error}")))?;
        Ok(Self {
            policies,
            authorizer: Authorizer::new(),
            entities: Entities::empty(),
        })
    }

    /// The Cedar request about `request`; `None` when Cedar cannot express it.
    fn request(request: &ApprovalRequest) -> Option<Request> {
        let uid = |kind: &str, id: &str| {
            let kind = EntityTypeName::from_str(kind).ok()?;
            Some(EntityUid::from_type_name_and_id(kind, EntityId::new(id)))
        };
        let arguments = match &request.arguments {
            Value::Object(_) => request.arguments.clone(),
            // A tool without parameters may be called with `null`.
            Value::Null => Value::Object(Default::default()),
            _ => return None,
        };
        let context = Context::from_json_value(arguments, None).ok()?;
        Request::new(
            uid("Session", &request.session_id)?,
            uid("Action", &request.tool)?,
            uid("Tool", &request.tool)?,
            context,
            None,
        )
        .ok()
    }
}

impl ApprovalPolicy for CedarPolicy {
    fn check(&self, request: &ApprovalRequest) -> Verdict {
        let Some(cedar) = Self::request(request) else {
            tracing::warn!(
                "gen_ai.tool.name" = request.tool.as_str(),
                "the call's arguments are not a Cedar record; a person decides"
            );
            return Verdict::Ask;
        };
        let response = self
            .authorizer
            .is_authorized(&cedar, &self.policies, &self.entities);
        let diagnostics = response.diagnostics();
        if diagnostics.errors().next().is_some() {
            tracing::warn!(
                "gen_ai.tool.name" = request.tool.as_str(),
                "a Cedar policy failed to evaluate; a person decides"
            );
            return Verdict::Ask;
        }
        match response.decision() {
            Decision::Allow => Verdict::Approve,
            Decision::Deny => match diagnostics.reason().next() {
                // No policy applies: Cedar's default denial is not a decision here.
                None => Verdict::Ask,
                Some(id) => Verdict::Deny(
                    self.policies
                        .annotation(id, "reason")
                        .filter(|reason| !reason.is_empty())
                        .map_or_else(|| format!("denied by the policy `{id}`"), str::to_string),
                ),
            },
        }
    }
}
