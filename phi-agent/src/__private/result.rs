//! The `Result` a `#[phi_tool]` fn returns, checked at compile time and turned into an
//! [`AgentResult`].

use std::any::Any;
use std::fmt::Display;

use crate::error::{AgentError, AgentResult};

/// The `Result` returned by a `#[phi_tool]` fn: `AgentResult<T>` or `Result<T, E: Display>`.
///
/// Generated code names the fn's return type through this trait (`<R as ToolResult>::Ok`), so an
/// error type without `Display` is reported on the return type, in these words.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool",
    label = "the error type of this `Result` must implement `std::fmt::Display`",
    note = "the error's `Display` text is what the model reads; return `AgentResult<T>` or `Result<T, E>` with `E: Display`"
)]
pub trait ToolResult {
    /// The success type.
    type Ok;
    /// The result with the error turned into an [`AgentError`].
    fn into_agent_result(self) -> AgentResult<Self::Ok>;
}

impl<T, E: Display + 'static> ToolResult for Result<T, E> {
    type Ok = T;

    fn into_agent_result(self) -> AgentResult<T> {
        self.map_err(tool_error)
    }
}

/// Turns a tool's error into an [`AgentError`]: an `AgentError` passes through unchanged (the
/// type test is constant after monomorphization), anything else becomes [`AgentError::Tool`]
/// with its `Display` text.
fn tool_error<E: Display + 'static>(error: E) -> AgentError {
    let mut slot = Some(error);
    let any: &mut dyn Any = &mut slot;
    if let Some(agent_error) = any.downcast_mut::<Option<AgentError>>()
        && let Some(agent_error) = agent_error.take()
    {
        return agent_error;
    }
    match slot {
        Some(error) => AgentError::tool(error.to_string()),
        None => AgentError::tool("the tool failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_errors_pass_through_and_other_errors_become_tool_errors() {
        let passed = tool_error(AgentError::Config("bad".into()));
        assert!(matches!(passed, AgentError::Config(message) if message == "bad"));
        let converted = tool_error(std::io::Error::other("disk full"));
        assert!(matches!(converted, AgentError::Tool(message) if message == "disk full"));
        let result: Result<u8, String> = Err("nope".into());
        assert_eq!(result.into_agent_result().unwrap_err().to_string(), "nope");
    }
}
