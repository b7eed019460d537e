//! Loop detection: a model that keeps sending the same call (same tool, same arguments, in any
//! key order), or keeps getting the same error, is told it is repeating itself, and, when so
//! configured, stopped. Beside the retry budget (identical failing calls), this catches the
//! loops that succeed: a search sent again and again with the answer already in hand.

use std::collections::VecDeque;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde_json::Value;

use crate::content::Content;
use crate::llm::ToolCall;
use crate::registry::ToolCallResult;

/// How a run watches for a model that repeats itself; [`AgentConfig::loop_detection`](crate::AgentConfig::loop_detection).
///
/// `#[non_exhaustive]`: start from [`Default`] (off) or [`LoopDetection::on`], and set the rest
/// with the `with_*` setters.
///
/// ```
/// use phi_agent::{AgentConfig, LoopDetection};
/// let config = AgentConfig::default()
///     .with_loop_detection(LoopDetection::on().with_repeats(3).with_end_run(true));
/// assert!(config.loop_detection.enabled);
/// assert_eq!(config.loop_detection.window, 10);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoopDetection {
    /// Whether the run watches at all. Default: `false`.
    pub enabled: bool,
    /// How many times one call (same tool, same arguments) may appear among the last
    /// [`window`](Self::window) calls, or one error come back in a row, before the model is
    /// told it is repeating itself. Default: 5.
    pub repeats: usize,
    /// How many of the run's latest calls are looked at. Default: 10.
    pub window: usize,
    /// Whether a repeat after the note ends the run with
    /// [`AgentError::RepeatedToolCall`](crate::AgentError::RepeatedToolCall). Default: `false`
    /// (the note alone).
    pub end_run: bool,
}

impl Default for LoopDetection {
    fn default() -> Self {
        Self {
            enabled: false,
            repeats: 5,
            window: 10,
            end_run: false,
        }
    }
}

impl LoopDetection {
    /// Detection on, with the default thresholds.
    pub fn on() -> Self {
        Self::default().with_enabled(true)
    }

    /// This setting with [`enabled`](Self::enabled) set to `on`.
    pub fn with_enabled(mut self, on: bool) -> Self {
        self.enabled = on;
        self
    }

    /// This setting with [`repeats`](Self::repeats) set to `repeats`.
    pub fn with_repeats(mut self, repeats: usize) -> Self {
        self.repeats = repeats;
        self
    }

    /// This setting with [`window`](Self::window) set to `calls`.
    pub fn with_window(mut self, calls: usize) -> Self {
        self.window = calls;
        self
    }

    /// This setting with [`end_run`](Self::end_run) set to `on`.
    pub fn with_end_run(mut self, on: bool) -> Self {
        self.end_run = on;
        self
    }
}

/// What the guard says about one finished call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// Nothing to add.
    Fine,
    /// The model is repeating itself; a note was added to the result.
    Noted {
        /// How often the call (or the error) was seen.
        repeats: usize,
    },
    /// It went on after the note, and the run is to end.
    Ended {
        /// How often the call (or the error) was seen.
        repeats: usize,
    },
}

/// The latest calls of a run, and the current streak of one error.
#[derive(Debug, Default)]
pub(crate) struct LoopGuard {
    recent: VecDeque<u64>,
    /// The last error (tool and text) and how many times in a row it came.
    streak: Option<(u64, usize)>,
}

impl LoopGuard {
    /// Counts `call` and its `result`, adding the note to `result` when the model repeats itself.
    pub(crate) fn record(
        &mut self,
        settings: &LoopDetection,
        call: &ToolCall,
        result: &mut ToolCallResult,
    ) -> Repeat {
        if !settings.enabled || settings.repeats == 0 {
            return Repeat::Fine;
        }
        let key = canonical_fingerprint(&call.name, &call.arguments);
        self.recent.push_back(key);
        while self.recent.len() > settings.window.max(1) {
            self.recent.pop_front();
        }
        let same_calls = self.recent.iter().filter(|&&seen| seen == key).count();
        let same_errors = if result.is_error {
            let error = text_fingerprint(&call.name, &result.to_model_text());
            let streak = match self.streak {
                Some((seen, count)) if seen == error => count + 1,
                _ => 1,
            };
            self.streak = Some((error, streak));
            streak
        } else {
            self.streak = None;
            0
        };
        let (repeats, note) = if same_calls >= settings.repeats {
            (
                same_calls,
                format!(
                    "\nYou have sent this same call of `{}` {same_calls} times in your last {} calls; its result will not change. Do not send it again: use what it returned, change the arguments, or answer.",
                    call.name,
                    self.recent.len()
                ),
            )
        } else if same_errors >= settings.repeats {
            (
                same_errors,
                format!(
                    "\n`{}` has failed with this same error {same_errors} times in a row. Stop repeating it: read the error, change the approach, or answer with what you know.",
                    call.name
                ),
            )
        } else {
            return Repeat::Fine;
        };
        if settings.end_run && repeats > settings.repeats {
            return Repeat::Ended { repeats };
        }
        let note = if settings.end_run {
            format!("{note} Once more ends the run.")
        } else {
            note
        };
        result.content.push(Content::text(note));
        Repeat::Noted { repeats }
    }
}

