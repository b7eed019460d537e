//! What the tools of a run say back while they run: progress and log messages become events
//! (observer, stream, span), questions to a model go to the agent's own (or its sampling
//! model), questions to the user to the builder's [`ElicitationHandler`].

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;
use tokio::sync::mpsc;

use super::approval::ledger::Ledger;
use super::events::{AgentEvent, AgentObserver};
use super::nested::NestedLedger;
use super::stream::{LiveEvent, StreamEvent};
use crate::context::{
    Elicitation, LogLevel, Progress, RunPeer, SampleRequest, SampleRole, Sampled, Speaker,
};
use crate::error::{AgentError, AgentResult};
use crate::llm::{LlmClient, LlmRequest, StopReason};
use crate::message::Message;

pub use crate::context::{ElicitationHandler, ElicitationRequest};

/// The peer of every call of one run, set once on the run's context.
pub(super) struct RunTalk {
    pub(super) session_id: Arc<str>,
    pub(super) observer: Option<Arc<dyn AgentObserver>>,
    /// The run's stream, when it is streamed.
    pub(super) events: Option<mpsc::Sender<LiveEvent>>,
    /// The model `ctx.sample` asks: the agent's own unless the builder set another.
    pub(super) sampler: Arc<dyn LlmClient>,
    pub(super) elicitation: Option<Arc<dyn ElicitationHandler>>,
    /// Whether a question without a handler pauses the run (a run that may pause) rather than
    /// failing the call. Off while a resumed run finishes its paused turn: that turn cannot
    /// pause again.
    pub(super) pausing: AtomicBool,
    /// The answers a resumed run brings, by call id: the call that asked gets its answer at
    /// once when it runs again.
    pub(super) answers: HashMap<String, Elicitation<Value>>,
    /// The questions asked this turn that pause the run: (call id, message, schema).
    pub(super) asked: Mutex<Vec<(String, String, Value)>>,
    /// The nested calls that paused the run, and those a resumed run answers from its state.
    pub(super) nested: NestedLedger,
    /// What decides calls that need approval before anyone is asked.
    pub(super) approvals: Ledger,
}

impl fmt::Debug for RunTalk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunTalk")
            .field("session_id", &self.session_id)
            .field("observer", &self.observer.is_some())
            .field("streamed", &self.events.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("pausing", &self.pausing.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl RunTalk {
    /// Whether questions without a handler pause the run from now on; returns whether they
    /// did until now.
    pub(super) fn set_pausing(&self, pausing: bool) -> bool {
        self.pausing.swap(pausing, Ordering::Relaxed)
    }

    /// The questions asked since the last call, which pause the run.
    pub(super) fn take_asked(&self) -> Vec<(String, String, Value)> {
        std::mem::take(&mut *self.asked.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn emit(&self, event: AgentEvent<'_>) {
        if let Some(observer) = &self.observer {
            observer.on_event(&event);
        }
    }

    /// Hands `event` to the stream's consumer. It waits, as every event of the run does, only
    /// while the consumer's buffer is full; a consumer gone (the run is being dropped) is no
    /// error of the tool's.
    async fn send(&self, event: impl FnOnce() -> LiveEvent) {
        if let Some(events) = &self.events {
            let _ = events.send(event()).await;
        }
    }
}

#[async_trait]
impl RunPeer for RunTalk {
    async fn progress(&self, call: Speaker<'_>, progress: Progress) {
        // Inside the call's `execute_tool` span: a span event there.
        tracing::info!(
            tool_call_id = call.call_id,
            done = progress.done,
            total = progress.total,
            progress_message = progress.message.as_deref(),
            "tool progress"
        );
        self.emit(AgentEvent::ToolProgress {
            turn: call.turn,
            call_id: call.call_id,
            progress: &progress,
        });
        self.send(|| StreamEvent::ToolProgress {
            turn: call.turn,
            call_id: call.call_id.to_string(),
            progress,
        })
        .await;
    }

    async fn log(&self, call: Speaker<'_>, level: LogLevel, data: Value) {
        tracing::info!(tool_call_id = call.call_id, ?level, %data, "tool log");
        self.emit(AgentEvent::ToolLog {
            turn: call.turn,
            call_id: call.call_id,
            level,
            data: &data,
        });
        self.send(|| StreamEvent::ToolLog {
            turn: call.turn,
            call_id: call.call_id.to_string(),
            level,
            data,
        })
        .await;
    }

    async fn elicit(
        &self,
        call: Speaker<'_>,
        message: &str,
        schema: Value,
    ) -> AgentResult<Elicitation<Value>> {
        if let Some(answer) = self.answers.get(call.call_id) {
            return Ok(answer.clone());
        }
        let Some(handler) = &self.elicitation else {
            if self.pausing.load(Ordering::Relaxed) {
                tracing::info!(
                    tool_call_id = call.call_id,
                    "tool asks the user a question; the run pauses"
                );
                let question = (call.call_id.to_string(), message.to_string(), schema);
                self.asked
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(question);
                return Err(AgentError::tool(
                    "the run pauses: this question waits for the user's answer",
                ));
            }
            return Err(AgentError::tool(
                "this tool asks the user a question, and the agent has no elicitation handler \
                 to answer it, and this run cannot pause on it (set a handler with \
                 `AgentBuilder::elicitation_handler`, or make the run pausing (`start`, \
                 `.pausing()`), which pauses on the question; a paused turn's calls that run on \
                 resume cannot pause it again)",
            ));
        };
        let request =
            ElicitationRequest::new(&*self.session_id, call.turn, call.call_id, message, schema);
        Ok(handler.answer(request).await)
    }

    async fn sample(&self, _call: Speaker<'_>, request: SampleRequest) -> AgentResult<Sampled> {
        let messages = request
            .messages
            .into_iter()
            .map(|(role, text)| match role {
                SampleRole::User => Message::user(text),
                SampleRole::Assistant => Message::assistant(text),
            })
            .collect();
        let mut llm_request = LlmRequest::new(messages);
        if let Some(system) = request.system {
            llm_request = llm_request.with_system(system);
        }
        let reply = self.sampler.complete(&llm_request).await?;
        let stop = match reply.stop_reason {
            StopReason::EndTurn => "endTurn".to_string(),
            StopReason::ToolUse => "toolUse".to_string(),
            StopReason::MaxTokens => "maxTokens".to_string(),
            StopReason::Other(other) => other,
        };
        Ok(Sampled::new(reply.text, self.sampler.model()).with_stop_reason(stop))
    }
}
