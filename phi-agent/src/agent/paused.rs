//! A run paused on tool calls that wait for a person: a plain value, to be stored anywhere
//! (a database row, a file, a message queue) and resumed later, by another process if need be.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::approval::seal::Seen;
use super::approval::{Approval, Decided, Remember, RememberedDecision};
use super::nested::{NestedPause, Within};
use super::question::PendingQuestion;
use super::record::ToolCallRecord;
use crate::content::Content;
use crate::error::{AgentError, AgentResult};
use crate::llm::{Message, ProviderState, ToolCall, Usage};

mod integrity;

/// A run paused on tool calls that need a person's approval, returned by a run that may pause
/// ([`RunRequest::pausing`](crate::RunRequest::pausing): [`PhiAgent::start`](crate::PhiAgent::start),
/// [`PhiAgent::resume`](crate::PhiAgent::resume)).
///
/// Decide every [`pending`](Self::pending) call ([`approve`](Self::approve),
/// [`approve_with`](Self::approve_with), [`deny`](Self::deny)), then resume it:
/// `agent.resume(paused)`, or `session.prompt(paused)` in a session (add `.pausing()` to let it
/// pause again; without, later calls go to the approver). The calls of the
/// paused turn that needed no approval have already run; their results are kept here and go
/// back to the model, in call order, with those of the decided calls. A run also pauses on a
/// tool's question to the user when the agent has no elicitation handler: answer each of its
/// [`questions`](Self::questions) with [`answer`](Self::answer), and resuming runs that call
/// again with its answer. The value is `Serialize + Deserialize` in the versioned format below.
///
/// # What is checked on resume
///
/// Each decision is bound to the [`digest`](PendingCall::digest) of what the person was shown
/// (the call's tool, its arguments, and in code mode the program and the call's place in it):
/// a resume whose decided call is no longer that call is refused with
/// [`AgentError::Tampered`] naming the call and what changed, before anything runs. With a
/// signing key ([`AgentBuilder::signing_key`](crate::AgentBuilder::signing_key)) the agent
/// also signs every part of the run that decides what runs next (the history, the earlier
/// results, the pending calls and their programs) and refuses any edit of them; without one,
/// keep the stored JSON where only your program can write, since whoever can write it can
/// change the history or an earlier result. Each paused state has an [`id`](Self::id), and the
/// agent's [`ResumeStore`](crate::ResumeStore) marks it when it resumes: a second resume of
/// the same state, or two racing, gets [`AgentError::AlreadyResumed`] and runs nothing. Give
/// side effects the call's [`idempotency_key`](PendingCall::idempotency_key) as well, for a
/// resume that fails halfway.
///
/// # Format
///
/// `PausedRun` serializes (with serde; JSON is the usual choice) to one object:
///
/// | field | what it holds |
/// |---|---|
/// | `version` | the format's version, [`PausedRun::FORMAT_VERSION`]; first, so that a reader of another version stops there with a clear error |
/// | `id` | this paused state's own id ([`PausedRun::id`]), new at every pause |
/// | `session_id` | the session the run belongs to (tools see it as [`ToolContext::session_id`](crate::ToolContext::session_id)) |
/// | `run_start` | where this run's messages begin in `transcript` (earlier ones are the session's history) |
/// | `transcript` | the conversation: history, the input, every turn so far, without the paused turn |
/// | `turn` | the paused turn's number, from 1 |
/// | `active_tools` | the names of the tools active in the session |
/// | `usage` | tokens used by the run so far |
/// | `tool_calls` | for each earlier call of the run, in order, what the transcript does not say: `turn`, `duration`, `approval` (the rest of its [`ToolCallRecord`] is read back from the transcript, so no result is stored twice) |
/// | `assistant_text` | what the model said with the paused turn's calls |
/// | `calls` | the paused turn's calls in call order, each `"state": "ran"` (with its result), `"state": "pending"` (with `turn`, `decision`, `null` until decided, `remember`, how far the decision reaches ([`Remember`](crate::Remember); absent: this call only), `seen`, the digests of what was shown when it was decided, and, for a call a tool made while it ran ([`ToolContext::call_tool`](crate::ToolContext::call_tool)), `within`: the model's call that made it, the call's place `k` among its nested calls and the `results` of those before it) or `"state": "asking"` (a call that asked the user a question: `message`, `schema`, and `answer`, `null` until answered; only in runs whose tools ask), with `provider_state` when the provider attached any ([`ToolCall::provider_state`]) |
/// | `answer` | only in a typed run ([`RunRequest::typed`](crate::RunRequest::typed)): `tool`, the final-answer tool's name, and `refused`, the answers refused so far; absent otherwise |
/// | `remembered` | the decisions the session remembers ([`RememberedDecision`](crate::RememberedDecision)): `decided_call`, `tool`, `arguments` (the pattern; absent: any), `approval`, `expires_at_ms` and `uses_left` (absent: no limit); absent when there are none |
/// | `seal` | only from an agent with a signing key: the MAC (HMAC-SHA256, hex) of each part of the run by its name (each field above but `version`, and each of `calls` as `calls/<i>` without its decision or answer) |
///
/// It holds what the model and the tools said and nothing of the agent itself: no API key, no
/// system prompt, no configuration. A paused run is resumed on an agent built anew with the
/// same tools.
///
/// The version changes whenever a field changes meaning or a reader of the old version could
/// not read the new one; a reader refuses any version but its own.
///
/// # Example
///
/// ```
/// use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
/// use phi_agent::{base_agent_builder, phi_tool, AgentConfig, PausedRun, PhiAgent, RunOutcome};
///
/// /// Delete a file.
/// #[phi_tool(needs_approval)]
/// async fn delete_file(path: String) -> String {
///     format!("deleted {path}")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let call = ToolCall::new("c1", "delete_file", serde_json::json!({"path": "a.txt"}));
/// let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![call]), LlmResponse::text("Done.")]);
/// let agent = PhiAgent::build(base_agent_builder(llm).register_tool(DeleteFile), AgentConfig::default())?;
///
/// let RunOutcome::Paused(paused) = agent.start("Delete a.txt").await? else { unreachable!() };
/// let stored = serde_json::to_string(&paused).unwrap();
///
/// // Later, perhaps in another process:
/// let mut paused: PausedRun = serde_json::from_str(&stored).unwrap();
/// assert_eq!(paused.pending()[0].tool(), "delete_file");
/// paused.approve("c1")?;
/// let output = agent.resume(paused).await?.done().unwrap();
/// assert_eq!(output.text, "Done.");
/// assert_eq!(output.tool_calls[0].result[0].as_text(), Some("deleted a.txt"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PausedRun {
    #[serde(deserialize_with = "known_version")]
    version: u32,
    /// This paused state's own id: new at every pause, marked in the agent's resume store.
    pub(super) id: String,
    pub(super) session_id: String,
    pub(super) run_start: usize,
    pub(super) transcript: Vec<Message>,
    pub(super) turn: usize,
    pub(super) active_tools: Vec<String>,
    pub(super) usage: Usage,
    pub(super) tool_calls: Vec<CallNote>,
    pub(super) assistant_text: String,
    pub(super) calls: Vec<TurnCall>,
    /// A typed run's answer so far; `None` for a plain run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) answer: Option<AnswerNote>,
    /// The decisions the session remembers ([`Remember`](crate::Remember)), as they were at
    /// the pause.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) remembered: Vec<RememberedDecision>,
    /// The agent's MAC of each part of the run, by the part's name, when the agent has a
    /// signing key; see `paused/integrity.rs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) seal: Option<BTreeMap<String, String>>,
}

