//! What a run keeps of each tool call.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::approval::Approval;
use crate::content::Content;
use crate::repair::ArgumentRepair;

/// One tool call of a run.
///
/// Serializable, as part of a [`PausedRun`](crate::PausedRun)'s format: the duration as `{"secs", "nanos"}`.
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
    /// What was repaired in the arguments before the call ran
    /// ([`AgentConfig::argument_repair`](crate::AgentConfig::argument_repair)); empty when
    /// nothing was. [`arguments`](Self::arguments) holds the repaired object.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repaired: Vec<ArgumentRepair>,
}
