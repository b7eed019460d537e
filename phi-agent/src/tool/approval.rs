//! [`ToolApproval`]: whether a call of a tool waits for a person, as data.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::ToolContext;
use crate::{decode, schema};

/// Whether a person must approve a call of the tool before it runs
/// ([`ToolOptions::approval`](super::ToolOptions::approval)). Default: [`Never`](Self::Never).
///
/// Asked for every call of the model whose arguments passed the registry's shape and size
/// checks; arguments the tool cannot use get the usual argument error and no one is asked.
/// [`PhiAgent::run`](crate::PhiAgent::run) then asks the agent's [`Approver`](crate::Approver)
/// (and denies the call when there is none), while [`PhiAgent::start`](crate::PhiAgent::start)
/// pauses the run until someone decides. A rule that panics counts as "approval needed", so
/// that a broken check never lets a call through unseen. With `#[phi_tool]` write
/// `needs_approval` or `needs_approval = predicate`.
///
/// ```
/// use phi_agent::{ToolApproval, ToolContext};
/// use serde_json::json;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let ctx = ToolContext::default();
/// let outside_tmp = ToolApproval::when(|args, _ctx| {
///     !args["path"].as_str().is_some_and(|path| path.starts_with("/tmp/"))
/// });
/// assert!(outside_tmp.is_needed(&json!({"path": "/etc/passwd"}), &ctx).await);
/// assert!(!outside_tmp.is_needed(&json!({"path": "/tmp/scratch"}), &ctx).await);
/// assert!(ToolApproval::Always.is_needed(&json!({}), &ctx).await);
/// # }
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum ToolApproval {
    /// No call needs approval (the default).
    #[default]
    Never,
    /// Every call needs approval.
    Always,
    /// The calls for which the rule says so.
    When(ApprovalRule),
}

/// A rule over a call's arguments that says whether it needs approval; made by
/// [`ToolApproval::when`] or [`ToolApproval::when_args`]. Cheap to clone (shared).
#[derive(Clone)]
pub struct ApprovalRule(Arc<dyn ApprovalCheck>);

impl ToolApproval {
    /// The calls for which `rule` holds, given the call's arguments (a JSON object that passed
    /// the registry's checks) and its context.
    pub fn when(rule: impl Fn(&Value, &ToolContext) -> bool + Send + Sync + 'static) -> Self {
        ToolApproval::When(ApprovalRule(Arc::new(ValueRule(rule))))
    }

    /// The calls for which `rule` holds over the arguments decoded into `A` (a
    /// [`TypedTool`](crate::TypedTool)'s `Args`). Arguments that do not decode need no
    /// approval: the call then fails with the argument error, and no person is bothered with a
    /// call that could not run anyway.
    ///
    /// ```
    /// use phi_agent::{ToolApproval, ToolContext};
    /// use schemars::JsonSchema;
    /// use serde::Deserialize;
    /// use serde_json::json;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct TransferArgs { cents: u64 }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// // Small amounts go through; a person approves the rest.
    /// let large = ToolApproval::when_args(|args: &TransferArgs, _ctx| args.cents > 10_000);
    /// let ctx = ToolContext::default();
    /// assert!(large.is_needed(&json!({"cents": 50_000}), &ctx).await);
    /// assert!(!large.is_needed(&json!({"cents": 500}), &ctx).await);
    /// assert!(!large.is_needed(&json!({"cents": "many"}), &ctx).await);
    /// # }
    /// ```
    pub fn when_args<A>(rule: impl Fn(&A, &ToolContext) -> bool + Send + Sync + 'static) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
    {
        Self::when_decoded(SyncArgsRule(rule))
    }

    /// A rule over decoded arguments that may await (the macro's async predicates).
    pub(crate) fn when_decoded<A>(rule: impl AskArgs<A> + 'static) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
    {
        ToolApproval::When(ApprovalRule(Arc::new(ArgsRule {
            rule,
            args: PhantomData,
        })))
    }

    /// This approval and `other` together: a call needs approval when either says so.
    ///
    /// ```
    /// use phi_agent::ToolApproval;
    /// assert!(ToolApproval::Never.or(ToolApproval::Always).is_always());
    /// assert!(ToolApproval::Never.or(ToolApproval::Never).is_never());
    /// ```
    pub fn or(self, other: ToolApproval) -> Self {
        match (self, other) {
            (ToolApproval::Never, other) | (other, ToolApproval::Never) => other,
            (ToolApproval::Always, _) | (_, ToolApproval::Always) => ToolApproval::Always,
            (ToolApproval::When(first), ToolApproval::When(second)) => {
                ToolApproval::When(ApprovalRule(Arc::new(Either(first, second))))
            }
        }
    }

    /// Whether no call needs approval, known without asking: the registry then answers for
    /// the tool without checking the arguments first.
    pub fn is_never(&self) -> bool {
        matches!(self, ToolApproval::Never)
    }

    /// Whether every call needs approval.
    pub fn is_always(&self) -> bool {
        matches!(self, ToolApproval::Always)
    }

    /// Whether the call with `args` needs approval. The rule runs when the future is first
    /// polled, so that a caller can catch its panic with the future's.
    pub async fn is_needed(&self, args: &Value, ctx: &ToolContext) -> bool {
        match self {
            ToolApproval::Never => false,
            ToolApproval::Always => true,
            ToolApproval::When(rule) => rule.0.ask(args, ctx).await,
        }
    }
}

impl fmt::Debug for ToolApproval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolApproval::Never => f.write_str("Never"),
            ToolApproval::Always => f.write_str("Always"),
            ToolApproval::When(_) => f.write_str("When(..)"),
        }
    }
}

