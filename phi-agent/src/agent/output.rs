//! What a run returns.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::approval::Approval;
use super::paused::PausedRun;
use crate::content::Content;
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

/// One tool call of a run.
///
/// Serializable, as part of a [`PausedRun`]'s format: the duration as `{"secs", "nanos"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// The provider's id for the call.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments the model sent.
    pub arguments: Value,
    /// What the model read back.
    pub result: Vec<Content>,
    /// Whether the call failed.
    pub is_error: bool,
    /// How long it took.
    pub duration: Duration,
    /// The turn it belongs to, from 1.
    pub turn: usize,
    /// What a person decided, for a call that needed approval; `None` when it needed none.
    /// [`Approval::ApproveWith`] holds the arguments the call ran with, beside the model's in
    /// [`arguments`](Self::arguments). A call denied because no one could approve it (a run
    /// without an approver) shows [`Approval::Deny`] with the message the model read.
    #[serde(default)]
    pub approval: Option<Approval>,
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