/// A fingerprint of a call that does not depend on the order of the arguments' keys, computed
/// without recursion (arguments may nest deep).
fn canonical_fingerprint(name: &str, arguments: &Value) -> u64 {
    let mut hasher = DefaultHasher::new();
    name.hash(&mut hasher);
    let mut stack = vec![arguments];
    while let Some(value) = stack.pop() {
        match value {
            Value::Null => 0u8.hash(&mut hasher),
            Value::Bool(b) => (1u8, b).hash(&mut hasher),
            Value::Number(n) => (2u8, n.to_string()).hash(&mut hasher),
            Value::String(s) => (3u8, s).hash(&mut hasher),
            Value::Array(items) => {
                (4u8, items.len()).hash(&mut hasher);
                stack.extend(items.iter().rev());
            }
            Value::Object(map) => {
                (5u8, map.len()).hash(&mut hasher);
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_unstable_by(|a, b| b.0.cmp(a.0));
                // Keys in sorted order now; values in that order as they are popped.
                for (key, _) in entries.iter().rev() {
                    key.hash(&mut hasher);
                }
                stack.extend(entries.into_iter().map(|(_, item)| item));
            }
        }
    }
    hasher.finish()
}

fn text_fingerprint(name: &str, text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    (name, text).hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::AgentError;
    use serde_json::json;

    fn ok() -> ToolCallResult {
        ToolCallResult::success(vec![Content::text("42")])
    }

    #[test]
    fn key_order_does_not_make_another_call() {
        assert_eq!(
            canonical_fingerprint("s", &json!({"a": 1, "b": [1, {"c": 2, "d": 3}]})),
            canonical_fingerprint("s", &json!({"b": [1, {"d": 3, "c": 2}], "a": 1}))
        );
        assert_ne!(
            canonical_fingerprint("s", &json!({"a": 1, "b": 2})),
            canonical_fingerprint("s", &json!({"a": 2, "b": 1}))
        );
    }

    #[test]
    fn the_same_call_in_the_window_is_noted_then_ends_the_run() {
        let settings = LoopDetection::on().with_repeats(3).with_end_run(true);
        let mut guard = LoopGuard::default();
        let call = ToolCall::new("c", "search", json!({"q": "rust"}));
        let other = ToolCall::new("c", "search", json!({"q": "go"}));
        assert_eq!(guard.record(&settings, &call, &mut ok()), Repeat::Fine);
        assert_eq!(guard.record(&settings, &other, &mut ok()), Repeat::Fine);
        assert_eq!(guard.record(&settings, &call, &mut ok()), Repeat::Fine);
        let mut third = ok();
        assert_eq!(
            guard.record(&settings, &call, &mut third),
            Repeat::Noted { repeats: 3 }
        );
        assert!(
            third
                .to_model_text()
                .contains("3 times in your last 4 calls")
        );
        assert_eq!(
            guard.record(&settings, &call, &mut ok()),
            Repeat::Ended { repeats: 4 }
        );
    }

    #[test]
    fn the_same_error_in_a_row_is_noted_and_off_means_off() {
        let settings = LoopDetection::on().with_repeats(2);
        let mut guard = LoopGuard::default();
        let failed = || ToolCallResult::error(&AgentError::Config("disk full".into()));
        let first = ToolCall::new("c", "save", json!({"n": 1}));
        let second = ToolCall::new("c", "save", json!({"n": 2}));
        assert_eq!(guard.record(&settings, &first, &mut failed()), Repeat::Fine);
        let mut again = failed();
        assert_eq!(
            guard.record(&settings, &second, &mut again),
            Repeat::Noted { repeats: 2 }
        );
        assert!(
            again
                .to_model_text()
                .contains("same error 2 times in a row")
        );

        let mut off = LoopGuard::default();
        for _ in 0..10 {
            assert_eq!(
                off.record(&LoopDetection::default(), &first, &mut failed()),
                Repeat::Fine
            );
        }
    }
}
