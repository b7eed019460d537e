//! Running a turn's calls: each through the step seam under its stable key (with the replay
//! check), concurrently and bounded, results in the jobs' order; `search_tools` answered from
//! the index, with no step. Also where a call enters the run: its arguments are defused there.

use std::sync::Mutex;
use std::time::Duration;

use futures_util::stream;
use futures_util::{StreamExt, TryStreamExt};
use tokio::time::Instant;
use tracing::Instrument;

use super::search::{Found, search};
use super::spans::{execute_tool_span, record_result};
use crate::agent::events::{AgentEvent, Observer};
use crate::agent::nested::NestedApprovals;
use crate::agent::phi::AgentInner;
use crate::agent::step::{self, StepExecutor, StepOutput, ToolStep};
use crate::agent::stream::{Sink, StreamEvent};
use crate::agent::talk::RunTalk;
use crate::content::Content;
use crate::context::ToolContext;
use crate::error::{AgentError, AgentResult};
use crate::llm::ToolCall;
use crate::registry::{ActiveTools, ToolCallResult, ToolRegistry};
use crate::search::SEARCH_TOOL_NAME;

/// A call's arguments as they enter the run (from the model's reply, a streamed call shown
/// whole, an approver's edit): nesting too deep to handle safely is cut here, once, so that no
/// later step meets it.
pub(in crate::agent) fn enter(arguments: &mut serde_json::Value) {
    crate::limits::defuse_deep_arguments(arguments);
}

/// A model's call as it enters the run: with `repair`, arguments that came as almost-JSON text
/// are repaired into the object they obviously mean (and the call says so), then [`enter`]ed.
pub(in crate::agent) fn enter_call(call: &mut ToolCall, repair: bool) {
    if let (true, serde_json::Value::String(raw)) = (repair, &call.arguments)
        && let Some((arguments, repairs)) = crate::repair::repair_arguments(raw)
    {
        call.arguments = arguments;
        call.repaired = repairs;
    }
    enter(&mut call.arguments);
}

/// What every [`Runner`] of one run shares: built once per run, a runner per turn.
#[derive(Clone, Copy)]
pub(in crate::agent) struct RunParts<'a> {
    pub(in crate::agent) agent: &'a AgentInner,
    pub(in crate::agent) base_ctx: &'a ToolContext,
    pub(in crate::agent) sink: &'a Sink,
    pub(in crate::agent) talk: &'a RunTalk,
    /// How the nested calls that need approval are settled.
    pub(in crate::agent) nested: NestedApprovals<'a>,
}

impl<'a> RunParts<'a> {
    /// The runner of turn `turn`'s calls over `active`; `searching` when the session finds its
    /// Deferred tools with `search_tools`.
    pub(in crate::agent) fn runner(
        self,
        active: &'a ActiveTools,
        turn: usize,
        searching: bool,
    ) -> Runner<'a> {
        Runner {
            registry: &self.agent.registry,
            steps: &*self.agent.steps,
            active,
            observer: Observer(self.agent.observer.as_deref()),
            base_ctx: self.base_ctx,
            parallel: self.agent.config.max_parallel_tools,
            trace_content: self.agent.config.trace_tool_content,
            turn,
            search: searching.then_some(self.agent),
            found: Mutex::default(),
            sink: self.sink,
            talk: self.talk,
            nested_approvals: self.nested,
        }
    }
}

/// Runs one turn's calls.
pub(in crate::agent) struct Runner<'a> {
    pub(in crate::agent) registry: &'a ToolRegistry,
    steps: &'a dyn StepExecutor,
    pub(in crate::agent) active: &'a ActiveTools,
    pub(in crate::agent) observer: Observer<'a>,
    pub(in crate::agent) base_ctx: &'a ToolContext,
    pub(in crate::agent) parallel: usize,
    /// [`AgentConfig::trace_tool_content`](crate::AgentConfig::trace_tool_content).
    trace_content: bool,
    pub(in crate::agent) turn: usize,
    /// The agent, when this session's model finds its Deferred tools with `search_tools`.
    search: Option<&'a AgentInner>,
    /// What this turn's `search_tools` calls found, by call index: revealed once the turn's
    /// calls are done. A lock only because the calls' futures share the runner; a search never
    /// awaits while holding it.
    found: Mutex<Vec<(usize, Found)>>,
    pub(in crate::agent) sink: &'a Sink,
    /// The run's peer: the questions its calls asked that pause the run, and their nested calls.
    pub(in crate::agent) talk: &'a RunTalk,
    pub(in crate::agent) nested_approvals: NestedApprovals<'a>,
}

