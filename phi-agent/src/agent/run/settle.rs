//! Settling a turn's calls: which need approval, the others run at once (or already run, when
//! they started early), and those that need approval are put to the approver while they run,
//! or the run pauses on them, as the plan's [`Approvals`] says. A paused turn is finished here
//! too, once its calls are decided.

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use tracing::Instrument;

use super::calls::{Attempt, Caller, Runner, enter};
use super::early::Early;
use super::search::Found;
use super::spans::{approve_span, decision_name};
use super::state::Settled;
use crate::agent::approval::ledger::{Consult, Source};
use crate::agent::approval::{Approval, ApprovalRequest, Approver};
use crate::agent::events::AgentEvent;
use crate::agent::nested::{NestedPause, NestedReplay};
use crate::agent::paused::{PendingCall, RanCall, TurnCall};
use crate::agent::plan::Approvals;
use crate::agent::question::PendingQuestion;
use crate::agent::stream::StreamEvent;
use crate::error::{AgentError, AgentResult};
use crate::llm::ToolCall;
use crate::registry::ToolCallResult;

/// How a turn's calls were settled.
pub(in crate::agent) enum Settle<P> {
    /// Every call has its result, in call order; the turn's searches found `found`.
    Done {
        settled: Vec<Settled>,
        found: Vec<Found>,
    },
    /// Some calls wait for a person: the turn as it pauses. Only a run whose plan may pause
    /// holds a `proof`.
    Paused {
        proof: P,
        calls: Vec<TurnCall>,
        found: Vec<Found>,
    },
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

/// A turn's slots, one per call, filled as calls settle.
type Slots = Vec<Option<Settled>>;

/// Settles the turn's `calls`; `refused` are final-answer calls already settled.
pub(in crate::agent) async fn settle<P>(
    runner: &Runner<'_>,
    early: &mut Early<'_, '_>,
    approvals: Approvals<'_, P>,
    calls: &[ToolCall],
    refused: Vec<(usize, ToolCallResult)>,
    session_id: &str,
) -> AgentResult<Settle<P>> {
    let mut needs = Vec::with_capacity(calls.len());
    for (index, call) in calls.iter().enumerate() {
        // A call offered to the early start was checked then: it is asked once.
        let verdict = match early.verdict(index) {
            Some(verdict) => verdict,
            None => runner.needs_approval(call, Caller::Model).await,
        };
        needs.push(verdict);
    }
    let mut slots: Slots = (0..calls.len()).map(|_| None).collect();
    for (index, result) in refused {
        slots[index] = Some(Settled::unrun(result, None));
    }
    let open = |index: &usize| slots[*index].is_none();
    let immediate: Vec<(usize, &serde_json::Value)> = (0..calls.len())
        .filter(|index| open(index) && !needs[*index])
        .map(|index| (index, &calls[index].arguments))
        .collect();
    let mut waiting: Vec<usize> = (0..calls.len())
        .filter(|index| open(index) && needs[*index])
        .collect();
    // Decided by the policy or a remembered decision: no one is asked, and they run now.
    let mut unasked = Vec::new();
    waiting.retain(|&index| {
        match unasked_decision(runner, session_id, &calls[index], Consult::All) {
            Some(approval) => {
                unasked.push((index, Decision::Person(approval)));
                false
            }
            None => true,
        }
    });
    match approvals {
        Approvals::Ask(approver) => {
            let (ran, mut decided) = tokio::join!(
                early.run(runner, calls, &immediate),
                ask(runner, approver, session_id, calls, &waiting),
            );
            place(&mut slots, &immediate, ran?);
            decided.extend(unasked);
            for (index, outcome) in carry_out(runner, calls, decided, false).await? {
                slots[index] = Some(outcome);
            }
            let found = early.take_found(runner);
            Ok(Settle::Done {
                settled: filled(slots)?,
                found,
            })
        }
        Approvals::Pause(proof) => {
            let ran = early.run(runner, calls, &immediate).await?;
            place(&mut slots, &immediate, ran);
            for (index, outcome) in carry_out(runner, calls, unasked, false).await? {
                slots[index] = Some(outcome);
            }
            let found = early.take_found(runner);
            let questions = questions(runner, calls, &mut slots);
            let nested = nested_pauses(runner, calls, &mut slots);
            if waiting.is_empty() && questions.is_empty() && nested.is_empty() {
                let settled = filled(slots)?;
                return Ok(Settle::Done { settled, found });
            }
            let calls = paused_turn(runner, calls, slots, questions, nested);
            pause_events(runner, &calls).await;
            Ok(Settle::Paused {
                proof,
                calls,
                found,
            })
        }
    }
}

/// The questions the turn's calls asked the user with no one to answer: each such call's
/// result is dropped (it runs again with the answer), and the run pauses on its question.
fn questions(
    runner: &Runner<'_>,
    calls: &[ToolCall],
    slots: &mut Slots,
) -> Vec<Option<PendingQuestion>> {
    let mut questions: Vec<Option<PendingQuestion>> = calls.iter().map(|_| None).collect();
    for (id, message, schema) in runner.talk.take_asked() {
        let Some(index) = calls.iter().position(|call| call.id == id) else {
            continue;
        };
        // A call that asked twice waits on its first question.
        if questions[index].is_none() {
            slots[index] = None;
            questions[index] = Some(PendingQuestion::new(&calls[index], message, schema));
        }
    }
    if questions.iter().all(Option::is_none) {
        questions.clear();
    }
    questions
}

/// The nested calls of the turn's calls that wait for approval: each such call's result is
/// dropped (it runs again once decided, answered from the nested results it had), and the run
/// pauses on its nested call.
fn nested_pauses(
    runner: &Runner<'_>,
    calls: &[ToolCall],
    slots: &mut Slots,
) -> Vec<Option<NestedPause>> {
    let pauses = runner.talk.nested.take_pauses();
    if pauses.is_empty() {
        return Vec::new();
    }
    let mut nested: Vec<Option<NestedPause>> = calls.iter().map(|_| None).collect();
    for pause in pauses {
        let Some(index) = calls.iter().position(|call| call.id == pause.caller) else {
            continue;
        };
        // A caller stops at its first pause; a question asked as well waits behind it.
        slots[index] = None;
        nested[index] = Some(pause);
    }
    nested
}

/// The paused turn's calls: those that ran with their results, those that asked a question,
/// those whose nested call waits, the others pending.
fn paused_turn(
    runner: &Runner<'_>,
    calls: &[ToolCall],
    slots: Slots,
    mut questions: Vec<Option<PendingQuestion>>,
    mut nested: Vec<Option<NestedPause>>,
) -> Vec<TurnCall> {
    let turn = runner.turn;
    calls
        .iter()
        .zip(slots)
        .enumerate()
        .map(|(index, (call, settled))| match settled {
            Some(settled) => TurnCall::Ran(RanCall {
                id: call.id.clone(),
                tool: call.name.clone(),
                arguments: call.arguments.clone(),
                provider_state: call.provider_state.clone(),
                content: settled.result.content,
                is_error: settled.result.is_error,
                duration: settled.duration,
            }),
            None if nested.get(index).is_some_and(Option::is_some) => {
                let pause = nested[index].take().expect("checked just above");
                runner.observer.emit(AgentEvent::ApprovalRequested {
                    turn,
                    call: &pause.call,
                });
                tracing::info!(
                    "gen_ai.tool.name" = pause.call.name.as_str(),
                    "gen_ai.tool.call.id" = pause.call.id.as_str(),
                    "nested tool call awaits approval; the run pauses"
                );
                TurnCall::Pending(PendingCall::nested(call, pause, turn))
            }
            None if questions.get(index).is_some_and(Option::is_some) => {
                TurnCall::Asking(questions[index].take().expect("checked just above"))
            }
            None => {
                runner
                    .observer
                    .emit(AgentEvent::ApprovalRequested { turn, call });
                tracing::info!(
                    "gen_ai.tool.name" = call.name.as_str(),
                    "gen_ai.tool.call.id" = call.id.as_str(),
                    "tool call awaits approval; the run pauses"
                );
                TurnCall::Pending(PendingCall::new(call, turn))
            }
        })
        .collect()
}

/// Streams an [`ApprovalRequested`](StreamEvent::ApprovalRequested) for each call a paused turn
/// waits on.
async fn pause_events(runner: &Runner<'_>, calls: &[TurnCall]) {
    for call in calls {
        if let TurnCall::Pending(pending) = call {
            // A nested call is shown as itself, not as the model's call that made it.
            let shown = match pending.within() {
                Some(_) => ToolCall::new(pending.id(), pending.tool(), pending.arguments().clone()),
                None => call.to_tool_call(),
            };
            runner
                .sink
                .send(|| StreamEvent::ApprovalRequested {
                    turn: runner.turn,
                    call: shown,
                })
                .await;
        }
    }
}

/// Every slot, filled: a call left unsettled is a bug of the loop, never silence to the model.
fn filled(slots: Slots) -> AgentResult<Vec<Settled>> {
    slots
        .into_iter()
        .enumerate()
        .map(|(index, slot)| {
            slot.ok_or_else(|| {
                AgentError::Internal(format!("call {index} of the turn was never settled"))
            })
        })
        .collect()
}

fn place(
    slots: &mut Slots,
    jobs: &[(usize, &serde_json::Value)],
    ran: Vec<(ToolCallResult, std::time::Duration)>,
) {
    for (&(index, _), (result, duration)) in jobs.iter().zip(ran) {
        slots[index] = Some(Settled {
            result,
            duration,
            approval: None,
        });
    }
}

/// Reports a call's decision to the observer and to tracing.
async fn announce(runner: &Runner<'_>, call: &ToolCall, approval: &Approval) {
    runner.observer.emit(AgentEvent::ApprovalResolved {
        turn: runner.turn,
        call,
        approval,
    });
    runner
        .sink
        .send(|| StreamEvent::ApprovalResolved {
            turn: runner.turn,
            call: call.clone(),
            approval: approval.clone(),
        })
        .await;
    tracing::info!(
        "gen_ai.tool.name" = call.name.as_str(),
        "gen_ai.tool.call.id" = call.id.as_str(),
        "approval.decision" = decision_name(approval),
        "tool call approval resolved"
    );
}

/// The decision on `call` made without asking anyone (the agent's policy, then a decision the
/// session remembers), reported as it is made; `None` when a person must decide.
pub(super) fn unasked_decision(
    runner: &Runner<'_>,
    session_id: &str,
    call: &ToolCall,
    consult: Consult,
) -> Option<Approval> {
    let request = ApprovalRequest::new(session_id, runner.turn, call);
    let (approval, source) = runner.talk.approvals.decide(&request, consult)?;
    let turn = runner.turn;
    let by = match &source {
        Source::Policy => {
            runner.observer.emit(AgentEvent::ApprovalByPolicy {
                turn,
                call,
                approval: &approval,
            });
            "policy"
        }
        Source::Remembered(decision) => {
            runner.observer.emit(AgentEvent::ApprovalRemembered {
                turn,
                call,
                decision,
            });
            "remembered"
        }
    };
    tracing::info!(
        "gen_ai.tool.name" = call.name.as_str(),
        "gen_ai.tool.call.id" = call.id.as_str(),
        "approval.decision" = decision_name(&approval),
        "approval.by" = by,
        "tool call decided without asking"
    );
    Some(approval)
}

/// Puts the calls at `waiting` to `approver`, one after the other in call order, and reports
/// each decision as it is made.
async fn ask(
    runner: &Runner<'_>,
    approver: Option<&dyn Approver>,
    session_id: &str,
    calls: &[ToolCall],
    waiting: &[usize],
) -> Vec<(usize, Decision)> {
    let turn = runner.turn;
    let mut decided = Vec::with_capacity(waiting.len());
    for &index in waiting {
        let call = &calls[index];
        // A decision remembered while this turn's earlier calls were asked decides this one.
        if let Some(approval) = unasked_decision(runner, session_id, call, Consult::Memory) {
            decided.push((index, Decision::Person(approval)));
            continue;
        }
        runner
            .observer
            .emit(AgentEvent::ApprovalRequested { turn, call });
        runner
            .sink
            .send(|| StreamEvent::ApprovalRequested {
                turn,
                call: call.clone(),
            })
            .await;
        let Some(approver) = approver else {
            tracing::warn!(
                "gen_ai.tool.name" = call.name.as_str(),
                "gen_ai.tool.call.id" = call.id.as_str(),
                "tool call needs approval and the agent has no approver; denied"
            );
            announce(runner, call, &Decision::NoApprover.outcome(&call.name).0).await;
            decided.push((index, Decision::NoApprover));
            continue;
        };
        let span = approve_span(call);
        let request = ApprovalRequest::new(session_id, turn, call);
        // An approver that panics denies: failing closed, as when there is none.
        let answer = AssertUnwindSafe(approver.decide(request))
            .catch_unwind()
            .instrument(span.clone())
            .await
            .unwrap_or_else(|_| Approval::deny("the approver failed (it panicked)").into());
        runner
            .talk
            .approvals
            .remember(&call.name, &call.id, &answer);
        let mut approval = answer.approval;
        if let Approval::ApproveWith { arguments } = &mut approval {
            // The approver's arguments enter the run here.
            enter(arguments);
        }
        span.record("approval.decision", decision_name(&approval));
        announce(runner, call, &approval).await;
        decided.push((index, Decision::Person(approval)));
    }
    decided
}

/// Runs the approved calls (concurrently, with their decided arguments) and turns the denied
/// ones into results. `announce_now`: whether to report the decisions as resolved (not yet
/// done by [`ask`]).
async fn carry_out(
    runner: &Runner<'_>,
    calls: &[ToolCall],
    decided: Vec<(usize, Decision)>,
    announce_now: bool,
) -> AgentResult<Vec<(usize, Settled)>> {
    let mut settled = Vec::with_capacity(decided.len());
    let mut jobs = Vec::new();
    for (index, decision) in &decided {
        let call = &calls[*index];
        let (approval, denial) = decision.outcome(&call.name);
        if announce_now {
            announce(runner, call, &approval).await;
        }
        match denial {
            Some(error) => settled.push((
                *index,
                Settled::unrun(ToolCallResult::error(&error), Some(approval)),
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
    let ran = runner.run_calls(calls, &arguments).await?;
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

/// How a paused turn came out once its calls were decided.
pub(in crate::agent) enum Finished {
    /// Every call has its result, in call order.
    Done(Vec<ToolCall>, Vec<Settled>),
    /// A call made a nested call that needs approval too (a program's second one, say): the
    /// turn pauses again, as it is now.
    Paused(Vec<TurnCall>),
}

/// Runs the decided calls of a paused turn; the calls that ran before the pause keep their
/// results. A call whose nested call waited runs again, answered from the paused state, and
/// may pause the turn again on a later nested call.
pub(in crate::agent) async fn finish_paused(
    runner: &Runner<'_>,
    calls: Vec<TurnCall>,
) -> AgentResult<Finished> {
    let tool_calls: Vec<ToolCall> = calls.iter().map(TurnCall::to_tool_call).collect();
    let mut slots: Slots = Vec::with_capacity(calls.len());
    let mut decided = Vec::new();
    let mut again = Vec::new();
    let mut attempts = Vec::new();
    for (index, call) in calls.into_iter().enumerate() {
        match call {
            TurnCall::Ran(ran) => slots.push(Some(Settled {
                result: ToolCallResult {
                    content: ran.content,
                    is_error: ran.is_error,
                },
                duration: ran.duration,
                approval: None,
            })),
            TurnCall::Pending(pending) => {
                slots.push(None);
                if let Some(decided) = pending.to_remember() {
                    let approvals = &runner.talk.approvals;
                    approvals.remember(pending.tool(), pending.id(), &decided);
                }
                let (decision, within) = pending.into_parts();
                if let Some((within, decided)) = within {
                    // The model's call runs again; its nested calls before the decided one are
                    // answered from the paused state, the decided one as decided.
                    attempts.push(Attempt::Resumed(within.k));
                    let replay = NestedReplay {
                        results: within.results,
                        k: within.k,
                        decision,
                        decided,
                    };
                    runner.talk.nested.replay(within.id, replay);
                    again.push((index, &tool_calls[index].arguments));
                    continue;
                }
                // `PausedRun::check` refused undecided calls; should one slip through, it is
                // denied, never run.
                let decision = decision.map_or(Decision::NoApprover, Decision::Person);
                decided.push((index, decision));
            }
            TurnCall::Asking(_) => {
                // It runs again, and finds its answer.
                slots.push(None);
                attempts.push(Attempt::Answered);
                again.push((index, &tool_calls[index].arguments));
            }
        }
    }
    // The turn paused once already: a question asked now (by a call that had none answered)
    // is that call's error result. A nested call that needs approval pauses it again.
    let pausing = runner.talk.set_pausing(false);
    let decided = carry_out(runner, &tool_calls, decided, true).await;
    let ran = match decided {
        Ok(decided) => runner
            .run_again(&tool_calls, &again, &attempts)
            .await
            .map(|ran| (decided, ran)),
        Err(error) => Err(error),
    };
    runner.talk.set_pausing(pausing);
    runner.talk.nested.end_replays();
    let (decided, ran) = ran?;
    for (index, outcome) in decided {
        slots[index] = Some(outcome);
    }
    place(&mut slots, &again, ran);
    let nested = nested_pauses(runner, &tool_calls, &mut slots);
    if !nested.is_empty() {
        let calls = paused_turn(runner, &tool_calls, slots, Vec::new(), nested);
        pause_events(runner, &calls).await;
        return Ok(Finished::Paused(calls));
    }
    Ok(Finished::Done(tool_calls, filled(slots)?))
}

/// What a nested call that needs approval runs with once `approver` decides it (asked as a
/// turn's calls are, with the same events): `Ok(Some(arguments))` for arguments of the
/// approver's, `Ok(None)` for its own, `Err` with the result the caller reads when denied.
pub(super) async fn nested_asked(
    runner: &Runner<'_>,
    approver: Option<&dyn Approver>,
    call: &ToolCall,
) -> Result<Option<serde_json::Value>, ToolCallResult> {
    let session_id = runner.talk.session_id.clone();
    let mut decided = ask(
        runner,
        approver,
        &session_id,
        std::slice::from_ref(call),
        &[0],
    )
    .await;
    let decision = decided
        .pop()
        .map_or(Decision::NoApprover, |(_, decision)| decision);
    approved(&call.name, &decision)
}

/// As [`nested_asked`], for the nested call a paused run was decided on (`None`: undecided,
/// denied).
pub(super) async fn nested_decided(
    runner: &Runner<'_>,
    call: &ToolCall,
    decision: Option<Approval>,
) -> Result<Option<serde_json::Value>, ToolCallResult> {
    let decision = decision.map_or(Decision::NoApprover, Decision::Person);
    announce(runner, call, &decision.outcome(&call.name).0).await;
    approved(&call.name, &decision)
}

/// As [`nested_asked`], for a nested call decided without asking anyone.
pub(super) fn nested_approved(
    tool: &str,
    approval: Approval,
) -> Result<Option<serde_json::Value>, ToolCallResult> {
    approved(tool, &Decision::Person(approval))
}

fn approved(tool: &str, decision: &Decision) -> Result<Option<serde_json::Value>, ToolCallResult> {
    let (approval, denial) = decision.outcome(tool);
    if let Some(error) = denial {
        return Err(ToolCallResult::error(&error));
    }
    Ok(match approval {
        Approval::ApproveWith { arguments } => Some(arguments),
        Approval::Approve | Approval::Deny { .. } => None,
    })
}
