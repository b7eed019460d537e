//! The state of a run between turns, and the one place that writes its transcript and its
//! records: closing a turn, accepting an answer, refusing one, finishing, pausing.

use std::time::Duration;

use crate::agent::answer::{Accepted, Judgement};
use crate::agent::approval::Approval;
use crate::agent::loop_guard::{LoopDetection, LoopGuard, Repeat};
use crate::agent::output::RunOutput;
use crate::agent::paused::{AnswerNote, PauseParts, PausedRun, TurnCall};
use crate::agent::record::ToolCallRecord;
use crate::agent::retry_budget::{RetryBudget, Verdict};
use crate::error::{AgentError, AgentResult};
use crate::llm::{Message, ToolCall, Usage};
use crate::registry::ToolCallResult;

/// One settled call of a turn, before the turn's results are handed to the model.
pub(in crate::agent) struct Settled {
    pub(in crate::agent) result: ToolCallResult,
    pub(in crate::agent) duration: Duration,
    pub(in crate::agent) approval: Option<Approval>,
}

impl Settled {
    /// A call that did not run (a refused answer, a denied call): its result, no time spent.
    pub(in crate::agent) fn unrun(result: ToolCallResult, approval: Option<Approval>) -> Self {
        Self {
            result,
            duration: Duration::ZERO,
            approval,
        }
    }
}

/// What a typed run's judgement leaves for the loop once the state has written it.
pub(in crate::agent) enum Judged {
    /// The answer, as JSON: the run is done.
    Answer(String),
    /// A refused text reply is written down: the next turn begins.
    Again,
    /// The turn goes on; these final-answer calls were refused (by call index).
    Calls(Vec<(usize, ToolCallResult)>),
}

/// A run between turns: what it has said and done so far.
pub(in crate::agent) struct RunState {
    transcript: Vec<Message>,
    /// Where this run's messages start in `transcript`.
    start: usize,
    /// The last turn started (0 before the first).
    pub(in crate::agent) turn: usize,
    usage: Usage,
    records: Vec<ToolCallRecord>,
    budget: RetryBudget,
    /// The run's limit on failures of one identical call.
    failure_limit: usize,
    /// The latest calls, to tell a model that repeats itself.
    loops: LoopGuard,
}

impl RunState {
    /// A run of `input` after `history`.
    pub(in crate::agent) fn fresh(
        history: &[Message],
        input: String,
        failure_limit: usize,
    ) -> Self {
        let mut transcript = Vec::with_capacity(history.len() + 8);
        transcript.extend_from_slice(history);
        transcript.push(Message::user(input));
        Self::resumed(
            transcript,
            history.len(),
            0,
            Usage::default(),
            Vec::new(),
            failure_limit,
        )
    }

    /// A run that goes on from `turn`, its earlier calls `records` counted against the budget.
    pub(in crate::agent) fn resumed(
        transcript: Vec<Message>,
        start: usize,
        turn: usize,
        usage: Usage,
        records: Vec<ToolCallRecord>,
        failure_limit: usize,
    ) -> Self {
        let mut budget = RetryBudget::new(failure_limit);
        for record in &records {
            budget.replay(&record.name, &record.arguments, record.is_error);
        }
        Self {
            transcript,
            start,
            turn,
            usage,
            records,
            budget,
            failure_limit,
            loops: LoopGuard::default(),
        }
    }

    /// The transcript, lent to a model request (so it is not copied per turn); give it back
    /// with [`take_back`](Self::take_back).
    /// Writes a person's steering message, after the results of the turn before.
    pub(in crate::agent) fn steered(&mut self, text: String) {
        self.transcript.push(Message::user(text));
    }

    pub(in crate::agent) fn lend(&mut self) -> Vec<Message> {
        std::mem::take(&mut self.transcript)
    }

    pub(in crate::agent) fn take_back(&mut self, transcript: Vec<Message>) {
        self.transcript = transcript;
    }

    /// Counts a model reply's tokens, and writes the provider's searches it reports.
    pub(in crate::agent) fn replied(
        &mut self,
        usage: Usage,
        searches: Vec<crate::llm::ToolSearchCall>,
    ) {
        self.usage += usage;
        self.transcript
            .extend(searches.into_iter().map(Message::ToolSearch));
    }

    pub(in crate::agent) fn usage(&self) -> Usage {
        self.usage
    }

    /// Writes down what a typed run's judgement left; a rejection ends the run.
    pub(in crate::agent) fn judged(&mut self, judgement: Judgement) -> AgentResult<Judged> {
        Ok(match judgement {
            Judgement::NotAnswered => Judged::Calls(Vec::new()),
            Judgement::Refused(refused) => Judged::Calls(refused),
            Judgement::Answered { json, reply } => {
                match reply {
                    Accepted::Text(text) => self.transcript.push(Message::assistant(text)),
                    Accepted::Calls {
                        text,
                        calls,
                        results,
                    } => {
                        let settled = results.into_iter().map(|r| Settled::unrun(r, None));
                        self.write_turn(text, calls, settled.collect());
                    }
                }
                Judged::Answer(json)
            }
            Judgement::Again { text, feedback } => {
                self.transcript.push(Message::assistant(text));
                self.transcript.push(Message::user(feedback));
                Judged::Again
            }
            Judgement::Rejected {
                said,
                attempts,
                last_attempt,
                last_error,
            } => {
                self.transcript.push(said);
                return Err(AgentError::AnswerRejected {
                    attempts,
                    last_attempt,
                    last_error,
                    transcript: std::mem::take(&mut self.transcript),
                });
            }
        })
    }

