//! What a tool and an activation predicate know about the run they are part of.

mod call_id;
mod elicitation;
pub(crate) mod nested;
mod run_peer;
mod talk;
#[cfg(test)]
mod talk_tests;
mod token;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::AgentResult;
use crate::state::SharedState;
use call_id::CallId;
pub use elicitation::{ElicitationHandler, ElicitationRequest};
pub use nested::CalledTool;
pub(crate) use run_peer::{RunPeer, Speaker};
pub use talk::{
    Elicitation, LogLevel, Progress, Root, SampleRequest, SampleRole, Sampled, ToolPeer,
};
use token::CallToken;

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
#[derive(Debug)]
pub struct ToolContext {
    /// What every call of a session (and of a run) shares, behind one `Arc`: a context per call
    /// then costs one reference count for all of it.
    session: Arc<Session>,
    tool_call_id: CallId,
    /// The turn of the call, from 1; 0 outside an agent run.
    turn: usize,
    cancellation: CallToken,
    /// Where progress, log messages and questions go ([`ToolPeer`]); `None`: nowhere but
    /// tracing, and questions are refused.
    peer: Option<Arc<dyn ToolPeer>>,
}

#[derive(Debug, Clone)]
struct Session {
    session_id: Arc<str>,
    workspace: Arc<Path>,
    state: SharedState,
    /// The token of the run (or client request) the calls made with
    /// [`ToolContext::for_call_in_run`] belong to: their tokens are its children.
    run: Option<CancellationToken>,
    /// Where the calls of the run talk back when they have no peer of their own
    /// ([`ToolContext::with_run_peer`]).
    run_peer: Option<Arc<dyn RunPeer>>,
}

