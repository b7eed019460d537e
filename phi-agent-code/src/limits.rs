//! What one program may use. Each limit, when reached, ends the program with an error result
//! that names it; the run goes on, and the model can write a smaller program.

use std::time::Duration;

/// The limits of one `run_code` program.
///
/// ```
/// use std::time::Duration;
/// use phi_agent_code::CodeLimits;
///
/// let limits = CodeLimits::default()
///     .with_max_operations(100_000)
///     .with_max_duration(Duration::from_secs(5))
///     .with_max_tool_calls(20);
/// assert_eq!(limits.max_tool_calls, 20);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CodeLimits {
    /// Interpreter operations (roughly: expressions evaluated). Default: 1,000,000.
    pub max_operations: u64,
    /// Wall time of the whole program, the tools it calls included. Default: 30 s.
    pub max_duration: Duration,
    /// Nested tool calls. Default: 50.
    pub max_tool_calls: usize,
    /// Bytes of one string: with the two below, what bounds the program's memory. Default: 1 MiB.
    pub max_string_bytes: usize,
    /// Items of one array (nested arrays counted in). Default: 10,000.
    pub max_array_items: usize,
    /// Entries of one map (nested maps counted in). Default: 10,000.
    pub max_map_entries: usize,
    /// Bytes the program may print (`print`, `debug`). Default: 16 KiB.
    pub max_output_bytes: usize,
    /// Bytes of the program's source. Default: 32 KiB.
    pub max_code_bytes: usize,
    /// Depth of function calls within the program. Default: 32.
    pub max_call_depth: usize,
}

impl Default for CodeLimits {
    fn default() -> Self {
        Self {
            max_operations: 1_000_000,
            max_duration: Duration::from_secs(30),
            max_tool_calls: 50,
            max_string_bytes: 1 << 20,
            max_array_items: 10_000,
            max_map_entries: 10_000,
            max_output_bytes: 16 << 10,
            max_code_bytes: 32 << 10,
            max_call_depth: 32,
        }
    }
}

impl CodeLimits {
    /// With at most `max` interpreter operations.
    pub fn with_max_operations(mut self, max: u64) -> Self {
        self.max_operations = max;
        self
    }

    /// With at most `max` of wall time.
    pub fn with_max_duration(mut self, max: Duration) -> Self {
        self.max_duration = max;
        self
    }

    /// With at most `max` nested tool calls.
    pub fn with_max_tool_calls(mut self, max: usize) -> Self {
        self.max_tool_calls = max;
        self
    }

    /// With strings of at most `max` bytes.
    pub fn with_max_string_bytes(mut self, max: usize) -> Self {
        self.max_string_bytes = max;
        self
    }

    /// With arrays of at most `max` items.
    pub fn with_max_array_items(mut self, max: usize) -> Self {
        self.max_array_items = max;
        self
    }

    /// With maps of at most `max` entries.
    pub fn with_max_map_entries(mut self, max: usize) -> Self {
        self.max_map_entries = max;
        self
    }

    /// With at most `max` bytes of printed output.
    pub fn with_max_output_bytes(mut self, max: usize) -> Self {
        self.max_output_bytes = max;
        self
    }

    /// With programs of at most `max` bytes.
    pub fn with_max_code_bytes(mut self, max: usize) -> Self {
        self.max_code_bytes = max;
        self
    }

    /// With function calls at most `max` deep.
    pub fn with_max_call_depth(mut self, max: usize) -> Self {
        self.max_call_depth = max;
        self
    }
}
