//! Size limits on arguments and outputs.

use serde_json::Value;

use crate::content::Content;

/// Approximate compact-JSON length of `value`, counting no further than just past `limit`.
///
/// Strings count their bytes plus quotes, numbers and literals a fixed 5 bytes, separators one
/// byte per item. The walk stops once the count exceeds `limit`, so a huge value costs no more
/// than a small one; it keeps its stack in a fixed array, so the common case allocates nothing,
/// and spills to the heap only for values nested deeper than that array.
pub(crate) fn json_len_up_to(root: &Value, limit: usize) -> usize {
    const INLINE: usize = 32;
    let mut inline: [Option<&Value>; INLINE] = [None; INLINE];
    let mut len = 1;
    inline[0] = Some(root);
    let mut total = 0usize;
    while len > 0 {
        len -= 1;
        let Some(value) = inline[len] else { break };
        match value {
            Value::Null | Value::Bool(_) | Value::Number(_) => total += 5,
            Value::String(s) => total += s.len() + 2,
            Value::Array(items) => {
                total += 2 + items.len();
                for item in items {
                    if !push(&mut inline, &mut len, item, &mut total) {
                        return deep_len(root, limit);
                    }
                }
            }
            Value::Object(map) => {
                total += 2;
                for (key, item) in map {
                    total += key.len() + 4;
                    if !push(&mut inline, &mut len, item, &mut total) {
                        return deep_len(root, limit);
                    }
                }
            }
        }
        if total > limit {
            break;
        }
    }
    total
}

/// Pushes a container onto the inline stack (scalars are counted at once); `false` when full.
#[inline]
fn push<'a>(
    stack: &mut [Option<&'a Value>],
    len: &mut usize,
    item: &'a Value,
    total: &mut usize,
) -> bool {
    match item {
        Value::Null | Value::Bool(_) | Value::Number(_) => *total += 5,
        Value::String(s) => *total += s.len() + 2,
        _ if *len == stack.len() => return false,
        _ => {
            stack[*len] = Some(item);
            *len += 1;
        }
    }
    true
}

fn deep_len(value: &Value, limit: usize) -> usize {
    let mut total = 0usize;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        total += match value {
            Value::Null | Value::Bool(_) | Value::Number(_) => 5,
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

/// Deepest nesting of arguments accepted: serde_json's own parser limit, so arguments that came
/// in as JSON text always pass, while a value built in memory cannot make the tool's decoder,
/// `Clone` or `Drop` recurse until the stack overflows.
pub(crate) const MAX_ARGUMENT_DEPTH: usize = 128;

/// Whether `value` nests containers more than `max` levels deep (a container is level 1).
///
/// Recursive, but never deeper than `max + 1` calls: the walk stops descending at the limit, so
/// its stack use is bounded whatever the value. Allocates nothing.
pub(crate) fn nesting_exceeds(value: &Value, max: usize) -> bool {
    match value {
        Value::Array(items) => max == 0 || items.iter().any(|v| nesting_exceeds(v, max - 1)),
        Value::Object(map) => max == 0 || map.values().any(|v| nesting_exceeds(v, max - 1)),
        _ => false,
    }
}

/// Replaces arguments nested deeper than [`MAX_ARGUMENT_DEPTH`] by a short text saying so, and
/// takes the deep value apart without recursion. For values that did not come through a JSON
/// parser (a custom model client): cloning, formatting or even dropping them recurses once per
/// level and can overflow the stack, which aborts the process.
pub(crate) fn defuse_deep_arguments(arguments: &mut Value) {
    if !nesting_exceeds(arguments, MAX_ARGUMENT_DEPTH) {
        return;
    }
    let deep = std::mem::replace(
        arguments,
        Value::String(format!(
            "<arguments nested more than {MAX_ARGUMENT_DEPTH} levels deep, dropped>"
        )),
    );
    let mut stack = vec![deep];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, item)| item)),
            _ => {}
        }
    }
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
    fn shallow_and_deep_walks_agree() {
        let mut value = json!({"k": ["ab", 1, null, {"x": true}]});
        for _ in 0..10 {
            value = json!([value, "tail"]);
        }
        assert_eq!(json_len(&value), deep_len(&value, usize::MAX));
        let compact = value.to_string().len();
        let approx = json_len(&value);
        assert!(
            approx.abs_diff(compact) * 4 < compact,
            "{approx} vs {compact}"
        );
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
    fn nesting_is_measured_with_bounded_recursion() {
        assert!(!nesting_exceeds(&json!(1), 0));
        assert!(!nesting_exceeds(&json!({"a": 1, "b": "x"}), 1));
        assert!(nesting_exceeds(&json!({"a": 1}), 0));
        assert!(!nesting_exceeds(&json!({"a": [1, {"b": []}]}), 4));
        assert!(nesting_exceeds(&json!({"a": [1, {"b": []}]}), 3));
        let mut value = json!(null);
        for _ in 0..MAX_ARGUMENT_DEPTH {
            value = Value::Array(vec![json!(1), value]);
        }
        assert!(!nesting_exceeds(&value, MAX_ARGUMENT_DEPTH));
        let deeper = Value::Array(vec![value]);
        assert!(nesting_exceeds(&deeper, MAX_ARGUMENT_DEPTH));
        let parsed: Result<Value, _> = serde_json::from_str(&"[".repeat(MAX_ARGUMENT_DEPTH + 1));
        assert!(
            parsed.is_err_and(|e| e.to_string().contains("recursion limit")),
            "serde_json's parser stops at the same depth"
        );
    }

    #[test]
    fn too_deep_arguments_are_replaced_and_dropped_without_recursion() {
        let mut value = json!(1);
        for _ in 0..100_000 {
            value = Value::Array(vec![value]);
        }
        // Not `json!({"a": value})`: the macro serializes what it embeds, recursively.
        let mut arguments = json!({});
        arguments["a"] = value;
        defuse_deep_arguments(&mut arguments);
        assert_eq!(
            arguments,
            json!("<arguments nested more than 128 levels deep, dropped>")
        );
        let mut fine = json!({"a": [[{"b": 1}]]});
        defuse_deep_arguments(&mut fine);
        assert_eq!(fine, json!({"a": [[{"b": 1}]]}));
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
