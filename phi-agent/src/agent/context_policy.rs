//! History that stays bounded: the results of old tool calls replaced by a short placeholder.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use super::result_store::{READ_RESULT_TOOL_NAME, ResultStore};
use crate::content::Content;
use crate::llm::Message;

/// What a session keeps of its older tool results ([`AgentConfig::context_policy`](crate::AgentConfig::context_policy)).
///
/// The results of the calls of the last [`keep_turns`](Self::keep_turns) model turns are sent as
/// they are; older results are replaced by one line naming the call, so that a long session's
/// requests stop growing with every result it ever saw. Only a result's content changes: every
/// call keeps its result message, in its place, so every request pairs each call with its
/// result as the providers require.
///
/// Results are cleared [`batch_turns`](Self::batch_turns) turns at a time: every clearing
/// changes bytes early in the conversation, which the provider's prompt cache then cannot
/// serve, so clearing many at once and rarely costs less than one at every turn.
///
/// What is cleared is gone from the session's history (and from the run's
/// [`messages`](crate::RunOutput::messages)); each call's
/// [`ToolCallRecord`](crate::ToolCallRecord) keeps its whole result. With a
/// [`ResultStore`](crate::ResultStore) ([`with_result_store`](Self::with_result_store)), a
/// cleared result is kept there, its placeholder says how to read it back, and the model is
/// offered a `read_result` tool (`id`, and optional `offset` and `length` in characters) once the
/// session has something to read.
///
/// ```
/// use phi_agent::ContextPolicy;
/// let policy = ContextPolicy::keep_tool_results(4).with_batch_turns(8);
/// assert_eq!((policy.keep_turns(), policy.batch_turns()), (4, 8));
/// ```
#[derive(Clone)]
pub struct ContextPolicy {
    keep: usize,
    batch: usize,
    store: Option<Arc<dyn ResultStore>>,
}

/// Equal when they keep and clear alike, with the same store (the same `Arc`) or none.
impl PartialEq for ContextPolicy {
    fn eq(&self, other: &Self) -> bool {
        let same_store = match (&self.store, &other.store) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        self.keep == other.keep && self.batch == other.batch && same_store
    }
}

impl Eq for ContextPolicy {}

impl fmt::Debug for ContextPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextPolicy")
            .field("keep_turns", &self.keep)
            .field("batch_turns", &self.batch)
            .field("result_store", &self.store.is_some())
            .finish()
    }
}

impl ContextPolicy {
    /// Keeps the results of the last `turns` model turns that called tools; older ones are
    /// cleared, `turns` turns at a time (at least one).
    pub fn keep_tool_results(turns: usize) -> Self {
        Self {
            keep: turns,
            batch: turns.max(1),
            store: None,
        }
    }

    /// This policy, keeping what it clears in `store` for the model to read back with
    /// `read_result` (registered by [`PhiAgent::build`](crate::PhiAgent::build), which then
    /// refuses a tool of that name of its own).
    pub fn with_result_store(mut self, store: Arc<dyn ResultStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// The store cleared results go to, if any.
    pub fn result_store(&self) -> Option<&Arc<dyn ResultStore>> {
        self.store.as_ref()
    }

    /// This policy, clearing `turns` turns' results at a time (at least one).
    pub fn with_batch_turns(mut self, turns: usize) -> Self {
        self.batch = turns.max(1);
        self
    }

    /// How many of the latest turns keep their results.
    pub fn keep_turns(&self) -> usize {
        self.keep
    }

    /// How many turns' results are cleared at once.
    pub fn batch_turns(&self) -> usize {
        self.batch
    }

    /// Clears the results `messages` (the history of session `session_id`) should no longer
    /// carry, in place, keeping each in the result store if there is one; returns how many it
    /// cleared now. Applying it again changes nothing. Public for tests and for a program that
    /// keeps its history itself; an agent applies it before each model request.
    pub fn apply(&self, session_id: &str, messages: &mut [Message]) -> usize {
        let turns: Vec<&[crate::llm::ToolCall]> = messages
            .iter()
            .filter_map(|message| match message {
                Message::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                    Some(tool_calls.as_slice())
                }
                _ => None,
            })
            .collect();
        let Some(beyond) = turns.len().checked_sub(self.keep) else {
            return 0;
        };
        // The boundary moves in whole batches, so the prefix stays the same in between.
        let cleared_turns = beyond / self.batch * self.batch;
        let ids: HashSet<&str> = turns[..cleared_turns]
            .iter()
            .flat_map(|calls| calls.iter().map(|call| call.id.as_str()))
            .collect();
        if ids.is_empty() {
            return 0;
        }
        let mut cleared = Vec::new();
        for (index, message) in messages.iter().enumerate() {
            if let Message::Tool {
                tool_call_id,
                name,
                content,
                ..
            } = message
                && ids.contains(tool_call_id.as_str())
            {
                let note = placeholder(name, tool_call_id, self.store.is_some());
                if !matches!(content.as_slice(), [Content::Text { text }] if *text == note) {
                    cleared.push((index, note));
                }
            }
        }
        let count = cleared.len();
        for (index, note) in cleared {
            if let Message::Tool {
                content,
                tool_call_id,
                ..
            } = &mut messages[index]
            {
                let kept = std::mem::replace(content, vec![Content::text(note)]);
                if let Some(store) = &self.store {
                    store.put(session_id, tool_call_id, kept);
                }
            }
        }
        count
    }
}

/// The line that stands for a cleared result: the same for the same call, every time, so that
/// the cleared prefix stays byte-stable.
fn placeholder(name: &str, id: &str, stored: bool) -> String {
    match stored {
        true => format!(
            "[the result of `{name}` (call {id}) was cleared to keep the conversation short; read it back with `{READ_RESULT_TOOL_NAME}` and id \"{id}\" if you need it]"
        ),
        false => format!(
            "[the result of `{name}` (call {id}) was cleared to keep the conversation short; call the tool again if you need it]"
        ),
    }
}
