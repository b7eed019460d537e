//! The loop of one run, as named steps over a plan (`plan.rs`) and a state (`state.rs`):
//!
//! - **ask the model** (`ask.rs`): the request, its span and step, the reply streamed or not;
//!   the reply's calls enter the run there (defused), native searches are revealed there;
//! - **judge the reply** (`answer.rs` judges, the state writes): a typed run's answer, or not;
//! - **settle the calls** (`settle.rs`): which need approval; ask inline or pause, as the plan's
//!   policy says, while the others run;
//! - **run the calls** (`calls.rs`, `early.rs`): each a step under its stable key, checked when
//!   replayed; `search_tools` answered from the index;
//! - **close the turn** (here, through the state): results in call order, the retry budget,
//!   found tools revealed, activation re-evaluated.
//!
//! Only [`RunState`] writes the transcript and the records.

mod ask;
mod calls;
mod early;
mod nested;
mod redact;
mod reply;
mod search;
mod settle;
mod spans;
mod state;

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use self::ask::{Asking, ask_model};
use self::calls::RunParts;
use self::early::Early;
use self::search::{Found, Report, reveal_found};
use self::settle::{Finished, Settle, finish_paused, settle};
use self::spans::invoke_span;
use self::state::{Judged, RunState, Settled};
use super::answer::Answering;
use super::approval::RememberedDecision;
use super::approval::ledger::Ledger;
use super::conversation::Conversation;
use super::events::{AgentEvent, Observer};
use super::nested::NestedApprovals;
use super::output::RunOutput;
use super::paused::{AnswerNote, PausedRun, TurnCall};
use super::phi::AgentInner;
use super::plan::{Approvals, Plan, Policy, Search};
use super::step::{self, StepOutput};
use super::stream::{Sink, StreamEvent};
use super::talk::RunTalk;
use crate::context::{Elicitation, ToolContext};
use crate::error::{AgentError, AgentResult};
use crate::llm::{ToolCall, Usage};
use serde_json::Value;

/// What the steps of one run share: the agent, the conversation it borrows, its sink and the
/// context its calls derive theirs from.
struct Run<'r> {
    agent: &'r AgentInner,
    conv: &'r mut Conversation,
    sink: &'r Sink,
    base_ctx: &'r ToolContext,
    talk: &'r RunTalk,
    /// The run's `invoke_agent` span, which gets its summed usage when it finishes.
    span: &'r tracing::Span,
}

/// Runs `input` in `conv` to an answer, or to a pause when `policy` may pause; a typed run
/// when `answer` is given; a streamed one when `sink` is on.
pub(super) async fn fresh<P: Policy>(
    agent: &AgentInner,
    conv: &mut Conversation,
    input: String,
    policy: &P,
    sink: &Sink,
    answer: Option<&mut Answering>,
) -> AgentResult<P::Outcome> {
    settle_id(agent, conv).await?;
    let span = invoke_span(&conv.id);
    let state = RunState::fresh(&conv.history, input, agent.config.max_repeated_failures);
    async {
        let pausing = matches!(policy.approvals(), Approvals::Pause(_));
        let remembered = conv.remembered.clone();
        let talk = run_talk(agent, conv, sink, pausing, HashMap::new(), remembered);
        let (token, base_ctx, talk) = run_context(agent, conv, talk);
        let _cancel_on_drop = token.drop_guard();
        let (plan, activated) = Plan::fresh(agent, conv, sink.is_on(), answer).await;
        let mut run = Run {
            agent,
            conv,
            sink,
            base_ctx: &base_ctx,
            talk: &talk,
            span: &span,
        };
        report_activated(&run, 0, activated).await;
        drive(&mut run, policy, state, plan).await
    }
    .instrument(span.clone())
    .await
}

