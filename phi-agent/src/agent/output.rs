//! What a run returns.

use super::paused::PausedRun;
use super::record::ToolCallRecord;
use crate::llm::{Message, Usage};

/// The outcome of one run: the answer and how it came about.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutput {
    /// The model's answer.
    pub text: String,
    /// The messages this run added to the conversation: the input, every assistant turn and
    /// tool result, and the answer.
    pub messages: Vec<Message>,
    /// Every tool call of the run, in the order the model made them.
    pub tool_calls: Vec<ToolCallRecord>,
    /// Model turns taken (requests sent).
    pub turns: usize,
    /// Tokens used over the run.
    pub usage: Usage,
}

/// How [`PhiAgent::start`](crate::PhiAgent::start) and
/// [`PhiAgent::resume`](crate::PhiAgent::resume) end: with the answer, or paused on tool calls
/// that wait for a person.
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a paused run does nothing until it is decided and resumed"]
pub enum RunOutcome {
    /// The model answered.
    Done(RunOutput),
    /// Calls wait for approval; decide them on the [`PausedRun`] and resume it.
    Paused(PausedRun),
}

impl RunOutcome {
    /// The answer, if the run is done.
    pub fn done(self) -> Option<RunOutput> {
        match self {
            RunOutcome::Done(output) => Some(output),
            RunOutcome::Paused(_) => None,
        }
    }

    /// The paused run, if the run paused.
    pub fn paused(self) -> Option<PausedRun> {
        match self {
            RunOutcome::Done(_) => None,
            RunOutcome::Paused(paused) => Some(paused),
        }
    }
}
