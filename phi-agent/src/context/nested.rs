//! Calls of other tools from inside a running tool ([`ToolContext::call_tool`]), the facility
//! code mode builds on.
//!
//! In an agent run a nested call is served by the run itself, inside the future of the call
//! that makes it: the loop polls the tool's future, and every request the tool made during that
//! poll is taken right after it and run as a call of the run's own (exposure, argument checks,
//! timeout, approval, a step under `turn/<n>/tool/<call id>/call/<k>`, events). The requests go
//! through a queue of the thread the poll runs on: a tool's future is polled on one thread per
//! poll, so the requests a poll made are the ones queued since it began, and a call of the
//! loop's own that is polled inside another (code mode within code mode) takes its own first.
//! Nothing is set up per call, so a call that never calls a tool pays two thread-local accesses
//! per poll. A request made outside such a poll (from a spawned task or thread, which no run
//! polls) is refused with an error that says so, rather than left waiting forever.
//!
//! [`ToolContext::call_tool`]: super::ToolContext::call_tool

use std::cell::{Cell, RefCell};

use serde_json::Value;
use tokio::sync::oneshot;

use crate::content::Content;
use crate::error::{AgentError, AgentResult};

/// What a tool called through the run returned ([`ToolContext::call_tool`](super::ToolContext::call_tool)):
/// the content the model would have read had it made the call, and whether it is an error
/// (unavailable tool, argument mistakes, timeout, panic, denial, the tool's own error).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CalledTool {
    /// The tool's output, or the error message.
    pub content: Vec<Content>,
    /// Whether the call failed.
    pub is_error: bool,
}

impl CalledTool {
    /// A successful call's `content`.
    pub fn success(content: Vec<Content>) -> Self {
        Self {
            content,
            is_error: false,
        }
    }

    /// A failed call, whose result the model would read as `message`.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![Content::text(message.into())],
            is_error: true,
        }
    }

    /// All content as one text, as a text-only provider shows it.
    pub fn to_model_text(&self) -> String {
        crate::content::model_text(&self.content)
    }
}

/// One nested call a tool asked for, waiting in the queue of the poll that made it.
#[derive(Debug)]
pub(crate) struct NestedRequest {
    /// The id of the call that asks (checked by the server: a request belongs to its poll).
    pub(crate) caller: String,
    /// The tool to call.
    pub(crate) name: String,
    /// Its arguments.
    pub(crate) arguments: Value,
    /// Where the result goes; `Err`: the call cannot be made (the run pauses on it).
    pub(crate) reply: oneshot::Sender<AgentResult<CalledTool>>,
}

thread_local! {
    /// How many serving polls are under way on this thread (one inside the other), and how
    /// many requests wait in [`REQUESTS`]: read on every poll of every call, so a `Cell` with a
    /// constant initializer (no lazy set-up, no lock).
    static COUNTS: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    /// The requests made by the polls under way, oldest first; touched only when there are any.
    static REQUESTS: RefCell<Vec<NestedRequest>> = const { RefCell::new(Vec::new()) };
}

/// A serving poll under way: [`leave`](Serving::leave) takes the requests made since it began.
/// Dropped without leaving (a panic through the poll), it still ends, dropping the requests,
/// so that the thread's queue stays consistent.
pub(crate) struct Serving {
    mark: usize,
    left: bool,
}

/// A serving poll begins.
pub(crate) fn enter() -> Serving {
    let (depth, queued) = COUNTS.get();
    COUNTS.set((depth + 1, queued));
    Serving {
        mark: queued,
        left: false,
    }
}

impl Serving {
    /// The serving poll ends: the requests it made.
    pub(crate) fn leave(mut self) -> Vec<NestedRequest> {
        self.left = true;
        end(self.mark)
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        if !self.left {
            drop(end(self.mark));
        }
    }
}

fn end(mark: usize) -> Vec<NestedRequest> {
    let (depth, queued) = COUNTS.get();
    COUNTS.set((depth.saturating_sub(1), mark.min(queued)));
    if queued <= mark {
        return Vec::new();
    }
    REQUESTS.with_borrow_mut(|requests| requests.split_off(mark.min(requests.len())))
}

/// Asks the run polling this call to call `name` with `arguments` for the call `caller`.
pub(crate) async fn request(caller: &str, name: &str, arguments: Value) -> AgentResult<CalledTool> {
    let (reply, answer) = oneshot::channel();
    let request = NestedRequest {
        caller: caller.to_string(),
        name: name.to_string(),
        arguments,
        reply,
    };
    let (depth, queued) = COUNTS.get();
    let queued = depth > 0 && {
        REQUESTS.with_borrow_mut(|requests| requests.push(request));
        COUNTS.set((depth, queued + 1));
        true
    };
    if !queued {
        return Err(AgentError::tool(
            "a tool can call another tool only from its own call's future: await \
             `ToolContext::call_tool` in the tool's `call` (not in a spawned task or thread)",
        ));
    }
    answer.await.unwrap_or_else(|_| {
        Err(AgentError::tool(
            "the nested call was dropped before it finished (the run ended)",
        ))
    })
}
