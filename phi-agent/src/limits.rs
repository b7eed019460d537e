//! Size limits on arguments and outputs.

use serde_json::Value;

use crate::content::Content;

/// Approximate compact-JSON length of `value`, counting no further than just past `limit`.
///
/// Strings count their bytes plus quotes, numbers a fixed 8 bytes; the walk uses an explicit
/// stack so that deeply nested values cannot overflow the call stack, and stops as soon as the
/// count exceeds `limit`, so a huge value costs no more than a small one.
pub(crate) fn json_len_up_to(value: &Value, limit: usize) -> usize {
    let mut total = 0usize;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        total += match value {
            Value::Null | Value::Bool(_) => 5,
            Value::Number(_) => 8,
            Value::String(s) => s.len() + 2,
            Value::Array(items) => {
                stack.extend(items);
                2 + items.len()
            }
            Value::Object(map) => {
                for (key, item) in map {
                    total += key.len() + 4;
                    stack.push(item);
                }
                2
            }
        };
        if total > limit {
            return total;
        }
    }
    total
}

/// Approximate compact-JSON length of `value`.
pub(crate) fn json_len(value: &Value) -> usize {
    json_len_up_to(value, usize::MAX)
}

/// Cuts `contents` to at most `limit` bytes as the model sees them, ending with a marker that
/// says how much was cut. Returns the contents unchanged when they fit.
pub(crate) fn truncate_output(contents: Vec<Content>, limit: usize) -> Vec<Content> {
    let total: usize = contents.iter().map(Content::model_len).sum();
    if total <= limit {
        return contents;
    }
    let mut budget = limit;
    let mut kept = Vec::with_capacity(contents.len() + 1);
    for content in contents {
        let len = content.model_len();
        if len <= budget {
            budget -= len;
            kept.push(content);
            continue;
        }
        if let Content::Image { .. } = content {
            continue;
        }
        let mut text = content.to_model_text();
        text.truncate(floor_char_boundary(&text, budget));
        if !text.is_empty() {
            kept.push(Content::text(text));
        }
        break;
    }
    kept.push(Content::text(format!(
        "\n[output truncated: {total} bytes, limit {limit}; ask for less, e.g. a narrower query or a page of results]"
    )));
    kept
}

fn floor_char_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    (0..=index)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn length_stops_early_past_the_limit() {
        let big = Value::String("x".repeat(10_000));
        assert!(json_len_up_to(&big, 100) > 100);
        assert!(json_len(&json!({"a": 1})) < 20);
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let mut value = json!(1);
        for _ in 0..100_000 {
            value = Value::Array(vec![value]);
        }
        assert!(json_len(&value) > 100_000);
        // Dropping such a value recurses inside serde_json; take it apart iteratively.
        let mut stack = vec![value];
        while let Some(v) = stack.pop() {
            if let Value::Array(items) = v {
                stack.extend(items);
            }
        }
    }

    #[test]
    fn truncation_keeps_a_prefix_and_says_so() {
        let out = truncate_output(vec![Content::text("é".repeat(100))], 51);
        let text = out[0].as_text().unwrap();
        assert_eq!(text.len(), 50, "cut on a char boundary");
        assert!(
            out[1]
                .as_text()
                .unwrap()
                .contains("output truncated: 200 bytes, limit 51")
        );
        let small = vec![Content::text("ok")];
        assert_eq!(truncate_output(small.clone(), 10), small);
    }
}
