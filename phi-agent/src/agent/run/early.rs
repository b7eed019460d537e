//! The early start of tool calls ([`AgentConfig::early_tool_start`](crate::AgentConfig)): a
//! call that needs no approval starts as soon as the model's stream shows its arguments
//! whole, while the model is still writing the rest of its turn.
//!
//! The calls run through the turn's [`Runner`], one step each under the key they would have
//! anyway (`turn/<n>/tool/<call id>`), so a journal reads the same; a replayed model step
//! streams nothing, and its calls then start the usual way. At most `max_parallel_tools` run
//! at once, the calls started early and those started once the reply is in together. Nothing
//! is spawned: the calls are futures of the run, polled between the stream's deltas, dropped
//! (and their tokens fired) with it.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;

use super::calls::{Caller, Runner};
use super::search::Found;
use crate::error::{AgentError, AgentResult};
use crate::llm::ToolCall;
use crate::registry::ToolCallResult;

type Ran = AgentResult<(ToolCallResult, Duration)>;
type Running<'r> = Pin<Box<dyn Future<Output = (usize, Ran)> + Send + 'r>>;

/// The calls of one turn started before its reply is complete; off when the agent does not
/// start calls early (or the turn does not stream).
pub(in crate::agent) struct Early<'r, 'a> {
    /// The runner of the early calls; `None` when off.
    runner: Option<&'r Runner<'a>>,
    limit: usize,
    /// Per call index: whether the call needs approval, once it was offered.
    verdicts: Vec<Option<bool>>,
    /// Per call index: whether it has been started (queued counts).
    started: Vec<bool>,
    /// Per call index: the result of a finished call.
    done: Vec<Option<Ran>>,
    queued: VecDeque<(usize, ToolCall)>,
    running: FuturesUnordered<Running<'r>>,
    /// Whether a call of a [`sequential`](crate::ToolLimits::sequential) tool was offered: it
    /// and the calls after it do not start early, so that it is the barrier it would be in
    /// [`Runner::run_calls`].
    barrier: bool,
}

impl<'r, 'a> Early<'r, 'a> {
    /// Calls start early on `runner`; `None`: they do not.
    pub(in crate::agent) fn new(runner: Option<&'r Runner<'a>>) -> Self {
        Self {
            limit: runner.map_or(1, |runner| runner.parallel.max(1)),
            runner,
            verdicts: Vec::new(),
            started: Vec::new(),
            done: Vec::new(),
            queued: VecDeque::new(),
            running: FuturesUnordered::new(),
            barrier: false,
        }
    }

    /// The call at `index` is whole (its arguments defused): it starts now, unless it needs
    /// approval (then it waits for the reply and its decision, as usual) or the limit of calls
    /// at once is reached (then it starts when a running one finishes).
    pub(in crate::agent) async fn offer(&mut self, index: usize, call: ToolCall) {
        let Some(runner) = self.runner else {
            return;
        };
        let needs = runner.needs_approval(&call, Caller::Model).await;
        *slot(&mut self.verdicts, index) = Some(needs);
        self.barrier |= runner.registry.is_sequential(&call.name);
        if !needs && !self.barrier {
            self.queue(index, call);
        }
    }

    /// Whether the call at `index` needs approval, if it was offered: so the loop asks once.
    pub(in crate::agent) fn verdict(&self, index: usize) -> Option<bool> {
        self.verdicts.get(index).copied().flatten()
    }

    /// Runs the calls started early until one finishes; pending forever when none runs (it is
    /// raced against the model's next delta).
    pub(in crate::agent) async fn progress(&mut self) {
        self.start_queued();
        match self.running.next().await {
            Some((index, ran)) => *slot(&mut self.done, index) = Some(ran),
            None => std::future::pending().await,
        }
    }

