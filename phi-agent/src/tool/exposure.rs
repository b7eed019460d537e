//! Who may see a tool ([`ToolExposure`]) and who may call it ([`ToolCallers`]).

use serde::Serialize;

/// Who can see and call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolExposure {
    /// Always sent to the model.
    #[default]
    Direct,
    /// Sent to the model once [`Tool::should_activate`](super::Tool::should_activate) returns `true` (by default at once), or,
    /// with [`AgentConfig::tool_search`](crate::AgentConfig::tool_search) on, found by the model's
    /// search instead of sent.
    Deferred,
    /// Never sent to the model and never callable by it; the program can still call it.
    Hidden,
}

/// Who may call a tool: the model in a turn of its own, code the model writes (a provider's
/// programmatic tool calling, where the model's program runs in the provider's sandbox and
/// calls tools there; or a `run_code` tool of our own), or both. Read by the adapters (Anthropic's
/// and the Responses API's `allowed_callers`) and by code-mode tools, which offer only the tools
/// code may call, and enforced by the agent: a `Code` tool is left out of the tools the model is
/// sent (unless its client speaks programmatic tool calling,
/// [`LlmClient::programmatic_tool_calling`](crate::llm::LlmClient::programmatic_tool_calling))
/// and the model's direct call of it is an error result; a `Direct` tool called from code
/// ([`ToolContext::call_tool`](crate::ToolContext::call_tool)) is an error result too.
///
/// `#[non_exhaustive]`: another kind of caller may come.
///
/// ```
/// use phi_agent::ToolCallers;
/// assert!(ToolCallers::Both.allows_direct() && ToolCallers::Both.allows_code());
/// assert!(!ToolCallers::Code.allows_direct());
/// assert_eq!(ToolCallers::default(), ToolCallers::Both);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolCallers {
    /// Only the model, in a turn of its own (a plain tool call).
    Direct,
    /// Only code the model writes; the model never calls it directly.
    Code,
    /// Both.
    #[default]
    Both,
}

impl ToolCallers {
    /// Whether the model may call the tool directly.
    pub fn allows_direct(self) -> bool {
        matches!(self, ToolCallers::Direct | ToolCallers::Both)
    }

    /// Whether code the model writes may call the tool.
    pub fn allows_code(self) -> bool {
        matches!(self, ToolCallers::Code | ToolCallers::Both)
    }
}
