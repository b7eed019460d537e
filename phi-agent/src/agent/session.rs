//! A conversation with an agent: its id, history and activated tools, kept across inputs.

use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::answer::Answering;
use super::output::RunOutcome;
use super::paused::PausedRun;
use super::run::Approvals;
use super::stream::{RunStream, Sink};
use super::tool_list::ToolListCache;
use super::{PhiAgent, RunOutput};
use crate::context::ActivationContext;
use crate::error::{AgentError, AgentResult};
use crate::llm::Message;
use crate::registry::ActiveTools;
use crate::search::ToolSearch;

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
    pub(super) id: Arc<str>,
    pub(super) history: Vec<Message>,
    pub(super) active: ActiveTools,
    pub(super) tool_list: ToolListCache,
    pub(super) search: SessionSearch,
}

/// Whether a session's model searches for its Deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SessionSearch {
    /// Deferred tools are sent once active.
    Off,
    /// Automatic mode before the session's first activation round, which decides.
    Undecided {
        /// Most discoverable tools sent without searching.
        threshold: usize,
    },
    /// Deferred tools are found with `search_tools`.
    On,
    /// Deferred tools are sent deferred, for the provider's own search to find.
    Native,
}

impl SessionSearch {
    /// Searching: the provider's own search when the model's client has one, else the local one.
    pub(super) fn on(agent: &PhiAgent) -> Self {
        if agent.inner.llm.native_tool_search() {
            SessionSearch::Native
        } else {
            SessionSearch::On
        }
    }
}

impl AgentSession {
    pub(super) fn new(agent: PhiAgent) -> Self {
        Self::restore(agent, Arc::from(new_session_id()), Vec::new())
    }

    pub(super) fn restore(agent: PhiAgent, id: Arc<str>, history: Vec<Message>) -> Self {
        let context = ActivationContext {
            session_id: id.to_string(),
            current_tools: Vec::new(),
            workspace: agent.inner.workspace.clone(),
        };
        let mut active = agent.inner.registry.active_tools(&context);
        let search = match agent.inner.config.tool_search {
            ToolSearch::Off => SessionSearch::Off,
            ToolSearch::Local => SessionSearch::On,
            ToolSearch::Native => SessionSearch::on(&agent),
            ToolSearch::Auto { threshold } => SessionSearch::Undecided { threshold },
        };
        if search != SessionSearch::Off {
            active.start_discovery();
        }
        Self {
            agent,
            id,
            history,
            active,
            tool_list: ToolListCache::default(),
            search,
        }
    }

    /// Answers `input` in this conversation.
    ///
    /// Dropping the returned future cancels the tools it is running: their futures are dropped
    /// and their [`ToolContext::cancellation`](crate::ToolContext::cancellation) tokens fire.
    ///
    /// A call that needs approval is put to the agent's [`Approver`](crate::Approver); with
    /// none set, it is denied and the model is told that a person must approve it.
    pub async fn run(&mut self, input: impl Into<String>) -> AgentResult<RunOutput> {
        self.run_to_answer(input.into(), &Sink::off()).await
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
            self.run_to_answer(input, &sink).await.map(RunOutcome::Done)
        })
    }

    /// Runs `input` with the agent's approver until the model answers.
    pub(super) async fn run_to_answer(
        &mut self,
        input: String,
        sink: &Sink,
    ) -> AgentResult<RunOutput> {
        self.run_to_answer_with(input, sink, None).await
    }

    /// [`run_to_answer`](Self::run_to_answer), for a typed run when `answer` is given.
    pub(super) async fn run_to_answer_with(
        &mut self,
        input: String,
        sink: &Sink,
        answer: Option<&mut Answering>,
    ) -> AgentResult<RunOutput> {
        let approver = self.agent.inner.approver.clone();
        match self
            .run_input_with(input, Approvals::Ask(approver), sink, answer)
            .await?
        {
            RunOutcome::Done(output) => Ok(output),
            // `Approvals::Ask` settles every call within its turn, so this arm is never taken;
            // an error rather than a panic keeps that promise cheap to break safely.
            RunOutcome::Paused(paused) => Err(AgentError::Config(format!(
                "the run paused on {} call(s) although it was asked to settle every approval \
                 itself; use `start`/`resume` to pause runs",
                paused.pending().len()
            ))),
        }
    }

    /// Answers `input` in this conversation, pausing instead of asking anyone when a call needs
    /// approval: the calls of that turn that need none run, and the run comes back as
    /// [`RunOutcome::Paused`]. The agent's approver, if any, is not consulted.
    ///
    /// The session's history changes only when the run is done; a paused run carries the
    /// conversation with it.
    pub async fn start(&mut self, input: impl Into<String>) -> AgentResult<RunOutcome> {
        self.start_with(input.into(), &Sink::off()).await
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
        RunStream::new(move |sink| async move { self.start_with(input, &sink).await })
    }

    /// Runs `input` to an answer or a pause, handing events to `sink`.
    pub(super) async fn start_with(
        &mut self,
        input: String,
        sink: &Sink,
    ) -> AgentResult<RunOutcome> {
        self.run_input(input, Approvals::Pause, sink).await
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
        self.resume_paused(paused, &Sink::off()).await
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
        RunStream::new(move |sink| async move { self.resume_paused(paused, &sink).await })
    }

    /// The session's id, also given to tools and activation predicates.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The conversation so far (the system prompt is not part of it).
    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The tools the model may currently see and call.
    pub fn active_tools(&self) -> &ActiveTools {
        &self.active
    }

    /// The agent this session talks to.
    pub fn agent(&self) -> &PhiAgent {
        &self.agent
    }
}

impl fmt::Debug for AgentSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentSession")
            .field("id", &self.id)
            .field("messages", &self.history.len())
            .field("active_tools", &self.active.names())
            .finish_non_exhaustive()
    }
}

/// A session id unique within the process and unlikely to repeat across processes.
fn new_session_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    format!("session-{:016x}", hasher.finish())
}
