//! Limits that apply to every tool call.

/// Limits for tool dispatch. Part of [`AgentConfig`](crate::AgentConfig) as `tools`.
///
/// ```
/// use phi_agent::ToolConfig;
/// let config = ToolConfig { default_tool_timeout_ms: 5_000, ..ToolConfig::default() };
/// assert_eq!(config.max_argument_bytes, ToolConfig::default().max_argument_bytes);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolConfig {
    /// Timeout for tools whose `timeout_ms()` is `None`. Default: 60 000 ms.
    pub default_tool_timeout_ms: u64,
    /// Largest arguments object accepted, measured as compact JSON. Default: 1 MiB.
    pub max_argument_bytes: usize,
    /// Largest output passed to the model; longer output is cut with a marker. Default: 100 000 bytes.
    pub max_output_bytes: usize,
}

impl Default for ToolConfig {
    fn default() -> Self {
        Self {
            default_tool_timeout_ms: 60_000,
            max_argument_bytes: 1024 * 1024,
            max_output_bytes: 100_000,
        }
    }
}