/// Who makes a call: the model, in its reply, or a tool while it runs
/// ([`ToolContext::call_tool`], as a code-mode program does). [`ToolOptions::callers`] says which
/// may call a tool.
///
/// [`ToolOptions::callers`]: crate::ToolOptions::callers
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::agent) enum Caller {
    Model,
    Code,
}

/// Adds to a "not available" error, while tool search is on, that `search_tools` may find the
/// tool: the list of available tools names only those found so far (often none), and a model
/// that called a tool it has not searched for would otherwise read that nothing exists. The same
/// words for an unknown, a hidden and a not yet found tool, so nothing about hidden tools leaks.
#[cold]
fn search_hint(result: &mut ToolCallResult) {
    if let [Content::Text { text }] = result.content.as_mut_slice() {
        text.push_str(&format!(
            "; to find more, call `{SEARCH_TOOL_NAME}` with words of what the tool does, then call a tool it finds"
        ));
    }
}

impl Runner<'_> {
    /// Whether the model may call `name` now: an active tool of the registry, or a live one.
    fn callable(&self, name: &str) -> bool {
        match self.registry.entry(name) {
            Some((index, _)) => self.active.is_active(index),
            None => self.registry.knows(name),
        }
    }

    /// Why `from` may not call the tool `name`, if it may not. `None` for a tool that is not
    /// active (dispatch refuses it with the one "not available" error, so nothing leaks), but
    /// for code's call of a tool that tool search has not found yet: code mode lists those by
    /// name, and the program's author is told to search first.
    fn wrong_caller(&self, name: &str, from: Caller) -> Option<AgentError> {
        // The common case costs no lookup: the model calls, and every tool allows it.
        if from == Caller::Model && !self.registry.restricts_callers() {
            return None;
        }
        let (index, tool) = self.registry.entry(name)?;
        if !self.active.is_active(index) {
            if from != Caller::Code || !self.active.is_discoverable(index) {
                return None;
            }
            let how = match self.search {
                Some(_) => format!("call `{SEARCH_TOOL_NAME}` with words of what it does"),
                None => "find it with tool search".to_string(),
            };
            return Some(AgentError::tool(format!(
                "tool `{name}` is not available yet: {how} first, in a turn of its own; once found it is callable from code"
            )));
        }
        let message = match from {
            Caller::Model if !self.registry.offers(tool) => {
                let code_tool = self.registry.position(CODE_TOOL_NAME);
                let how = match code_tool.filter(|&index| self.active.is_active(index)) {
                    Some(_) => format!("write it into a `{CODE_TOOL_NAME}` program instead"),
                    None => format!(
                        "this agent has no `{CODE_TOOL_NAME}` tool to run such code, so do without it"
                    ),
                };
                format!(
                    "tool `{name}` can be called only from code the model writes (a `{CODE_TOOL_NAME}` program), not directly; {how}"
                )
            }
            Caller::Code if !tool.callers().allows_code() => format!(
                "tool `{name}` can be called only by the model directly, not from code; leave it out of the program and call it in a turn of its own"
            ),
            _ => return None,
        };
        Some(AgentError::tool(message))
    }

    /// Whether the call needs a person's approval (false for a call that cannot run, which
    /// includes a call by a caller the tool does not allow).
    pub(in crate::agent) async fn needs_approval(&self, call: &ToolCall, from: Caller) -> bool {
        if self.wrong_caller(&call.name, from).is_some() {
            return false;
        }
        let ctx = self.base_ctx.for_call_in_run(call.id.as_str());
        self.registry
            .needs_approval(self.active, &call.name, &call.arguments, &ctx)
            .await
    }

    /// Runs `calls[index]` with `arguments` for every job, concurrently (bounded), each as its
    /// step `turn/<n>/tool/<call id>`; results in the jobs' order. Fails when a step's executor
    /// does, or its journal does not fit this agent.
    pub(in crate::agent) async fn run_calls(
        &self,
        calls: &[ToolCall],
        jobs: &[(usize, &serde_json::Value)],
    ) -> AgentResult<Vec<(ToolCallResult, Duration)>> {
        self.run_attempt(calls, jobs, None).await
    }

    /// [`run_calls`](Self::run_calls) for calls that ran before and paused the run, each again
    /// as the new step its `attempts` entry names (see [`Attempt`]): under the first attempt's
    /// key a journal would hand back the result it recorded for the attempt that paused.
    pub(in crate::agent) async fn run_again(
        &self,
        calls: &[ToolCall],
        jobs: &[(usize, &serde_json::Value)],
        attempts: &[Attempt],
    ) -> AgentResult<Vec<(ToolCallResult, Duration)>> {
        self.run_attempt(calls, jobs, Some(attempts)).await
    }

    /// `attempts`: each job's attempt; `None`, every job's first.
    ///
    /// A call of a [`sequential`](crate::ToolLimits::sequential) tool is a barrier: the jobs
    /// run in phases, those before it together, then it alone, then those after it.
    async fn run_attempt(
        &self,
        calls: &[ToolCall],
        jobs: &[(usize, &serde_json::Value)],
        attempts: Option<&[Attempt]>,
    ) -> AgentResult<Vec<(ToolCallResult, Duration)>> {
        // The common case looks at no call: no tool is sequential.
        if !self.registry.has_sequential() {
            return self.run_phase(calls, jobs, attempts, 0..jobs.len()).await;
        }
        let mut results = Vec::with_capacity(jobs.len());
        for phase in self.phases(calls, jobs) {
            results.extend(self.run_phase(calls, jobs, attempts, phase).await?);
        }
        Ok(results)
    }

    /// The jobs' phases, as ranges of `jobs`: a job that calls a sequential tool has a phase
    /// of its own, between the jobs before and after it.
    fn phases(
        &self,
        calls: &[ToolCall],
        jobs: &[(usize, &serde_json::Value)],
    ) -> Vec<std::ops::Range<usize>> {
        let mut phases = Vec::new();
        let mut start = 0;
        for (job, &(index, _)) in jobs.iter().enumerate() {
            if self.registry.is_sequential(&calls[index].name) {
                if start < job {
                    phases.push(start..job);
                }
                phases.push(job..job + 1);
                start = job + 1;
            }
        }
        if start < jobs.len() {
            phases.push(start..jobs.len());
        }
        phases
    }

    /// The jobs of `phase`, concurrently (bounded), results in their order.
    async fn run_phase(
        &self,
        calls: &[ToolCall],
        jobs: &[(usize, &serde_json::Value)],
        attempts: Option<&[Attempt]>,
        phase: std::ops::Range<usize>,
    ) -> AgentResult<Vec<(ToolCallResult, Duration)>> {
        // Indices rather than `&ToolCall` items keep the stream's closure free of a
        // higher-ranked lifetime, so the run future stays `Send`.
        stream::iter(phase)
            .map(|job| {
                let (index, arguments) = jobs[job];
                let attempt = attempts
                    .and_then(|attempts| attempts.get(job).copied())
                    .unwrap_or(Attempt::First);
                self.run_one(index, &calls[index], arguments, attempt)
            })
            .buffered(self.parallel)
            // The first failed step ends the turn: the calls after it are not started, and
            // the ones still running are dropped, as they would be if the process died.
            .try_collect()
            .await
    }

    /// One call, reported as it starts and finishes.
    async fn run_one(
        &self,
        index: usize,
        call: &ToolCall,
        arguments: &serde_json::Value,
        attempt: Attempt,
    ) -> AgentResult<(ToolCallResult, Duration)> {
        self.started(call).await;
        let (result, duration) = match self.search {
            // A search answers from the index, the same on every replay: no step.
            Some(agent) if call.name == SEARCH_TOOL_NAME => {
                let started = Instant::now();
                let (result, found) = search(agent, self.active, call, arguments).await;
                if let Some(found) = found {
                    self.found
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .push((index, found));
                }
                (result, started.elapsed())
            }
            _ => {
                self.tool_step(call, arguments, attempt, Caller::Model)
                    .await?
            }
        };
        self.finished(call, &result, duration).await;
        Ok((result, duration))
    }

    /// A nested call (`call.id` is `<caller id>/call/<k>`), reported as a call is, and run as
    /// its step `turn/<n>/tool/<caller id>/call/<k>`.
    pub(super) async fn run_nested(
        &self,
        call: &ToolCall,
        arguments: &serde_json::Value,
    ) -> AgentResult<ToolCallResult> {
        self.started(call).await;
        let (result, duration) = self
            .tool_step(call, arguments, Attempt::First, Caller::Code)
            .await?;
        self.finished(call, &result, duration).await;
        Ok(result)
    }

    async fn started(&self, call: &ToolCall) {
        let turn = self.turn;
        self.observer.emit(AgentEvent::ToolStarted { turn, call });
        self.sink
            .send(|| StreamEvent::ToolStarted {
                turn,
                call: call.clone(),
            })
            .await;
    }

    async fn finished(&self, call: &ToolCall, result: &ToolCallResult, duration: Duration) {
        let turn = self.turn;
        tracing::info!(
            turn,
            "gen_ai.tool.name" = call.name.as_str(),
            "gen_ai.tool.call.id" = call.id.as_str(),
            is_error = result.is_error,
            duration_us = u64::try_from(duration.as_micros()).unwrap_or(u64::MAX),
            "tool finished"
        );
        self.observer.emit(AgentEvent::ToolFinished {
            turn,
            call,
            result,
            duration,
        });
        self.sink
            .send(|| StreamEvent::ToolFinished {
                turn,
                call: call.clone(),
                result: result.clone(),
                duration,
            })
            .await;
    }

    /// A registry tool's call as its step, checked against this agent when replayed.
    async fn tool_step(
        &self,
        call: &ToolCall,
        arguments: &serde_json::Value,
        attempt: Attempt,
        from: Caller,
    ) -> AgentResult<(ToolCallResult, Duration)> {
        let turn = self.turn;
        // Formatted only for an executor that journals, or for an error.
        let key = || match attempt {
            Attempt::First => format!("turn/{turn}/tool/{}", call.id),
            Attempt::Answered => format!("turn/{turn}/tool/{}/answered", call.id),
            Attempt::Resumed(k) => format!("turn/{turn}/tool/{}/resumed/{k}", call.id),
        };
        let known = self.registry.knows(&call.name);
        let tool_step = async {
            let ctx = self
                .base_ctx
                .for_call_in_run(call.id.as_str())
                .in_turn(turn);
            let started = Instant::now();
            let tool = || execute(self, call, arguments, &ctx, from);
            let result = self.serving(call, tool).await?;
            Ok(StepOutput::Tool(ToolStep {
                known,
                content: result.content,
                is_error: result.is_error,
                duration: started.elapsed(),
            }))
        };
        let step = match step::run(self.steps, key, tool_step).await? {
            StepOutput::Tool(step) => step,
            other => return Err(step::mismatch(&key(), "tool result", &other)),
        };
        if step.known != known {
            return Err(replay_mismatch(key(), call, &step));
        }
        let result = ToolCallResult {
            content: step.content,
            is_error: step.is_error,
        };
        Ok((result, step.duration))
    }

    /// What this turn's searches found, in call order.
    pub(in crate::agent) fn take_found(&self) -> Vec<Found> {
        let mut found = std::mem::take(
            &mut *self
                .found
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        found.sort_by_key(|&(index, _)| index);
        found.into_iter().map(|(_, found)| found).collect()
    }
}

