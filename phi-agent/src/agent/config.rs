//! Limits of an agent.

use crate::config::ToolConfig;
use crate::search::ToolSearch;

/// Configuration of a [`PhiAgent`](crate::PhiAgent): tool limits and loop limits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentConfig {
    /// Limits applied to every tool call.
    pub tools: ToolConfig,
    /// Most model turns one run may take before it ends with an error. Default: 20.
    pub max_turns: usize,
    /// Most tool calls of one turn that run at the same time. Default: 8.
    pub max_parallel_tools: usize,
    /// How often one identical tool call (same tool, same arguments) may fail in a run. The
    /// failure that reaches this number tells the model to stop repeating the call; one more
    /// ends the run with [`AgentError::RepeatedToolFailure`](crate::AgentError::RepeatedToolFailure).
    /// Default: 3.
    pub max_repeated_failures: usize,
    /// Whether the model finds Deferred tools with a search instead of being sent them all; see
    /// [`crate::search`]. Default: [`ToolSearch::Off`].
    pub tool_search: ToolSearch,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            tools: ToolConfig::default(),
            max_turns: 20,
            max_parallel_tools: 8,
            max_repeated_failures: 3,
            tool_search: ToolSearch::Off,
        }
    }
}