/// What a paused typed run keeps of its answer: the run resumes with the same final-answer tool
/// and the refusals it has had.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct AnswerNote {
    /// The final-answer tool's name.
    pub(super) tool: String,
    /// The answers refused so far.
    pub(super) refused: usize,
}

/// Everything a paused run is made of, by name: what [`PausedRun::new`] takes.
pub(super) struct PauseParts {
    pub(super) session_id: String,
    pub(super) run_start: usize,
    pub(super) transcript: Vec<Message>,
    pub(super) turn: usize,
    pub(super) active_tools: Vec<String>,
    pub(super) usage: Usage,
    pub(super) records: Vec<ToolCallRecord>,
    pub(super) assistant_text: String,
    pub(super) calls: Vec<TurnCall>,
    pub(super) answer: Option<AnswerNote>,
}

/// What the record of an earlier call holds beyond the transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct CallNote {
    turn: usize,
    duration: Duration,
    #[serde(default)]
    approval: Option<Approval>,
}

/// One call of the paused turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(super) enum TurnCall {
    /// It needed no approval and ran before the pause.
    Ran(RanCall),
    /// It waits for a decision.
    Pending(PendingCall),
    /// It asked the user a question, and runs again once answered.
    Asking(PendingQuestion),
}

/// A call of the paused turn that already ran, with the result the model will read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct RanCall {
    pub(super) id: String,
    pub(super) tool: String,
    pub(super) arguments: Value,
    /// The call's [`ToolCall::provider_state`], for the model to get back unchanged.
    #[serde(default, skip_serializing_if = "ProviderState::is_empty")]
    pub(super) provider_state: ProviderState,
    pub(super) content: Vec<Content>,
    pub(super) is_error: bool,
    pub(super) duration: Duration,
}

