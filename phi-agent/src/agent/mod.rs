//! The agent: a model, its tools, and the loop between them.

mod answer;
mod approval;
mod builder;
mod config;
mod events;
mod output;
mod paused;
mod retry_budget;
mod run;
mod session;
mod step;
mod stream;
mod tool_list;
mod typed;

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::error::{AgentError, AgentResult};
use crate::llm::{LlmClient, Message};
use crate::registry::ToolRegistry;
use crate::search::{SEARCH_TOOL_NAME, ToolIndex, ToolSearch};
use crate::state::SharedState;

pub use approval::{Approval, ApprovalRequest, Approver};
pub use builder::{AgentBuilder, base_agent_builder};
pub use config::AgentConfig;
pub use events::{AgentEvent, AgentObserver};
pub use output::{RunOutcome, RunOutput, ToolCallRecord};
pub use paused::{PausedRun, PendingCall};
pub use session::AgentSession;
pub use step::{InProcess, JournalExecutor, StepExecutor, StepFuture, StepOutput, ToolStep};
pub use stream::{RunStream, StreamEvent};
pub use typed::{AnswerMode, AnswerOptions, TypedOutput};

/// An agent: a model, a system prompt and a registry of tools. Cheap to clone (one `Arc`).
///
/// ```
/// use phi_agent::llm::{LlmResponse, ScriptedLlm};
/// use phi_agent::{base_agent_builder, AgentConfig, PhiAgent};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let llm = ScriptedLlm::new([LlmResponse::text("Hello!")]);
/// let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default())?;
/// let output = agent.run("Say hello").await?;
/// assert_eq!(output.text, "Hello!");
/// assert_eq!(output.turns, 1);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct PhiAgent {
    inner: Arc<AgentInner>,
}

struct AgentInner {
    llm: Arc<dyn LlmClient>,
    system_prompt: Option<String>,
    registry: Arc<ToolRegistry>,
    state: SharedState,
    config: AgentConfig,
    observer: Option<Arc<dyn AgentObserver>>,
    approver: Option<Arc<dyn Approver>>,
    workspace: PathBuf,
    /// The search index over the Deferred tools, built on the first search of any session.
    tool_index: OnceLock<ToolIndex>,
    /// The Direct tools and `search_tools`: the list of every searching session that has found
    /// nothing yet.
    search_list: OnceLock<Arc<[crate::llm::ToolSpec]>>,
    /// The deferred tools of native tool search, for the discoverable set it was built for:
    /// sessions that can discover the same tools share one list (and the adapter's text of it).
    deferred_list: tool_list::SharedDeferred,
    steps: Arc<dyn StepExecutor>,
}

impl AgentInner {
    fn tool_index(&self) -> &ToolIndex {
        self.tool_index
            .get_or_init(|| ToolIndex::build(&self.registry))
    }
}

impl PhiAgent {
    /// Builds the agent, registering its tools; fails on an invalid or duplicate tool name, a
    /// `requires_tools` name that is not registered or is hidden
    /// ([`ToolRegistry::check_requirements`]), a loop limit of zero, or a tool named
    /// `search_tools` while tool search is on.
    pub fn build(builder: AgentBuilder, config: AgentConfig) -> AgentResult<PhiAgent> {
        if config.max_turns == 0 || config.max_parallel_tools == 0 {
            return Err(AgentError::Config(format!(
                "max_turns ({}) and max_parallel_tools ({}) must both be at least 1",
                config.max_turns, config.max_parallel_tools
            )));
        }
        if config.max_repeated_failures == 0 {
            return Err(AgentError::Config(
                "max_repeated_failures must be at least 1 (the failures one identical tool call may have in a run)".into(),
            ));
        }
        let mut registry = ToolRegistry::new(config.tools.clone());
        registry.register_all(builder.tools)?;
        if config.tool_search != ToolSearch::Off && registry.get(SEARCH_TOOL_NAME).is_some() {
            return Err(AgentError::Config(format!(
                "a tool is named `{SEARCH_TOOL_NAME}`, the name of the search tool that tool search offers; rename the tool or turn tool search off"
            )));
        }
        registry.check_requirements()?;
        Ok(PhiAgent {
            inner: Arc::new(AgentInner {
                llm: builder.llm,
                system_prompt: builder.system_prompt,
                registry: Arc::new(registry),
                state: builder.state,
                config,
                observer: builder.observer,
                approver: builder.approver,
                workspace: builder.workspace,
                tool_index: OnceLock::new(),
                search_list: OnceLock::new(),
                deferred_list: std::sync::Mutex::new(None),
                steps: builder.steps,
            }),
        })
    }

    /// Answers `input` in a fresh session (no history): the model may call tools for several
    /// turns before it answers. Calls that need approval go to the builder's
    /// [`Approver`]; with none set they are denied (the model is told a person must approve
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
                .run_to_answer(input, &sink)
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
    /// [`StreamEvent::Finished`] or [`StreamEvent::Paused`]; see
    /// [`AgentSession::start_stream`].
    pub fn start_stream(&self, input: impl Into<String>) -> RunStream<'static> {
        let mut session = self.session();
        let input = input.into();
        RunStream::new(move |sink| async move { session.start_with(input, &sink).await })
    }

    /// [`resume`](Self::resume) as a stream of events, ending with
    /// [`StreamEvent::Finished`] or [`StreamEvent::Paused`]; see
    /// [`AgentSession::resume_stream`].
    pub fn resume_stream(&self, paused: PausedRun) -> RunStream<'static> {
        let mut session = self.session();
        RunStream::new(move |sink| async move { session.resume_paused(paused, &sink).await })
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

    /// The agent's tools.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.inner.registry
    }

    /// The system prompt.
    pub fn system_prompt(&self) -> Option<&str> {
        self.inner.system_prompt.as_deref()
    }

    /// The configuration the agent was built with.
    pub fn config(&self) -> &AgentConfig {
        &self.inner.config
    }

    /// The state shared with every tool.
    pub fn shared_state(&self) -> &SharedState {
        &self.inner.state
    }

    /// The model.
    pub fn llm(&self) -> &Arc<dyn LlmClient> {
        &self.inner.llm
    }
}

impl fmt::Debug for PhiAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PhiAgent")
            .field("system_prompt", &self.inner.system_prompt)
            .field("tools", &self.inner.registry.len())
            .field("config", &self.inner.config)
            .field("approver", &self.inner.approver.is_some())
            .field("workspace", &self.inner.workspace)
            .finish_non_exhaustive()
    }
}
