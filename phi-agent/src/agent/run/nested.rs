//! Serving the nested calls a running tool makes ([`ToolContext::call_tool`]): each is a call
//! of the run's own, made where the tool's future is polled (`context/nested.rs` says how the
//! requests get there), with the checks, events and step of a model's call, under the id
//! `<caller id>/call/<k>` and so the step key `turn/<n>/tool/<caller id>/call/<k>`.
//!
//! A nested call that needs approval is settled as the turn's plan says: asked inline, or it
//! pauses the run (the caller is told to stop, its result is dropped, and the paused state
//! keeps the nested results so far), a resumed run's paused turn included: a program with two
//! such calls pauses twice.
//!
//! [`ToolContext::call_tool`]: crate::ToolContext::call_tool

use std::future::Future;
use std::pin::{Pin, pin};
use std::task::Poll;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use serde_json::Value;

use super::calls::{Caller, Runner, enter};
use super::settle::{nested_approved, nested_asked, nested_decided, unasked_decision};
use crate::agent::approval::ledger::Consult;
use crate::agent::nested::{NestedApprovals, NestedPause, NestedRecord, Replayed};
use crate::context::{CalledTool, nested};
use crate::error::{AgentError, AgentResult, Tampering};
use crate::llm::ToolCall;
use crate::registry::ToolCallResult;

/// What one nested call came to.
enum Outcome {
    /// It has a result (run, replayed, denied).
    Done(ToolCall, ToolCallResult),
    /// It waits for approval: the run pauses.
    Pause(ToolCall),
    /// Its step failed (the executor, or a journal that does not fit): the run ends.
    Failed(AgentError),
}

type Running<'r> =
    FuturesUnordered<Pin<Box<dyn Future<Output = (usize, Outcome, Reply)> + Send + 'r>>>;
type Reply = tokio::sync::oneshot::Sender<AgentResult<CalledTool>>;

/// The error a caller gets once its run pauses on one of its nested calls.
fn pausing() -> AgentError {
    AgentError::tool(
        "the run pauses: a tool this program called needs a person's approval; the program \
         runs again once it is decided, and the calls it made before are not made again",
    )
}

impl Runner<'_> {
    /// `tool` (the run of the model's `caller`), serving the nested calls it makes while it
    /// runs. A call that makes none costs four thread-local accesses per poll.
    /// The tool's future is made here, in place (`tool()`), rather than passed in: moving a
    /// dispatch's future into this one copied it on every call.
    pub(super) async fn serving<F>(
        &self,
        caller: &ToolCall,
        tool: impl FnOnce() -> F + Send,
    ) -> AgentResult<ToolCallResult>
    where
        F: Future<Output = ToolCallResult> + Send,
    {
        let mut tool = pin!(tool());
        // Made on the first nested call: most calls make none.
        let mut running: Option<Running<'_>> = None;
        let mut next_k = 0;
        let mut log: Vec<NestedRecord> = Vec::new();
        let mut paused = false;
        let mut failed: Option<AgentError> = None;
        std::future::poll_fn(|cx| {
            loop {
                let serving = nested::enter();
                let polled = tool.as_mut().poll(cx);
                for request in serving.leave() {
                    let k = next_k;
                    next_k += 1;
                    if paused || failed.is_some() {
                        let _ = request.reply.send(Err(pausing()));
                        continue;
                    }
                    if request.caller != caller.id {
                        let _ = request.reply.send(Err(AgentError::tool(
                            "a nested call must be made from the future of the call it belongs to",
                        )));
                        continue;
                    }
                    let reply = request.reply;
                    let call = self.nested_call(caller, k, request.name, request.arguments);
                    let running = running.get_or_insert_with(FuturesUnordered::new);
                    running.push(Box::pin(async move { (k, call.await, reply) }));
                }
                if let Poll::Ready(result) = polled {
                    // Nested calls still running are dropped with it, as a timeout drops them.
                    return Poll::Ready(match failed.take() {
                        Some(error) => Err(error),
                        None => Ok(result),
                    });
                }
                let Some(set) = running.as_mut() else {
                    return Poll::Pending;
                };
                let mut replied = false;
                while let Poll::Ready(Some((k, outcome, reply))) = set.poll_next_unpin(cx) {
                    replied = true;
                    let answer = match outcome {
                        Outcome::Done(call, result) => {
                            log.push(NestedRecord {
                                k,
                                tool: call.name,
                                arguments: call.arguments,
                                content: result.content.clone(),
                                is_error: result.is_error,
                            });
                            Ok(CalledTool {
                                content: result.content,
                                is_error: result.is_error,
                            })
                        }
                        Outcome::Pause(call) => {
                            paused = true;
                            self.talk.nested.paused(NestedPause {
                                caller: caller.id.clone(),
                                call,
                                k,
                                results: log.clone(),
                            });
                            Err(pausing())
                        }
                        Outcome::Failed(error) => {
                            let message = error.to_string();
                            failed = Some(error);
                            Err(AgentError::tool(message))
                        }
                    };
                    let _ = reply.send(answer);
                }
                if !replied {
                    return Poll::Pending;
                }
                // A reply went out: the tool goes on at once (its waker fired as well).
            }
        })
        .await
    }

    /// The `k`-th nested call of `caller`: `name` with `arguments`.
    fn nested_call<'s>(
        &'s self,
        caller: &ToolCall,
        k: usize,
        name: String,
        mut arguments: Value,
    ) -> Pin<Box<dyn Future<Output = Outcome> + Send + 's>> {
        enter(&mut arguments);
        let call = ToolCall::new(format!("{}/call/{k}", caller.id), name, arguments);
        let replayed = self.talk.nested.replayed(&caller.id, k);
        Box::pin(async move {
            let arguments = match replayed {
                Some(Replayed::Recorded(record)) => return replay(call, record),
                Some(Replayed::Decided(decision, decided)) => {
                    // The program runs again: what it calls now at `k` must be what was decided
                    // (a stored program was edited, or the program does not call the same
                    // tools on the same results). Nothing runs; the run ends.
                    if decided.name != call.name || decided.arguments != call.arguments {
                        let call = decided.id;
                        return Outcome::Failed(AgentError::Tampered(Tampering::Program { call }));
                    }
                    match nested_decided(self, &call, decision).await {
                        Ok(arguments) => arguments,
                        Err(denied) => return Outcome::Done(call, denied),
                    }
                }
                None if self.needs_approval(&call, Caller::Code).await => {
                    let session_id = self.talk.session_id.clone();
                    if let Some(approval) = unasked_decision(self, &session_id, &call, Consult::All)
                    {
                        match nested_approved(&call.name, approval) {
                            Ok(arguments) => arguments,
                            Err(denied) => return Outcome::Done(call, denied),
                        }
                    } else {
                        match self.nested_approvals {
                            NestedApprovals::Ask(approver) => {
                                match nested_asked(self, approver, &call).await {
                                    Ok(arguments) => arguments,
                                    Err(denied) => return Outcome::Done(call, denied),
                                }
                            }
                            NestedApprovals::Pause => return Outcome::Pause(call),
                        }
                    }
                }
                None => None,
            };
            let arguments = arguments.unwrap_or_else(|| call.arguments.clone());
            match self.run_nested(&call, &arguments).await {
                Ok(result) => Outcome::Done(call, result),
                Err(error) => Outcome::Failed(error),
            }
        })
    }
}