/// A tool call that waits for a person's decision; see [`PausedRun::pending`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingCall {
    id: String,
    tool: String,
    arguments: Value,
    #[serde(default, skip_serializing_if = "ProviderState::is_empty")]
    provider_state: ProviderState,
    /// The paused turn, which the call's idempotency key names.
    turn: usize,
    decision: Option<Approval>,
    /// Which later calls the decision decides as well; absent: this call only. Written after
    /// the pause with the decision, and as the decision, outside the agent's MAC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    remember: Option<Remember>,
    /// What the person was shown when they decided, as digests; `None` while undecided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seen: Option<Seen>,
    /// For a call made by a tool's program ([`ToolContext::call_tool`](crate::ToolContext::call_tool)):
    /// the model's call that made it, which runs again on resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) within: Option<Box<Within>>,
}

impl PendingCall {
    /// The model's `call` of turn `turn`.
    pub(super) fn new(call: &ToolCall, turn: usize) -> Self {
        Self {
            id: call.id.clone(),
            tool: call.name.clone(),
            arguments: call.arguments.clone(),
            provider_state: call.provider_state.clone(),
            turn,
            decision: None,
            remember: None,
            seen: None,
            within: None,
        }
    }

    /// The nested call `pause` of the model's call `caller`, of turn `turn`.
    pub(super) fn nested(caller: &ToolCall, pause: NestedPause, turn: usize) -> Self {
        let NestedPause {
            call, k, results, ..
        } = pause;
        Self {
            within: Some(Box::new(Within {
                id: caller.id.clone(),
                tool: caller.name.clone(),
                arguments: caller.arguments.clone(),
                provider_state: caller.provider_state.clone(),
                k,
                results,
            })),
            ..Self::new(&call, turn)
        }
    }

    /// For a call that a tool made while it ran (code mode's program calling a tool, through
    /// [`ToolContext::call_tool`](crate::ToolContext::call_tool)): the id of the model's call
    /// whose tool made it. Its own [`id`](Self::id) is then `<that id>/call/<k>`. Resuming runs
    /// that call again; the nested calls it made before this one are answered from the paused
    /// state, not run again.
    pub fn within(&self) -> Option<&str> {
        self.within.as_deref().map(|within| within.id.as_str())
    }

    /// The provider's id of the call, which [`PausedRun::approve`] and the others take.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The arguments the model sent.
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    /// The decision so far; `None` while undecided.
    pub fn decision(&self) -> Option<&Approval> {
        self.decision.as_ref()
    }

    /// The digest (SHA-256, lowercase hex) of what a person deciding this call is shown: its
    /// id and tool, its arguments in canonical JSON (keys sorted), and for a call a program made
    /// ([`within`](Self::within)) the model's call that runs the program, program text
    /// included, and the call's place in it. A decision is bound to the digest at the time it
    /// is made, and a resume whose call no longer has that digest is refused with
    /// [`AgentError::Tampered`]. Show it to an auditor, or log it with the decision.
    pub fn digest(&self) -> String {
        self.seen_now().digest()
    }

    /// The key to give the call's side effect (a payment, an email) to the service that
    /// performs it, so that the service carries it out once even if the call runs twice: the
    /// call's step key `turn/<n>/tool/<call id>`, the same as its tool reads from
    /// [`ToolContext::step_key`](crate::ToolContext::step_key) when it runs. Like the step key,
    /// it is unique within a run; combine it with [`PausedRun::session_id`] when the
    /// session's runs may repeat call ids.
    pub fn idempotency_key(&self) -> String {
        format!("turn/{}/tool/{}", self.turn, self.id)
    }
}

