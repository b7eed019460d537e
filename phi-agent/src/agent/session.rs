//! A conversation with an agent, and the public run methods: each is a thin call into the
//! loop (`run/`), naming its plan (approvals asked or pausing, streamed or not, typed or not).

use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::answer::Answering;
use super::conversation::Conversation;
use super::output::{RunOutcome, RunOutput};
use super::paused::PausedRun;
use super::phi::PhiAgent;
use super::plan::{Inline, Pausing};
use super::run;
use super::stream::{RunStream, Sink};
use crate::error::AgentResult;
use crate::llm::Message;
use crate::registry::ActiveTools;

/// One conversation with a [`PhiAgent`], created by [`PhiAgent::session`].
///
/// Every [`run`](Self::run) sees the history of the earlier ones. Tools activated in a session
/// stay active for the rest of it. A run that fails or is dropped leaves the history as it was.
///
/// ```
/// use phi_agent::llm::{LlmResponse, ScriptedLlm};
/// use phi_agent::{base_agent_builder, AgentConfig, PhiAgent};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let llm = ScriptedLlm::new([LlmResponse::text("Hi Ada."), LlmResponse::text("You are Ada.")]);
/// let agent = PhiAgent::build(base_agent_builder(llm.clone()), AgentConfig::default())?;
/// let mut session = agent.session();
/// session.run("I am Ada.").await?;
/// session.run("Who am I?").await?;
/// assert_eq!(session.history().len(), 4);
/// assert_eq!(llm.requests()[1].messages.len(), 3, "the second turn saw the first exchange");
/// # Ok(())
/// # }
/// ```
pub struct AgentSession {
    pub(super) agent: PhiAgent,
    pub(super) conv: Conversation,
}

impl AgentSession {
    pub(super) fn new(agent: PhiAgent) -> Self {
        Self::restore(agent, Arc::from(new_session_id()), Vec::new())
    }

    pub(super) fn restore(agent: PhiAgent, id: Arc<str>, history: Vec<Message>) -> Self {
        let conv = Conversation::new(&agent.inner, id, history);
        Self { agent, conv }
    }

    /// Answers `input` in this conversation.
    ///
    /// Dropping the returned future cancels the tools it is running: their futures are dropped
    /// and their [`ToolContext::cancellation`](crate::ToolContext::cancellation) tokens fire.
    ///
    /// A call that needs approval is put to the agent's [`Approver`](crate::Approver); with
    /// none set, it is denied and the model is told that a person must approve it.
    pub async fn run(&mut self, input: impl Into<String>) -> AgentResult<RunOutput> {
        self.answer(input.into(), &Sink::off(), None).await
    }

