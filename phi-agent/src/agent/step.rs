//! The one seam every nondeterministic step of a run goes through: the model's replies, tool
//! calls (with their durations) and the session id. An executor that journals each step's
//! result and returns it instead of running the step again makes a run durable: a process that
//! dies mid-run is replaced by one that replays the journal and goes on from the first step the
//! journal does not hold.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::content::Content;
use crate::error::{AgentError, AgentResult};
use crate::llm::LlmResponse;

/// The work of one step, run at most once per journal entry: the executor either awaits it or,
/// when its journal already holds the step's result, drops it unpolled.
pub type StepFuture<'a> = Pin<Box<dyn Future<Output = AgentResult<StepOutput>> + Send + 'a>>;

/// What one step produced: the part of a run that is not a function of what came before it.
///
/// This is what a journal stores, as JSON (`{"step": "model", ...}`); its format is public and
/// kept across versions like [`PausedRun`](crate::PausedRun)'s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum StepOutput {
    /// The model's reply to one turn's request (key `turn/<n>/model`).
    Model(LlmResponse),
    /// One tool call's result (key `turn/<n>/tool/<call id>`; a call that paused the run on a
    /// question runs again, with the answer, as `turn/<n>/tool/<call id>/answered`; a call a
    /// tool made while it ran is `turn/<n>/tool/<call id>/call/<k>`, and a call that paused the
    /// run on its `k`-th such call runs again, once it is decided, as
    /// `turn/<n>/tool/<call id>/resumed/<k>`).
    Tool(ToolStep),
    /// The id of the session the run belongs to (key `session/id`), so that tools see the same
    /// id after a replay as before it.
    SessionId {
        /// The id.
        id: String,
    },
}

impl StepOutput {
    /// What kind of step this is, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            StepOutput::Model(_) => "model reply",
            StepOutput::Tool(_) => "tool result",
            StepOutput::SessionId { .. } => "session id",
        }
    }
}

/// The result of one tool call as a journal holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolStep {
    /// Whether the agent had a tool of the called name when the call ran (the name is in the
    /// turn's journaled model reply). A replay on an agent that
    /// disagrees (the tool was renamed or removed, or added) is refused rather than handing the
    /// model a result that agent could not have produced.
    pub known: bool,
    /// What the model reads.
    pub content: Vec<Content>,
    /// Whether the call failed.
    pub is_error: bool,
    /// How long it took, as measured when it ran.
    pub duration: Duration,
}

/// Runs the steps of every run of an agent; set it with
/// [`AgentBuilder::step_executor`](crate::AgentBuilder::step_executor).
///
/// The loop hands every nondeterministic step to [`step`](Self::step) with a key that names it
/// within its run: `session/id`, then `turn/<n>/model` and `turn/<n>/tool/<call id>` for each
/// turn `n` from 1 (a resumed [`PausedRun`](crate::PausedRun) goes on with the same keys; a
/// call that paused the run on a question runs again as `turn/<n>/tool/<call id>/answered`, and
/// one that paused it on its `k`-th nested call as `turn/<n>/tool/<call id>/resumed/<k>`: a new
/// step each, so that a journal does not hand back the attempt that paused). Keys
/// are unique within one run, not across the runs of a session, so an executor that persists
/// steps keeps one journal per run: one Restate invocation, one [`JournalExecutor`].
///
/// The default, [`InProcess`], awaits each step. A durable executor returns the journaled
/// result when it has one (dropping the step unpolled) and otherwise runs the step and records
/// its result before returning it. A step that was running when the process died has no
/// journal entry and runs again: tools with side effects use
/// [`ToolContext::step_key`](crate::ToolContext::step_key) as their idempotency key.
///
/// Steps of one turn's tool calls run concurrently, so `step` is called concurrently. An error
/// from `step` ends the run with that error (the executor's journal decides what a replay
/// sees); a step's own error (a failed model request) is not a result to record.
#[async_trait]
pub trait StepExecutor: Send + Sync {
    /// Runs the step named `key`, or returns its recorded result.
    async fn step(&self, key: &str, run: StepFuture<'_>) -> AgentResult<StepOutput>;

    /// Whether this executor runs every step as it comes and records nothing, as [`InProcess`]
    /// does. The loop then awaits each step itself and never calls [`step`](Self::step),
    /// sparing the allocations a call through the trait object takes. Default: `false`.
    fn runs_in_process(&self) -> bool {
        false
    }
}

/// Runs `step` through `executor`, or directly when the executor would only await it.
pub(super) async fn run<F>(
    executor: &dyn StepExecutor,
    key: impl FnOnce() -> String,
    step: F,
) -> AgentResult<StepOutput>
where
    F: Future<Output = AgentResult<StepOutput>> + Send,
{
    if executor.runs_in_process() {
        step.await
    } else {
        executor.step(&key(), Box::pin(step)).await
    }
}

/// The default executor: runs every step in the process, records nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct InProcess;

#[async_trait]
impl StepExecutor for InProcess {
    async fn step(&self, _key: &str, run: StepFuture<'_>) -> AgentResult<StepOutput> {
        run.await
    }