impl TurnCall {
    pub(super) fn id(&self) -> &str {
        match self {
            TurnCall::Ran(call) => &call.id,
            TurnCall::Pending(call) => &call.id,
            TurnCall::Asking(call) => &call.id,
        }
    }

    /// The call as the model made it.
    pub(super) fn to_tool_call(&self) -> ToolCall {
        match self {
            TurnCall::Ran(call) => ToolCall::new(&call.id, &call.tool, call.arguments.clone())
                .with_provider_state(call.provider_state.clone()),
            TurnCall::Pending(PendingCall {
                within: Some(within),
                ..
            }) => within.to_tool_call(),
            TurnCall::Pending(call) => ToolCall::new(&call.id, &call.tool, call.arguments.clone())
                .with_provider_state(call.provider_state.clone()),
            TurnCall::Asking(call) => call.to_tool_call(),
        }
    }
}

/// Accepts only [`PausedRun::FORMAT_VERSION`], so that a state written by another version of
/// phi-agent is refused with its version named rather than misread.
fn known_version<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let version = u32::deserialize(deserializer)?;
    if version == PausedRun::FORMAT_VERSION {
        Ok(version)
    } else {
        Err(serde::de::Error::custom(format!(
            "this paused run is in format version {version}, and this phi-agent reads only version {}; resume it with the phi-agent version that paused it",
            PausedRun::FORMAT_VERSION
        )))
    }
}

impl PausedRun {
    /// The version of the serialized format this phi-agent writes and reads.
    pub const FORMAT_VERSION: u32 = 2;

    pub(super) fn new(parts: PauseParts) -> Self {
        let PauseParts {
            session_id,
            run_start,
            transcript,
            turn,
            active_tools,
            usage,
            records,
            assistant_text,
            calls,
            answer,
        } = parts;
        Self {
            version: Self::FORMAT_VERSION,
            id: new_run_id(),
            session_id,
            run_start,
            transcript,
            turn,
            active_tools,
            usage,
            tool_calls: records
                .into_iter()
                .map(|record| CallNote {
                    turn: record.turn,
                    duration: record.duration,
                    approval: record.approval,
                })
                .collect(),
            assistant_text,
            calls,
            answer,
            remembered: Vec::new(),
            seal: None,
        }
    }

    /// This paused state's id, new at every pause: what the agent's
    /// [`ResumeStore`](crate::ResumeStore) marks, so that it resumes once.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The name of the final-answer tool when this is a paused typed run
    /// ([`RunRequest::typed`](crate::RunRequest::typed)), which resumes only as a typed run
    /// (`agent.resume(paused).typed::<T>()`); `None` for a plain run.
    pub fn answer_tool(&self) -> Option<&str> {
        self.answer.as_ref().map(|note| note.tool.as_str())
    }

    /// The records of the run's earlier calls, read back from the transcript and the notes.
    /// Each turn's results follow its assistant message, in call order, as the loop writes them.
    pub(super) fn records(&self) -> AgentResult<Vec<ToolCallRecord>> {
        let damaged = |what: &str| AgentError::Resume {
            reason: format!(
                "the transcript and the records of the earlier calls disagree ({what}); the state is damaged"
            ),
        };
        let mut calls: VecDeque<&ToolCall> = VecDeque::new();
        let mut notes = self.tool_calls.iter();
        let mut records = Vec::with_capacity(self.tool_calls.len());
        let messages = self.transcript.get(self.run_start..).unwrap_or_default();
        for message in messages {
            match message {
                Message::Assistant { tool_calls, .. } => {
                    if !calls.is_empty() {
                        return Err(damaged("a turn's results are missing"));
                    }
                    calls.extend(tool_calls);
                }
                Message::Tool {
                    tool_call_id,
                    name,
                    content,
                    is_error,
                } => {
                    let call = calls
                        .pop_front()
                        .ok_or_else(|| damaged("a result without its call"))?;
                    let note = notes
                        .next()
                        .ok_or_else(|| damaged("more results than records"))?;
                    records.push(ToolCallRecord {
                        id: tool_call_id.clone(),
                        name: name.clone(),
                        arguments: call.arguments.clone(),
                        result: content.clone(),
                        is_error: *is_error,
                        duration: note.duration,
                        turn: note.turn,
                        approval: note.approval.clone(),
                        repaired: call.repaired.clone(),
                    });
                }
                Message::System { .. } | Message::User { .. } | Message::ToolSearch(_) => {}
            }
        }
        if notes.next().is_some() {
            return Err(damaged("more records than results"));
        }
        if !calls.is_empty() {
            return Err(damaged("a turn's results are missing"));
        }
        Ok(records)
    }