/// A resumed caller's nested call answered from the paused state, when it is the call made
/// before (same tool, same arguments); a program that now makes another call gets an error.
fn replay(call: ToolCall, record: NestedRecord) -> Outcome {
    if record.tool == call.name && record.arguments == call.arguments {
        let result = ToolCallResult {
            content: record.content,
            is_error: record.is_error,
        };
        return Outcome::Done(call, result);
    }
    let message = if record.tool == call.name {
        format!(
            "this program's nested call {} to `{}` has other arguments than before the run paused \
             ({}): a program that resumes must make the same calls with the same arguments in the \
             same order (no clock, no randomness)",
            record.k,
            call.name,
            argument_changes(&record.arguments, &call.arguments)
        )
    } else {
        format!(
            "this program's nested call {} was `{}` before the run paused and is `{}` now: a \
             program that resumes must make the same calls in the same order (no clock, no \
             randomness)",
            record.k, record.tool, call.name
        )
    };
    let error = AgentError::tool(message);
    Outcome::Done(call, ToolCallResult::error(&error))
}

/// What differs between a nested call's arguments before the pause and now, argument by
/// argument: "`amount` was 10, is 10000; `memo` is new". At most [`MAX_CHANGES`] are named, each
/// value cut short.
fn argument_changes(before: &Value, now: &Value) -> String {
    const MAX_CHANGES: usize = 3;
    let (Value::Object(before), Value::Object(now)) = (before, now) else {
        return format!("were {}, are {}", short(before), short(now));
    };
    let mut changes: Vec<String> = Vec::new();
    for (name, old) in before {
        match now.get(name) {
            Some(new) if new == old => {}
            Some(new) => changes.push(format!("`{name}` was {}, is {}", short(old), short(new))),
            None => changes.push(format!("`{name}` is gone")),
        }
    }
    for name in now.keys().filter(|name| !before.contains_key(*name)) {
        changes.push(format!("`{name}` is new"));
    }
    let more = changes.len().saturating_sub(MAX_CHANGES);
    changes.truncate(MAX_CHANGES);
    let mut text = changes.join("; ");
    if more > 0 {
        text.push_str(&format!("; {more} more"));
    }
    text
}

/// A JSON value in at most 40 bytes, for a message.
fn short(value: &Value) -> String {
    const MAX: usize = 40;
    let text = value.to_string();
    if text.len() <= MAX {
        return text;
    }
    format!(
        "{}…",
        &text[..crate::limits::floor_char_boundary(&text, MAX)]
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::argument_changes;

    #[test]
    fn changed_arguments_are_named_with_their_values() {
        assert_eq!(
            argument_changes(
                &json!({"account": "a-1", "amount": 10, "memo": "rent"}),
                &json!({"account": "a-1", "amount": 10000, "note": "x"})
            ),
            "`amount` was 10, is 10000; `memo` is gone; `note` is new"
        );
        assert_eq!(
            argument_changes(&json!([1]), &json!([2])),
            "were [1], are [2]"
        );
        let many = argument_changes(
            &json!({"a": 1, "b": 1, "c": 1, "d": 1, "e": "x".repeat(100)}),
            &json!({"a": 2, "b": 2, "c": 2, "d": 2, "e": "y"}),
        );
        assert!(many.ends_with("; 2 more"), "{many}");
        assert!(many.len() < 120, "{many}");
    }
}