    fn runs_in_process(&self) -> bool {
        true
    }
}

/// A shared executor is an executor, so one journal can outlive the agent that wrote it.
#[async_trait]
impl<T: StepExecutor + ?Sized> StepExecutor for Arc<T> {
    async fn step(&self, key: &str, run: StepFuture<'_>) -> AgentResult<StepOutput> {
        (**self).step(key, run).await
    }

    fn runs_in_process(&self) -> bool {
        (**self).runs_in_process()
    }
}

/// An in-memory journal of one run's steps: the reference durable executor, and the one tests
/// use to stand for a real journal.
///
/// A step whose key is in the journal is replayed from it (its future dropped unpolled); any
/// other step runs and its result is recorded once it succeeds. Entries are stored as JSON,
/// as a journal on disk or in Restate would hold them, so replay goes through the same
/// serialization.
///
/// ```
/// use phi_agent::llm::{LlmResponse, ScriptedLlm};
/// use phi_agent::{base_agent_builder, AgentConfig, JournalExecutor, PhiAgent};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let journal = JournalExecutor::new();
/// let llm = ScriptedLlm::new([LlmResponse::text("Hello!")]);
/// let builder = base_agent_builder(llm).step_executor(journal.clone());
/// let first = PhiAgent::build(builder, AgentConfig::default())?.run("hi").await?;
///
/// // Another process: a model with nothing left to say, the same journal.
/// let replay = JournalExecutor::from_entries(journal.entries());
/// let builder = base_agent_builder(ScriptedLlm::new([])).step_executor(replay);
/// let again = PhiAgent::build(builder, AgentConfig::default())?.run("hi").await?;
/// assert_eq!(again, first);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Default)]
pub struct JournalExecutor {
    journal: Arc<Mutex<Journal>>,
}

#[derive(Default)]
struct Journal {
    /// Keys in the order their steps completed.
    order: Vec<String>,
    entries: HashMap<String, String>,
}

impl JournalExecutor {
    /// An empty journal: every step runs.
    pub fn new() -> Self {
        Self::default()
    }

    /// A journal holding `entries` (key, JSON of a [`StepOutput`]), e.g. another journal's
    /// [`entries`](Self::entries).
    pub fn from_entries(entries: impl IntoIterator<Item = (String, String)>) -> Self {
        let mut journal = Journal::default();
        for (key, value) in entries {
            if journal.entries.insert(key.clone(), value).is_none() {
                journal.order.push(key);
            }
        }
        Self {
            journal: Arc::new(Mutex::new(journal)),
        }
    }

    /// The recorded steps, in the order they completed: key and JSON.
    pub fn entries(&self) -> Vec<(String, String)> {
        let journal = self.lock();
        journal
            .order
            .iter()
            .map(|key| (key.clone(), journal.entries[key].clone()))
            .collect()
    }

    /// How many steps are recorded.
    pub fn len(&self) -> usize {
        self.lock().order.len()
    }

    /// Whether no step is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Journal> {
        // The journal is a map written whole per entry: a panic elsewhere leaves it consistent.
        self.journal.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait]
impl StepExecutor for JournalExecutor {
    async fn step(&self, key: &str, run: StepFuture<'_>) -> AgentResult<StepOutput> {
        let recorded = self.lock().entries.get(key).cloned();
        if let Some(json) = recorded {
            return serde_json::from_str(&json).map_err(|error| AgentError::Step {
                key: key.to_string(),
                reason: format!("the journal entry is not a step result: {error}"),
            });
        }
        let output = run.await?;
        let json = serde_json::to_string(&output).map_err(|error| AgentError::Step {
            key: key.to_string(),
            reason: format!("the step result cannot be journaled: {error}"),
        })?;
        let mut journal = self.lock();
        if journal.entries.insert(key.to_string(), json).is_none() {
            journal.order.push(key.to_string());
        }
        Ok(output)
    }
}

impl fmt::Debug for JournalExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JournalExecutor")
            .field("entries", &self.len())
            .finish()
    }
}

/// The error for a journal entry of the wrong kind at `key`.
pub(super) fn mismatch(key: &str, expected: &str, found: &StepOutput) -> AgentError {
    AgentError::Step {
        key: key.to_string(),
        reason: format!(
            "the journal holds a {} where this run expects a {expected}: the journal was written by another agent or version",
            found.kind()
        ),
    }
}
