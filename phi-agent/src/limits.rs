//! Size limits on arguments and outputs.

use serde_json::Value;

/// What one walk over a value found, against a size and a depth limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Measure {
    /// Within both limits; the approximate compact-JSON length.
    Fits(usize),
    /// Longer than the size limit (the walk stopped there).
    TooLarge,
    /// Nested deeper than the depth limit (the walk stopped there).
    TooDeep,
}

/// Measures `root` in one walk: its approximate compact-JSON length and its nesting depth (a
/// container is level 1), stopping as soon as either exceeds its limit, so a huge or deep value
/// costs no more than a small one.
///
/// Strings count their bytes plus quotes, numbers and literals a fixed 5 bytes, separators one
/// byte per item. The walk recurses at most `max_depth` levels (callers pass a small limit, such
/// as [`MAX_ARGUMENT_DEPTH`]), so a deeper value is refused before it can exhaust the stack, and
/// the walk allocates nothing.
pub(crate) fn measure(root: &Value, max_bytes: usize, max_depth: usize) -> Measure {
    let mut total = 0;
    match walk(root, max_depth, &mut total, max_bytes) {
        Ok(()) => Measure::Fits(total),
        Err(exceeded) => exceeded,
    }
}

/// Adds `value`'s length to `total`, stopping past `max`; `depth_left` containers may still
/// nest here. Scalars are counted where their container lists them, without a call each: that
/// made the walk several times cheaper (the sum of in-memory lengths cannot overflow a `usize`).
fn walk(value: &Value, depth_left: usize, total: &mut usize, max: usize) -> Result<(), Measure> {
    match value {
        Value::Array(items) => {
            let inner = depth_left.checked_sub(1).ok_or(Measure::TooDeep)?;
            *total += array_frame_len(items.len());
            for item in items {
                match scalar_len(item) {
                    Some(len) => *total += len,
                    None => walk(item, inner, total, max)?,
                }
                if *total > max {
                    return Err(Measure::TooLarge);
                }
            }
        }
        Value::Object(map) => {
            let inner = depth_left.checked_sub(1).ok_or(Measure::TooDeep)?;
            *total += OBJECT_FRAME_LEN;
            for (key, item) in map {
                *total += key_len(key.len());
                match scalar_len(item) {
                    Some(len) => *total += len,
                    None => walk(item, inner, total, max)?,
                }
                if *total > max {
                    return Err(Measure::TooLarge);
                }
            }
        }
        scalar => *total += scalar_len(scalar).unwrap_or(0),
    }
    if *total > max {
        Err(Measure::TooLarge)
    } else {
        Ok(())
    }
}

/// The length of a string, number, boolean or null; `None` for a container.
#[inline]
pub(crate) fn scalar_len(value: &Value) -> Option<usize> {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => Some(LITERAL_LEN),
        Value::String(text) => Some(string_len(text.len())),
        Value::Array(_) | Value::Object(_) => None,
    }
}

// The parts [`measure`] counts, one definition each: the typed decoder counts the same parts
// as it reads them (`decode::strict`), and must arrive at the same total.

/// What [`measure`] counts for a number, a boolean or `null`.
pub(crate) const LITERAL_LEN: usize = 5;

/// What [`measure`] counts for an object's braces.
pub(crate) const OBJECT_FRAME_LEN: usize = 2;

/// What [`measure`] counts for a string of `bytes` bytes: those and its quotes.
///
/// It takes the length rather than the `&str`: read through `String::len`, the length carries
/// the bound a `String` guarantees, which spares the decoder's copy of the string an overflow
/// check (30 instructions per nested call when this took a `&str`).
#[inline]
pub(crate) fn string_len(bytes: usize) -> usize {
    bytes + 2
}

/// What [`measure`] counts for an object's key of `bytes` bytes: those, its quotes, its colon
/// and a comma.
#[inline]
pub(crate) fn key_len(bytes: usize) -> usize {
    bytes + 4
}

/// What [`measure`] counts for an array of `items` elements: its brackets and commas.
#[inline]
pub(crate) fn array_frame_len(items: usize) -> usize {
    2 + items
}

/// Deepest nesting of arguments accepted: serde_json's own parser limit, so arguments that came
/// in as JSON text always pass, while a value built in memory cannot make the tool's decoder,
/// `Clone` or `Drop` recurse until the stack overflows.
pub(crate) const MAX_ARGUMENT_DEPTH: usize = 128;

/// Whether `value` nests containers more than `max` levels deep (a container is level 1): the
/// depth half of [`measure`], with its bounded recursion.
pub(crate) fn nesting_exceeds(value: &Value, max: usize) -> bool {
    measure(value, usize::MAX, max) == Measure::TooDeep
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
    // A value nested deeper than arguments may be is counted as longer than any limit.
    match measure(value, usize::MAX, MAX_ARGUMENT_DEPTH) {
        Measure::Fits(len) => len,
        Measure::TooLarge | Measure::TooDeep => usize::MAX,
    }
}

/// The start of `bytes` as text (lossy UTF-8), at most 300 characters with `...` when cut: what
/// an error message quotes of a body or of arguments that are not JSON.
pub(crate) fn snippet(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    match text.char_indices().nth(300) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.into_owned(),
    }
}

/// The largest char boundary of `text` at or below `index`.
pub(crate) fn floor_char_boundary(text: &str, index: usize) -> usize {
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
        assert_eq!(measure(&big, 100, 10), Measure::TooLarge);
        assert!(json_len(&json!({"a": 1})) < 20);
    }

    #[test]
    fn the_limit_is_exact_at_every_depth() {
        // The length a walk reports fits a limit of exactly that length, and one byte less
        // does not, wherever the last byte sits (a scalar, a key, a nested container's end).
        for value in [
            json!({"a": [1, {"b": "xyz"}], "c": null}),
            json!([[[]]]),
            json!({"k": {"k": {"k": true}}}),
            json!("text"),
        ] {
            let Measure::Fits(len) = measure(&value, usize::MAX, 8) else {
                panic!("{value} fits no limit");
            };
            assert_eq!(measure(&value, len, 8), Measure::Fits(len), "{value}");
            assert_eq!(measure(&value, len - 1, 8), Measure::TooLarge, "{value}");
        }
    }

    #[test]
    fn depth_is_measured_in_the_same_walk() {
        // object (1) > array (2) > object (3) > array (4)
        let value = json!({"a": [1, {"b": []}]});
        assert!(matches!(measure(&value, usize::MAX, 4), Measure::Fits(_)));
        assert_eq!(measure(&value, usize::MAX, 3), Measure::TooDeep);
        assert!(matches!(
            measure(&json!(7), usize::MAX, 0),
            Measure::Fits(_)
        ));
    }

    #[test]
    fn wide_values_count_right() {
        // 100 sibling containers.
        let wide = Value::Array((0..100).map(|i| json!([i, "ab"])).collect());
        let compact = wide.to_string().len();
        let approx = json_len(&wide);
        assert!(
            approx.abs_diff(compact) * 2 < compact,
            "{approx} vs {compact}"
        );
        assert_eq!(measure(&wide, usize::MAX, 1), Measure::TooDeep);
    }

    #[test]
    fn the_length_is_close_to_the_compact_json_length() {
        let mut value = json!({"k": ["ab", 1, null, {"x": true}]});
        for _ in 0..10 {
            value = json!([value, "tail"]);
        }
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
}
