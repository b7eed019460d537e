//! The loop of one run: ask the model, run the tools it calls (concurrently, bounded, results in
//! call order), re-evaluate activation, repeat until it answers or the turn budget is spent.
//!
//! Calls that need approval are settled inside their turn, one of two ways: [`Approvals::Ask`]
//! puts them to the approver (or denies them when there is none) while the turn's other calls
//! already run; [`Approvals::Pause`] runs the other calls and hands the turn back as a
//! [`PausedRun`], which [`AgentSession::resume_paused`] finishes. Either way a turn's results go
//! to the model together, in call order, once every call is settled.

mod early;
mod reply;

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::stream;
use futures_util::{FutureExt, StreamExt, TryStreamExt};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;
use tracing::field::Empty;

use super::AgentInner;
use super::answer::{Answering, Judgement};
use super::approval::{Approval, ApprovalRequest, Approver};
use super::events::{AgentEvent, AgentObserver};
use super::output::{RunOutcome, RunOutput, ToolCallRecord};
use super::paused::{PausedRun, PendingCall, RanCall, TurnCall};
use super::retry_budget::{RetryBudget, Verdict};
use super::session::{AgentSession, SessionSearch};
use super::step::{self, StepExecutor, StepOutput, ToolStep};
use super::stream::{Sink, StreamEvent};
use crate::context::{ActivationContext, ToolContext};
use crate::error::{AgentError, AgentResult};
use crate::llm::{LlmRequest, Message, ToolCall, Usage};
use crate::registry::{ActiveTools, ToolCallResult, ToolRegistry};
use crate::search::{SEARCH_TOOL_NAME, SearchArguments, found_text};

/// How a run settles the calls that need approval.
pub(super) enum Approvals {
    /// Ask this approver; with none, deny. Never pauses.
    Ask(Option<Arc<dyn Approver>>),
    /// Pause the run on them.
    Pause,
}

/// A run between turns: what it has said and done so far.
pub(super) struct RunState {
    pub(super) transcript: Vec<Message>,
    /// Where this run's messages start in `transcript`.
    start: usize,
    /// The last turn started (0 before the first).
    pub(super) turn: usize,
    usage: Usage,
    pub(super) records: Vec<ToolCallRecord>,
}

/// One settled call of a turn, before the turn's results are handed to the model.
struct Settled {
    result: ToolCallResult,
    duration: Duration,
    approval: Option<Approval>,
}

/// How one call that needed approval was decided.
enum Decision {
    /// By a person (an approver, or a decision on a paused run).
    Person(Approval),
    /// No one could be asked: the run has no approver.
    NoApprover,
}

impl Decision {
    /// What the record shows, and the error the model reads when the call does not run.
    fn outcome(&self, tool: &str) -> (Approval, Option<AgentError>) {
        match self {
            Decision::NoApprover => {
                let error = AgentError::ApprovalRequired {
                    tool: tool.to_string(),
                };
                (Approval::deny(error.to_string()), Some(error))
            }
            Decision::Person(approval) => {
                let denial = match approval {
                    Approval::Deny { message } => Some(AgentError::ApprovalDenied {
                        tool: tool.to_string(),
                        message: message.clone(),
                    }),
                    Approval::Approve | Approval::ApproveWith { .. } => None,
                };
                (approval.clone(), denial)
            }
        }
    }
}

impl AgentSession {
    /// Runs `input` to an answer, or (with [`Approvals::Pause`]) to a pause; a streamed run
    /// also hands its events to `sink`.
    pub(super) async fn run_input(
        &mut self,
        input: String,
        approvals: Approvals,
        sink: &Sink,
    ) -> AgentResult<RunOutcome> {
        self.run_input_with(input, approvals, sink, None).await
    }

    /// [`run_input`](Self::run_input), for a typed run when `answer` is given.
    pub(super) async fn run_input_with(
        &mut self,
        input: String,
        approvals: Approvals,
        sink: &Sink,
        answer: Option<&mut Answering>,
    ) -> AgentResult<RunOutcome> {
        self.settle_id().await?;
        let span = self.invoke_span();
        // The run works on its own copy of the conversation and commits it only when it
        // answers, so a failed, dropped or paused run leaves the session's history as it was.
        let start = self.history.len();
        let mut transcript = Vec::with_capacity(start + 8);
        transcript.extend_from_slice(&self.history);
        transcript.push(Message::user(input));
        let state = RunState {
            transcript,
            start,
            turn: 0,
            usage: Usage::default(),
            records: Vec::new(),
        };
        self.drive(state, None, approvals, sink, answer)
            .instrument(span)
            .await
    }

