//! Argument repair: tool-call arguments that are almost JSON, made JSON before they are decoded.
//!
//! Models sometimes write arguments that a person reads at once but a JSON parser refuses: a
//! trailing comma, Python's single quotes and `True`/`False`/`None`, the whole object inside a
//! ```` ```json ```` code fence, or an object whose closing brackets were cut off. Such a call
//! would cost a turn to fix; instead it is rewritten, once, where it enters the run, and the call
//! says what was repaired ([`ToolCall::repaired`](crate::llm::ToolCall::repaired)).
//!
//! The repair is deliberately narrow: each rewrite has exactly one reading, and anything else is
//! left alone and refused as before (the model hears what was wrong). A cut-off object is closed
//! only after a complete string, literal, object or array: a number at the very end may have been
//! cut short (`2` of `25`), and a string, key or colon at the end leaves a value unknown. Input
//! that already parses is never touched. The result must be a JSON object, as arguments are.
//!
//! An own small scanner rather than a crate: the repair crates on crates.io aim to accept as much
//! as they can (unquoted keys, missing values, guessed commas, comments), which is the opposite
//! of "one unambiguous repair away", and their rules are not ours to document.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One kind of repair made to a tool call's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ArgumentRepair {
    /// The object was inside a Markdown code fence (```` ```json .. ``` ````).
    CodeFence,
    /// A comma before a closing `}` or `]` was dropped.
    TrailingComma,
    /// Single-quoted strings became double-quoted.
    SingleQuotes,
    /// Python's `True`, `False` and `None` became `true`, `false` and `null`.
    PythonLiterals,
    /// An object or array cut off at the end was closed.
    Closed,
}

impl ArgumentRepair {
    /// A short name for the repair, as events and spans show it (`trailing_comma`).
    pub fn as_str(self) -> &'static str {
        match self {
            ArgumentRepair::CodeFence => "code_fence",
            ArgumentRepair::TrailingComma => "trailing_comma",
            ArgumentRepair::SingleQuotes => "single_quotes",
            ArgumentRepair::PythonLiterals => "python_literals",
            ArgumentRepair::Closed => "closed",
        }
    }
}

/// Repairs `raw`, arguments that did not parse as JSON: the object they obviously mean and the
/// repairs made (in the order first needed), or `None` when no unambiguous repair gives an
/// object. Input that parses as it is gets `None` too: there is nothing to repair.
pub(crate) fn repair_arguments(raw: &str) -> Option<(Value, Vec<ArgumentRepair>)> {
    if serde_json::from_str::<Value>(raw).is_ok() {
        return None;
    }
    let (text, repairs) = rewrite(raw)?;
    if repairs.is_empty() {
        return None;
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(value @ Value::Object(_)) => Some((value, repairs)),
        _ => None,
    }
}