/// Finishes the paused turn of `paused` and goes on, pausing again if need be and if `policy`
/// may pause (otherwise later calls that need approval are asked as `policy` says). Once the
/// run is done, `conv` has the paused run's id, active tools and conversation; otherwise it is
/// as it was.
pub(super) async fn resumed<P: Policy>(
    agent: &AgentInner,
    conv: &mut Conversation,
    paused: PausedRun,
    policy: &P,
    sink: &Sink,
    answer: Option<&mut Answering>,
) -> AgentResult<P::Outcome> {
    paused.check(|name| agent.registry.knows(name))?;
    paused.check_integrity(agent.signing_key.as_ref())?;
    check_answer(paused.answer.as_ref(), answer.as_deref())?;
    let records = paused.records()?;
    let answers = paused.answers();
    // Last, once nothing else can refuse it: a run marked resumed never resumes again.
    if !agent.resume_store.mark_resumed(paused.id()).await? {
        return Err(AgentError::AlreadyResumed { run: paused.id });
    }
    let PausedRun {
        session_id,
        run_start,
        transcript,
        turn,
        active_tools,
        usage,
        assistant_text,
        calls,
        remembered,
        ..
    } = paused;
    let active = Conversation::tools_named(agent, &session_id, active_tools);
    let previous_id = std::mem::replace(&mut conv.id, Arc::from(session_id));
    let previous_active = std::mem::replace(&mut conv.active, active);
    let limit = agent.config.max_repeated_failures;
    let state = RunState::resumed(transcript, run_start, turn, usage, records, limit);
    let span = invoke_span(&conv.id);
    let outcome = async {
        let pausing = matches!(policy.approvals(), Approvals::Pause(_));
        let talk = run_talk(agent, conv, sink, pausing, answers, remembered);
        let (token, base_ctx, talk) = run_context(agent, conv, talk);
        let _cancel_on_drop = token.drop_guard();
        let plan = Plan::resumed(agent, conv, sink.is_on(), answer);
        let mut run = Run {
            agent,
            conv,
            sink,
            base_ctx: &base_ctx,
            talk: &talk,
            span: &span,
        };
        let mut state = state;
        if let Some((proof, text, calls)) =
            close_paused_turn(&mut run, &mut state, policy, assistant_text, calls).await?
        {
            return Ok(P::paused(proof, pause(&mut run, state, &plan, text, calls)));
        }
        drive(&mut run, policy, state, plan).await
    }
    .instrument(span.clone())
    .await;
    if !outcome.as_ref().is_ok_and(P::answered) {
        conv.id = previous_id;
        conv.active = previous_active;
    }
    outcome
}

/// The turns of a run, from the one after `state.turn` until the model answers, the run
/// pauses, or the turns are spent.
async fn drive<P: Policy>(
    run: &mut Run<'_>,
    policy: &P,
    mut state: RunState,
    mut plan: Plan<'_>,
) -> AgentResult<P::Outcome> {
    let (agent, sink, base_ctx) = (run.agent, run.sink, run.base_ctx);
    let parts = RunParts {
        agent,
        base_ctx,
        sink,
        talk: run.talk,
        nested: match policy.approvals() {
            Approvals::Ask(approver) => NestedApprovals::Ask(approver),
            Approvals::Pause(_) => NestedApprovals::Pause,
        },
    };
    let searching = plan.search == Search::Local;
    while state.turn < agent.config.max_turns {
        state.turn += 1;
        let turn = state.turn;
        // Calls that start early run on a copy of the turn's tools: none change before the
        // turn's calls are done.
        let early_active = plan.early.then(|| run.conv.active.clone());
        let early_runner = early_active
            .as_ref()
            .map(|active| parts.runner(active, turn, searching));
        let mut early = Early::new(early_runner.as_ref());
        take_steering(run, &mut state).await;
        let asking = Asking { agent, sink };
        let mut response = ask_model(&asking, run.conv, &mut plan, &mut state, &mut early).await?;
        let usage = response.usage;
        let refused = match judge(&mut plan, &mut state, &mut response)? {
            Judged::Answer(json) => return Ok(P::done(finish(run, state, json, usage).await)),
            Judged::Again => {
                turn_finished(sink, turn, usage).await;
                continue;
            }
            Judged::Calls(refused) => refused,
        };
        if response.tool_calls.is_empty() {
            state.say(response.text.clone());
            return Ok(P::done(finish(run, state, response.text, usage).await));
        }
        let calls = response.tool_calls;
        let settled = {
            let runner = parts.runner(&run.conv.active, turn, searching);
            let approvals = policy.approvals();
            settle(
                &runner,
                &mut early,
                approvals,
                &calls,
                refused,
                &run.conv.id,
            )
            .await?
        };
        match settled {
            Settle::Done { settled, found } => {
                close_turn(run, &mut state, (response.text, calls, settled), &found).await?;
                turn_finished(sink, turn, usage).await;
            }
            Settle::Paused {
                proof,
                calls,
                found,
            } => {
                reveal_before_pause(run, state.turn, &found).await;
                let paused = pause(run, state, &plan, response.text, calls);
                return Ok(P::paused(proof, paused));
            }
        }
    }
    Err(state.out_of_turns(agent.config.max_turns))
}

/// Judges the reply of a typed run and writes down what the judgement leaves; a plain run's
/// reply goes on as it is.
fn judge(
    plan: &mut Plan<'_>,
    state: &mut RunState,
    response: &mut crate::llm::LlmResponse,
) -> AgentResult<Judged> {
    match plan.answer.as_deref_mut() {
        Some(answer) => state.judged(answer.judge(response)),
        None => Ok(Judged::Calls(Vec::new())),
    }
}

