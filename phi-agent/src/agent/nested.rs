//! What a run keeps of the nested calls its tools make
//! ([`ToolContext::call_tool`](crate::ToolContext::call_tool)): when one needs approval in a
//! run that may pause, the call that made it is paused with the results of the nested calls it
//! made before, and on resume it runs again, answered from those results (its `k`-th nested
//! call gets the `k`-th result) up to the one decided. `run/nested.rs` serves the calls.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::approval::{Approval, Approver};
use crate::content::Content;
use crate::llm::{ProviderState, ToolCall};

/// One nested call that finished before the run paused, as the paused state keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct NestedRecord {
    /// Its place among its caller's nested calls, from 0.
    pub(super) k: usize,
    pub(super) tool: String,
    pub(super) arguments: Value,
    pub(super) content: Vec<Content>,
    pub(super) is_error: bool,
}

/// The call (the model's) whose nested call waits for approval: it runs again on resume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Within {
    pub(super) id: String,
    pub(super) tool: String,
    pub(super) arguments: Value,
    #[serde(default, skip_serializing_if = "ProviderState::is_empty")]
    pub(super) provider_state: ProviderState,
    /// The waiting call's place among the caller's nested calls.
    pub(super) k: usize,
    /// The nested calls that finished before it.
    pub(super) results: Vec<NestedRecord>,
}

impl Within {
    /// The model's call.
    pub(super) fn to_tool_call(&self) -> ToolCall {
        ToolCall::new(&self.id, &self.tool, self.arguments.clone())
            .with_provider_state(self.provider_state.clone())
    }
}

/// A nested call that paused the run: made by the model's call `caller` of turn `turn`.
#[derive(Debug)]
pub(super) struct NestedPause {
    pub(super) caller: String,
    /// The nested call, id `<caller>/call/<k>`.
    pub(super) call: ToolCall,
    pub(super) k: usize,
    pub(super) results: Vec<NestedRecord>,
}

/// How a resumed caller's nested calls are answered: recorded results, then the decided one.
#[derive(Debug)]
pub(super) struct NestedReplay {
    pub(super) results: Vec<NestedRecord>,
    pub(super) k: usize,
    pub(super) decision: Option<Approval>,
    /// The call the person decided: the program must make this one at `k`.
    pub(super) decided: ToolCall,
}

/// What one nested call of a resumed caller is answered with.
pub(super) enum Replayed {
    /// What it returned before the pause.
    Recorded(NestedRecord),
    /// The call the run paused on: decided since (`None`: undecided, denied), with the call
    /// that was decided.
    Decided(Option<Approval>, ToolCall),
}

/// The run's nested pauses (this turn's) and replays (of the paused turn it resumes).
#[derive(Debug, Default)]
pub(super) struct NestedLedger {
    pauses: Mutex<Vec<NestedPause>>,
    replays: Mutex<HashMap<String, NestedReplay>>,
}

impl NestedLedger {
    pub(super) fn paused(&self, pause: NestedPause) {
        self.pauses
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(pause);
    }

    /// The nested pauses since the last take.
    pub(super) fn take_pauses(&self) -> Vec<NestedPause> {
        std::mem::take(&mut *self.pauses.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// The caller `caller` runs again with `replay`.
    pub(super) fn replay(&self, caller: String, replay: NestedReplay) {
        self.replays
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(caller, replay);
    }

    /// The paused turn is finished: later calls, even under a reused id, run afresh.
    pub(super) fn end_replays(&self) {
        self.replays
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// How the `k`-th nested call of `caller` is answered when it is a resumed caller's.
    pub(super) fn replayed(&self, caller: &str, k: usize) -> Option<Replayed> {
        let mut replays = self.replays.lock().unwrap_or_else(|p| p.into_inner());
        let replay = replays.get_mut(caller)?;
        if k == replay.k {
            let decided = replay.decided.clone();
            return Some(Replayed::Decided(replay.decision.take(), decided));
        }
        let recorded = replay.results.iter().find(|record| record.k == k)?;
        Some(Replayed::Recorded(recorded.clone()))
    }
}

/// How the nested calls that need approval are settled in this turn.
#[derive(Clone, Copy)]
pub(super) enum NestedApprovals<'a> {
    /// Put to the approver (denied without one).
    Ask(Option<&'a dyn Approver>),
    /// The run pauses on them (a resumed run finishing its paused turn too).
    Pause,
}
