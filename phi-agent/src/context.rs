//! What a tool and an activation predicate know about the run they are part of.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

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
    /// What every call of a session shares, behind one `Arc`: a context per call then costs one
    /// reference count for all of it.
    session: Arc<Session>,
    tool_call_id: Arc<str>,
    /// The turn of the call, from 1; 0 outside an agent run.
    turn: usize,
    cancellation: CallToken,
}

#[derive(Debug, Clone)]
struct Session {
    session_id: Arc<str>,
    workspace: Arc<Path>,
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
            session: Arc::new(Session {
                session_id: session_id.into(),
                workspace: Arc::from(workspace.into()),
                state,
            }),
            tool_call_id: Arc::from(""),
            turn: 0,
            cancellation: CallToken::own(CancellationToken::new()),
        }
    }

    /// This context for the call with id `tool_call_id`, cancelled by `cancellation`.
    pub fn for_call(
        &self,
        tool_call_id: impl Into<Arc<str>>,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            session: self.session.clone(),
            tool_call_id: tool_call_id.into(),
            turn: self.turn,
            cancellation: CallToken::own(cancellation),
        }
    }

    /// This context for the call with id `tool_call_id`, cancelled when `parent` is (a run, a
    /// client's request), or by itself (its timeout): its token is a
    /// [child](CancellationToken::child_token) of `parent`, as with
    /// `for_call(id, parent.child_token())`, but made only when something asks for it
    /// ([`cancellation`](Self::cancellation), or a clone of this context), so that a call whose
    /// tool never asks costs no token. Asked after `parent` was cancelled, the token is
    /// cancelled already. What the agent loop and the MCP server use for every call.
    ///
    /// ```
    /// use phi_agent::ToolContext;
    /// use tokio_util::sync::CancellationToken;
    ///
    /// let run = CancellationToken::new();
    /// let ctx = ToolContext::default().for_call_under("call_1", &run);
    /// assert!(!ctx.is_cancelled());
    /// run.cancel();
    /// assert!(ctx.is_cancelled() && ctx.cancellation().is_cancelled());
    /// ```
    pub fn for_call_under(
        &self,
        tool_call_id: impl Into<Arc<str>>,
        parent: &CancellationToken,
    ) -> Self {
        Self {
            session: self.session.clone(),
            tool_call_id: tool_call_id.into(),
            turn: self.turn,
            cancellation: CallToken::under(parent),
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
        Arc::make_mut(&mut self.session).state.insert(value);
        self
    }

    /// The id of the session (conversation) this call belongs to.
    pub fn session_id(&self) -> &str {
        &self.session.session_id
    }

    /// The working directory of the session.
    pub fn workspace(&self) -> &Path {
        &self.session.workspace
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
        self.cancellation.token()
    }

    /// Whether this call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// The shared value of type `T` the program provided, or an error that says how to provide it.
    pub fn state<T: Send + Sync + 'static>(&self) -> AgentResult<&T> {
        self.session.state.get::<T>()
    }

    /// All shared state.
    pub fn shared_state(&self) -> &SharedState {
        &self.session.state
    }
}

/// The token of one call: its own, or made from its parent's on first use.
#[derive(Debug)]
struct CallToken {
    /// The token to make the call's own from; `None` when it was given.
    parent: Option<CancellationToken>,
    token: OnceLock<CancellationToken>,
}

impl CallToken {
    fn own(token: CancellationToken) -> Self {
        Self {
            parent: None,
            token: OnceLock::from(token),
        }
    }

    fn under(parent: &CancellationToken) -> Self {
        Self {
            parent: Some(parent.clone()),
            token: OnceLock::new(),
        }
    }

    fn token(&self) -> &CancellationToken {
        self.token.get_or_init(|| match &self.parent {
            Some(parent) => parent.child_token(),
            None => CancellationToken::new(),
        })
    }

    /// A token not made yet is cancelled exactly when its parent is: only the call's own token
    /// can be cancelled apart from the parent, and cancelling it makes it.
    fn is_cancelled(&self) -> bool {
        match (self.token.get(), &self.parent) {
            (Some(token), _) => token.is_cancelled(),
            (None, Some(parent)) => parent.is_cancelled(),
            (None, None) => false,
        }
    }
}

impl Clone for CallToken {
    /// A clone shares the call's token (so a timeout that cancels it reaches the clone, which a
    /// blocking tool holds): the token is made now if it was not yet.
    fn clone(&self) -> Self {
        Self::own(self.token().clone())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_under_a_parent_is_cancelled_with_it_whenever_it_asks() {
        let run = CancellationToken::new();
        let base = ToolContext::default();
        let early = base.for_call_under("a", &run);
        let early_token = early.cancellation().clone();
        let late = base.for_call_under("b", &run);
        let never_asked = base.for_call_under("c", &run);
        assert!(!early.is_cancelled() && !late.is_cancelled());
        run.cancel();
        assert!(early_token.is_cancelled() && early.is_cancelled());
        // Asked only after the parent was cancelled: cancelled already.
        assert!(late.cancellation().is_cancelled());
        assert!(never_asked.is_cancelled());
    }

    #[test]
    fn cancelling_a_call_stops_it_and_its_clones_but_not_the_parent_or_its_siblings() {
        let run = CancellationToken::new();
        let base = ToolContext::default().with_state(7_u8);
        let call = base.for_call_under("a", &run);
        let sibling = base.for_call_under("b", &run);
        // A clone made before anything asked for the token (a blocking tool's copy).
        let copy = call.clone();
        call.cancellation().cancel();
        assert!(copy.is_cancelled() && copy.cancellation().is_cancelled());
        assert!(!run.is_cancelled() && !sibling.is_cancelled());
        assert_eq!(copy.tool_call_id(), "a");
        assert_eq!(*copy.state::<u8>().unwrap(), 7);
    }

    #[test]
    fn a_given_token_is_the_calls_own() {
        let token = CancellationToken::new();
        let call = ToolContext::default().for_call("a", token.clone());
        assert!(!call.is_cancelled());
        token.cancel();
        assert!(call.is_cancelled() && call.cancellation().is_cancelled());
    }
}
