//! The boxed future of an async `#[phi_tool]` fn's `call_typed`: the fn's own future, awaited and
//! its output turned into an [`AgentResult`].
//!
//! Generated code calls this generic fn with the user's future instead of writing an
//! `async move` block per tool: the block below is type-checked and borrow-checked once, here,
//! and only instantiated per tool (an async block in the expansion is checked anew for every
//! tool, which was a large part of what a `#[phi_tool]` cost to compile).

use std::future::Future;

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

#[cfg(test)]
mod tests {
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
    }
}