/// `raw` rewritten into JSON text, with the repairs that took; `None` where a repair would be a
/// guess. On valid JSON text it returns the text unchanged and no repairs.
fn rewrite(raw: &str) -> Option<(String, Vec<ArgumentRepair>)> {
    let mut repairs = Vec::new();
    let note = |repair: ArgumentRepair, repairs: &mut Vec<ArgumentRepair>| {
        if !repairs.contains(&repair) {
            repairs.push(repair);
        }
    };
    let mut text = raw;
    if let Some(fenced) = unfence(raw) {
        text = fenced;
        note(ArgumentRepair::CodeFence, &mut repairs);
    }
    let mut out = String::with_capacity(text.len() + 8);
    // The closers still owed, innermost last.
    let mut open: Vec<char> = Vec::new();
    // Whether the last token written completes a value beyond doubt (a number may be cut short).
    let mut complete = false;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => {
                let end = string_end(text, at)?;
                out.push_str(&text[at..end]);
                while chars.peek().is_some_and(|&(next, _)| next < end) {
                    chars.next();
                }
                complete = true;
            }
            '\'' => {
                let end = single_quoted(text, at, &mut out)?;
                while chars.peek().is_some_and(|&(next, _)| next < end) {
                    chars.next();
                }
                note(ArgumentRepair::SingleQuotes, &mut repairs);
                complete = true;
            }
            '{' | '[' => {
                open.push(if c == '{' { '}' } else { ']' });
                out.push(c);
                complete = false;
            }
            '}' | ']' => {
                if open.pop() != Some(c) {
                    return None;
                }
                if drop_trailing_comma(&mut out)? {
                    note(ArgumentRepair::TrailingComma, &mut repairs);
                }
                out.push(c);
                complete = true;
            }
            ',' => {
                // `[,` and `,,` are holes, not trailing commas: no one reading.
                if matches!(last_significant(&out), None | Some('[' | '{' | ',')) {
                    return None;
                }
                out.push(c);
                complete = false;
            }
            c if c.is_ascii_digit() || c == '-' => {
                // A number whole, exponent included, so that its `e` is not read as a word.
                out.push(c);
                while let Some(&(_, d)) = chars.peek() {
                    if d.is_ascii_digit() || matches!(d, 'e' | 'E' | '+' | '-' | '.') {
                        out.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                complete = false;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut end = at + c.len_utf8();
                while let Some(&(next, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' {
                        end = next + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                let word = match &text[at..end] {
                    word @ ("true" | "false" | "null") => word,
                    python => {
                        let json = match python {
                            "True" => "true",
                            "False" => "false",
                            "None" => "null",
                            _ => return None,
                        };
                        note(ArgumentRepair::PythonLiterals, &mut repairs);
                        json
                    }
                };
                out.push_str(word);
                complete = true;
            }
            c => {
                out.push(c);
                if !c.is_whitespace() {
                    complete = false;
                }
            }
        }
    }
    if !open.is_empty() {
        if last_significant(&out) == Some(',') {
            drop_trailing_comma(&mut out)?;
        } else if !complete {
            return None;
        }
        while let Some(closer) = open.pop() {
            out.push(closer);
        }
        note(ArgumentRepair::Closed, &mut repairs);
    }
    Some((out, repairs))
}

/// The inside of a code fence that holds the whole input: ```` ```json\n{..}\n``` ```` (the
/// language tag, when there is one, is `json`).
fn unfence(raw: &str) -> Option<&str> {
    let inner = raw.trim().strip_prefix("```")?.strip_suffix("```")?;
    let inner = inner
        .strip_prefix("json")
        .or_else(|| inner.strip_prefix("JSON"))
        .unwrap_or(inner);
    // Anything else right after the fence is another language's tag.
    if !inner.starts_with(char::is_whitespace) {
        return None;
    }
    Some(inner.trim())
}

/// Where the double-quoted string that starts at `start` ends (one past its closing quote);
/// `None` when the input ends inside it.
fn string_end(text: &str, start: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Writes the single-quoted string that starts at `start` double-quoted to `out`, and returns
/// where it ends; `None` when the input ends inside it.
fn single_quoted(text: &str, start: usize, out: &mut String) -> Option<usize> {
    out.push('"');
    let mut chars = text[start + 1..].char_indices();
    while let Some((offset, c)) = chars.next() {
        match c {
            '\\' => {
                let (_, escaped) = chars.next()?;
                if escaped == '\'' {
                    out.push('\'');
                } else {
                    out.push('\\');
                    out.push(escaped);
                }
            }
            '"' => out.push_str("\\\""),
            '\'' => {
                out.push('"');
                return Some(start + 1 + offset + 1);
            }
            c => out.push(c),
        }
    }
    None
}

fn last_significant(out: &str) -> Option<char> {
    out.trim_end().chars().next_back()
}

/// Drops a comma that is the last thing written before a closer; `Some(true)` when there was
/// one, `None` when what came before it cannot take a trailing comma (`[,]`).
fn drop_trailing_comma(out: &mut String) -> Option<bool> {
    if last_significant(out) != Some(',') {
        return Some(false);
    }
    let comma = out.trim_end().len() - 1;
    out.truncate(comma);
    if matches!(last_significant(out), None | Some('[' | '{' | ',')) {
        return None;
    }
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn repaired(raw: &str) -> (Value, Vec<ArgumentRepair>) {
        repair_arguments(raw).unwrap_or_else(|| panic!("not repaired: {raw}"))
    }

    #[test]
    fn each_repair() {
        use ArgumentRepair::*;
        assert_eq!(
            repaired(r#"{"a": 1, "b": [1, 2,],}"#),
            (json!({"a": 1, "b": [1, 2]}), vec![TrailingComma])
        );
        assert_eq!(
            repaired(r#"{'city': 'Rome', 'note': "it's \"x\"", 'q': 'say "hi"'}"#),
            (
                json!({"city": "Rome", "note": "it's \"x\"", "q": "say \"hi\""}),
                vec![SingleQuotes]
            )
        );
        assert_eq!(repaired(r"{'it\'s': 1}").0, json!({"it's": 1}));
        assert_eq!(
            repaired(r#"{"a": True, "b": False, "c": None, "d": "True"}"#),
            (
                json!({"a": true, "b": false, "c": null, "d": "True"}),
                vec![PythonLiterals]
            )
        );
        assert_eq!(
            repaired("```json\n{\"a\": 1}\n```"),
            (json!({"a": 1}), vec![CodeFence])
        );
        assert_eq!(repaired("```\n{\"a\": 1}\n```").0, json!({"a": 1}));
        assert_eq!(
            repaired(r#"{"a": {"b": "c"}, "d": [true"#),
            (json!({"a": {"b": "c"}, "d": [true]}), vec![Closed])
        );
        assert_eq!(repaired(r#"{"a": "x","#), (json!({"a": "x"}), vec![Closed]));
        assert_eq!(
            repaired("```json\n{'a': [None,],\n```"),
            (
                json!({"a": [null]}),
                vec![
                    CodeFence,
                    SingleQuotes,
                    PythonLiterals,
                    TrailingComma,
                    Closed
                ]
            )
        );
        assert_eq!(
            repaired("{'город': 'Москва'}").0,
            json!({"город": "Москва"})
        );
    }

    #[test]
    fn ambiguous_input_is_left_alone() {
        for raw in [
            r#"{"a": 1, "b": 2"#,   // the number may be cut short
            r#"{"a": "unfinished"#, // cut inside a string
            r#"{"a": "x", "b"#,     // a key without its value
            r#"{"a":"#,             // a colon at the end
            r#"{a: 1}"#,            // unquoted keys are a guess
            r#"{"a": [1,,2]}"#,     // a hole, not a trailing comma
            r#"{"a": [,]}"#,
            r#"{"a": nil}"#,            // not a literal of any language we read
            r#"{'a': 'it's'}"#,         // a quote inside a single-quoted string
            r#"{"a": 1}}"#,             // one closer too many
            r#"[1, 2,]"#,               // arguments are an object
            "```python\n{'a': 1}\n```", // another language
            "just text",
            "",
        ] {
            assert_eq!(repair_arguments(raw), None, "{raw}");
        }
        assert_eq!(
            repair_arguments(r#"{"a": 1}"#),
            None,
            "valid input has nothing to repair"
        );
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            "[ -~]{0,8}".prop_map(Value::String),
            "\\PC{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map("[a-z'\" ]{0,6}", inner, 0..5)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    fn json_object() -> impl Strategy<Value = Value> {
        prop::collection::btree_map("[a-z]{1,6}", json_value(), 0..5)
            .prop_map(|map| Value::Object(map.into_iter().collect()))
    }

    /// `value` written the way a model that half-remembers Python writes it: single quotes,
    /// `True`/`None`, a trailing comma after every container's last item.
    fn pythonish(value: &Value, out: &mut String) {
        match value {
            Value::Null => out.push_str("None"),
            Value::Bool(true) => out.push_str("True"),
            Value::Bool(false) => out.push_str("False"),
            Value::Number(n) => out.push_str(&n.to_string()),
            Value::String(s) => {
                let json = serde_json::to_string(s).unwrap();
                let inner = &json[1..json.len() - 1];
                out.push('\'');
                out.push_str(&inner.replace("\\\"", "\"").replace('\'', "\\'"));
                out.push('\'');
            }
            Value::Array(items) => {
                out.push('[');
                for item in items {
                    pythonish(item, out);
                    out.push_str(", ");
                }
                out.push(']');
            }
            Value::Object(map) => {
                out.push('{');
                for (key, item) in map {
                    pythonish(&Value::String(key.clone()), out);
                    out.push_str(": ");
                    pythonish(item, out);
                    out.push_str(", ");
                }
                out.push('}');
            }
        }
    }

    proptest! {
        #[test]
        fn valid_json_is_never_changed(value in json_value(), pretty in any::<bool>()) {
            let text = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                serde_json::to_string(&value).unwrap()
            };
            prop_assert_eq!(rewrite(&text), Some((text.clone(), vec![])));
            prop_assert_eq!(repair_arguments(&text), None);
        }

        #[test]
        fn repaired_input_reads_as_written(value in json_object(), fence in any::<bool>(), cut in any::<bool>()) {
            let mut text = String::new();
            pythonish(&value, &mut text);
            if cut {
                // Cut the final closer off: the object is closed again.
                text.pop();
            }
            if fence {
                text = format!("```json\n{text}\n```");
            }
            let Some((repaired, _)) = repair_arguments(&text) else {
                // An empty object written `{}` (or `{` cut) with nothing else to repair
                // parses, or is a lone `{`; anything else must repair.
                prop_assert!(value.as_object().is_some_and(|m| m.is_empty()), "{text}");
                return Ok(());
            };
            // The obvious reading: what a JSON parser reads of the same values written as JSON.
            let obvious: Value = serde_json::from_str(&serde_json::to_string(&value).unwrap()).unwrap();
            prop_assert_eq!(repaired, obvious);
        }
    }
}
