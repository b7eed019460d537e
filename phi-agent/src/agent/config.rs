//! Limits of an agent.

use super::LoopDetection;
use super::context_policy::ContextPolicy;
use crate::config::ToolConfig;
use crate::search::ToolSearch;

/// Configuration of a [`PhiAgent`](crate::PhiAgent): tool limits and loop limits.
///
/// `#[non_exhaustive]`: start from [`AgentConfig::default`] and change what you need with the
/// `with_*` setters, so that a field added later breaks no one. The fields stay public to read.
///
/// ```
/// use phi_agent::{AgentConfig, ToolConfig, ToolSearch};
/// let config = AgentConfig::default()
///     .with_max_turns(5)
///     .with_tools(ToolConfig { default_tool_timeout_ms: 5_000, ..ToolConfig::default() })
///     .with_tool_search(ToolSearch::Local);
/// assert_eq!(config.max_turns, 5);
/// assert_eq!(config.tools.default_tool_timeout_ms, 5_000);
/// assert_eq!(config.max_parallel_tools, AgentConfig::default().max_parallel_tools);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
    /// Whether a streamed run ([`RunRequest::stream`](crate::RunRequest::stream), paused and
    /// resumed runs too) starts a tool call as soon as its
    /// arguments are complete in the model's stream, before the model has finished its turn,
    /// instead of once the whole reply is in. Results still reach the model together, in call
    /// order. A call that needs approval still waits for the reply and its decision; calls
    /// started early count against [`max_parallel_tools`](Self::max_parallel_tools) like the
    /// others. Should the reply then fail (a cut stream, a provider error), the run fails and
    /// the calls still running are cancelled, but a call that already finished has had its
    /// effects: leave this off for tools whose effects must only follow a complete reply.
    /// Plain runs are not affected (they do not stream), nor sessions on
    /// [`ToolSearch::Native`] (the provider's search may reveal a called tool only with the
    /// whole reply), nor typed runs (`run_typed_stream`: an accepted answer ends the turn, and
    /// the turn's other calls are then not run). Default: `false`; see
    /// [`with_early_tool_start`](Self::with_early_tool_start).
    pub early_tool_start: bool,
    /// Whether a call's arguments that are not JSON but one unambiguous repair away from it (a
    /// trailing comma, single quotes, `True`/`False`/`None`, a code fence, an object cut off at
    /// the end) are repaired when the call enters the run, instead of refused. The call then
    /// says what was repaired ([`ToolCall::repaired`](crate::llm::ToolCall::repaired), also in
    /// its [`ToolCallRecord`](crate::ToolCallRecord), its events and its `execute_tool` span);
    /// anything ambiguous is refused as before. Default: `true`.
    pub argument_repair: bool,
    /// The most bytes of tool output one turn's results give the model together. When a turn's
    /// calls return more, each result keeps what it has up to one common share (the largest
    /// for which the total fits), and the larger ones are cut to it as a single result over
    /// its own limit is (text head and tail, JSON kept valid, with a note). Each call's own
    /// limit ([`ToolOptions::max_result`](crate::ToolOptions::max_result), else
    /// [`ToolConfig::max_output_bytes`]) applies first. Default: 400 000 bytes.
    pub max_turn_result_bytes: usize,
    /// Whether the run tells a model that repeats the same call (or keeps getting the same
    /// error) that it is repeating itself, and whether it then stops the run; see
    /// [`LoopDetection`]. Default: off.
    pub loop_detection: LoopDetection,
    /// Whether each `execute_tool` span records the call's arguments and its result as the
    /// OpenTelemetry GenAI attributes `gen_ai.tool.call.arguments` and
    /// `gen_ai.tool.call.result` (opt-in there too, since they may hold personal data).
    /// Values the tool's schema marks `writeOnly` (or `format: password`) are recorded as
    /// `"<redacted>"`, in the arguments by the argument schema and in a JSON result by the
    /// output schema. Default: `false`.
    pub trace_tool_content: bool,
    /// What a session keeps of its older tool results: with a [`ContextPolicy`], old results
    /// are replaced by a short placeholder before each model request, so that a long session's
    /// requests stay bounded. Default: `None` (every result is kept).
    pub context_policy: Option<ContextPolicy>,
}