    /// The calls that wait for a decision (decided or not yet), in call order.
    pub fn pending(&self) -> Vec<&PendingCall> {
        self.calls
            .iter()
            .filter_map(|call| match call {
                TurnCall::Pending(call) => Some(call),
                TurnCall::Ran(_) | TurnCall::Asking(_) => None,
            })
            .collect()
    }

    /// Approves the pending call `id` as the model sent it. A later decision about the same
    /// call replaces this one.
    pub fn approve(&mut self, id: &str) -> AgentResult<()> {
        self.decide(id, Approval::Approve)
    }

    /// Approves the pending call `id` with `arguments` instead of the model's. They go through
    /// the same checks as the model's when the run resumes: arguments the tool cannot use
    /// become an argument error that the model reads.
    pub fn approve_with(&mut self, id: &str, mut arguments: Value) -> AgentResult<()> {
        crate::limits::defuse_deep_arguments(&mut arguments);
        self.decide(id, Approval::ApproveWith { arguments })
    }

    /// Denies the pending call `id`; the model reads `message` as the call's result.
    pub fn deny(&mut self, id: &str, message: impl Into<String>) -> AgentResult<()> {
        self.decide(
            id,
            Approval::Deny {
                message: message.into(),
            },
        )
    }

    /// Records `decision` for the pending call `id`.
    pub fn decide(&mut self, id: &str, decision: Approval) -> AgentResult<()> {
        let pending = self.calls.iter_mut().find_map(|call| match call {
            TurnCall::Pending(call) if call.id == id => Some(call),
            _ => None,
        });
        match pending {
            Some(call) => {
                call.seen = Some(call.seen_now());
                call.decision = Some(decision);
                Ok(())
            }
            None => Err(AgentError::Resume {
                reason: format!(
                    "no pending call has the id `{id}`; the pending calls are {}",
                    self.pending_ids()
                ),
            }),
        }
    }

    /// The decisions the session remembered when the run paused ([`Remember`](crate::Remember)):
    /// resuming, they decide later calls as they did before the pause.
    pub fn remembered(&self) -> &[RememberedDecision] {
        &self.remembered
    }