/// Closes a turn whose calls are settled: the state writes their results, the tools the
/// turn's searches found are revealed, activation is evaluated again.
async fn close_turn(
    run: &mut Run<'_>,
    state: &mut RunState,
    (text, calls, settled): (String, Vec<ToolCall>, Vec<Settled>),
    found: &[Found],
) -> AgentResult<()> {
    let config = &run.agent.config;
    // Read before the state takes the calls: their tools are loaded with the turn's reveals.
    let loads = run.agent.skills.as_ref().map_or_else(Vec::new, |skills| {
        skills.loaded_by(
            calls
                .iter()
                .zip(settled.iter().map(|settled| settled.result.is_error)),
        )
    });
    let repeated = state.close_turn(
        text,
        calls,
        settled,
        config.max_turn_result_bytes,
        &config.loop_detection,
    )?;
    let observer = Observer(run.agent.observer.as_deref());
    for (call, repeats) in &repeated {
        observer.emit(AgentEvent::RepeatDetected {
            turn: state.turn,
            call,
            repeats: *repeats,
        });
    }
    let report = Report {
        observer,
        sink: run.sink,
    };
    reveal_found(
        &run.agent.registry,
        &mut run.conv.active,
        report,
        state.turn,
        found,
    )
    .await;
    let mut activated = run.agent.registry.load(&mut run.conv.active, loads);
    activated.extend(run.agent.registry.activate(&mut run.conv.active).await);
    report_activated(run, state.turn, activated).await;
    Ok(())
}

/// Runs the decided calls of the paused turn and closes it; or, when a call's next nested call
/// needs approval as well and `policy` may pause, returns the turn as it pauses again (with its
/// assistant text). A policy that asks puts that nested call to its approver instead.
async fn close_paused_turn<P: Policy>(
    run: &mut Run<'_>,
    state: &mut RunState,
    policy: &P,
    text: String,
    calls: Vec<TurnCall>,
) -> AgentResult<Option<(P::Pause, String, Vec<TurnCall>)>> {
    let approvals = policy.approvals();
    let parts = RunParts {
        agent: run.agent,
        base_ctx: run.base_ctx,
        sink: run.sink,
        talk: run.talk,
        nested: match approvals {
            Approvals::Ask(approver) => NestedApprovals::Ask(approver),
            Approvals::Pause(_) => NestedApprovals::Pause,
        },
    };
    let finished = {
        // A paused turn's searches ran, and were revealed, before the pause.
        let runner = parts.runner(&run.conv.active, state.turn, false);
        finish_paused(&runner, calls).await?
    };
    let (calls, settled) = match (finished, approvals) {
        (Finished::Done(calls, settled), _) => (calls, settled),
        (Finished::Paused(calls), Approvals::Pause(proof)) => {
            return Ok(Some((proof, text, calls)));
        }
        (Finished::Paused(_), Approvals::Ask(_)) => {
            return Err(AgentError::Internal(
                "a resumed run that asks its approver paused on a nested call".into(),
            ));
        }
    };
    close_turn(run, state, (text, calls, settled), &[]).await?;
    // The turn's model request was counted when it paused.
    turn_finished(run.sink, state.turn, Usage::default()).await;
    Ok(None)
}

/// Ends the run with its answer `text`: the conversation it wrote becomes the session's.
async fn finish(run: &mut Run<'_>, state: RunState, text: String, usage: Usage) -> RunOutput {
    let turn = state.turn;
    Observer(run.agent.observer.as_deref()).emit(AgentEvent::Finished {
        turns: turn,
        text: &text,
        usage: state.usage(),
    });
    turn_finished(run.sink, turn, usage).await;
    let run_usage = state.usage();
    spans::record_usage(run.span, &run_usage);
    run.conv.usage += run_usage;
    let (output, history) = state.finish(text);
    run.conv.history = history;
    run.conv.remembered = run.talk.approvals.snapshot();
    output
}

/// The turn's searches are answered before a pause: their tools are revealed now, so the
/// paused state's active tools include them.
async fn reveal_before_pause(run: &mut Run<'_>, turn: usize, found: &[Found]) {
    let report = Report {
        observer: Observer(run.agent.observer.as_deref()),
        sink: run.sink,
    };
    reveal_found(
        &run.agent.registry,
        &mut run.conv.active,
        report,
        turn,
        found,
    )
    .await;
}

/// The run paused in its current turn, its searches revealed ([`reveal_before_pause`]).
fn pause(
    run: &mut Run<'_>,
    state: RunState,
    plan: &Plan<'_>,
    text: String,
    calls: Vec<TurnCall>,
) -> PausedRun {
    let answer = plan.answer.as_deref().map(|answer| AnswerNote {
        tool: answer.tool_name().to_string(),
        refused: answer.refused(),
    });
    let active = run.conv.active.names().to_vec();
    let mut paused = state.pause(run.conv.id.to_string(), active, text, calls, answer);
    paused.remembered = run.talk.approvals.snapshot();
    if let Some(key) = &run.agent.signing_key {
        paused.seal_with(key);
    }
    paused
}