    /// Finishes the paused turn of `paused` and goes on, pausing again if need be. Once the run
    /// is done, the session has the paused run's id, active tools and conversation.
    pub(super) async fn resume_paused(
        &mut self,
        paused: PausedRun,
        sink: &Sink,
    ) -> AgentResult<RunOutcome> {
        let registry = self.agent.inner.registry.clone();
        paused.check(|name| registry.get(name).is_some())?;
        let records = paused.records()?;
        let PausedRun {
            session_id,
            run_start,
            transcript,
            turn,
            active_tools,
            usage,
            assistant_text,
            calls,
            ..
        } = paused;
        let active = registry.active_tools(&ActivationContext {
            session_id: session_id.clone(),
            current_tools: active_tools,
            workspace: self.agent.inner.workspace.clone(),
        });
        // The run uses the paused run's id and tools; the session keeps them only once the run
        // is done (its history then becomes the run's conversation, as `drive` commits it).
        let previous_id = std::mem::replace(&mut self.id, Arc::from(session_id));
        let previous_active = std::mem::replace(&mut self.active, active);
        let state = RunState {
            transcript,
            start: run_start,
            turn,
            usage,
            records,
        };
        let span = self.invoke_span();
        let outcome = self
            .drive(
                state,
                Some((assistant_text, calls)),
                Approvals::Pause,
                sink,
                None,
            )
            .instrument(span)
            .await;
        if !matches!(outcome, Ok(RunOutcome::Done(_))) {
            self.id = previous_id;
            self.active = previous_active;
        }
        outcome
    }

    /// Takes the session id through the run's `session/id` step, so that a replayed run (in a
    /// fresh session, in another process) goes on under the id its tools saw before.
    async fn settle_id(&mut self) -> AgentResult<()> {
        const KEY: &str = "session/id";
        let id = self.id.to_string();
        let output = step::run(&*self.agent.inner.steps, || KEY.to_string(), async move {
            Ok(StepOutput::SessionId { id })
        })
        .await?;
        let StepOutput::SessionId { id } = output else {
            return Err(step::mismatch(KEY, "session id", &output));
        };
        if *id != *self.id {
            self.id = Arc::from(id);
            let registry = &self.agent.inner.registry;
            self.active = registry.active_tools(&ActivationContext {
                session_id: self.id.to_string(),
                current_tools: self.active.names().to_vec(),
                workspace: self.agent.inner.workspace.clone(),
            });
        }
        Ok(())
    }

    fn invoke_span(&self) -> tracing::Span {
        tracing::info_span!(
            "invoke_agent",
            "gen_ai.operation.name" = "invoke_agent",
            "gen_ai.conversation.id" = &*self.id,
        )
    }

    async fn drive(
        &mut self,
        mut state: RunState,
        resumed: Option<(String, Vec<TurnCall>)>,
        approvals: Approvals,
        sink: &Sink,
        mut answer: Option<&mut Answering>,
    ) -> AgentResult<RunOutcome> {
        let agent = self.agent.inner.clone();
        let registry = &*agent.registry;
        let observer = agent.observer.as_deref();
        let emit = |event: AgentEvent<'_>| {
            if let Some(observer) = observer {
                observer.on_event(&event);
            }
        };
        // Cancelled when this future completes or is dropped, so every tool's token fires.
        let run_token = CancellationToken::new();
        let _cancel_on_drop = run_token.clone().drop_guard();
        // The calls' contexts share the run's token through this one (see `for_call_in_run`).
        let base_ctx = ToolContext::new(
            self.id.clone(),
            agent.workspace.clone(),
            agent.state.clone(),
        )
        .for_run(run_token.clone());
        let parts = RunParts {
            registry,
            steps: &*agent.steps,
            observer,
            base_ctx: &base_ctx,
            parallel: agent.config.max_parallel_tools,
            sink,
        };
        let mut budget = RetryBudget::new(agent.config.max_repeated_failures);
        for record in &state.records {
            budget.replay(&record.name, &record.arguments, record.is_error);
        }

        if let Some((text, calls)) = resumed {
            let turn = state.turn;
            let (tool_calls, settled) = {
                // A paused turn's searches ran, and were revealed, before the pause.
                let runner = parts.runner(&self.active, turn, None);
                runner.finish_paused(calls).await?
            };
            complete_turn(
                &mut state,
                &mut budget,
                text,
                tool_calls,
                settled,
                &agent.config,
            )?;
            self.activate(turn, &emit, sink).await;
            // The turn's model request was counted when it paused.
            sink.send(|| StreamEvent::TurnFinished {
                turn,
                usage: Usage::default(),
            })
            .await;
        } else {
            let mut activated = registry.activate(&mut self.active).await;
            if let SessionSearch::Undecided { threshold } = self.search {
                // Automatic mode decides here, once: the first round has just told how many
                // Deferred tools are ready.
                let ready = self.active.discoverable_count();
                if ready > threshold {
                    self.search = SessionSearch::on(&self.agent);
                } else {
                    self.search = SessionSearch::Off;
                    activated.extend(registry.end_discovery(&mut self.active).await);
                }
                tracing::debug!(
                    ready,
                    threshold,
                    search = ready > threshold,
                    "tool search decided"
                );
            }
            if !activated.is_empty() {
                emit(AgentEvent::ToolsActivated {
                    turn: 0,
                    names: &activated,
                });
                sink.send(|| StreamEvent::ToolsActivated {
                    turn: 0,
                    names: activated.clone(),
                })
                .await;
            }
        }
        let searching = self.search == SessionSearch::On;
        let native = self.search == SessionSearch::Native;