    /// Answers `input` in this conversation as [`run`](Self::run) does (approvals included),
    /// yielding the run's events as they happen: the model's text and tool calls as they are
    /// written, each tool as it starts and finishes, and last the [`RunOutput`]; see
    /// [`StreamEvent`](crate::StreamEvent).
    ///
    /// Dropping the stream cancels the run (the model request and the running tools) and
    /// leaves the history as it was.
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// use phi_agent::llm::{LlmResponse, ScriptedLlm};
    /// use phi_agent::{base_agent_builder, AgentConfig, PhiAgent, StreamEvent};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> phi_agent::AgentResult<()> {
    /// let llm = ScriptedLlm::new([LlmResponse::text("Hello there")]).with_pieces(5);
    /// let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default())?;
    /// let mut session = agent.session();
    /// let mut text = String::new();
    /// let mut events = session.run_stream("Greet me");
    /// while let Some(event) = events.next().await {
    ///     match event? {
    ///         StreamEvent::TextDelta { text: piece, .. } => text.push_str(&piece),
    ///         StreamEvent::Finished(output) => assert_eq!(output.text, text),
    ///         _ => {}
    ///     }
    /// }
    /// drop(events);
    /// assert_eq!(session.history().len(), 2);
    /// # Ok(())
    /// # }
    /// ```
    pub fn run_stream(&mut self, input: impl Into<String>) -> RunStream<'_> {
        let input = input.into();
        RunStream::new(move |sink| async move {
            self.answer(input, &sink, None).await.map(RunOutcome::Done)
        })
    }

    /// Answers `input` in this conversation, pausing instead of asking anyone when a call needs
    /// approval: the calls of that turn that need none run, and the run comes back as
    /// [`RunOutcome::Paused`]. The agent's approver, if any, is not consulted.
    ///
    /// The session's history changes only when the run is done; a paused run carries the
    /// conversation with it.
    pub async fn start(&mut self, input: impl Into<String>) -> AgentResult<RunOutcome> {
        self.begin(input.into(), &Sink::off(), None).await
    }

    /// [`start`](Self::start) as a stream of events, as [`run_stream`](Self::run_stream) yields
    /// them; the last is [`StreamEvent::Finished`](crate::StreamEvent::Finished) when the model
    /// answers, or [`StreamEvent::Paused`](crate::StreamEvent::Paused) with the paused run,
    /// after an [`ApprovalRequested`](crate::StreamEvent::ApprovalRequested) for each call it
    /// waits on. The session's history changes as with `start`; dropping the stream cancels the
    /// run and leaves it as it was.
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
    /// use phi_agent::{base_agent_builder, phi_tool, AgentConfig, PhiAgent, StreamEvent};
    ///
    /// /// Delete a file.
    /// #[phi_tool(needs_approval)]
    /// async fn delete_file(path: String) -> String {
    ///     format!("deleted {path}")
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> phi_agent::AgentResult<()> {
    /// let call = ToolCall::new("c1", "delete_file", serde_json::json!({"path": "a.txt"}));
    /// let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![call]), LlmResponse::text("Done.")]);
    /// let agent = PhiAgent::build(base_agent_builder(llm).register_tool(DeleteFile), AgentConfig::default())?;
    /// let mut session = agent.session();
    ///
    /// let mut events = session.start_stream("Delete a.txt");
    /// let mut paused = None;
    /// while let Some(event) = events.next().await {
    ///     match event? {
    ///         StreamEvent::ApprovalRequested { call, .. } => assert_eq!(call.name, "delete_file"),
    ///         StreamEvent::Paused(run) => paused = Some(*run),
    ///         _ => {}
    ///     }
    /// }
    /// drop(events);
    /// let mut paused = paused.expect("the run paused");
    /// paused.approve("c1")?;
    ///
    /// let mut events = session.resume_stream(paused);
    /// while let Some(event) = events.next().await {
    ///     if let StreamEvent::Finished(output) = event? {
    ///         assert_eq!(output.text, "Done.");
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn start_stream(&mut self, input: impl Into<String>) -> RunStream<'_> {
        let input = input.into();
        RunStream::new(move |sink| async move { self.begin(input, &sink, None).await })
    }

    /// Resumes `paused` once each of its [`pending`](PausedRun::pending) calls is decided: runs
    /// the approved calls, gives the turn's results to the model in call order, and goes on
    /// until the model answers or another call needs approval (paused again). Never consults an
    /// approver.
    ///
    /// The session continues the paused run's conversation: when the run is done, its id,
    /// history and active tools are the paused run's (whichever session paused it); when it
    /// fails or pauses again, the session is as it was. Errors, and no panic, for an undecided
    /// call, a call of a tool this agent does not have, or a damaged state. Resuming one stored
    /// state twice runs its approved calls twice; see [`PausedRun`].
    pub async fn resume(&mut self, paused: PausedRun) -> AgentResult<RunOutcome> {
        self.go_on(paused, &Sink::off(), None).await
    }

    /// [`resume`](Self::resume) as a stream of events: the paused turn's decided calls as they
    /// run ([`ToolStarted`](crate::StreamEvent::ToolStarted),
    /// [`ToolFinished`](crate::StreamEvent::ToolFinished)), the end of that turn, then the
    /// turns after it as [`run_stream`](Self::run_stream) yields them; the last event is
    /// [`Finished`](crate::StreamEvent::Finished) or
    /// [`Paused`](crate::StreamEvent::Paused). The session changes as with `resume`; errors
    /// (an undecided call, a damaged state) end the stream before any event. See
    /// [`start_stream`](Self::start_stream) for an example.
    pub fn resume_stream(&mut self, paused: PausedRun) -> RunStream<'_> {
        RunStream::new(move |sink| async move { self.go_on(paused, &sink, None).await })
    }

    /// A run to the answer, its approvals put to the agent's approver (denied with none).
    pub(super) async fn answer(
        &mut self,
        input: String,
        sink: &Sink,
        answer: Option<&mut Answering>,
    ) -> AgentResult<RunOutput> {
        let policy = Inline(self.agent.inner.approver.clone());
        run::fresh(
            &self.agent.inner,
            &mut self.conv,
            input,
            &policy,
            sink,
            answer,
        )
        .await
    }

    /// A run to the answer or a pause.
    pub(super) async fn begin(
        &mut self,
        input: String,
        sink: &Sink,
        answer: Option<&mut Answering>,
    ) -> AgentResult<RunOutcome> {
        run::fresh(
            &self.agent.inner,
            &mut self.conv,
            input,
            &Pausing,
            sink,
            answer,
        )
        .await
    }

    /// A paused run, resumed to the answer or the next pause.
    pub(super) async fn go_on(
        &mut self,
        paused: PausedRun,
        sink: &Sink,
        answer: Option<&mut Answering>,
    ) -> AgentResult<RunOutcome> {
        run::resumed(&self.agent.inner, &mut self.conv, paused, sink, answer).await
    }

    /// The session's id, also given to tools and activation predicates.
    pub fn id(&self) -> &str {
        &self.conv.id
    }

    /// The conversation so far (the system prompt is not part of it).
    pub fn history(&self) -> &[Message] {
        &self.conv.history
    }

    /// The tools the model may currently see and call.
    pub fn active_tools(&self) -> &ActiveTools {
        &self.conv.active
    }

    /// The agent this session talks to.
    pub fn agent(&self) -> &PhiAgent {
        &self.agent
    }
}

