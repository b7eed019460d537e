//! What a tool and an activation predicate know about the run they are part of.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::error::AgentResult;
use crate::state::SharedState;

/// The context of one tool call: session, workspace, call id, cancellation and shared state.
///
/// The agent creates one per call. `ToolContext::default()` gives an empty context, so a tool can
/// be unit-tested without an agent:
///
/// ```
/// use phi_agent::ToolContext;
///
/// struct Db { url: &'static str }
///
/// let ctx = ToolContext::default().with_state(Db { url: "sqlite::memory:" });
/// assert_eq!(ctx.state::<Db>().unwrap().url, "sqlite::memory:");
/// assert!(!ctx.is_cancelled());
/// ```
#[derive(Debug, Clone)]
pub struct ToolContext {
    session_id: Arc<str>,
    workspace: Arc<Path>,
    tool_call_id: Arc<str>,
    /// The turn of the call, from 1; 0 outside an agent run.
    turn: usize,
    cancellation: CancellationToken,
    state: SharedState,
}

impl Default for ToolContext {
    /// An empty context: no session, workspace `.`, no shared state, not cancelled.
    fn default() -> Self {
        Self::new("", ".", SharedState::new())
    }
}

impl ToolContext {
    /// A context for `session_id`, working in `workspace`, sharing `state`.
    pub fn new(
        session_id: impl Into<Arc<str>>,
        workspace: impl Into<PathBuf>,
        state: SharedState,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            workspace: Arc::from(workspace.into()),
            tool_call_id: Arc::from(""),
            turn: 0,
            cancellation: CancellationToken::new(),
            state,
        }
    }

    /// This context for the call with id `tool_call_id`, cancelled by `cancellation`.
    pub fn for_call(
        &self,
        tool_call_id: impl Into<Arc<str>>,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            session_id: self.session_id.clone(),
            workspace: self.workspace.clone(),
            tool_call_id: tool_call_id.into(),
            turn: self.turn,
            cancellation,
            state: self.state.clone(),
        }
    }

    /// This context in turn `turn` of a run (from 1), which names its
    /// [`step_key`](Self::step_key).
    pub fn in_turn(mut self, turn: usize) -> Self {
        self.turn = turn;
        self
    }

    /// This context with `value` added to its shared state (for tests and setup).
    pub fn with_state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// The id of the session (conversation) this call belongs to.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The working directory of the session.
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The provider's id for this tool call (empty outside an agent run).
    pub fn tool_call_id(&self) -> &str {
        &self.tool_call_id
    }

    /// The stable key of this call's step in its run, `turn/<n>/tool/<call id>` (e.g.
    /// `turn/3/tool/call_1`; empty outside an agent run): the same every time the run executes
    /// this call, in any process, and the key the run's
    /// [`StepExecutor`](crate::StepExecutor) journals the call under. Built on each call of this
    /// method, so that runs whose tools never ask pay nothing for it.
    ///
    /// Use it as the idempotency key of a side effect (a payment, an email) with the service
    /// that performs it. A durable run (see [`StepExecutor`](crate::StepExecutor)) replays the
    /// calls it journaled, but the call that was running when the process died has no result
    /// in the journal and runs again; with the key, the service sees the same request twice and
    /// carries it out once. Keys are unique within a run, not across the runs of a session:
    /// combine the key with [`session_id`](Self::session_id) and the run's own identity (a
    /// Restate invocation, a request id) when one session makes several payments.
    pub fn step_key(&self) -> String {
        if self.turn == 0 {
            return String::new();
        }
        format!("turn/{}/tool/{}", self.turn, self.tool_call_id)
    }

    /// The token that is cancelled when the call should stop (run dropped, timeout, client cancel).
    ///
    /// Long-running tools should `select!` on [`CancellationToken::cancelled`].
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Whether this call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// The shared value of type `T` the program provided, or an error that says how to provide it.
    pub fn state<T: Send + Sync + 'static>(&self) -> AgentResult<&T> {
        self.state.get::<T>()
    }

    /// All shared state.
    pub fn shared_state(&self) -> &SharedState {
        &self.state
    }
}

/// What a deferred tool's activation predicate sees.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActivationContext {
    /// The id of the session being evaluated.
    pub session_id: String,
    /// Names of the tools already active (visible to the model), in registration order.
    pub current_tools: Vec<String>,
    /// The working directory of the session.
    pub workspace: PathBuf,
}

impl ActivationContext {
    /// Whether a tool named `name` is already active.
    pub fn has_tool(&self, name: &str) -> bool {
        self.current_tools.iter().any(|tool| tool == name)
    }
}
