//! The plan of a run, resolved once before its first turn: how it settles approvals, how its
//! model finds Deferred tools, whether calls start while the reply streams, and whether it
//! wants a typed answer. Every exclusion between these modes is written here, once, with its
//! reason; the steps of the loop read the plan and never combine flags of their own.

use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;

use super::answer::Answering;
use super::approval::Approver;
use super::conversation::{Conversation, SessionSearch};
use super::output::{RunOutcome, RunOutput};
use super::paused::PausedRun;
use super::phi::AgentInner;

/// How a run settles the calls that need approval, as its type: a run that asks inline has no
/// paused outcome at all, so "paused although asked to settle every approval" cannot be written.
/// The two policies are the public markers of a [`RunRequest`](crate::RunRequest)'s mode: the
/// request names one as a type, and the run makes its value from the agent.
pub trait Policy: Send + Sync + Sized + 'static {
    /// The proof that a run may pause: [`Infallible`] for a run that may not.
    type Pause: Copy + Send + Sync;
    /// What the run returns.
    type Outcome: Send;
    /// The policy of a run of an agent whose approver is `approver`.
    fn new(approver: &Option<Arc<dyn Approver>>) -> Self;
    /// How this policy settles a call that needs approval.
    fn approvals(&self) -> Approvals<'_, Self::Pause>;
    /// The outcome of a run that answered.
    fn done(output: RunOutput) -> Self::Outcome;
    /// The outcome of a run that paused; only reachable with a [`Pause`](Self::Pause) in hand.
    fn paused(proof: Self::Pause, paused: PausedRun) -> Self::Outcome;
    /// Whether `outcome` is an answer (not a pause).
    fn answered(outcome: &Self::Outcome) -> bool;
}

/// How the calls of a turn that need approval are settled.
#[derive(Clone, Copy)]
pub enum Approvals<'a, P> {
    /// Put to this approver while the turn's other calls run; with none, denied.
    Ask(Option<&'a dyn Approver>),
    /// The turn's other calls run, then the run pauses on these.
    Pause(P),
}

/// The mode of a [`RunRequest`](crate::RunRequest) that never pauses (the default): a call that
/// needs approval is put to the agent's [`Approver`] while the turn's other calls run, and
/// denied when the agent has none (the model is told that a person must approve it).
pub struct Inline(Option<Arc<dyn Approver>>);

impl Policy for Inline {
    type Pause = Infallible;
    type Outcome = RunOutput;
    fn new(approver: &Option<Arc<dyn Approver>>) -> Self {
        Inline(approver.clone())
    }
    fn approvals(&self) -> Approvals<'_, Infallible> {
        Approvals::Ask(self.0.as_deref())
    }
    fn done(output: RunOutput) -> RunOutput {
        output
    }
    fn paused(proof: Infallible, _: PausedRun) -> RunOutput {
        match proof {}
    }
    fn answered(_: &RunOutput) -> bool {
        true
    }
}

/// The mode of a [`RunRequest`](crate::RunRequest) made with
/// [`pausing`](crate::RunRequest::pausing): a call that needs approval pauses the run (the
/// turn's other calls run first) and no one is asked, not even the agent's approver.
#[derive(Clone, Copy)]
pub struct Pausing(());

impl Policy for Pausing {
    type Pause = Pausing;
    type Outcome = RunOutcome;
    fn new(_: &Option<Arc<dyn Approver>>) -> Self {
        Pausing(())
    }
    fn approvals(&self) -> Approvals<'_, Pausing> {
        Approvals::Pause(*self)
    }
    fn done(output: RunOutput) -> RunOutcome {
        RunOutcome::Done(output)
    }
    fn paused(_: Pausing, paused: PausedRun) -> RunOutcome {
        RunOutcome::Paused(paused)
    }
    fn answered(outcome: &RunOutcome) -> bool {
        matches!(outcome, RunOutcome::Done(_))
    }
}

impl fmt::Debug for Inline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inline")
            .field("approver", &self.0.is_some())
            .finish()
    }
}

impl fmt::Debug for Pausing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Pausing")
    }
}

/// How the model of this run finds its Deferred tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Search {
    /// It does not: Deferred tools are sent once active.
    Off,
    /// With the local `search_tools` tool, which the run answers from the agent's index.
    Local,
    /// With the provider's own search, over the deferred tools sent beside the others.
    Native,
}

/// The modes of one run.
pub(super) struct Plan<'a> {
    pub(super) search: Search,
    /// Whether a streamed turn's calls start as soon as the stream shows them whole.
    pub(super) early: bool,
    /// A typed run's answer: offered every turn, judged on every reply.
    pub(super) answer: Option<&'a mut Answering>,
}

impl<'a> Plan<'a> {
    /// The plan of a fresh run. A session in automatic search mode decides here, on its first
    /// run, once the first activation round has told how many Deferred tools are ready; the
    /// names activated by that round are returned for the run to report.
    pub(super) async fn fresh(
        agent: &AgentInner,
        conv: &mut Conversation,
        streamed: bool,
        answer: Option<&'a mut Answering>,
    ) -> (Self, Vec<&'static str>) {
        let registry = &agent.registry;
        let mut activated = registry.activate(&mut conv.active).await;
        if let SessionSearch::Undecided { threshold } = conv.search {
            let ready = conv.active.discoverable_count();
            let search = ready > threshold;
            conv.search = if search {
                SessionSearch::on(agent)
            } else {
                activated.extend(registry.end_discovery(&mut conv.active).await);
                SessionSearch::Off
            };
            tracing::debug!(ready, threshold, search, "tool search decided");
        }
        (Self::resumed(agent, conv, streamed, answer), activated)
    }

    /// The plan of a run that goes on with the session's search as it is (a resumed run).
    pub(super) fn resumed(
        agent: &AgentInner,
        conv: &Conversation,
        streamed: bool,
        answer: Option<&'a mut Answering>,
    ) -> Self {
        let search = match conv.search {
            SessionSearch::On => Search::Local,
            SessionSearch::Native => Search::Native,
            // A session still undecided has had no fresh run: it resumes another's paused run,
            // whose tools arrive as they were, and searches nothing.
            SessionSearch::Off | SessionSearch::Undecided { .. } => Search::Off,
        };
        let early = early_start(
            agent.config.early_tool_start,
            streamed,
            search,
            answer.is_some(),
        );
        Self {
            search,
            early,
            answer,
        }
    }
}

/// Whether calls start while the reply streams: asked for, and none of the exclusions holds.
fn early_start(asked: bool, streamed: bool, search: Search, typed: bool) -> bool {
    // Only a streamed reply shows calls before it is complete.
    let shows_calls = streamed;
    // The provider's own search reveals tools while it writes the reply, so the turn's tools
    // are not known until the reply is in.
    let tools_known = search != Search::Native;
    // A typed run's answer may end the turn, and then the turn's other calls must not have run.
    let turn_runs_whole = !typed;
    asked && shows_calls && tools_known && turn_runs_whole
}