/// Which run of a call a step is, so that each has a key of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::agent) enum Attempt {
    /// Its first: `turn/<n>/tool/<call id>`.
    First,
    /// After the user answered the question that paused the run:
    /// `turn/<n>/tool/<call id>/answered` (a question asked again is the call's error, so
    /// there is no third).
    Answered,
    /// After its `k`-th nested call, which paused the run, was decided:
    /// `turn/<n>/tool/<call id>/resumed/<k>`. The run may pause again on a later nested call
    /// (at a greater `k`), so each resumption has a key of its own.
    Resumed(usize),
}

/// The error for a journaled tool result this agent could not have produced.
#[cold]
fn replay_mismatch(key: String, call: &ToolCall, step: &ToolStep) -> AgentError {
    let reason = if step.known {
        format!(
            "the journal holds a result of tool `{}`, which this agent does not have (renamed or removed since the run began); replay the run on an agent with the tools it began with",
            call.name
        )
    } else {
        format!(
            "the journal holds an unknown-tool error for `{}`, which this agent has (added since the run began); replay the run on an agent with the tools it began with",
            call.name
        )
    };
    AgentError::Step { key, reason }
}

/// The name of code mode's tool (`phi-agent-code`'s `RunCode`), named in the error a direct
/// call of a tool only code may call gets.
const CODE_TOOL_NAME: &str = "run_code";