    /// The results of the `jobs` (`calls[index]` with its arguments) in the jobs' order, as
    /// [`Runner::run_calls`] gives them: through `runner` when off; else the calls started
    /// early are finished and the others start now, with the same limit on calls at once.
    pub(in crate::agent) async fn run(
        &mut self,
        runner: &Runner<'_>,
        calls: &[ToolCall],
        jobs: &[(usize, &serde_json::Value)],
    ) -> Results {
        if self.runner.is_none() {
            return runner.run_calls(calls, jobs).await;
        }
        if self.barrier {
            return self.run_past_barrier(runner, calls, jobs).await;
        }
        for &(index, _) in jobs {
            if !self.started.get(index).copied().unwrap_or(false) {
                self.queue(index, calls[index].clone());
            }
        }
        loop {
            self.start_queued();
            match self.running.next().await {
                // The first failed step ends the turn, as in `run_calls`.
                Some((_, Err(error))) => return Err(error),
                Some((index, ran)) => *slot(&mut self.done, index) = Some(ran),
                None => break,
            }
        }
        jobs.iter()
            .map(|&(index, _)| {
                self.done
                    .get_mut(index)
                    .and_then(Option::take)
                    .unwrap_or_else(|| {
                        Err(AgentError::Internal(format!(
                            "call {index} of the turn, started early, has no result"
                        )))
                    })
            })
            .collect()
    }

    /// [`run`](Self::run) once a sequential call was offered: the calls started early (all
    /// before it) finish, then the others run as [`Runner::run_calls`] runs them, in phases.
    async fn run_past_barrier(
        &mut self,
        runner: &Runner<'_>,
        calls: &[ToolCall],
        jobs: &[(usize, &serde_json::Value)],
    ) -> Results {
        loop {
            self.start_queued();
            match self.running.next().await {
                Some((_, Err(error))) => return Err(error),
                Some((index, ran)) => *slot(&mut self.done, index) = Some(ran),
                None => break,
            }
        }
        let rest: Vec<_> = jobs
            .iter()
            .copied()
            .filter(|&(index, _)| !self.started.get(index).copied().unwrap_or(false))
            .collect();
        let mut ran = runner.run_calls(calls, &rest).await?.into_iter();
        jobs.iter()
            .map(
                |&(index, _)| match self.done.get_mut(index).and_then(Option::take) {
                    Some(done) => done,
                    None => ran.next().ok_or_else(|| {
                        AgentError::Internal(format!("call {index} of the turn has no result"))
                    }),
                },
            )
            .collect()
    }

    /// What the turn's searches found, in call order: those `runner` ran and those run early.
    pub(in crate::agent) fn take_found(&self, runner: &Runner<'_>) -> Vec<Found> {
        let mut found = runner.take_found();
        if let Some(early) = self.runner {
            // Every search needs no approval, so when calls start early they all run here and
            // `runner` found nothing.
            found.extend(early.take_found());
        }
        found
    }

    fn queue(&mut self, index: usize, call: ToolCall) {
        *slot(&mut self.started, index) = true;
        self.queued.push_back((index, call));
        self.start_queued();
    }

    /// Starts queued calls while fewer than the limit run.
    fn start_queued(&mut self) {
        let Some(runner) = self.runner else {
            return;
        };
        while self.running.len() < self.limit {
            let Some((index, call)) = self.queued.pop_front() else {
                break;
            };
            self.running.push(Box::pin(async move {
                let jobs = [(0, &call.arguments)];
                let ran = runner
                    .run_calls(std::slice::from_ref(&call), &jobs)
                    .await
                    .and_then(|mut ran| {
                        ran.pop().ok_or_else(|| {
                            AgentError::Internal("a call ran without a result".into())
                        })
                    });
                (index, ran)
            }));
        }
    }
}

type Results = AgentResult<Vec<(ToolCallResult, Duration)>>;

/// The slot at `index` of `slots`, grown with defaults if need be.
fn slot<T: Default>(slots: &mut Vec<T>, index: usize) -> &mut T {
    if slots.len() <= index {
        slots.resize_with(index + 1, T::default);
    }
    &mut slots[index]
}
