//! The per-call retry budget of a run: a model that keeps sending the very call that keeps
//! failing (same tool, same arguments) is warned once, then stopped, instead of burning every
//! remaining turn on it.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::content::Content;
use crate::error::mistakes;
use crate::llm::ToolCall;
use crate::registry::ToolCallResult;

/// What the budget says about one finished call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing to add.
    Fine,
    /// The call has now failed as often as allowed; the model is told to stop repeating it.
    LastWarning,
    /// The call failed once more after the warning; the run must end.
    Exhausted {
        /// How often the identical call failed in this run.
        failures: usize,
    },
}

/// Failures per identical call over one run, keyed by a fingerprint of tool name and arguments.
#[derive(Debug)]
pub(crate) struct RetryBudget {
    limit: usize,
    failures: FxHashMap<u128, usize>,
}

impl RetryBudget {
    /// A budget allowing each identical call to fail `limit` times.
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            failures: FxHashMap::default(),
        }
    }

    /// Counts `result` of `call`, and appends the warning to `result` when it is the last
    /// failure allowed. A success clears the call's count: it is no longer a failing call.
    pub(crate) fn record(&mut self, call: &ToolCall, result: &mut ToolCallResult) -> Verdict {
        let key = fingerprint(&call.name, &call.arguments);
        if !result.is_error {
            self.failures.remove(&key);
            return Verdict::Fine;
        }
        let failures = self.failures.entry(key).or_insert(0);
        *failures += 1;
        match (*failures).cmp(&self.limit) {
            std::cmp::Ordering::Less => Verdict::Fine,
            std::cmp::Ordering::Equal => {
                result
                    .content
                    .push(Content::text(mistakes::repeated_failure(
                        &call.name, *failures,
                    )));
                Verdict::LastWarning
            }
            std::cmp::Ordering::Greater => Verdict::Exhausted {
                failures: *failures,
            },
        }
    }
}

impl RetryBudget {
    /// Counts a call of an earlier part of the run (one before a pause) again, so that a
    /// resumed run keeps the counts it had.
    pub(crate) fn replay(&mut self, name: &str, arguments: &Value, is_error: bool) {
        let key = fingerprint(name, arguments);
        if is_error {
            *self.failures.entry(key).or_insert(0) += 1;
        } else {
            self.failures.remove(&key);
        }
    }
}

/// A 128-bit fingerprint of a call, computed without recursion so that arguments nested
/// arbitrarily deep cost no stack. Two hashers with different seeds make an accidental
/// collision (which would only count two different calls as one) vanishingly unlikely.
fn fingerprint(name: &str, arguments: &Value) -> u128 {
    let mut low = DefaultHasher::new();
    let mut high = DefaultHasher::new();
    0x5eed_u64.hash(&mut high);
    let mut feed = |piece: &dyn Fn(&mut DefaultHasher)| {
        piece(&mut low);
        piece(&mut high);
    };
    feed(&|h| name.hash(h));
    let mut stack = vec![arguments];
    while let Some(value) = stack.pop() {
        match value {
            Value::Null => feed(&|h| 0u8.hash(h)),
            Value::Bool(b) => feed(&|h| (1u8, b).hash(h)),
            Value::Number(n) => feed(&|h| (2u8, n.to_string()).hash(h)),
            Value::String(s) => feed(&|h| (3u8, s).hash(h)),
            Value::Array(items) => {
                feed(&|h| (4u8, items.len()).hash(h));
                stack.extend(items.iter().rev());
            }
            Value::Object(map) => {
                feed(&|h| (5u8, map.len()).hash(h));
                // All keys now (last first), then the values in order as they are popped.
                for (key, item) in map.iter().rev() {
                    stack.push(item);
                    feed(&|h| key.hash(h));
                }
            }
        }
    }
    (u128::from(high.finish()) << 64) | u128::from(low.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::AgentError;
    use serde_json::json;

    fn failed() -> ToolCallResult {
        ToolCallResult::error(&AgentError::tool("no"))
    }

    #[test]
    fn identical_failures_warn_at_the_limit_and_stop_past_it() {
        let mut budget = RetryBudget::new(2);
        let call = ToolCall::new("a", "t", json!({"x": [1, {"y": null}]}));
        assert_eq!(budget.record(&call, &mut failed()), Verdict::Fine);
        let mut second = failed();
        assert_eq!(budget.record(&call, &mut second), Verdict::LastWarning);
        assert!(second.to_model_text().contains("failed 2 times"));
        assert_eq!(
            budget.record(&call, &mut failed()),
            Verdict::Exhausted { failures: 3 }
        );
    }

    #[test]
    fn different_arguments_or_a_success_start_over() {
        let mut budget = RetryBudget::new(1);
        let call = |args| ToolCall::new("id", "t", args);
        assert_eq!(
            budget.record(&call(json!({"x": 1})), &mut failed()),
            Verdict::LastWarning
        );
        assert_eq!(
            budget.record(&call(json!({"x": 2})), &mut failed()),
            Verdict::LastWarning
        );
        assert_eq!(
            budget.record(&call(json!(["x", 1])), &mut failed()),
            Verdict::LastWarning
        );
        let mut ok = ToolCallResult::success(vec![]);
        assert_eq!(
            budget.record(&call(json!({"x": 1})), &mut ok),
            Verdict::Fine
        );
        assert_eq!(
            budget.record(&call(json!({"x": 1})), &mut failed()),
            Verdict::LastWarning,
            "the success cleared the count"
        );
    }

    #[test]
    fn fingerprints_tell_structure_apart() {
        let pairs = [
            (json!({"a": "b"}), json!({"b": "a"})),
            (json!(["a", "b"]), json!([["a"], "b"])),
            (json!({"a": ["b"]}), json!({"a": "b"})),
            (json!("1"), json!(1)),
        ];
        for (left, right) in pairs {
            assert_ne!(
                fingerprint("t", &left),
                fingerprint("t", &right),
                "{left} {right}"
            );
        }
        assert_ne!(fingerprint("t", &json!({})), fingerprint("u", &json!({})));
        assert_eq!(
            fingerprint("t", &json!({"a": [1, 2.5]})),
            fingerprint("t", &json!({"a": [1, 2.5]}))
        );
    }

    #[test]
    fn deep_arguments_cost_no_stack() {
        let mut value = json!(0);
        for _ in 0..100_000 {
            value = Value::Array(vec![value]);
        }
        fingerprint("t", &value);
        let mut stack = vec![value];
        while let Some(v) = stack.pop() {
            if let Value::Array(items) = v {
                stack.extend(items);
            }
        }
    }
}
