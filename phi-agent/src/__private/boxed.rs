//! The boxed future of an async `#[phi_tool]` fn's `call_typed`: the fn's own future, awaited and
//! its output turned into an [`AgentResult`].
//!
//! Generated code calls this generic fn with the user's future instead of writing an
//! `async move` block per tool: the block below is type-checked and borrow-checked once, here,
//! and only instantiated per tool (an async block in the expansion is checked anew for every
//! tool, which was a large part of what a `#[phi_tool]` cost to compile). A fn that returns
//! `AgentResult<T>` needs no conversion, and its future is boxed as it is ([`AsIs`], chosen by
//! [`ReturnProbe`]): no second future per tool to compile.

use std::future::Future;
use std::marker::PhantomData;

use futures_util::future::BoxFuture;

use crate::error::AgentResult;

/// The boxed future of a tool fn: `future` awaited, its output turned into the tool's result by
/// `convert` (`ToolResult::into_agent_result` for a `Result`, `Ok` for a plain value). The
/// conversion is an argument, named in the expansion on the fn's return type, so that an error
/// type without `Display` is still reported there rather than on this fn's bounds.
pub fn boxed_call<'a, F, T>(
    future: F,
    convert: fn(F::Output) -> AgentResult<T>,
) -> BoxFuture<'a, AgentResult<T>>
where
    F: Future + Send + 'a,
    T: 'a,
{
    Box::pin(async move { convert(future.await) })
}

/// Picks, by method resolution on a tool fn's concrete return type, how its future becomes the
/// tool's: [`AsIs`] when it returns `AgentResult<T>` already (however the type is spelled),
/// [`Converted`] otherwise. Generated code calls
/// `(&ReturnProbe::<R>::new()).boxing().boxed(future, convert)` with both traits in scope.
pub struct ReturnProbe<R>(PhantomData<fn() -> R>);

impl<R> ReturnProbe<R> {
    /// A probe for the return type `R`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<R> Default for ReturnProbe<R> {
    fn default() -> Self {
        Self::new()
    }
}

// Copy, so that the fallback (which takes the probe by value through auto-deref) compiles.
impl<R> Clone for ReturnProbe<R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for ReturnProbe<R> {}

/// Chosen for `AgentResult<T>`.
pub trait ReturnsAgentResult {
    /// How to box the future.
    fn boxing(self) -> AsIs;
}

impl<T> ReturnsAgentResult for &ReturnProbe<AgentResult<T>> {
    fn boxing(self) -> AsIs {
        AsIs
    }
}

/// Chosen for any other return type.
pub trait ReturnsOther {
    /// How to box the future.
    fn boxing(self) -> Converted;
}

impl<R> ReturnsOther for ReturnProbe<R> {
    fn boxing(self) -> Converted {
        Converted
    }
}

/// The future of a fn that returns `AgentResult<T>` is the tool's already: boxed as it is, with
/// no second future per tool to compile.
pub struct AsIs;

impl AsIs {
    /// `future` boxed; `convert` is not needed.
    pub fn boxed<'a, F, T>(
        self,
        future: F,
        _convert: fn(F::Output) -> AgentResult<T>,
    ) -> BoxFuture<'a, AgentResult<T>>
    where
        F: Future<Output = AgentResult<T>> + Send + 'a,
    {
        Box::pin(future)
    }
}

/// The future of any other fn: its output converted by [`boxed_call`].
pub struct Converted;

impl Converted {
    /// `future` boxed, its output converted by `convert`.
    pub fn boxed<'a, F, T>(
        self,
        future: F,
        convert: fn(F::Output) -> AgentResult<T>,
    ) -> BoxFuture<'a, AgentResult<T>>
    where
        F: Future + Send + 'a,
        T: 'a,
    {
        boxed_call(future, convert)
    }
}

#[cfg(test)]
mod tests {
    // The borrow picks the `AgentResult` impl by autoref; clippy cannot see that.
    #[allow(clippy::needless_borrow)]
    #[test]
    fn the_probe_tells_agent_results_from_other_returns() {
        let _: AsIs = (&ReturnProbe::<AgentResult<u8>>::new()).boxing();
        type Alias<T> = Result<T, crate::error::AgentError>;
        let _: AsIs = (&ReturnProbe::<Alias<u8>>::new()).boxing();
        let _: Converted = (&ReturnProbe::<Result<u8, String>>::new()).boxing();
    }

    use super::*;

    #[tokio::test]
    async fn results_keep_their_value_or_become_agent_errors() {
        use crate::__private::ToolResult;
        let ok = boxed_call(async { Ok::<u8, String>(7) }, ToolResult::into_agent_result).await;
        assert_eq!(ok.unwrap(), 7);
        let failed = boxed_call(
            async { Err::<u8, String>("nope".into()) },
            ToolResult::into_agent_result,
        )
        .await;
        assert_eq!(failed.unwrap_err().to_string(), "nope");
        assert_eq!(boxed_call(async { 5u8 }, Ok).await.unwrap(), 5);
        let as_is = AsIs.boxed(async { Ok(6u8) }, ToolResult::into_agent_result);
        assert_eq!(as_is.await.unwrap(), 6);
    }
}