impl fmt::Debug for AgentSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentSession")
            .field("id", &self.conv.id)
            .field("messages", &self.conv.history.len())
            .field("active_tools", &self.conv.active.names())
            .finish_non_exhaustive()
    }
}

/// The run methods of an agent: each in a fresh session.
impl PhiAgent {
    /// Answers `input` in a fresh session (no history): the model may call tools for several
    /// turns before it answers. Calls that need approval go to the builder's
    /// [`Approver`](crate::Approver); with none set they are denied (the model is told a person must approve
    /// them).
    pub async fn run(&self, input: impl Into<String>) -> AgentResult<RunOutput> {
        self.session().run(input).await
    }

    /// Answers `input` in a fresh session as [`run`](Self::run) does, as a stream of events: the
    /// model's text and calls as they are written, the tools as they run, and last the
    /// [`RunOutput`]. Dropping the stream cancels the run; see [`AgentSession::run_stream`].
    pub fn run_stream(&self, input: impl Into<String>) -> RunStream<'static> {
        let mut session = self.session();
        let input = input.into();
        RunStream::new(move |sink| async move {
            session
                .answer(input, &sink, None)
                .await
                .map(RunOutcome::Done)
        })
    }

    /// Answers `input` in a fresh session, pausing when a call needs approval instead of
    /// asking anyone; see [`AgentSession::start`].
    pub async fn start(&self, input: impl Into<String>) -> AgentResult<RunOutcome> {
        self.session().start(input).await
    }

    /// [`start`](Self::start) as a stream of events, ending with
    /// [`StreamEvent::Finished`](crate::StreamEvent::Finished) or
    /// [`StreamEvent::Paused`](crate::StreamEvent::Paused); see
    /// [`AgentSession::start_stream`].
    pub fn start_stream(&self, input: impl Into<String>) -> RunStream<'static> {
        let mut session = self.session();
        let input = input.into();
        RunStream::new(move |sink| async move { session.begin(input, &sink, None).await })
    }

    /// [`resume`](Self::resume) as a stream of events, ending with
    /// [`StreamEvent::Finished`](crate::StreamEvent::Finished) or
    /// [`StreamEvent::Paused`](crate::StreamEvent::Paused); see
    /// [`AgentSession::resume_stream`].
    pub fn resume_stream(&self, paused: PausedRun) -> RunStream<'static> {
        let mut session = self.session();
        RunStream::new(move |sink| async move { session.go_on(paused, &sink, None).await })
    }

    /// Resumes a paused run (possibly one paused by another process, on an agent with the same
    /// tools) in a new session that takes the paused run's id; see [`AgentSession::resume`].
    pub async fn resume(&self, paused: PausedRun) -> AgentResult<RunOutcome> {
        self.session().resume(paused).await
    }

    /// A new conversation: its own id, history and set of activated tools.
    pub fn session(&self) -> AgentSession {
        AgentSession::new(self.clone())
    }

    /// A session that goes on with a conversation kept elsewhere (a database, Restate's state):
    /// id `id`, history `history`. Its tools start as a new session's do.
    pub fn restore_session(&self, id: impl Into<String>, history: Vec<Message>) -> AgentSession {
        AgentSession::restore(self.clone(), Arc::from(id.into()), history)
    }
}

/// A session id unique within the process and unlikely to repeat across processes.
fn new_session_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    format!("session-{:016x}", hasher.finish())
}
