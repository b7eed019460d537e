//! The `needs_approval = path` rule: one generated call turns a sync or an async predicate over
//! the tool's decoded arguments into the tool's [`ToolApproval`], and reports any other fn on the
//! user's path with the signature it expects.
//!
//! The predicate's kind is told apart by a marker type parameter (one impl per kind, so they do
//! not overlap); the compiler infers the marker from the one impl whose bounds hold. When none
//! does, `#[diagnostic::on_unimplemented]` says what was expected.

use std::future::Future;
use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::context::ToolContext;
use crate::tool::{AskArgs, ToolApproval};

/// The answer of a predicate.
pub type ApprovalAnswer<'a> = futures_util::future::BoxFuture<'a, bool>;

/// Marks a plain `fn(&Args, &ToolContext) -> bool`.
pub enum SyncApprovalPredicate {}

/// Marks an `async fn(&Args, &ToolContext) -> bool`.
pub enum AsyncApprovalPredicate {}

/// Implemented by every fn that `#[phi_tool(needs_approval = ..)]` accepts for arguments `A`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `needs_approval` predicate of this tool",
    label = "expected `fn(&{A}, &ToolContext) -> bool` or `async fn(&{A}, &ToolContext) -> bool`",
    note = "the predicate gets the tool's decoded arguments and the call's context, and returns whether a person must approve the call",
    note = "an async predicate's future must be `Send` (so the arguments type must be `Sync`)"
)]
pub trait ApprovalPredicate<A, Kind> {
    /// Asks the predicate about `args`.
    fn ask<'a>(&'a self, args: &'a A, ctx: &'a ToolContext) -> ApprovalAnswer<'a>;
}

impl<A, F> ApprovalPredicate<A, SyncApprovalPredicate> for F
where
    F: Fn(&A, &ToolContext) -> bool,
{
    fn ask<'a>(&'a self, args: &'a A, ctx: &'a ToolContext) -> ApprovalAnswer<'a> {
        Box::pin(std::future::ready(self(args, ctx)))
    }
}

/// A fn of `(&'a A, &'a ToolContext)` returning a `Send` future of `bool`: the future's type may
/// borrow the arguments, which a plain `Fn(..) -> Fut` bound cannot say for every lifetime.
pub trait ApprovalPredicateFn<'a, A: 'a> {
    /// The predicate's future.
    type Future: Future<Output = bool> + Send + 'a;
    /// Calls the predicate.
    fn call(&self, args: &'a A, ctx: &'a ToolContext) -> Self::Future;
}

impl<'a, A: 'a, F, Fut> ApprovalPredicateFn<'a, A> for F
where
    F: Fn(&'a A, &'a ToolContext) -> Fut,
    Fut: Future<Output = bool> + Send + 'a,
{
    type Future = Fut;

    fn call(&self, args: &'a A, ctx: &'a ToolContext) -> Fut {
        self(args, ctx)
    }
}

impl<A, F> ApprovalPredicate<A, AsyncApprovalPredicate> for F
where
    F: for<'a> ApprovalPredicateFn<'a, A>,
{
    fn ask<'a>(&'a self, args: &'a A, ctx: &'a ToolContext) -> ApprovalAnswer<'a> {
        Box::pin(ApprovalPredicateFn::call(self, args, ctx))
    }
}

/// The approval of a tool whose `needs_approval = path` names `predicate`: asked over the
/// decoded arguments ([`ToolApproval::when_args`], or its async form). The generated call is
/// spanned on the user's path, so a fn of the wrong signature is reported there.
pub fn approval_when<A, Kind, P>(predicate: P) -> ToolApproval
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    P: ApprovalPredicate<A, Kind> + Send + Sync + 'static,
    Kind: 'static,
{
    ToolApproval::when_decoded(Predicate {
        predicate,
        kind: PhantomData::<fn() -> Kind>,
    })
}

/// A predicate of either kind, as the rule over decoded arguments that approval asks.
struct Predicate<P, Kind> {
    predicate: P,
    kind: PhantomData<fn() -> Kind>,
}

impl<A, Kind, P> AskArgs<A> for Predicate<P, Kind>
where
    P: ApprovalPredicate<A, Kind> + Send + Sync,
{
    fn ask<'a>(&'a self, args: &'a A, ctx: &'a ToolContext) -> ApprovalAnswer<'a> {
        self.predicate.ask(args, ctx)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Args {
        path: String,
    }

    fn outside_tmp(args: &Args, _ctx: &ToolContext) -> bool {
        !args.path.starts_with("/tmp/")
    }

    async fn outside_tmp_async(args: &Args, ctx: &ToolContext) -> bool {
        tokio::task::yield_now().await;
        outside_tmp(args, ctx)
    }

    #[tokio::test]
    async fn predicates_may_be_sync_or_async() {
        let ctx = ToolContext::default();
        let home = json!({"path": "/home/a"});
        let tmp = json!({"path": "/tmp/a"});
        let sync = approval_when::<Args, _, _>(outside_tmp);
        let not_sync = approval_when::<Args, _, _>(outside_tmp_async);
        for approval in [sync, not_sync] {
            assert!(approval.is_needed(&home, &ctx).await);
            assert!(!approval.is_needed(&tmp, &ctx).await);
            assert!(
                !approval.is_needed(&json!({"path": 3}), &ctx).await,
                "arguments that do not decode ask no one"
            );
        }
    }
}
