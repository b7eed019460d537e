//! The boxed future of an async `#[phi_tool]` fn's `call_typed`: the fn's own future, awaited and
//! its output turned into an [`AgentResult`].
//!
//! Generated code calls this generic fn with the user's future instead of writing an
//! `async move` block per tool: the block below is type-checked and borrow-checked once, here,
//! and only instantiated per tool (an async block in the expansion is checked anew for every
//! tool, which was a large part of what a `#[phi_tool]` cost to compile). A fn that returns
//! `AgentResult<T>` needs no conversion, and its future is boxed as it is
//! ([`ReturnsAgentResult`], chosen by [`Probe`]): no second future per tool to compile.

use std::future::Future;

use futures_util::future::BoxFuture;

use super::probe::Probe;
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

/// How the future of a tool fn that returns `AgentResult<T>` (however the type is spelled)
/// becomes the tool's, picked by [`Probe`] on the fn's return type: boxed as it is, with no
/// second future per tool to compile. Generated code calls
/// `(&Probe::<R>::new()).boxed(future, convert)` with this trait and [`ReturnsOther`] in scope.
pub trait ReturnsAgentResult {
    /// The tool's output type.
    type Ok;

    /// `future` boxed; `convert` is not needed.
    fn boxed<'a, F>(
        self,
        future: F,
        convert: fn(F::Output) -> AgentResult<Self::Ok>,
    ) -> BoxFuture<'a, AgentResult<Self::Ok>>
    where
        F: Future<Output = AgentResult<Self::Ok>> + Send + 'a;
}

impl<T> ReturnsAgentResult for &Probe<AgentResult<T>> {
    type Ok = T;

    fn boxed<'a, F>(
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

/// How the future of any other tool fn becomes the tool's: its output converted by `convert`
/// ([`boxed_call`]). The fallback of [`ReturnsAgentResult`].
pub trait ReturnsOther {
    /// `future` boxed, its output converted by `convert`.
    fn boxed<'a, F, T: 'a>(
        self,
        future: F,
        convert: fn(F::Output) -> AgentResult<T>,
    ) -> BoxFuture<'a, AgentResult<T>>
    where
        F: Future + Send + 'a;
}

impl<R> ReturnsOther for Probe<R> {
    fn boxed<'a, F, T: 'a>(
        self,
        future: F,
        convert: fn(F::Output) -> AgentResult<T>,
    ) -> BoxFuture<'a, AgentResult<T>>
    where
        F: Future + Send + 'a,
    {
        boxed_call(future, convert)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The borrow picks the `AgentResult` impl by autoref; clippy cannot see that.
    #[allow(clippy::needless_borrow)]
    #[tokio::test]
    async fn the_probe_boxes_agent_results_as_they_are_and_converts_other_results() {
        use crate::__private::ToolResult;
        type Alias<T> = Result<T, crate::error::AgentError>;
        let as_is = (&Probe::<Alias<u8>>::new()).boxed(
            async { Ok::<u8, crate::error::AgentError>(6) },
            ToolResult::into_agent_result,
        );
        assert_eq!(as_is.await.unwrap(), 6);
        let converted = (&Probe::<Result<u8, String>>::new()).boxed(
            async { Err::<u8, String>("no".into()) },
            ToolResult::into_agent_result,
        );
        assert_eq!(converted.await.unwrap_err().to_string(), "no");
    }

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
    }
}