impl fmt::Debug for ApprovalRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApprovalRule(..)")
    }
}

/// A rule behind [`ApprovalRule`], over the arguments as JSON.
trait ApprovalCheck: Send + Sync {
    fn ask<'a>(&'a self, args: &'a Value, ctx: &'a ToolContext) -> BoxFuture<'a, bool>;
}

/// A rule over decoded arguments `A`; implemented by [`ToolApproval::when_args`]'s closures and
/// by the macro's predicates (sync or async, in `__private`).
pub(crate) trait AskArgs<A>: Send + Sync {
    /// Whether the call with `args` needs approval.
    fn ask<'a>(&'a self, args: &'a A, ctx: &'a ToolContext) -> BoxFuture<'a, bool>;
}

struct ValueRule<F>(F);

impl<F> ApprovalCheck for ValueRule<F>
where
    F: Fn(&Value, &ToolContext) -> bool + Send + Sync,
{
    fn ask<'a>(&'a self, args: &'a Value, ctx: &'a ToolContext) -> BoxFuture<'a, bool> {
        Box::pin(std::future::ready((self.0)(args, ctx)))
    }
}

struct SyncArgsRule<F>(F);

impl<A, F> AskArgs<A> for SyncArgsRule<F>
where
    F: Fn(&A, &ToolContext) -> bool + Send + Sync,
{
    fn ask<'a>(&'a self, args: &'a A, ctx: &'a ToolContext) -> BoxFuture<'a, bool> {
        Box::pin(std::future::ready((self.0)(args, ctx)))
    }
}

/// A rule over the arguments decoded into `A`.
struct ArgsRule<A, R> {
    rule: R,
    args: PhantomData<fn(&A)>,
}

impl<A, R> ApprovalCheck for ArgsRule<A, R>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    R: AskArgs<A>,
{
    fn ask<'a>(&'a self, args: &'a Value, ctx: &'a ToolContext) -> BoxFuture<'a, bool> {
        // The name only appears in the error, which is dropped: the call itself reports it.
        match decode::arguments::<A>("", args, schema::cached::<A>) {
            // The decoded arguments move into the future, since the answer borrows them.
            Ok(args) => Box::pin(async move { self.rule.ask(&args, ctx).await }),
            Err(_) => Box::pin(std::future::ready(false)),
        }
    }
}

/// Two rules, either of which asks for approval.
struct Either(ApprovalRule, ApprovalRule);

impl ApprovalCheck for Either {
    fn ask<'a>(&'a self, args: &'a Value, ctx: &'a ToolContext) -> BoxFuture<'a, bool> {
        Box::pin(async move { self.0.0.ask(args, ctx).await || self.1.0.ask(args, ctx).await })
    }
}
