//! Steering: a person's message taken into a running run at its next step boundary.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex};

/// A handle that queues user messages for a session's runs ([`AgentSession::steering`](crate::AgentSession::steering)).
///
/// A message sent while a run runs is taken in at its next step boundary: before its next model
/// request, after the running turn's calls have finished (none is cancelled), as a user message
/// after their results, announced by [`AgentEvent::Steered`](crate::AgentEvent::Steered) and
/// [`StreamEvent::Steered`](crate::StreamEvent::Steered). A message sent between runs goes to the
/// next run, after its prompt. Clone it freely and send from any task or thread.
///
/// Messages are not journaled: a durable run replayed elsewhere does not see them again.
///
/// ```
/// use phi_agent::llm::{LlmResponse, ScriptedLlm};
/// use phi_agent::{base_agent_builder, AgentConfig, PhiAgent};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let llm = ScriptedLlm::new([LlmResponse::text("In Celsius: 21.")]);
/// let agent = PhiAgent::build(base_agent_builder(llm.clone()), AgentConfig::default())?;
/// let mut session = agent.session();
/// let steering = session.steering();
/// steering.send("Use Celsius.");
/// session.prompt("How warm is it?").await?;
/// assert_eq!(llm.requests()[0].messages.len(), 2, "the prompt, then the steering message");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct Steering {
    queue: Arc<Mutex<VecDeque<String>>>,
}

impl Steering {
    /// Queues `text` as a user message for the next step boundary.
    pub fn send(&self, text: impl Into<String>) {
        self.lock().push_back(text.into());
    }

    /// How many messages wait to be taken in.
    pub fn pending(&self) -> usize {
        self.lock().len()
    }

    /// Every waiting message, oldest first; the queue is then empty.
    pub(crate) fn take(&self) -> Vec<String> {
        self.lock().drain(..).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<String>> {
        // A panic elsewhere while holding the lock leaves a queue of strings, still whole.
        self.queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl fmt::Debug for Steering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Steering")
            .field("pending", &self.pending())
            .finish()
    }
}