/// A typed paused run resumes only as a typed run with the same final-answer tool, a plain one
/// only as a plain run.
fn check_answer(note: Option<&AnswerNote>, answer: Option<&Answering>) -> AgentResult<()> {
    let reason = match (note, answer) {
        (None, None) => return Ok(()),
        (Some(note), Some(answer)) if note.tool == answer.tool_name() => return Ok(()),
        (Some(note), Some(answer)) => format!(
            "the run paused with the final-answer tool `{}` and resumes with `{}`; resume it with the same `AnswerOptions::tool_name`",
            note.tool,
            answer.tool_name()
        ),
        (Some(note), None) => format!(
            "the run is a typed run (its final-answer tool is `{}`); resume it with a typed request (`agent.resume(paused).typed::<T>()`)",
            note.tool
        ),
        (None, Some(_)) => {
            "the run is not a typed run; resume it without `.typed::<T>()`".to_string()
        }
    };
    Err(AgentError::Resume { reason })
}

/// The run's cancellation token (cancelled when the run completes or is dropped, so every
/// tool's token fires) and the context its calls derive theirs from, with the run's peer for
/// what its tools say back (`talk`).
fn run_context(
    agent: &AgentInner,
    conv: &Conversation,
    talk: RunTalk,
) -> (CancellationToken, ToolContext, Arc<RunTalk>) {
    let token = CancellationToken::new();
    let talk = Arc::new(talk);
    let ctx = ToolContext::new(
        conv.id.clone(),
        agent.workspace.clone(),
        agent.state.clone(),
    )
    .for_run(token.clone())
    .with_run_peer(talk.clone());
    (token, ctx, talk)
}

/// The peer of the run's calls: its events go to the agent's observer and to `sink`; `pausing`
/// for a run that may pause, resumed with `answers`.
fn run_talk(
    agent: &AgentInner,
    conv: &Conversation,
    sink: &Sink,
    pausing: bool,
    answers: HashMap<String, Elicitation<Value>>,
    remembered: Vec<RememberedDecision>,
) -> RunTalk {
    RunTalk {
        session_id: conv.id.clone(),
        observer: agent.observer.clone(),
        events: sink.sender(),
        sampler: agent.sampler.clone().unwrap_or_else(|| agent.llm.clone()),
        elicitation: agent.elicitation.clone(),
        pausing: AtomicBool::new(pausing),
        answers,
        asked: Mutex::default(),
        nested: Default::default(),
        approvals: Ledger::new(
            agent.approval_policy.clone(),
            agent.approval_clock.clone(),
            remembered,
        ),
    }
}

async fn report_activated(run: &Run<'_>, turn: usize, activated: Vec<&'static str>) {
    if activated.is_empty() {
        return;
    }
    if turn > 0 {
        tracing::debug!(tools = ?activated, "tools activated");
    }
    Observer(run.agent.observer.as_deref()).emit(AgentEvent::ToolsActivated {
        turn,
        names: &activated,
    });
    run.sink
        .send(|| StreamEvent::ToolsActivated {
            turn,
            names: activated,
        })
        .await;
}

/// Takes in the messages a person queued ([`Steering`](crate::Steering)) at this step boundary:
/// the previous turn's calls have all finished, and the request about to go carries them.
async fn take_steering(run: &mut Run<'_>, state: &mut RunState) {
    for text in run.conv.steering.take() {
        let turn = state.turn;
        tracing::info!(turn, "steering message taken in");
        Observer(run.agent.observer.as_deref()).emit(AgentEvent::Steered { turn, text: &text });
        run.sink
            .send(|| StreamEvent::Steered {
                turn,
                text: text.clone(),
            })
            .await;
        state.steered(text);
    }
}

async fn turn_finished(sink: &Sink, turn: usize, usage: Usage) {
    sink.send(|| StreamEvent::TurnFinished { turn, usage })
        .await;
}

/// Takes the session id through the run's `session/id` step, so that a replayed run (in a
/// fresh session, in another process) goes on under the id its tools saw before.
async fn settle_id(agent: &AgentInner, conv: &mut Conversation) -> AgentResult<()> {
    const KEY: &str = "session/id";
    let id = conv.id.to_string();
    let output = step::run(&*agent.steps, || KEY.to_string(), async move {
        Ok(StepOutput::SessionId { id })
    })
    .await?;
    let StepOutput::SessionId { id } = output else {
        return Err(step::mismatch(KEY, "session id", &output));
    };
    if *id != *conv.id {
        let names = conv.active.names().to_vec();
        conv.active = Conversation::tools_named(agent, &id, names);
        conv.id = Arc::from(id);
    }
    Ok(())
}