    /// Has the session remember the decision on the pending call `id` for later calls, as
    /// `remember` says, from when the run resumes (decide the call as well; only an approval as
    /// sent or a denial is remembered, see [`Approval::remember`]). Like the decision, it is
    /// written after the pause, outside the agent's MAC: keep it where you keep the decision.
    ///
    /// ```
    /// # use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
    /// # use phi_agent::{base_agent_builder, phi_tool, AgentConfig, PhiAgent, Remember, RunOutcome};
    /// # /// Delete a file.
    /// # #[phi_tool(needs_approval)]
    /// # async fn delete_file(path: String) -> String { format!("deleted {path}") }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> phi_agent::AgentResult<()> {
    /// # let call = ToolCall::new("c1", "delete_file", serde_json::json!({"path": "a.txt"}));
    /// # let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![call]), LlmResponse::text("Done.")]);
    /// # let agent = PhiAgent::build(base_agent_builder(llm).register_tool(DeleteFile), AgentConfig::default())?;
    /// let RunOutcome::Paused(mut paused) = agent.start("Delete a.txt").await? else { unreachable!() };
    /// paused.approve("c1")?;
    /// paused.remember("c1", Remember::Session)?;
    /// # agent.resume(paused).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn remember(&mut self, id: &str, remember: Remember) -> AgentResult<()> {
        let ids = self.pending_ids();
        match self.pending_mut(id) {
            Some(call) => {
                call.remember = Some(remember);
                Ok(())
            }
            None => Err(AgentError::Resume {
                reason: format!("no pending call has the id `{id}`; the pending calls are {ids}"),
            }),
        }
    }

    fn pending_mut(&mut self, id: &str) -> Option<&mut PendingCall> {
        self.calls.iter_mut().find_map(|call| match call {
            TurnCall::Pending(call) if call.id == id => Some(call),
            _ => None,
        })
    }

    /// The session the run belongs to.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The paused turn's number, from 1.
    pub fn turn(&self) -> usize {
        self.turn
    }

    /// The conversation up to the paused turn: the session's history, the input and the turns
    /// before.
    pub fn transcript(&self) -> &[Message] {
        &self.transcript
    }

    /// The names of the tools active in the session.
    pub fn active_tools(&self) -> &[String] {
        &self.active_tools
    }

    /// Tokens used by the run so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    fn pending_ids(&self) -> String {
        let ids: Vec<String> = self
            .pending()
            .iter()
            .map(|call| format!("`{}`", call.id))
            .collect();
        if ids.is_empty() {
            "(none)".to_string()
        } else {
            ids.join(", ")
        }
    }

    /// Checks what resuming relies on, so that a state that was edited, truncated or written
    /// for other tools is refused with a reason instead of misbehaving.
    pub(super) fn check(&self, tool_exists: impl Fn(&str) -> bool) -> AgentResult<()> {
        let refuse = |reason: String| Err(AgentError::Resume { reason });
        if self.run_start > self.transcript.len() {
            return refuse(format!(
                "`run_start` ({}) is past the end of the transcript ({} messages); the state is damaged",
                self.run_start,
                self.transcript.len()
            ));
        }
        if self.turn == 0 {
            return refuse("`turn` is 0; turns count from 1, so the state is damaged".into());
        }
        if !super::resume_store::is_file_safe(&self.id) {
            return refuse(
                "`id` is not one phi-agent writes (1 to 128 letters, digits, `-` and `_`); the state is damaged".into(),
            );
        }
        let mut ids: Vec<&str> = self.calls.iter().map(TurnCall::id).collect();
        ids.sort_unstable();
        if let Some(pair) = ids.windows(2).find(|pair| pair[0] == pair[1]) {
            return refuse(format!(
                "two calls of the paused turn have the id `{}`; the state is damaged",
                pair[0]
            ));
        }
        self.check_questions(&tool_exists)?;
        let pending = self.pending();
        if let Some(call) = pending.iter().find(|call| call.turn != self.turn) {
            return refuse(format!(
                "the pending call `{}` is of turn {}, and the run paused in turn {}; the state is damaged",
                call.id, call.turn, self.turn
            ));
        }
        if pending.is_empty() && self.questions().is_empty() {
            return refuse("no call of the paused turn waits for a decision or an answer".into());
        }
        let undecided: Vec<String> = pending
            .iter()
            .filter(|call| call.decision.is_none())
            .map(|call| format!("`{}` ({})", call.id, call.tool))
            .collect();
        if !undecided.is_empty() {
            return refuse(format!(
                "calls {} are not decided yet; approve or deny each pending call first",
                undecided.join(", ")
            ));
        }
        let missing = |call: &&&PendingCall| {
            !tool_exists(&call.tool)
                || call
                    .within
                    .as_deref()
                    .is_some_and(|within| !tool_exists(&within.tool))
        };
        if let Some(call) = pending.iter().find(missing) {
            return refuse(format!(
                "the pending call `{}` is of the tool `{}`, which this agent does not have; resume on an agent with the same tools",
                call.id, call.tool
            ));
        }
        Ok(())
    }
}

impl PendingCall {
    /// The decision and, for a nested call, the model's call that made it and the call
    /// decided (its tool and arguments).
    /// The decision with how far it reaches, when it reaches later calls.
    pub(super) fn to_remember(&self) -> Option<Decided> {
        Some(self.decision.clone()?.remember(self.remember.clone()?))
    }

    pub(super) fn into_parts(self) -> (Option<Approval>, Option<(Box<Within>, ToolCall)>) {
        let decided = ToolCall::new(self.id, self.tool, self.arguments);
        (self.decision, self.within.map(|within| (within, decided)))
    }
}

/// A paused run's id: 128 bits from two randomly keyed hashers (std's `RandomState`, keyed
/// from the operating system's randomness) over a process-wide counter, as session ids are made.
fn new_run_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let half = || {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(count);
        hasher.finish()
    };
    format!("run-{:016x}{:016x}", half(), half())
}