        while state.turn < agent.config.max_turns {
            state.turn += 1;
            let turn = state.turn;
            let (tools, deferred_tools) = if native {
                self.tool_list
                    .get_native(registry, &self.active, &agent.deferred_list)
            } else {
                let tools = self.tool_list.get(
                    registry,
                    &self.active,
                    searching.then_some(&agent.search_list),
                );
                (tools, Default::default())
            };
            let (tools, response_format) = match answer.as_deref_mut() {
                Some(answer) => answer.offer(tools),
                None => (tools, None),
            };
            emit(AgentEvent::TurnStarted {
                session_id: &self.id,
                turn,
                tools: &tools,
            });
            let request = LlmRequest {
                system: agent.system_prompt.clone(),
                // Lent to the request and taken back, so the transcript is not copied per turn.
                messages: std::mem::take(&mut state.transcript),
                tools,
                deferred_tools,
                response_format,
            };
            let chat_span = tracing::info_span!(
                "chat",
                "otel.name" = format!("chat {}", agent.llm.model()),
                "gen_ai.operation.name" = "chat",
                "gen_ai.provider.name" = agent.llm.provider(),
                "gen_ai.request.model" = agent.llm.model(),
                "gen_ai.usage.input_tokens" = Empty,
                "gen_ai.usage.output_tokens" = Empty,
                "error.type" = Empty,
            );
            let key = || format!("turn/{turn}/model");
            let llm = &agent.llm;
            // With early start on, a streamed turn's calls may start while the reply streams,
            // on a copy of the turn's tools (none change before its calls are done). Not in a
            // typed run: its answer may end the turn, and then the turn's other calls must not
            // have run.
            let early_active =
                (agent.config.early_tool_start && sink.is_on() && !native && answer.is_none())
                    .then(|| self.active.clone());
            let early_runner = early_active
                .as_ref()
                .map(|active| parts.runner(active, turn, searching.then_some(&*agent)));
            let mut early = early::Early::new(early_runner.as_ref());
            let mut readied = reply::Readied::new();
            let model_step = async {
                let reply = if sink.is_on() {
                    reply::stream_reply(&**llm, &request, sink, turn, &mut readied, &mut early)
                        .instrument(chat_span.clone())
                        .await
                } else {
                    llm.complete(&request).instrument(chat_span.clone()).await
                };
                if let Err(error) = &reply {
                    chat_span.record("error.type", error_type(error));
                }
                reply.map(StepOutput::Model)
            };
            let reply = step::run(&*agent.steps, key, model_step).await;
            state.transcript = request.messages;
            let mut response = match reply? {
                StepOutput::Model(response) => response,
                other => return Err(step::mismatch(&key(), "model reply", &other)),
            };
            for call in &mut response.tool_calls {
                crate::limits::defuse_deep_arguments(&mut call.arguments);
            }
            chat_span.record("gen_ai.usage.input_tokens", response.usage.input_tokens);
            chat_span.record("gen_ai.usage.output_tokens", response.usage.output_tokens);
            state.usage += response.usage;
            emit(AgentEvent::ModelReplied {
                turn,
                response: &response,
            });
            if native {
                // Found on the provider's side while it wrote this reply, which may already
                // call them: revealed before the calls run.
                for search in &response.tool_searches {
                    let found: Vec<(usize, &'static str)> = search
                        .tools
                        .iter()
                        .filter_map(|name| {
                            let index = registry.position(name)?;
                            let tool = registry.get(name)?;
                            self.active
                                .is_discoverable(index)
                                .then_some((index, tool.name()))
                        })
                        .collect();
                    reveal(
                        registry,
                        &mut self.active,
                        &emit,
                        turn,
                        search.query(),
                        &found,
                    );
                }
            }
            state
                .transcript
                .extend(response.tool_searches.drain(..).map(Message::ToolSearch));
            for (index, call) in response.tool_calls.iter().enumerate() {
                if reply::was_readied(&readied, index) {
                    continue;
                }
                sink.send(|| StreamEvent::ToolCallReady {
                    turn,
                    call: call.clone(),
                })
                .await;
            }
            let turn_usage = response.usage;

            // A typed run judges the reply first: its final answer ends the run, and a refused
            // answer is settled here, never run as a tool (`answer.rs`).
            let mut refused = Vec::new();
            if let Some(answer) = answer.as_deref_mut() {
                match answer.judge(&mut state, &mut response)? {
                    Judgement::Answered { text } => {
                        return Ok(self.finish(state, text, turn_usage, &emit, sink).await);
                    }
                    Judgement::Again => {
                        sink.send(|| StreamEvent::TurnFinished {
                            turn,
                            usage: turn_usage,
                        })
                        .await;
                        continue;
                    }
                    Judgement::Refused(results) => refused = results,
                    Judgement::NotAnswered => {}
                }
            }
            if response.tool_calls.is_empty() {
                state
                    .transcript
                    .push(Message::assistant(response.text.clone()));
                return Ok(self
                    .finish(state, response.text, turn_usage, &emit, sink)
                    .await);
            }

            let calls = response.tool_calls;
            let runner = parts.runner(&self.active, turn, searching.then_some(&*agent));
            let mut needs = Vec::with_capacity(calls.len());
            for (index, call) in calls.iter().enumerate() {
                if let Some(verdict) = early.verdict(index) {
                    needs.push(verdict);
                    continue;
                }
                let ctx = base_ctx.for_call_in_run(call.id.as_str());
                needs.push(
                    registry
                        .needs_approval(&self.active, &call.name, &call.arguments, &ctx)
                        .await,
                );
            }
            let mut settled: Vec<Option<Settled>> = (0..calls.len()).map(|_| None).collect();
            for (index, result) in refused {
                settled[index] = Some(Settled {
                    result,
                    duration: Duration::ZERO,
                    approval: None,
                });
            }
            let open = |index: &usize| settled[*index].is_none();
            let immediate: Vec<(usize, &serde_json::Value)> = (0..calls.len())
                .filter(|index| open(index) && !needs[*index])
                .map(|index| (index, &calls[index].arguments))
                .collect();
            let waiting: Vec<usize> = (0..calls.len())
                .filter(|index| open(index) && needs[*index])
                .collect();
            let found = match &approvals {
                Approvals::Ask(approver) => {
                    let (ran, decided) = tokio::join!(
                        early.run(&runner, &calls, &immediate),
                        runner.ask(approver.as_deref(), &self.id, &calls, &waiting),
                    );
                    place(&mut settled, &immediate, ran?);
                    for (index, outcome) in runner.carry_out(&calls, decided, false).await? {
                        settled[index] = Some(outcome);
                    }
                    early.take_found(&runner)
                }
                Approvals::Pause => {
                    let ran = early.run(&runner, &calls, &immediate).await?;
                    place(&mut settled, &immediate, ran);
                    let found = early.take_found(&runner);
                    if !waiting.is_empty() {
                        let turn_calls: Vec<TurnCall> = calls
                            .iter()
                            .zip(settled)
                            .map(|(call, settled)| match settled {
                                Some(settled) => TurnCall::Ran(RanCall {
                                    id: call.id.clone(),
                                    tool: call.name.clone(),
                                    arguments: call.arguments.clone(),
                                    provider_state: call.provider_state.clone(),
                                    content: settled.result.content,
                                    is_error: settled.result.is_error,
                                    duration: settled.duration,
                                }),
                                None => {
                                    runner.emit(AgentEvent::ApprovalRequested { turn, call });
                                    tracing::info!(
                                        "gen_ai.tool.name" = call.name.as_str(),
                                        "gen_ai.tool.call.id" = call.id.as_str(),
                                        "tool call awaits approval; the run pauses"
                                    );
                                    TurnCall::Pending(PendingCall::new(call))
                                }
                            })
                            .collect();
                        drop(runner);
                        pause_events(sink, turn, &turn_calls).await;
                        // The turn's searches are answered already: their tools are revealed
                        // now, so the paused state's active tools include them.
                        reveal_found(registry, &mut self.active, &emit, turn, &found);
                        return Ok(RunOutcome::Paused(PausedRun::new(
                            self.id.to_string(),
                            state.start,
                            state.transcript,
                            turn,
                            self.active.names().to_vec(),
                            state.usage,
                            state.records,
                            response.text,
                            turn_calls,
                        )));
                    }
                    found
                }
            };
            let settled = settled
                .into_iter()
                .map(|slot| slot.unwrap_or_else(unsettled))
                .collect();
            complete_turn(
                &mut state,
                &mut budget,
                response.text,
                calls,
                settled,
                &agent.config,
            )?;
            reveal_found(registry, &mut self.active, &emit, turn, &found);
            self.activate(turn, &emit, sink).await;
            sink.send(|| StreamEvent::TurnFinished {
                turn,
                usage: turn_usage,
            })
            .await;
        }
        Err(AgentError::MaxTurns {
            turns: agent.config.max_turns,
            transcript: state.transcript,
        })
    }