/// One tool call by `from`, inside its `execute_tool` span.
async fn execute(
    runner: &Runner<'_>,
    call: &ToolCall,
    arguments: &serde_json::Value,
    ctx: &ToolContext,
    from: Caller,
) -> ToolCallResult {
    if let Some(error) = runner.wrong_caller(&call.name, from) {
        return ToolCallResult::error(&error);
    }
    let tool = runner.registry.get(&call.name);
    let content = runner.trace_content.then(|| tool.map(|tool| tool.schema()));
    let span = execute_tool_span(
        call,
        tool.map_or("", |tool| tool.description()),
        // A tool this agent does not have: nothing to redact by, nothing of value to record
        // but the arguments as the model sent them.
        content.map(|schema| schema.map_or(&serde_json::Value::Null, |schema| &**schema)),
    );
    let mut result = runner
        .registry
        .dispatch(runner.active, &call.name, arguments, ctx)
        .instrument(span.clone())
        .await;
    if result.is_error && runner.search.is_some() && !runner.callable(&call.name) {
        search_hint(&mut result);
    }
    if result.is_error {
        span.record("error.type", "tool_error");
    }
    if runner.trace_content {
        let output_schema = tool.and_then(|tool| tool.output_schema());
        record_result(&span, &result, output_schema.map(|schema| &**schema));
    }
    result
}
