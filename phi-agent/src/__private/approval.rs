//! The `needs_approval = path` check: one generated call accepts a sync or an async predicate
//! over the tool's decoded arguments, and reports any other fn on the user's path with the
//! signature it expects.
//!
//! The predicate's kind is told apart by a marker type parameter (one impl per kind, so they do
//! not overlap); the compiler infers the marker from the one impl whose bounds hold. When none
//! does, `#[diagnostic::on_unimplemented]` says what was expected.

use std::future::Future;

use crate::context::ToolContext;

/// The answer of a predicate, as the generated `__needs_approval` returns it.
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

/// Asks `predicate` about `args`; the generated call is spanned on the user's path, so a fn of
/// the wrong signature is reported there.
pub fn ask_approval_predicate<'a, A, Kind, P>(
    predicate: &'a P,
    args: &'a A,
    ctx: &'a ToolContext,
) -> ApprovalAnswer<'a>
where
    P: ApprovalPredicate<A, Kind>,
{
    predicate.ask(args, ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let home = Args {
            path: "/home/a".into(),
        };
        let tmp = Args {
            path: "/tmp/a".into(),
        };
        assert!(ask_approval_predicate(&outside_tmp, &home, &ctx).await);
        assert!(!ask_approval_predicate(&outside_tmp, &tmp, &ctx).await);
        assert!(ask_approval_predicate(&outside_tmp_async, &home, &ctx).await);
        assert!(!ask_approval_predicate(&outside_tmp_async, &tmp, &ctx).await);
    }
}