    /// Ends the run with its answer `text`: the turn's messages are in `state.transcript`,
    /// which becomes the session's history.
    async fn finish(
        &mut self,
        state: RunState,
        text: String,
        turn_usage: Usage,
        emit: &impl Fn(AgentEvent<'_>),
        sink: &Sink,
    ) -> RunOutcome {
        let turn = state.turn;
        emit(AgentEvent::Finished {
            turns: turn,
            text: &text,
            usage: state.usage,
        });
        sink.send(|| StreamEvent::TurnFinished {
            turn,
            usage: turn_usage,
        })
        .await;
        let output = RunOutput {
            text,
            messages: state.transcript[state.start..].to_vec(),
            tool_calls: state.records,
            turns: turn,
            usage: state.usage,
        };
        self.history = state.transcript;
        RunOutcome::Done(output)
    }

    async fn activate(&mut self, turn: usize, emit: &impl Fn(AgentEvent<'_>), sink: &Sink) {
        let activated = self.agent.inner.registry.activate(&mut self.active).await;
        if !activated.is_empty() {
            tracing::debug!(tools = ?activated, "tools activated");
            emit(AgentEvent::ToolsActivated {
                turn,
                names: &activated,
            });
            sink.send(|| StreamEvent::ToolsActivated {
                turn,
                names: activated,
            })
            .await;
        }
    }
}

/// Streams an [`ApprovalRequested`](StreamEvent::ApprovalRequested) for each call a paused turn
/// waits on.
async fn pause_events(sink: &Sink, turn: usize, calls: &[TurnCall]) {
    for call in calls {
        if let TurnCall::Pending(_) = call {
            sink.send(|| StreamEvent::ApprovalRequested {
                turn,
                call: call.to_tool_call(),
            })
            .await;
        }
    }
}

/// A slot the loop left empty; every call is settled before the turn completes, so this is
/// only a guard that keeps a mistake in the loop from reaching the model as silence.
#[cold]
fn unsettled() -> Settled {
    Settled {
        result: ToolCallResult::error(&AgentError::tool(
            "this call was not run (an internal error of the agent loop)",
        )),
        duration: Duration::ZERO,
        approval: None,
    }
}

fn place(
    settled: &mut [Option<Settled>],
    jobs: &[(usize, &serde_json::Value)],
    ran: Vec<(ToolCallResult, Duration)>,
) {
    for (&(index, _), (result, duration)) in jobs.iter().zip(ran) {
        settled[index] = Some(Settled {
            result,
            duration,
            approval: None,
        });
    }
}

/// Hands a turn's results to the model's transcript in call order and records them; ends the
/// run when the model keeps repeating a failing call.
fn complete_turn(
    state: &mut RunState,
    budget: &mut RetryBudget,
    text: String,
    calls: Vec<ToolCall>,
    mut settled: Vec<Settled>,
    config: &super::AgentConfig,
) -> AgentResult<()> {
    let mut exhausted = None;
    for (call, settled) in calls.iter().zip(settled.iter_mut()) {
        if let Verdict::Exhausted { failures } = budget.record(call, &mut settled.result) {
            exhausted.get_or_insert_with(|| {
                (call.name.clone(), failures, settled.result.to_model_text())
            });
        }
    }
    state.transcript.push(Message::Assistant {
        text,
        tool_calls: calls.clone(),
    });
    for (call, settled) in calls.into_iter().zip(settled) {
        state.transcript.push(Message::Tool {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: settled.result.content.clone(),
            is_error: settled.result.is_error,
        });
        state.records.push(ToolCallRecord {
            id: call.id,
            name: call.name,
            arguments: call.arguments,
            result: settled.result.content,
            is_error: settled.result.is_error,
            duration: settled.duration,
            turn: state.turn,
            approval: settled.approval,
        });
    }
    if let Some((tool, failures, last_error)) = exhausted {
        tracing::warn!(tool = %tool, failures, "the model repeats a failing tool call; run stopped");
        return Err(AgentError::RepeatedToolFailure {
            tool,
            failures,
            limit: config.max_repeated_failures,
            last_error,
            transcript: std::mem::take(&mut state.transcript),
        });
    }
    Ok(())
}

/// What one turn's calls need to run.
/// What every [`Runner`] of one run shares: built once per run, a runner per turn.
#[derive(Clone, Copy)]
struct RunParts<'a> {
    registry: &'a ToolRegistry,
    steps: &'a dyn StepExecutor,
    observer: Option<&'a dyn AgentObserver>,
    base_ctx: &'a ToolContext,
    parallel: usize,
    sink: &'a Sink,
}

impl<'a> RunParts<'a> {
    /// The runner of turn `turn`'s calls over `active`; `search` when the session finds its
    /// Deferred tools with `search_tools`.
    fn runner(
        self,
        active: &'a ActiveTools,
        turn: usize,
        search: Option<&'a AgentInner>,
    ) -> Runner<'a> {
        Runner {
            registry: self.registry,
            steps: self.steps,
            active,
            observer: self.observer,
            base_ctx: self.base_ctx,
            parallel: self.parallel,
            turn,
            search,
            found: Mutex::default(),
            sink: self.sink,
        }
    }
}

