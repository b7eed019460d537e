//! The one error type of phi-agent.
//!
//! Every message says what went wrong and what to do about it: these messages are read by people
//! (registration and configuration errors) and by models (tool-call errors become tool results).
//! The texts a model reads about its arguments and answers are made in `mistakes/`, all in one place.

pub(crate) mod mistakes;
mod tampering;

pub use mistakes::ArgumentMistake;
pub use tampering::Tampering;

/// How errors name the arguments object itself, where a JSON path would otherwise be empty: the
/// same word in argument errors and in schema errors.
pub const ROOT_PATH: &str = "(root)";

/// Result alias used throughout phi-agent.
pub type AgentResult<T> = Result<T, AgentError>;

/// Everything that can go wrong when registering, dispatching or running tools.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// A tool name breaks the portable naming rule.
    #[error(
        "invalid tool name `{name}`: {reason}; use 1 to 64 characters from `a-z A-Z 0-9 _ -` so every provider accepts it"
    )]
    InvalidToolName {
        /// The rejected name.
        name: String,
        /// Which part of the rule it breaks.
        reason: &'static str,
    },

    /// Two tools were registered under one name.
    #[error(
        "tool name `{name}` is registered twice: first {first}, then {second}; rename one of them (for a macro tool, `#[phi_tool(name = \"...\")]`)"
    )]
    DuplicateTool {
        /// The name both tools claim.
        name: String,
        /// Description of the tool registered first.
        first: String,
        /// Description of the tool registered second.
        second: String,
    },

    /// The model asked for a tool it cannot use: unknown, hidden or not yet activated.
    ///
    /// The message is the same in all three cases so that nothing about hidden tools leaks.
    #[error("tool `{name}` is not available; available tools: {available}")]
    ToolNotAvailable {
        /// The requested name.
        name: String,
        /// Comma-separated names the model may call, or `(none)`.
        available: String,
    },

    /// The arguments did not decode into the tool's parameter type.
    #[error(
        "invalid arguments for tool `{tool}` at `{path}`: {message}; fix the arguments to match the tool's schema and call it again"
    )]
    InvalidArguments {
        /// The tool that was called.
        tool: String,
        /// JSON path of the offending value, e.g. `filters.tags[1]`; [`ROOT_PATH`] for the
        /// arguments object itself.
        path: String,
        /// What was found and what was expected.
        message: String,
    },

    /// The arguments broke the tool's schema in several places, each listed with its JSON path
    /// and what was expected there, so that the model can fix them all in one turn. A single
    /// mistake is reported as [`InvalidArguments`](AgentError::InvalidArguments).
    #[error("{}", mistakes::mistakes_list(.tool, .mistakes, *.omitted))]
    ArgumentMistakes {
        /// The tool that was called.
        tool: String,
        /// The mistakes listed, at most ten.
        mistakes: Vec<ArgumentMistake>,
        /// How many more there were beyond those listed.
        omitted: usize,
    },

    /// A tool requires (`requires_tools`) a tool that is not registered, or one that is hidden
    /// and so never active: it would never become active itself.
    #[error("{}", mistakes::required_tool_missing(.tool, .required, *.hidden, .closest.as_deref()))]
    RequiredToolMissing {
        /// The tool whose requirement is not met.
        tool: String,
        /// The name it requires.
        required: String,
        /// Whether a tool of that name is registered but hidden.
        hidden: bool,
        /// The registered name closest to `required`, when one is close.
        closest: Option<String>,
    },

    /// The arguments exceed [`ToolConfig::max_argument_bytes`](crate::ToolConfig::max_argument_bytes).
    #[error(
        "arguments for tool `{tool}` are larger than the limit of {limit} bytes; send smaller arguments"
    )]
    ArgumentsTooLarge {
        /// The tool that was called.
        tool: String,
        /// The configured limit in bytes.
        limit: usize,
    },

    /// The tool did not finish within its timeout.
    #[error(
        "tool `{tool}` timed out after {timeout_ms} ms; try again with a smaller request, or raise the tool's timeout"
    )]
    Timeout {
        /// The tool that was called.
        tool: String,
        /// The limit that expired, in milliseconds.
        timeout_ms: u64,
    },

    /// The call came past the tool's [`rate`](crate::ToolLimits::rate) and was refused
    /// before it ran; the model reads this as the call's result, and may call again after
    /// `retry_after_ms`. The session goes on.
    #[error(
        "rate_limited: tool `{tool}` was called more often than its rate of {rate} allows, so this call did not run; call it again in {retry_after_ms} ms or later, or go on without it"
    )]
    RateLimited {
        /// The tool that was called.
        tool: String,
        /// Its rate, as written (`"10/s"`).
        rate: String,
        /// How long until a call would be admitted, in milliseconds (rounded up).
        retry_after_ms: u64,
    },

    /// The tool panicked; the panic was contained and the registry keeps serving.
    #[error(
        "tool `{tool}` failed unexpectedly (it panicked: {message}); this is a bug in the tool, not in the arguments"
    )]
    ToolPanicked {
        /// The tool that was called.
        tool: String,
        /// The panic payload, when it was a string.
        message: String,
    },

    /// The tool ran and reported a failure. Tools create this with [`AgentError::tool`].
    #[error("{0}")]
    Tool(String),

    /// The tool's run was cancelled (the agent run was dropped or cancelled).
    #[error("tool `{tool}` was cancelled before it finished")]
    Cancelled {
        /// The tool that was called.
        tool: String,
    },

    /// A tool asked its context for shared state that the program never provided.
    #[error(
        "no shared state of type `{type_name}` was provided; add it with `.state(value)` on the agent builder or `ToolContext::with_state`"
    )]
    MissingState {
        /// The requested type.
        type_name: &'static str,
    },

    /// A tool's output could not be turned into content.
    #[error(
        "tool output could not be serialized to JSON: {0}; make the output type serializable without errors (maps need string keys)"
    )]
    Output(#[source] serde_json::Error),

    /// Invalid configuration or builder input.
    #[error("invalid configuration: {0}")]
    Config(String),

    /// The run used its whole turn budget without the model giving an answer.
    #[error(
        "the model did not answer within {turns} turns; raise `AgentConfig::max_turns` or make the task smaller (the transcript so far is in the error)"
    )]
    MaxTurns {
        /// Turns taken (the configured limit).
        turns: usize,
        /// The conversation up to the last turn, system prompt excluded.
        transcript: Vec<crate::message::Message>,
    },

    /// The provider answered with an error status; `message` quotes what it said.
    #[error("{provider} answered HTTP {status}: {message}")]
    Provider {
        /// Which provider (`openai`, `anthropic`, ...).
        provider: &'static str,
        /// The HTTP status code.
        status: u16,
        /// The provider's own error message (or the start of the body when it sent no JSON).
        message: String,
    },

    /// The request did not get an answer: connection failure or timeout, after retries.
    #[error("request to {provider} failed: {message}")]
    Http {
        /// Which provider.
        provider: &'static str,
        /// What failed, and after how many attempts.
        message: String,
    },

    /// The provider answered 2xx with a body this adapter cannot read.
    #[error("{provider} sent a response that could not be read: {message}")]
    InvalidResponse {
        /// Which provider.
        provider: &'static str,
        /// What was wrong with it.
        message: String,
    },

    /// An MCP server could not be started or reached, or it failed while serving a request.
    #[error("MCP server `{server}`: {message}")]
    Mcp {
        /// The server's name, as the program gave it.
        server: String,
        /// What failed, and what to do about it.
        message: String,
    },

    /// A tool's argument schema breaks a rule every provider shares (an object root without
    /// alternatives), so offering it would fail whole requests.
    #[error("tool `{tool}` has an argument schema no provider accepts: {problem}")]
    InvalidSchema {
        /// The tool being registered.
        tool: String,
        /// Where and why, e.g. "`(root)`: the arguments must be a JSON object".
        problem: String,
    },

    /// One of a tool's [`input_examples`](crate::ToolOptions::input_examples) does not fit the tool's
    /// arguments (its schema, or for a typed tool its decoder): the model would learn a call that
    /// fails.
    #[error(
        "input example {number} of tool `{tool}` does not fit its arguments: {problem}; fix the example or remove it"
    )]
    InvalidInputExample {
        /// The tool being registered.
        tool: String,
        /// Which example, counting from 1 in the order the tool gives them.
        number: usize,
        /// What is wrong with it.
        problem: String,
    },

    /// The model kept sending one identical tool call that kept failing, past
    /// [`AgentConfig::max_repeated_failures`](crate::AgentConfig::max_repeated_failures).
    #[error(
        "the model sent the same failing call of tool `{tool}` {failures} times, past the limit of {limit}, and was stopped; last error: {last_error}; check the tool and its description, or raise `AgentConfig::max_repeated_failures` (the transcript so far is in the error)"
    )]
    RepeatedToolFailure {
        /// The tool that was called.
        tool: String,
        /// How often the identical call failed in the run.
        failures: usize,
        /// The configured limit.
        limit: usize,
        /// What the last failure said.
        last_error: String,
        /// The conversation up to and including the last tool results, system prompt excluded.
        transcript: Vec<crate::message::Message>,
    },

    /// The model went on repeating one call after it was told it repeats itself, with
    /// [`LoopDetection::end_run`](crate::LoopDetection::end_run) on.
    #[error(
        "the model sent the same call of tool `{tool}` {repeats} times (or got the same error as often in a row) after it was told it repeats itself, and was stopped; check the tool's description and results, or raise `LoopDetection::repeats` (the transcript so far is in the error)"
    )]
    RepeatedToolCall {
        /// The tool that was called.
        tool: String,
        /// How often the call (or its error) was seen.
        repeats: usize,
        /// The conversation up to and including the last tool results, system prompt excluded.
        transcript: Vec<crate::message::Message>,
    },

    /// A typed run's answer was refused more often than allowed
    /// ([`AnswerOptions::max_retries`](crate::AnswerOptions::max_retries)): each time the model
    /// answered in plain text or with a value that does not decode, it was told every mistake,
    /// and it did not fix them.
    #[error(
        "the model's answer was refused {attempts} times and the run was stopped; last error: {last_error}; make the answer type easier to fill (descriptions, fewer constraints), or raise `AnswerOptions::max_retries` (the last attempt and the transcript are in the error)"
    )]
    AnswerRejected {
        /// How many answers were refused in the run.
        attempts: usize,
        /// The last attempt as the model wrote it: the final-answer call's arguments as JSON,
        /// or the reply's text.
        last_attempt: String,
        /// What the model was told about it (every mistake).
        last_error: String,
        /// The conversation up to and including the last attempt, system prompt excluded.
        transcript: Vec<crate::message::Message>,
    },

    /// A person denied the call; the model reads this as the call's result.
    #[error("a person denied this call of tool `{tool}`: {message}")]
    ApprovalDenied {
        /// The tool that was called.
        tool: String,
        /// What the person said.
        message: String,
    },

    /// The call needs a person's approval and no one could be asked: the run has no
    /// [`Approver`](crate::Approver), or an MCP client called the tool. The model reads this as
    /// the call's result.
    #[error(
        "tool `{tool}` needs a person's approval for this call and no one can approve it here; do not retry it: tell the user what you meant to do, so that a person can approve it"
    )]
    ApprovalRequired {
        /// The tool that was called.
        tool: String,
    },

    /// A [`PausedRun`](crate::PausedRun) cannot be decided or resumed as it is.
    #[error("cannot resume the paused run: {reason}")]
    Resume {
        /// What is wrong, and what to do about it.
        reason: String,
    },

    /// A stored [`PausedRun`](crate::PausedRun) was changed after a person decided its calls or
    /// the agent signed it; refused before any of it ran.
    #[error("cannot resume the paused run: {0}; nothing ran")]
    Tampered(Tampering),

    /// The [`PausedRun`](crate::PausedRun) was resumed before (the agent's
    /// [`ResumeStore`](crate::ResumeStore) has it marked); nothing ran. A paused run resumes once.
    #[error(
        "the paused run `{run}` was resumed already, and a paused run resumes once; nothing ran"
    )]
    AlreadyResumed {
        /// The paused run's id ([`PausedRun::id`](crate::PausedRun::id)).
        run: String,
    },

    /// A step of a durable run failed to be recorded or replayed: the step executor could not
    /// journal it, or the journal does not fit this agent (a tool renamed or removed since the
    /// journal was written, a step of another kind at the same key).
    #[error("durable step `{key}`: {reason}")]
    Step {
        /// The step's key, e.g. `turn/3/tool/call_1`.
        key: String,
        /// What went wrong, and what to do about it.
        reason: String,
    },

    /// The agent loop broke one of its own invariants: a bug in phi-agent, never a mistake of
    /// the caller, the model or a tool. Please report it with the message.
    #[error("internal error of the agent loop (a bug in phi-agent, please report it): {0}")]
    Internal(String),
}

impl AgentError {
    /// A failure reported by a tool; the message is shown to the model as the tool's result.
    ///
    /// ```
    /// use phi_agent::AgentError;
    /// let err = AgentError::tool("city `Atlantis` not found; ask the user for another city");
    /// assert_eq!(err.to_string(), "city `Atlantis` not found; ask the user for another city");
    /// ```
    pub fn tool(message: impl Into<String>) -> Self {
        AgentError::Tool(message.into())
    }
}
