//! What happens during a run, as it happens: events for an [`AgentObserver`].

use std::time::Duration;

use serde_json::Value;

use super::approval::{Approval, RememberedDecision};
use super::prefix::PrefixChange;
use crate::context::{LogLevel, Progress};
use crate::llm::{LlmResponse, ToolCall, ToolSpec, Usage};
use crate::registry::ToolCallResult;

/// One step of a run. Borrowed from the loop, so observing costs no copies.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum AgentEvent<'a> {
    /// A turn begins: the model is about to be asked, seeing `tools`.
    TurnStarted {
        /// The session's id.
        session_id: &'a str,
        /// The turn's number, from 1.
        turn: usize,
        /// The tools the model sees this turn.
        tools: &'a [ToolSpec],
    },
    /// The session's request prefix (system prompt, tools) is not the previous request's: the
    /// provider's prompt cache cannot serve this request past the change, and its tokens are
    /// billed at the full price (a cache bust). Also logged as a `tracing` warning. Never
    /// before a session's first request.
    PrefixChanged {
        /// The turn whose request changed.
        turn: usize,
        /// What changed, in prefix order: the system prompt, then the tools.
        changes: &'a [PrefixChange],
    },
    /// A person's message ([`Steering`](crate::Steering)) was taken in before the turn's model
    /// request, after the previous turn's results.
    Steered {
        /// The turn whose request carries it.
        turn: usize,
        /// The message.
        text: &'a str,
    },
    /// The model answered.
    ModelReplied {
        /// The turn's number.
        turn: usize,
        /// The reply: text, tool calls, usage.
        response: &'a LlmResponse,
    },
    /// A tool call starts.
    ToolStarted {
        /// The turn's number.
        turn: usize,
        /// The call as the model made it.
        call: &'a ToolCall,
    },
    /// A tool call finished (successfully or not).
    ToolFinished {
        /// The turn's number.
        turn: usize,
        /// The call as the model made it.
        call: &'a ToolCall,
        /// What the model will read.
        result: &'a ToolCallResult,
        /// How long the call took.
        duration: Duration,
    },
    /// A running call reported progress ([`ToolContext::progress`](crate::ToolContext::progress)).
    ToolProgress {
        /// The turn's number.
        turn: usize,
        /// The provider's id of the call.
        call_id: &'a str,
        /// What the call reported.
        progress: &'a Progress,
    },
    /// A running call wrote a log message ([`ToolContext::log`](crate::ToolContext::log)).
    ToolLog {
        /// The turn's number.
        turn: usize,
        /// The provider's id of the call.
        call_id: &'a str,
        /// How serious the message is.
        level: LogLevel,
        /// The message: a string, or any JSON.
        data: &'a Value,
    },
    /// A call needs a person's approval: the run's [`Approver`](crate::Approver) is asked now,
    /// or (in [`PhiAgent::start`](crate::PhiAgent::start) and
    /// [`resume`](crate::PhiAgent::resume)) the run pauses on it.
    ApprovalRequested {
        /// The turn's number.
        turn: usize,
        /// The call as the model made it.
        call: &'a ToolCall,
    },
    /// A call that needed approval was decided: by the approver, by the decision on a paused
    /// run, or denied because no one could be asked.
    ApprovalResolved {
        /// The turn's number.
        turn: usize,
        /// The call as the model made it.
        call: &'a ToolCall,
        /// The decision.
        approval: &'a Approval,
    },
    /// A call that needed approval was decided by the agent's
    /// [`ApprovalPolicy`](crate::ApprovalPolicy); no one was asked.
    ApprovalByPolicy {
        /// The turn's number.
        turn: usize,
        /// The call as the model (or a tool's program) made it.
        call: &'a ToolCall,
        /// The decision.
        approval: &'a Approval,
    },
    /// A call that needed approval was decided by a decision the session remembers
    /// ([`Remember`](crate::Remember)); no one was asked.
    ApprovalRemembered {
        /// The turn's number.
        turn: usize,
        /// The call as the model (or a tool's program) made it.
        call: &'a ToolCall,
        /// The remembered decision, as it was before this call used it.
        decision: &'a RememberedDecision,
    },
    /// Deferred tools became visible; the model sees them from the next turn on.
    ToolsActivated {
        /// The turn after which they were activated (0: before the first turn).
        turn: usize,
        /// Their names, in registration order.
        names: &'a [&'static str],
    },
    /// A tool search found tools: the model's `search_tools` (they are callable from the next
    /// turn on) or the provider's own search (callable at once).
    ToolsFound {
        /// The turn of the search.
        turn: usize,
        /// The model's query.
        query: &'a str,
        /// Every tool the search returned, best first.
        names: &'a [&'static str],
    },
    /// The model repeats itself: the same call (same tool and arguments) came
    /// [`LoopDetection::repeats`](crate::LoopDetection::repeats) times among the latest calls,
    /// or the same error as many times in a row; the model was told so with the call's result
    /// ([`AgentConfig::loop_detection`](crate::AgentConfig::loop_detection)).
    RepeatDetected {
        /// The turn's number.
        turn: usize,
        /// The call that repeats.
        call: &'a ToolCall,
        /// How often it (or its error) was seen.
        repeats: usize,
    },
    /// The model gave its answer.
    Finished {
        /// Turns taken.
        turns: usize,
        /// The answer.
        text: &'a str,
        /// Tokens used over the run.
        usage: Usage,
    },
}

/// Receives the events of every run of an agent. Closures `Fn(&AgentEvent)` are observers.
///
/// Called on the run's task, in order; keep it quick (hand slow work to a channel).
///
/// ```
/// use phi_agent::{AgentEvent, AgentObserver};
/// fn print_turns(event: &AgentEvent<'_>) {
///     if let AgentEvent::TurnStarted { turn, .. } = event {
///         println!("turn {turn}");
///     }
/// }
/// fn takes(_: impl AgentObserver) {}
/// takes(print_turns);
/// ```
pub trait AgentObserver: Send + Sync {
    /// Called for every event.
    fn on_event(&self, event: &AgentEvent<'_>);
}

impl<F> AgentObserver for F
where
    F: Fn(&AgentEvent<'_>) + Send + Sync,
{
    fn on_event(&self, event: &AgentEvent<'_>) {
        self(event)
    }
}

/// The run's observer, if any: events handed to it as they happen.
#[derive(Clone, Copy)]
pub(super) struct Observer<'a>(pub(super) Option<&'a dyn AgentObserver>);

impl Observer<'_> {
    /// Hands `event` to the observer.
    pub(super) fn emit(self, event: AgentEvent<'_>) {
        if let Some(observer) = self.0 {
            observer.on_event(&event);
        }
    }
}
