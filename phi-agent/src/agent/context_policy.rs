//! History that stays bounded: the results of old tool calls replaced by a short placeholder.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use super::result_store::{READ_RESULT_TOOL_NAME, ResultStore};
use crate::budget::ResultBudget;
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
/// With a budget ([`tool_results_within`](Self::tool_results_within), or
/// [`with_budget`](Self::with_budget) beside a number of turns), older turns' results are also
/// cleared while the results still sent whole take more than the budget together; the latest
/// turn's results are never cleared by it (a [`ResultBudget`] per call or per turn bounds those).
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
///
/// use phi_agent::ResultBudget;
/// let policy = ContextPolicy::tool_results_within(ResultBudget::Tokens(30_000));
/// assert_eq!(policy.budget(), Some(ResultBudget::Tokens(30_000)));
/// ```
#[derive(Clone)]
pub struct ContextPolicy {
    keep: usize,
    batch: usize,
    budget: Option<ResultBudget>,
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
        self.keep == other.keep
            && self.batch == other.batch
            && self.budget == other.budget
            && same_store
    }
}

impl Eq for ContextPolicy {}

impl fmt::Debug for ContextPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextPolicy")
            .field("keep_turns", &self.keep)
            .field("batch_turns", &self.batch)
            .field("budget", &self.budget)
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
            budget: None,
            store: None,
        }
    }

    /// Keeps the results still sent whole within `budget` together: while they take more, the
    /// oldest turns' results are cleared, one turn at a time (see
    /// [`with_batch_turns`](Self::with_batch_turns)), never the latest turn's. Sizes are the
    /// results' bytes as the model reads them (a budget in tokens is read as
    /// [`ResultBudget::BYTES_PER_TOKEN`] bytes each).
    pub fn tool_results_within(budget: ResultBudget) -> Self {
        Self {
            keep: usize::MAX,
            batch: 1,
            budget: Some(budget),
            store: None,
        }
    }

    /// This policy, also clearing older turns' results while those still sent whole take more
    /// than `budget` together (see [`tool_results_within`](Self::tool_results_within)).
    pub fn with_budget(mut self, budget: ResultBudget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// The budget of the results still sent whole, if any.
    pub fn budget(&self) -> Option<ResultBudget> {
        self.budget
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
        let beyond = turns.len().saturating_sub(self.keep);
        // The boundary moves in whole batches, so the prefix stays the same in between.
        let mut cleared_turns = beyond / self.batch * self.batch;
        if let Some(budget) = self.budget {
            cleared_turns = cleared_turns.max(self.over_budget(&turns, messages, budget.bytes()));
        }
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

impl ContextPolicy {
    /// How many of the oldest `turns` must be cleared for the results of the rest to fit in
    /// `limit` bytes: whole batches, but never the latest turn.
    fn over_budget(
        &self,
        turns: &[&[crate::llm::ToolCall]],
        messages: &[Message],
        limit: usize,
    ) -> usize {
        let sizes: HashMap<&str, usize> = messages
            .iter()
            .filter_map(|message| match message {
                Message::Tool {
                    tool_call_id,
                    content,
                    ..
                } => Some((
                    tool_call_id.as_str(),
                    content.iter().map(Content::model_len).sum(),
                )),
                _ => None,
            })
            .collect();
        let turn_sizes: Vec<usize> = turns
            .iter()
            .map(|calls| {
                calls
                    .iter()
                    .map(|call| sizes.get(call.id.as_str()).copied().unwrap_or(0))
                    .sum()
            })
            .collect();
        let last = turns.len().saturating_sub(1);
        let mut cleared = 0;
        let mut kept: usize = turn_sizes.iter().sum();
        while kept > limit && cleared < last {
            let next = (cleared + self.batch).min(last);
            kept -= turn_sizes[cleared..next].iter().sum::<usize>();
            cleared = next;
        }
        cleared
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;

    /// A history of `sizes.len()` turns, each one call whose result is that many bytes.
    fn history(sizes: &[usize]) -> Vec<Message> {
        let mut messages = vec![Message::user("go")];
        for (turn, &size) in sizes.iter().enumerate() {
            let id = format!("call_{turn}");
            messages.push(Message::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall::new(&id, "fetch", serde_json::json!({}))],
            });
            messages.push(Message::Tool {
                tool_call_id: id,
                name: "fetch".into(),
                content: vec![Content::text("x".repeat(size))],
                is_error: false,
            });
        }
        messages
    }

    fn whole(messages: &[Message]) -> Vec<bool> {
        messages
            .iter()
            .filter_map(|message| match message {
                Message::Tool { content, .. } => {
                    Some(!matches!(content.as_slice(), [Content::Text { text }] if text.starts_with('[')))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_budget_clears_the_oldest_turns_until_the_rest_fit() {
        let policy = ContextPolicy::tool_results_within(ResultBudget::Bytes(2_500));
        let mut messages = history(&[1_000, 1_000, 1_000, 1_000]);
        assert_eq!(policy.apply("s", &mut messages), 2);
        assert_eq!(whole(&messages), [false, false, true, true]);
        assert_eq!(
            policy.apply("s", &mut messages),
            0,
            "applying again changes nothing"
        );
    }

    #[test]
    fn a_budget_never_clears_the_latest_turn() {
        let policy = ContextPolicy::tool_results_within(ResultBudget::Tokens(10));
        let mut messages = history(&[500, 500, 5_000]);
        assert_eq!(policy.apply("s", &mut messages), 2);
        assert_eq!(whole(&messages), [false, false, true]);
    }

    #[test]
    fn a_budget_that_holds_everything_clears_nothing() {
        let policy = ContextPolicy::tool_results_within(ResultBudget::Bytes(10_000));
        let mut messages = history(&[1_000, 1_000, 1_000]);
        assert_eq!(policy.apply("s", &mut messages), 0);
        assert_eq!(whole(&messages), [true, true, true]);
    }

    #[test]
    fn turns_and_a_budget_together_clear_what_either_asks() {
        let by_turns = ContextPolicy::keep_tool_results(3).with_batch_turns(1);
        let both = by_turns.clone().with_budget(ResultBudget::Bytes(1_500));
        let mut messages = history(&[100, 100, 100, 1_000, 1_000]);
        assert_eq!(by_turns.apply("s", &mut messages.clone()), 2);
        assert_eq!(both.apply("s", &mut messages), 4);
        assert_eq!(whole(&messages), [false, false, false, false, true]);
    }

    #[test]
    fn a_budget_clears_in_whole_batches() {
        let policy =
            ContextPolicy::tool_results_within(ResultBudget::Bytes(3_500)).with_batch_turns(2);
        let mut messages = history(&[1_000, 1_000, 1_000, 1_000, 1_000]);
        // 5,000 bytes: one turn would do, but the boundary moves two at a time.
        assert_eq!(policy.apply("s", &mut messages), 2);
        assert_eq!(whole(&messages), [false, false, true, true, true]);
    }
}