struct Runner<'a> {
    registry: &'a ToolRegistry,
    steps: &'a dyn StepExecutor,
    active: &'a ActiveTools,
    observer: Option<&'a dyn AgentObserver>,
    base_ctx: &'a ToolContext,
    parallel: usize,
    turn: usize,
    /// The agent, when this session's model finds its Deferred tools with `search_tools`.
    search: Option<&'a AgentInner>,
    /// What this turn's `search_tools` calls found, by call index: revealed once the turn's
    /// calls are done. A lock only because the calls' futures share the runner; a search never
    /// awaits while holding it.
    found: Mutex<Vec<(usize, Found)>>,
    sink: &'a Sink,
}

impl Runner<'_> {
    fn emit(&self, event: AgentEvent<'_>) {
        if let Some(observer) = self.observer {
            observer.on_event(&event);
        }
    }

    /// Runs `calls[index]` with `arguments` for every job, concurrently (bounded), each as its
    /// step `turn/<n>/tool/<call id>`; results in the jobs' order. Fails when a step's executor
    /// does, or its journal does not fit this agent.
    async fn run_calls(
        &self,
        calls: &[ToolCall],
        jobs: &[(usize, &serde_json::Value)],
    ) -> AgentResult<Vec<(ToolCallResult, Duration)>> {
        let turn = self.turn;
        // Indices rather than `&ToolCall` items keep the stream's closure free of a
        // higher-ranked lifetime, so the run future stays `Send`.
        stream::iter(0..jobs.len())
            .map(|job| {
                let (index, arguments) = jobs[job];
                let call = &calls[index];
                async move {
                    self.emit(AgentEvent::ToolStarted { turn, call });
                    self.sink
                        .send(|| StreamEvent::ToolStarted {
                            turn,
                            call: call.clone(),
                        })
                        .await;
                    let (result, duration) = match self.search {
                        // A search answers from the index, the same on every replay: no step.
                        Some(agent) if call.name == SEARCH_TOOL_NAME => {
                            let started = Instant::now();
                            let (result, found) = search(agent, self.active, call, arguments);
                            if let Some(found) = found {
                                self.found
                                    .lock()
                                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                                    .push((index, found));
                            }
                            (result, started.elapsed())
                        }
                        _ => {
                            // Formatted only for an executor that journals, or for an error.
                            let key = || format!("turn/{turn}/tool/{}", call.id);
                            let known = self.registry.get(&call.name).is_some();
                            let tool_step = async {
                                let ctx = self
                                    .base_ctx
                                    .for_call_in_run(call.id.as_str())
                                    .in_turn(turn);
                                let started = Instant::now();
                                let result =
                                    execute(self.registry, self.active, call, arguments, &ctx)
                                        .await;
                                Ok(StepOutput::Tool(ToolStep {
                                    known,
                                    content: result.content,
                                    is_error: result.is_error,
                                    duration: started.elapsed(),
                                }))
                            };
                            let output = step::run(self.steps, key, tool_step).await?;
                            let step = match output {
                                StepOutput::Tool(step) => step,
                                other => {
                                    return Err(step::mismatch(&key(), "tool result", &other));
                                }
                            };
                            if step.known != known {
                                return Err(replay_mismatch(key(), call, &step));
                            }
                            let result = ToolCallResult {
                                content: step.content,
                                is_error: step.is_error,
                            };
                            (result, step.duration)
                        }
                    };
                    self.emit(AgentEvent::ToolFinished {
                        turn,
                        call,
                        result: &result,
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
                    Ok((result, duration))
                }
            })
            .buffered(self.parallel)
            // The first failed step ends the turn: the calls after it are not started, and
            // the ones still running are dropped, as they would be if the process died.
            .try_collect()
            .await
    }

    /// What this turn's searches found, in call order.
    fn take_found(&self) -> Vec<Found> {
        let mut found = std::mem::take(
            &mut *self
                .found
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        found.sort_by_key(|&(index, _)| index);
        found.into_iter().map(|(_, found)| found).collect()
    }

    /// Reports a call's decision to the observer and to tracing.
    fn announce(&self, call: &ToolCall, approval: &Approval) {
        self.emit(AgentEvent::ApprovalResolved {
            turn: self.turn,
            call,
            approval,
        });
        tracing::info!(
            "gen_ai.tool.name" = call.name.as_str(),
            "gen_ai.tool.call.id" = call.id.as_str(),
            "approval.decision" = decision_name(approval),
            "tool call approval resolved"
        );
    }

    /// Puts the calls at `waiting` to `approver`, one after the other in call order, and
    /// reports each decision as it is made.
    async fn ask(
        &self,
        approver: Option<&dyn Approver>,
        session_id: &str,
        calls: &[ToolCall],
        waiting: &[usize],
    ) -> Vec<(usize, Decision)> {
        let mut decided = Vec::with_capacity(waiting.len());
        for &index in waiting {
            let call = &calls[index];
            self.emit(AgentEvent::ApprovalRequested {
                turn: self.turn,
                call,
            });
            self.sink
                .send(|| StreamEvent::ApprovalRequested {
                    turn: self.turn,
                    call: call.clone(),
                })
                .await;
            let Some(approver) = approver else {
                tracing::warn!(
                    "gen_ai.tool.name" = call.name.as_str(),
                    "gen_ai.tool.call.id" = call.id.as_str(),
                    "tool call needs approval and the agent has no approver; denied"
                );
                self.announce(call, &Decision::NoApprover.outcome(&call.name).0);
                decided.push((index, Decision::NoApprover));
                continue;
            };
            let span = tracing::info_span!(
                "approve_tool",
                "gen_ai.tool.name" = call.name.as_str(),
                "gen_ai.tool.call.id" = call.id.as_str(),
                "approval.decision" = Empty,
            );
            let request = ApprovalRequest::new(session_id, self.turn, call);
            // An approver that panics denies: failing closed, as when there is none.
            let mut approval = AssertUnwindSafe(approver.decide(request))
                .catch_unwind()
                .instrument(span.clone())
                .await
                .unwrap_or_else(|_| Approval::deny("the approver failed (it panicked)"));
            if let Approval::ApproveWith { arguments } = &mut approval {
                crate::limits::defuse_deep_arguments(arguments);
            }
            span.record("approval.decision", decision_name(&approval));
            self.announce(call, &approval);
            decided.push((index, Decision::Person(approval)));
        }
        decided
    }

    /// Runs the approved calls (concurrently, with their decided arguments) and turns the
    /// denied ones into results.
    /// `announce`: whether to report the decisions as resolved (not yet done by [`ask`](Self::ask)).
    async fn carry_out(
        &self,
        calls: &[ToolCall],
        decided: Vec<(usize, Decision)>,
        announce: bool,
    ) -> AgentResult<Vec<(usize, Settled)>> {
        let mut settled = Vec::with_capacity(decided.len());
        let mut jobs = Vec::new();
        for (index, decision) in &decided {
            let call = &calls[*index];
            let (approval, denial) = decision.outcome(&call.name);
            if announce {
                self.announce(call, &approval);
            }
            match denial {
                Some(error) => settled.push((
                    *index,
                    Settled {
                        result: ToolCallResult::error(&error),
                        duration: Duration::ZERO,
                        approval: Some(approval),
                    },
                )),
                None => jobs.push((*index, approval)),
            }
        }
        let arguments: Vec<(usize, &serde_json::Value)> = jobs
            .iter()
            .map(|(index, approval)| match approval {
                Approval::ApproveWith { arguments } => (*index, arguments),
                _ => (*index, &calls[*index].arguments),
            })
            .collect();
        let ran = self.run_calls(calls, &arguments).await?;
        drop(arguments);
        for ((index, approval), (result, duration)) in jobs.into_iter().zip(ran) {
            settled.push((
                index,
                Settled {
                    result,
                    duration,
                    approval: Some(approval),
                },
            ));
        }
        Ok(settled)
    }

    /// Runs the decided calls of a paused turn; the calls that ran before the pause keep their
    /// results.
    async fn finish_paused(
        &self,
        calls: Vec<TurnCall>,
    ) -> AgentResult<(Vec<ToolCall>, Vec<Settled>)> {
        let tool_calls: Vec<ToolCall> = calls.iter().map(TurnCall::to_tool_call).collect();
        let mut settled: Vec<Option<Settled>> = Vec::with_capacity(calls.len());
        let mut decided = Vec::new();
        for (index, call) in calls.into_iter().enumerate() {
            match call {
                TurnCall::Ran(ran) => settled.push(Some(Settled {
                    result: ToolCallResult {
                        content: ran.content,
                        is_error: ran.is_error,
                    },
                    duration: ran.duration,
                    approval: None,
                })),
                TurnCall::Pending(pending) => {
                    settled.push(None);
                    // `PausedRun::check` refused undecided calls; should one slip through, it is
                    // denied, never run.
                    let decision = pending
                        .take_decision()
                        .map_or(Decision::NoApprover, Decision::Person);
                    decided.push((index, decision));
                }
            }
        }
        for (index, outcome) in self.carry_out(&tool_calls, decided, true).await? {
            settled[index] = Some(outcome);
        }
        let settled = settled
            .into_iter()
            .map(|slot| slot.unwrap_or_else(unsettled))
            .collect();
        Ok((tool_calls, settled))
    }
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

/// One tool call, inside its `execute_tool` span.
async fn execute(
    registry: &ToolRegistry,
    active: &ActiveTools,
    call: &ToolCall,
    arguments: &serde_json::Value,
    ctx: &ToolContext,
) -> ToolCallResult {
    let span = execute_tool_span(call);
    let result = registry
        .dispatch(active, &call.name, arguments, ctx)
        .instrument(span.clone())
        .await;
    if result.is_error {
        span.record("error.type", "tool_error");
    }
    result
}

/// The `execute_tool` span of one call (OpenTelemetry GenAI names), for registry tools and the
/// search tool alike.
fn execute_tool_span(call: &ToolCall) -> tracing::Span {
    tracing::info_span!(
        "execute_tool",
        "otel.name" = format!("execute_tool {}", call.name),
        "gen_ai.operation.name" = "execute_tool",
        "gen_ai.tool.name" = call.name.as_str(),
        "gen_ai.tool.call.id" = call.id.as_str(),
        "error.type" = Empty,
    )
}

/// What one `search_tools` call found: the tools to reveal once the turn's calls are done.
struct Found {
    query: String,
    /// Registration index and name of each tool, best first.
    hits: Vec<(usize, &'static str)>,
}

/// Makes the tools a search found callable from the next request on, and reports the search.
fn reveal(
    registry: &ToolRegistry,
    active: &mut ActiveTools,
    emit: &impl Fn(AgentEvent<'_>),
    turn: usize,
    query: &str,
    hits: &[(usize, &'static str)],
) {
    let names: Vec<&'static str> = hits.iter().map(|&(_, name)| name).collect();
    tracing::info!(query = %query, tools = ?names, "tool search");
    emit(AgentEvent::ToolsFound {
        turn,
        query,
        names: &names,
    });
    registry.reveal(active, hits.iter().map(|&(index, _)| index));
}

/// Reveals what each of a turn's searches found, in call order.
fn reveal_found(
    registry: &ToolRegistry,
    active: &mut ActiveTools,
    emit: &impl Fn(AgentEvent<'_>),
    turn: usize,
    found: &[Found],
) {
    for found in found {
        reveal(registry, active, emit, turn, &found.query, &found.hits);
    }
}

/// The model's call of `search_tools`: searches the session's discoverable tools (found ones
/// included, so a repeated search answers the same).
fn search(
    agent: &AgentInner,
    active: &ActiveTools,
    call: &ToolCall,
    arguments: &serde_json::Value,
) -> (ToolCallResult, Option<Found>) {
    let span = execute_tool_span(call);
    let _entered = span.enter();
    let arguments = match SearchArguments::parse(arguments) {
        Ok(arguments) => arguments,
        Err(message) => {
            span.record("error.type", "tool_error");
            let result = ToolCallResult {
                content: vec![crate::content::Content::text(message)],
                is_error: true,
            };
            return (result, None);
        }
    };
    let hits = agent
        .tool_index()
        .search_where(&arguments.query, arguments.limit(), |index| {
            active.is_discoverable(index)
        });
    let result = ToolCallResult::success(vec![crate::content::Content::text(found_text(
        &arguments.query,
        &hits,
    ))]);
    let found = Found {
        query: arguments.query,
        hits: hits.iter().map(|hit| (hit.index, hit.name)).collect(),
    };
    (result, Some(found))
}

/// The decision's name for telemetry.
fn decision_name(approval: &Approval) -> &'static str {
    match approval {
        Approval::Approve => "approve",
        Approval::ApproveWith { .. } => "approve_with",
        Approval::Deny { .. } => "deny",
    }
}

/// A short, stable name of a model-call failure for the `error.type` attribute.
fn error_type(error: &AgentError) -> &'static str {
    match error {
        AgentError::Provider { .. } => "provider_error",
        AgentError::Http { .. } => "http_error",
        AgentError::InvalidResponse { .. } => "invalid_response",
        _ => "_OTHER",
    }
}
