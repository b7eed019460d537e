//! Which version of the code-execution server tool a request names.

use crate::llm::ToolSpec;
use crate::llm::definition::{
    ANTHROPIC_CODE_EXECUTION, AnthropicTool, anthropic_with_callers_borrowed,
};

/// The version of Anthropic's code-execution server tool that programmatic tool calling sends
/// ([`AnthropicClient::with_code_execution_version`](super::AnthropicClient::with_code_execution_version)):
/// the tool entry's `type`, and the caller each tool allows. A model takes the versions it was
/// released with or after; the API refuses one it does not know.
///
/// ```
/// use phi_agent::llm::CodeExecutionVersion;
/// assert_eq!(CodeExecutionVersion::default().tool_type(), "code_execution_20250825");
/// assert_eq!(CodeExecutionVersion::V20260521.tool_type(), "code_execution_20260521");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CodeExecutionVersion {
    /// `code_execution_20250825`: the first with programmatic tool calling; the default, which
    /// every model with programmatic tool calling accepts.
    #[default]
    V20250825,
    /// `code_execution_20260120`.
    V20260120,
    /// `code_execution_20260521`: the program's interpreter state persists between runs in
    /// one container.
    V20260521,
}

impl CodeExecutionVersion {
    /// The tool's `type` on the wire, e.g. `code_execution_20250825`.
    pub fn tool_type(self) -> &'static str {
        ANTHROPIC_CODE_EXECUTION[self as usize]
    }

    /// The tool definition writer that names this version in `allowed_callers`.
    pub(super) fn with_callers(self) -> for<'a> fn(&'a ToolSpec) -> AnthropicTool<'a> {
        match self {
            CodeExecutionVersion::V20250825 => anthropic_with_callers_borrowed::<0>,
            CodeExecutionVersion::V20260120 => anthropic_with_callers_borrowed::<1>,
            CodeExecutionVersion::V20260521 => anthropic_with_callers_borrowed::<2>,
        }
    }
}