    /// Writes the model's plain answer.
    pub(in crate::agent) fn say(&mut self, text: String) {
        self.transcript.push(Message::assistant(text));
    }

    /// Closes a turn: its results, fitted into the turn's budget of `turn_budget` bytes
    /// together, go to the transcript in call order and to the records; ends the run when the
    /// model keeps repeating a failing call, or (`loops`) any call. Returns the calls the model
    /// was told it repeats, with how often.
    pub(in crate::agent) fn close_turn(
        &mut self,
        text: String,
        calls: Vec<ToolCall>,
        mut settled: Vec<Settled>,
        turn_budget: usize,
        loops: &LoopDetection,
    ) -> AgentResult<Vec<(ToolCall, usize)>> {
        let mut results: Vec<&mut Vec<crate::content::Content>> = settled
            .iter_mut()
            .map(|settled| &mut settled.result.content)
            .collect();
        crate::budget::share_turn(&mut results, turn_budget);
        let mut exhausted = None;
        for (call, settled) in calls.iter().zip(settled.iter_mut()) {
            if let Verdict::Exhausted { failures } = self.budget.record(call, &mut settled.result) {
                exhausted.get_or_insert_with(|| {
                    (call.name.clone(), failures, settled.result.to_model_text())
                });
            }
        }
        let mut repeated = Vec::new();
        let mut looped = None;
        for (call, settled) in calls.iter().zip(settled.iter_mut()) {
            match self.loops.record(loops, call, &mut settled.result) {
                Repeat::Fine => {}
                Repeat::Noted { repeats } => repeated.push((call.clone(), repeats)),
                Repeat::Ended { repeats } => {
                    looped.get_or_insert_with(|| (call.name.clone(), repeats));
                }
            }
        }
        self.write_turn(text, calls, settled);
        if let Some((tool, repeats)) = looped {
            tracing::warn!(tool = %tool, repeats, "the model repeats a tool call; run stopped");
            return Err(AgentError::RepeatedToolCall {
                tool,
                repeats,
                transcript: std::mem::take(&mut self.transcript),
            });
        }
        if let Some((tool, failures, last_error)) = exhausted {
            tracing::warn!(tool = %tool, failures, "the model repeats a failing tool call; run stopped");
            return Err(AgentError::RepeatedToolFailure {
                tool,
                failures,
                limit: self.failure_limit,
                last_error,
                transcript: std::mem::take(&mut self.transcript),
            });
        }
        Ok(repeated)
    }

    /// The reply with its calls, then each call's result, in call order; a record per call.
    fn write_turn(&mut self, text: String, calls: Vec<ToolCall>, settled: Vec<Settled>) {
        self.transcript.push(Message::Assistant {
            text,
            tool_calls: calls.clone(),
        });
        for (call, settled) in calls.into_iter().zip(settled) {
            self.transcript.push(Message::Tool {
                tool_call_id: call.id.clone(),
                name: call.name.clone(),
                content: settled.result.content.clone(),
                is_error: settled.result.is_error,
            });
            self.records.push(ToolCallRecord {
                id: call.id,
                name: call.name,
                arguments: call.arguments,
                result: settled.result.content,
                is_error: settled.result.is_error,
                duration: settled.duration,
                turn: self.turn,
                approval: settled.approval,
                repaired: call.repaired,
            });
        }
    }

    /// The run's output with answer `text`, and the conversation it leaves (the session's
    /// history from now on).
    pub(in crate::agent) fn finish(self, text: String) -> (RunOutput, Vec<Message>) {
        let output = RunOutput {
            text,
            messages: self.transcript[self.start..].to_vec(),
            tool_calls: self.records,
            turns: self.turn,
            usage: self.usage,
        };
        (output, self.transcript)
    }

    /// The run paused in its current turn, whose reply said `text` with `calls`.
    pub(in crate::agent) fn pause(
        self,
        session_id: String,
        active_tools: Vec<String>,
        text: String,
        calls: Vec<TurnCall>,
        answer: Option<AnswerNote>,
    ) -> PausedRun {
        PausedRun::new(PauseParts {
            session_id,
            run_start: self.start,
            transcript: self.transcript,
            turn: self.turn,
            active_tools,
            usage: self.usage,
            records: self.records,
            assistant_text: text,
            calls,
            answer,
        })
    }

    /// The error of a run whose turns are spent.
    pub(in crate::agent) fn out_of_turns(self, turns: usize) -> AgentError {
        AgentError::MaxTurns {
            turns,
            transcript: self.transcript,
        }
    }
}
