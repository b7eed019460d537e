//! A conversation with an agent: its id, history and active tools, which its runs
//! ([`AgentSession::prompt`]) read and write.

use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::conversation::Conversation;
use super::phi::PhiAgent;
use crate::llm::{Message, Usage};
use crate::registry::ActiveTools;

/// One conversation with a [`PhiAgent`], created by [`PhiAgent::session`].
///
/// Every run ([`prompt`](Self::prompt)) sees the history of the earlier ones. Tools activated in
/// a session stay active for the rest of it. A run that fails or is dropped leaves the history
/// as it was.
///
/// ```
/// use phi_agent::llm::{LlmResponse, ScriptedLlm};
/// use phi_agent::{base_agent_builder, AgentConfig, PhiAgent};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let llm = ScriptedLlm::new([LlmResponse::text("Hi Ada."), LlmResponse::text("You are Ada.")]);
/// let agent = PhiAgent::build(base_agent_builder(llm.clone()), AgentConfig::default())?;
/// let mut session = agent.session();
/// session.prompt("I am Ada.").await?;
/// session.prompt("Who am I?").await?;
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

    /// The session's id, also given to tools and activation predicates.
    pub fn id(&self) -> &str {
        &self.conv.id
    }

    /// The conversation so far (the system prompt is not part of it).
    pub fn history(&self) -> &[Message] {
        &self.conv.history
    }

    /// The tokens of every run that finished in this session, summed (cache reads and writes
    /// included, as [`Usage`] counts them). A run that failed, was dropped or paused counts
    /// once it finishes, if it does.
    pub fn usage(&self) -> Usage {
        self.conv.usage
    }

    /// Sets the system prompt of this session's next runs, in place of the agent's (`None`:
    /// the agent's again). The system prompt is part of every request's cached prefix: a
    /// change re-sends the whole conversation at the full input price, once, and is reported
    /// ([`AgentEvent::PrefixChanged`](crate::AgentEvent::PrefixChanged)). A paused run resumed
    /// in another session gets that session's.
    pub fn set_system_prompt(&mut self, prompt: Option<String>) {
        self.conv.system = prompt.map(Arc::from);
    }

    /// A handle that queues user messages for this session's runs, taken in at the next step
    /// boundary of the run in progress (or of the next run); see [`Steering`](crate::Steering).
    pub fn steering(&self) -> crate::Steering {
        self.conv.steering.clone()
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

impl PhiAgent {
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