impl AgentConfig {
    /// This configuration with [`tools`](Self::tools) set to `tools`.
    pub fn with_tools(mut self, tools: ToolConfig) -> Self {
        self.tools = tools;
        self
    }

    /// This configuration with [`max_turns`](Self::max_turns) set to `turns`.
    pub fn with_max_turns(mut self, turns: usize) -> Self {
        self.max_turns = turns;
        self
    }

    /// This configuration with [`max_parallel_tools`](Self::max_parallel_tools) set to `tools`.
    pub fn with_max_parallel_tools(mut self, tools: usize) -> Self {
        self.max_parallel_tools = tools;
        self
    }

    /// This configuration with [`max_repeated_failures`](Self::max_repeated_failures) set to
    /// `failures`.
    pub fn with_max_repeated_failures(mut self, failures: usize) -> Self {
        self.max_repeated_failures = failures;
        self
    }

    /// This configuration with [`tool_search`](Self::tool_search) set to `search`.
    pub fn with_tool_search(mut self, search: ToolSearch) -> Self {
        self.tool_search = search;
        self
    }

    /// This configuration with [`early_tool_start`](Self::early_tool_start) set to `on`.
    ///
    /// ```
    /// use phi_agent::AgentConfig;
    /// let config = AgentConfig::default().with_early_tool_start(true);
    /// assert!(config.early_tool_start);
    /// assert!(!AgentConfig::default().early_tool_start);
    /// ```
    pub fn with_early_tool_start(mut self, on: bool) -> Self {
        self.early_tool_start = on;
        self
    }

    /// This configuration with [`argument_repair`](Self::argument_repair) set to `on`.
    ///
    /// ```
    /// use phi_agent::AgentConfig;
    /// assert!(AgentConfig::default().argument_repair);
    /// assert!(!AgentConfig::default().with_argument_repair(false).argument_repair);
    /// ```
    pub fn with_argument_repair(mut self, on: bool) -> Self {
        self.argument_repair = on;
        self
    }

    /// This configuration with [`max_turn_result_bytes`](Self::max_turn_result_bytes) set to
    /// `bytes`.
    pub fn with_max_turn_result_bytes(mut self, bytes: usize) -> Self {
        self.max_turn_result_bytes = bytes;
        self
    }

    /// This configuration with [`max_turn_result_bytes`](Self::max_turn_result_bytes) set from
    /// `budget`: a budget in estimated tokens is kept as its byte estimate
    /// ([`ResultBudget::bytes`](crate::ResultBudget::bytes)).
    ///
    /// ```
    /// use phi_agent::{AgentConfig, ResultBudget};
    /// let config = AgentConfig::default().with_max_turn_result(ResultBudget::Tokens(20_000));
    /// assert_eq!(config.max_turn_result_bytes, 80_000);
    /// ```
    pub fn with_max_turn_result(self, budget: crate::ResultBudget) -> Self {
        self.with_max_turn_result_bytes(budget.bytes())
    }

    /// This configuration with [`loop_detection`](Self::loop_detection) set to `detection`.
    pub fn with_loop_detection(mut self, detection: LoopDetection) -> Self {
        self.loop_detection = detection;
        self
    }

    /// This configuration with [`context_policy`](Self::context_policy) set to `policy`.
    pub fn with_context_policy(mut self, policy: ContextPolicy) -> Self {
        self.context_policy = Some(policy);
        self
    }

    /// This configuration with [`trace_tool_content`](Self::trace_tool_content) set to `on`.
    pub fn with_trace_tool_content(mut self, on: bool) -> Self {
        self.trace_tool_content = on;
        self
    }
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            tools: ToolConfig::default(),
            max_turns: 20,
            max_parallel_tools: 8,
            max_repeated_failures: 3,
            tool_search: ToolSearch::Off,
            early_tool_start: false,
            argument_repair: true,
            max_turn_result_bytes: 400_000,
            loop_detection: LoopDetection::default(),
            trace_tool_content: false,
            context_policy: None,
        }
    }
}