impl Clone for ToolContext {
    /// A clone shares the call's token (so a timeout that cancels it reaches the clone, which a
    /// blocking tool holds): the token is made now if it was not yet.
    fn clone(&self) -> Self {
        Self {
            session: self.session.clone(),
            tool_call_id: self.tool_call_id.clone(),
            turn: self.turn,
            cancellation: self.cancellation.share(self.session.run.as_ref()),
            peer: self.peer.clone(),
        }
    }
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
                run: None,
                run_peer: None,
            }),
            tool_call_id: CallId::new(""),
            turn: 0,
            cancellation: CallToken::own(CancellationToken::new()),
            peer: None,
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
            tool_call_id: CallId::from(tool_call_id.into()),
            turn: self.turn,
            cancellation: CallToken::own(cancellation),
            peer: self.peer.clone(),
        }
    }

    /// This context for the call with id `tool_call_id`, cancelled when `parent` is (a run, a
    /// client's request), or by itself (its timeout): its token is a
    /// [child](CancellationToken::child_token) of `parent`, as with
    /// `for_call(id, parent.child_token())`, but made only when something asks for it
    /// ([`cancellation`](Self::cancellation), or a clone of this context), so that a call whose
    /// tool never asks costs no token. Asked after `parent` was cancelled, the token is
    /// cancelled already. What the MCP server uses for every request. For many calls under one
    /// parent (a run's), [`for_run`](Self::for_run) once and
    /// [`for_call_in_run`](Self::for_call_in_run) per call cost less: cloning a
    /// `CancellationToken` locks its mutex, and the run's token is then shared instead.
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
    pub fn for_call_under(&self, tool_call_id: &str, parent: &CancellationToken) -> Self {
        Self {
            session: self.session.clone(),
            tool_call_id: CallId::new(tool_call_id),
            turn: self.turn,
            cancellation: CallToken::under(parent),
            peer: self.peer.clone(),
        }
    }

    /// This context for a run cancelled by `run`: it is cancelled with `run`, and the calls made
    /// from it with [`for_call_in_run`](Self::for_call_in_run) are too. Made once per run (it
    /// copies the session's shared part); what the agent loop does.
    ///
    /// ```
    /// use phi_agent::ToolContext;
    /// use tokio_util::sync::CancellationToken;
    ///
    /// let run = CancellationToken::new();
    /// let in_run = ToolContext::default().for_run(run.clone());
    /// let call = in_run.for_call_in_run("call_1");
    /// assert_eq!(call.tool_call_id(), "call_1");
    /// assert!(!call.is_cancelled());
    /// run.cancel();
    /// assert!(call.is_cancelled() && call.cancellation().is_cancelled());
    /// ```
    pub fn for_run(&self, run: CancellationToken) -> Self {
        let session = Session {
            run: Some(run.clone()),
            ..Session::clone(&self.session)
        };
        Self {
            session: Arc::new(session),
            tool_call_id: self.tool_call_id.clone(),
            turn: self.turn,
            cancellation: CallToken::own(run),
            peer: self.peer.clone(),
        }
    }

    /// The context of the call `tool_call_id` of this context's run (see
    /// [`for_run`](Self::for_run)): cancelled when the run is, or by itself (its timeout), as
    /// with [`for_call_under`](Self::for_call_under) the run's token, but without holding a
    /// handle of it: the call shares the run's through the context's one `Arc`, so that a
    /// context per call costs a reference count and a copy of the id. On a context made
    /// otherwise, the call has no parent to be cancelled with.
    pub fn for_call_in_run(&self, tool_call_id: &str) -> Self {
        Self {
            session: self.session.clone(),
            tool_call_id: CallId::new(tool_call_id),
            turn: self.turn,
            cancellation: CallToken::in_run(),
            peer: self.peer.clone(),
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
        self.tool_call_id.as_str()
    }

    /// The turn of the call, from 1; 0 outside an agent run (for the MCP client, which hands
    /// a server's questions to a handler with the turn that asked).
    #[cfg_attr(not(feature = "mcp-client"), allow(dead_code))]
    pub(crate) fn turn(&self) -> usize {
        self.turn
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
    ///
    /// A call that asked the user a question and paused the run runs again with the answer as
    /// a step of its own (journaled as `turn/<n>/tool/<call id>/answered`), and its `step_key`
    /// stays the same: a side effect made before the question is made once.
    pub fn step_key(&self) -> String {
        if self.turn == 0 {
            return String::new();
        }
        format!("turn/{}/tool/{}", self.turn, self.tool_call_id.as_str())
    }

    /// The token that is cancelled when the call should stop (run dropped, timeout, client cancel).
    ///
    /// Long-running tools should `select!` on [`CancellationToken::cancelled`].
    pub fn cancellation(&self) -> &CancellationToken {
        self.cancellation.token(self.session.run.as_ref())
    }

    /// Whether this call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled(self.session.run.as_ref())
    }

    /// The shared value of type `T` the program provided, or an error that says how to provide it.
    pub fn state<T: Send + Sync + 'static>(&self) -> AgentResult<&T> {
        self.session.state.get::<T>()
    }

    /// All shared state.
    pub fn shared_state(&self) -> &SharedState {
        &self.session.state
    }

    /// This context with `peer` as where the call's progress, log messages and questions go.
    /// The MCP server sets its client for every call; set one in a test to see what a tool says
    /// and to answer its questions.
    pub fn with_peer(mut self, peer: Arc<dyn ToolPeer>) -> Self {
        self.peer = Some(peer);
        self
    }

    /// This run context (see [`for_run`](Self::for_run)) with `peer` as where its calls talk
    /// back, told which call speaks: set once per run, it costs the calls nothing.
    pub(crate) fn with_run_peer(mut self, peer: Arc<dyn RunPeer>) -> Self {
        Arc::make_mut(&mut self.session).run_peer = Some(peer);
        self
    }

    /// The run's peer and this call, when the call has no peer of its own.
    fn run_peer(&self) -> Option<(&dyn RunPeer, Speaker<'_>)> {
        let peer = self.session.run_peer.as_deref()?;
        let speaker = Speaker {
            call_id: self.tool_call_id(),
            turn: self.turn,
        };
        Some((peer, speaker))
    }

    /// Whether something hears this call's progress and questions (else they go to tracing,
    /// and questions are refused).
    pub fn has_peer(&self) -> bool {
        self.peer.is_some() || self.session.run_peer.is_some()
    }

    /// Reports progress: `done` so far (it should grow with every report), out of `total` when
    /// known, with an optional message. Over MCP it reaches the client as
    /// `notifications/progress` when the client asked for progress (its request carried a
    /// progress token), which lets clients that extend their timeout on progress wait for a
    /// long tool; elsewhere it is a tracing event. Never fails the call.
    ///
    /// ```
    /// # async fn run(ctx: &phi_agent::ToolContext) {
    /// for (done, file) in ["a.csv", "b.csv"].iter().enumerate() {
    ///     ctx.progress(done as f64, Some(2.0), Some(&format!("reading {file}"))).await;
    /// }
    /// # }
    /// ```
    pub async fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        let progress = Progress {
            done,
            total,
            message: message.map(str::to_string),
        };
        if let Some(peer) = &self.peer {
            peer.progress(progress).await;
        } else if let Some((peer, call)) = self.run_peer() {
            peer.progress(call, progress).await;
        } else {
            talk::no_peer_progress(self.tool_call_id(), &progress).await;
        }
    }

    /// Writes a log message at `level` with `data` (a string, or any JSON). Over MCP it reaches
    /// the client as `notifications/message` when `level` is at or above the level the client
    /// set (`logging/setLevel`; `info` until it does); elsewhere it is a tracing event. Never
    /// fails the call.
    pub async fn log(&self, level: LogLevel, data: impl Serialize) {
        let data =
            serde_json::to_value(data).unwrap_or_else(|error| Value::String(error.to_string()));
        if let Some(peer) = &self.peer {
            peer.log(level, data).await;
        } else if let Some((peer, call)) = self.run_peer() {
            peer.log(call, level, data).await;
        } else {
            talk::no_peer_log(self.tool_call_id(), level, &data);
        }
    }

    /// Closes the stream this call's answer goes out on, now, mid-call: the client reconnects
    /// when the server told it to (the stream's `retry` field, the HTTP server's
    /// `HttpOptions::with_sse_retry`) and resumes
    /// the stream with `Last-Event-ID`, getting what the call sent meanwhile and then its result.
    /// This is MCP's SSE polling (2025-11-25, SEP-1699): a long call need not hold a connection
    /// open all along (proxies and load balancers time idle ones out). The call goes on; once the
    /// tool returns, its result waits until the client is back (at most the `retry` interval and
    /// 10 seconds more). It may close its stream several times. Returns whether a stream was
    /// closed: only a `tools/call` in a session of the streamable HTTP server has one; over
    /// stdio, a stateless server, a task or an agent run, `false` and nothing happens.
    ///
    /// ```
    /// # async fn run(ctx: &phi_agent::ToolContext) {
    /// for part in 0..3 {
    ///     // ... work on `part` ...
    ///     ctx.progress(part as f64, Some(3.0), None).await;
    ///     ctx.close_stream().await; // the client polls instead of holding the connection
    /// }
    /// # }
    /// ```
    pub async fn close_stream(&self) -> bool {
        match &self.peer {
            Some(peer) => peer.close_stream().await,
            None => false,
        }
    }

    /// Asks the user `message` with a form for a `T`, and waits for the answer: the filled-in
    /// `T`, or that the user declined or cancelled. `T` must be a flat struct of primitive
    /// fields (strings, numbers, booleans, enums of strings), as MCP's elicitation allows; a
    /// field's doc comment is its description and `#[serde(default)]` makes it optional.
    ///
    /// Over MCP the question goes to the client (an error if it does not support elicitation).
    /// In an agent run it goes to the agent's
    /// [`elicitation_handler`](crate::AgentBuilder::elicitation_handler); without one, a run that
    /// may pause ([`PhiAgent::start`](crate::PhiAgent::start)) pauses on the question and runs
    /// the call again with the answer once resumed, and other runs get an error result. Without a
    /// peer it is an error result saying the question cannot be asked here.
    ///
    /// ```
    /// use phi_agent::{AgentResult, Elicitation, ToolContext};
    /// use schemars::JsonSchema;
    /// use serde::Deserialize;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Confirm {
    ///     /// Ship to the address on file?
    ///     ship: bool,
    /// }
    ///
    /// async fn order(ctx: &ToolContext) -> AgentResult<String> {
    ///     match ctx.elicit::<Confirm>("Ship this order?").await? {
    ///         Elicitation::Accept(Confirm { ship: true }) => Ok("shipped".into()),
    ///         Elicitation::Accept(_) | Elicitation::Decline => Ok("not shipped".into()),
    ///         Elicitation::Cancel => Ok("cancelled".into()),
    ///     }
    /// }
    /// # let answer = tokio::runtime::Builder::new_current_thread().build().unwrap()
    /// #     .block_on(order(&ToolContext::default()));
    /// # assert!(answer.unwrap_err().to_string().contains("not supported where it runs now"));
    /// ```
    pub async fn elicit<T: JsonSchema + DeserializeOwned>(
        &self,
        message: &str,
    ) -> AgentResult<Elicitation<T>> {
        let answer = self
            .elicit_with_schema_as(&talk::form_key::<T>(), message, talk::form_schema::<T>())
            .await?;
        talk::decode_answer(answer)
    }

    /// [`elicit`](Self::elicit) with a form schema written by hand (for what a Rust type does not
    /// say: defaults, titled choices); the accepted content is the JSON the user entered.
    pub async fn elicit_with_schema(
        &self,
        message: &str,
        schema: Value,
    ) -> AgentResult<Elicitation<Value>> {
        self.elicit_with_schema_as("elicitation", message, schema)
            .await
    }

    /// [`elicit_with_schema`](Self::elicit_with_schema) under the name `key`, where a client
    /// answers questions by name: served over MCP at protocol 2026-07-28, the question is the
    /// input request `key` of the call's `input_required` result (a second question of the
    /// same key in one call goes by `key-2`, and so on). [`elicit`](Self::elicit) names it
    /// after the form's type (`UserName` -> `user_name`).
    pub async fn elicit_with_schema_as(
        &self,
        key: &str,
        message: &str,
        schema: Value,
    ) -> AgentResult<Elicitation<Value>> {
        if let Some(peer) = &self.peer {
            peer.elicit_as(key, message, schema).await
        } else if let Some((peer, call)) = self.run_peer() {
            peer.elicit(call, message, schema).await
        } else {
            Err(talk::not_connected("ask the user a question"))
        }
    }

    /// Calls the tool `name` with `arguments` through the run this call is part of, exactly as
    /// if the model had called it: the tool must be available to the model (exposure, tool
    /// search), its arguments are checked (every mistake at once), it runs with its timeout and
    /// its panics contained, a call that needs approval is put to the agent's approver or pauses
    /// the run, and it is a step of its own under the stable key
    /// `turn/<n>/tool/<this call's id>/call/<k>` (`k` counts this call's nested calls from 0),
    /// reported with its own tool events whose call id is `<this call's id>/call/<k>`. A failed
    /// call is an `Ok` [`CalledTool`] with `is_error` set, holding what the model would read.
    ///
    /// `Err` means the call cannot be made, and the caller should stop: the run pauses on it
    /// (it needs approval, and the run was started with [`start`](crate::PhiAgent::start): the
    /// call is run again on resume, and the nested calls it made before are answered from the
    /// paused state, so make them in the same order), or this call is not part of an agent run
    /// and its [peer](Self::with_peer) does not call tools. While a resumed run finishes the
    /// turn it paused in, a further nested call that needs approval cannot pause it again: it
    /// is denied, with a result saying so. A durable run replays the nested calls it journaled. Make nested calls one after another, awaited in this call's own
    /// future (not in a spawned task or thread), so that `k` names the same call on every run.
    ///
    /// This is what code mode (`phi-agent-code`) builds on; most tools never need it.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> AgentResult<CalledTool> {
        if let Some(peer) = &self.peer {
            peer.call_tool(name, arguments).await
        } else if self.session.run_peer.is_some() {
            nested::request(self.tool_call_id(), name, arguments).await
        } else {
            Err(talk::not_connected("call another tool"))
        }
    }

    /// Asks a model: over MCP the client's (`sampling/createMessage`, an error if the client
    /// does not support sampling); in an agent run the agent's own model, or its
    /// [`sampling_model`](crate::AgentBuilder::sampling_model); without a peer an error result
    /// saying it cannot be asked here.
    pub async fn sample(&self, request: SampleRequest) -> AgentResult<Sampled> {
        if let Some(peer) = &self.peer {
            peer.sample(request).await
        } else if let Some((peer, call)) = self.run_peer() {
            peer.sample(call, request).await
        } else {
            Err(talk::not_connected("ask a model"))
        }
    }

    /// The client's roots, the directories and files it lets the tool work in: over MCP the
    /// client's `roots/list` (an error if it declared no roots capability); elsewhere an error
    /// saying they cannot be asked for here.
    pub async fn roots(&self) -> AgentResult<Vec<Root>> {
        match &self.peer {
            Some(peer) => peer.roots().await,
            None => Err(talk::not_connected("list the client's roots")),
        }
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
    fn the_calls_of_a_run_are_cancelled_with_it_and_alone_without_it() {
        let run = CancellationToken::new();
        let in_run = ToolContext::default().with_state(7_u8).for_run(run.clone());
        let asked_early = in_run.for_call_in_run("a");
        let token = asked_early.cancellation().clone();
        let copy = in_run.for_call_in_run("b").clone();
        let sibling = in_run.for_call_in_run("c");
        copy.cancellation().cancel();
        assert!(copy.is_cancelled() && !sibling.is_cancelled() && !run.is_cancelled());
        assert!(!in_run.is_cancelled());
        run.cancel();
        assert!(token.is_cancelled() && sibling.is_cancelled() && in_run.is_cancelled());
        assert!(in_run.for_call_in_run("d").cancellation().is_cancelled());
        assert_eq!(*copy.state::<u8>().unwrap(), 7);
        assert_eq!(sibling.tool_call_id(), "c");
        // Outside a run, a call has no parent: never cancelled but by itself.
        let alone = ToolContext::default().for_call_in_run("e");
        assert!(!alone.is_cancelled());
        alone.cancellation().cancel();
        assert!(alone.is_cancelled());
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
