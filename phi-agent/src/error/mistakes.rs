//! Every text a model reads when the arguments it sent are refused: their shape, their nesting,
//! each mistake against the tool's schema (what was expected there, what was found, the field it
//! probably meant), the decoder's own words when the schema saw nothing wrong, the list that puts
//! several mistakes into one result, and the warning added to a call that keeps failing.
//!
//! They live in one place so that they read alike and are each tested, and so that one rule
//! holds for all of them: no Rust type name. The model never sees the Rust code; "expected
//! struct SearchArgs" tells it nothing, "expected a JSON object" tells it what to send.

// Without `schema-validation` only the decoder's texts are used; the validator's stay tested.
#![cfg_attr(not(feature = "schema-validation"), allow(dead_code))]

use std::fmt::{self, Write as _};

use serde_json::{Map, Value};

use crate::limits;

/// How many mistakes one result lists; the rest are counted ("and 3 more"). A model fixes a
/// handful at a time, and a long list would crowd out the conversation.
pub const MAX_LISTED_MISTAKES: usize = 10;

/// Field names an "unknown field" text lists before it says how many more there are.
const MAX_LISTED_FIELDS: usize = 20;

/// Values of an `enum` a description lists before it says how many there are in all.
const MAX_LISTED_VALUES: usize = 12;

/// How far a description follows nested schemas (a recursive type would never end).
const MAX_DESCRIBE_DEPTH: usize = 3;

/// One mistake in a model's arguments: where it is and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentMistake {
    /// JSON path of the value, e.g. `filters.tags[1]`; [`ROOT_PATH`](crate::ROOT_PATH) for the
    /// arguments object itself.
    pub path: String,
    /// What was wrong there and what was expected, e.g. "expected a string, found `5`".
    pub message: String,
}

impl fmt::Display for ArgumentMistake {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at `{}`: {}", self.path, self.message)
    }
}

/// The whole text of [`AgentError::ArgumentMistakes`](crate::AgentError::ArgumentMistakes): one
/// line per listed mistake, so that a model can work down the list.
pub(crate) fn mistakes_list(tool: &str, mistakes: &[ArgumentMistake], omitted: usize) -> String {
    let total = mistakes.len() + omitted;
    let mut text = format!(
        "invalid arguments for tool `{tool}`, {total} mistakes; fix the arguments to match the \
         tool's schema and call it again:"
    );
    for mistake in mistakes {
        let _ = write!(text, "\n- {mistake}");
    }
    if omitted > 0 {
        let _ = write!(text, "\n- and {omitted} more");
    }
    text
}

/// The arguments arrived as text that is not JSON (adapters keep it as a string).
pub(crate) fn arguments_are_text(raw: &str) -> String {
    format!(
        "the arguments are not a JSON object but the text {:?}; send one JSON object",
        limits::snippet(raw.as_bytes())
    )
}

/// The arguments are a JSON array: positional arguments, which no tool takes.
pub(crate) fn arguments_are_an_array() -> String {
    "expected a JSON object of arguments, found an array; send one object whose keys are the \
     parameter names"
        .to_string()
}

/// The arguments are a number, a boolean or the like.
pub(crate) fn arguments_are_a_scalar(scalar: &Value) -> String {
    format!("expected a JSON object of arguments, found `{scalar}`")
}

/// The arguments nest deeper than dispatch reads.
pub(crate) fn arguments_too_deep(max_depth: usize) -> String {
    format!("the arguments nest more than {max_depth} levels deep; send flatter arguments")
}

/// The arguments are not an object, in the words the registry uses for each shape (for a tool
/// called without the registry's checks).
pub(crate) fn not_an_object(args: &Value) -> String {
    match args {
        Value::String(raw) => arguments_are_text(raw),
        Value::Array(_) => arguments_are_an_array(),
        scalar => arguments_are_a_scalar(scalar),
    }
}

/// A field the object does not have; `known` are the fields it has, in declaration order.
pub(crate) fn unknown_field(name: &str, known: &[&str]) -> String {
    let mut text = format!("unknown field `{name}`");
    if known.is_empty() {
        text.push_str("; this object takes no fields");
        return text;
    }
    match closest(name, known.iter().copied()) {
        Some(close) => {
            let _ = write!(text, "; did you mean `{close}`? valid fields: ");
        }
        None => text.push_str("; valid fields: "),
    }
    text.push_str(&name_list(known));
    text
}

/// A field the object does not have, where the fields it has could not be read off the schema.
pub(crate) fn unknown_field_unlisted(name: &str) -> String {
    format!("unknown field `{name}`; remove it")
}

/// A required field that is missing; `expected` describes its value ([`describe`]).
pub(crate) fn missing_field(name: &str, expected: &str) -> String {
    format!("missing required field `{name}`; expected {expected}")
}

/// A value that does not fit: `expected` from [`describe`], `found` from [`found`].
pub(crate) fn expected_found(expected: &str, found: &str) -> String {
    format!("expected {expected}, found {found}")
}

/// A value that fits more than one alternative where exactly one must fit.
pub(crate) fn ambiguous(expected: &str) -> String {
    format!(
        "the value fits more than one of the allowed forms; send one that fits exactly one of {expected}"
    )
}

/// A value where the schema allows none (an item past the end of a fixed-length array).
pub(crate) fn nothing_allowed() -> String {
    "no value is allowed here; remove it".to_string()
}

/// An array longer than a fixed-length array may be.
pub(crate) fn too_many_items(limit: usize) -> String {
    format!("expected at most {limit} items; remove the rest")
}

/// Appended to the result of a failing call the model has sent `failures` times, the last time
/// it may: one more ends the run.
pub(crate) fn repeated_failure(tool: &str, failures: usize) -> String {
    format!(
        "\nThis identical call of `{tool}` has now failed {failures} times. Do not send it again: \
         change the arguments, use another tool, or answer with what you know. Sending it once \
         more ends the run."
    )
}

/// What a typed run tells a model that answered in plain text instead of calling its
/// final-answer tool `tool`.
pub(crate) fn answer_not_called(tool: &str) -> String {
    format!(
        "Your reply was plain text, but this task's answer must be given by calling the tool \
         `{tool}` with arguments that follow its schema. Call `{tool}` now with your answer."
    )
}

/// What a typed run tells a model whose reply, which had to be the answer as JSON (the
/// provider's structured output), is not JSON; `error` is the parser's own words (a line and
/// column, no Rust names).
pub(crate) fn answer_not_json(error: &str) -> String {
    format!(
        "Your reply must be the answer as one JSON value that follows the answer schema, and it \
         is not JSON ({error}). Reply with the JSON only."
    )
}

/// What a typed run tells a model whose JSON reply breaks the answer schema: every mistake, one
/// line each (`mistakes` as [`mistake_lines`] writes them).
pub(crate) fn answer_mistakes(mistakes: &str) -> String {
    format!(
        "Your answer does not follow the answer schema:{mistakes}\nReply with the corrected JSON \
         only."
    )
}

/// The mistakes of a refused argument error, one `\n- at `path`: message` line each; an error
/// of another kind as its own text on one line.
pub(crate) fn mistake_lines(error: &crate::error::AgentError) -> String {
    use crate::error::AgentError;
    let mut text = String::new();
    match error {
        AgentError::InvalidArguments { path, message, .. } => {
            let _ = write!(text, "\n- at `{path}`: {message}");
        }
        AgentError::ArgumentMistakes {
            mistakes, omitted, ..
        } => {
            for mistake in mistakes {
                let _ = write!(text, "\n- {mistake}");
            }
            if *omitted > 0 {
                let _ = write!(text, "\n- and {omitted} more");
            }
        }
        other => {
            let _ = write!(text, "\n- {other}");
        }
    }
    text
}

/// The result a typed run's final-answer call gets once its answer is accepted: the run ends
/// there, and a later run of the same session reads it in the history.
pub(crate) fn answer_accepted() -> &'static str {
    "Answer received."
}

/// The result of a call made in the same turn as an accepted final answer: the answer ends the
/// run, so the call is not run.
pub(crate) fn not_run_after_answer(tool: &str) -> String {
    format!("Not run: the final answer (`{tool}`) was given in the same turn, which ends the run.")
}

/// The text of [`AgentError::RequiredToolMissing`](crate::AgentError::RequiredToolMissing): read
/// by the program's author rather than the model, and worded like the texts above.
pub(crate) fn required_tool_missing(
    tool: &str,
    required: &str,
    hidden: bool,
    closest: Option<&str>,
) -> String {
    if hidden {
        return format!(
            "tool `{tool}` requires the tool `{required}`, which is hidden and so never active; \
             give `{required}` another exposure, or remove it from `requires_tools`"
        );
    }
    let guess = closest
        .map(|name| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default();
    format!(
        "tool `{tool}` requires the tool `{required}`, which is not registered{guess}; register \
         `{required}`, or correct the name in `requires_tools`"
    )
}

/// The candidate closest to `name` by edit distance, if any is close enough to be a likely
/// slip (a typo, a swapped pair of letters, another case).
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = match name.chars().count() {
        0..=2 => 0,
        3..=5 => 1,
        6..=8 => 2,
        _ => 3,
    };
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|&(distance, candidate)| distance <= limit || name.eq_ignore_ascii_case(candidate))
        // `min_by_key` keeps the first of equals: the field declared first wins a tie.
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// Edit distance with adjacent transpositions (optimal string alignment, strsim's), ignoring
/// ASCII case: `qurey` is one step from `query`, `maxResults` one from `max_results`.
fn edit_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(&a.to_ascii_lowercase(), &b.to_ascii_lowercase())
}

/// `` `a`, `b`, `c` `` (at most [`MAX_LISTED_FIELDS`], then how many more).
fn name_list(names: &[&str]) -> String {
    let mut text = names
        .iter()
        .take(MAX_LISTED_FIELDS)
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > MAX_LISTED_FIELDS {
        let _ = write!(text, " and {} more", names.len() - MAX_LISTED_FIELDS);
    }
    text
}

/// What was found, for "expected .., found ..": the value itself when it is short, its kind
/// when it is not (a long string is cut; an array or object is named, not quoted back).
pub(crate) fn found(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(_) | Value::Number(_) => format!("`{value}`"),
        Value::String(text) => {
            let cut = limits::floor_char_boundary(text, 60);
            let shown = Value::from(&text[..cut]);
            if cut < text.len() {
                format!("the string {}... ({} bytes)", shown, text.len())
            } else {
                format!("the string {shown}")
            }
        }
        Value::Array(items) => match items.len() {
            0 => "an empty array".to_string(),
            1 => "an array of 1 item".to_string(),
            n => format!("an array of {n} items"),
        },
        Value::Object(fields) if fields.is_empty() => "an empty object".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// What `schema` allows, in words: "an integer from 0 to 255", "a JSON object with the fields
/// `city`, `days`", "one of \"metric\", \"imperial\"". `root` is the whole schema, for `$ref`s.
/// Titles, descriptions and definition names are never used: they may be Rust type names.
pub(crate) fn describe(schema: &Value, root: &Value) -> String {
    describe_at(schema, root, 0)
}

fn describe_at(schema: &Value, root: &Value, depth: usize) -> String {
    let map = match schema {
        Value::Object(map) => map,
        Value::Bool(false) => return "nothing (no value is allowed here)".to_string(),
        _ => return "any JSON value".to_string(),
    };
    if depth > MAX_DESCRIBE_DEPTH {
        return "a value as the tool's schema describes it".to_string();
    }
    if let Some(target) = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
    {
        return describe_at(target, root, depth + 1);
    }
    if let Some(value) = map.get("const") {
        return format!("exactly {value}");
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return one_of_values(values);
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alternatives)) = map.get(keyword) {
            let mut parts: Vec<String> = Vec::new();
            for alternative in alternatives {
                let part = describe_at(alternative, root, depth + 1);
                if !parts.contains(&part) {
                    parts.push(part);
                }
            }
            return join_or(&parts);
        }
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ if map.contains_key("properties") => vec!["object"],
        _ => Vec::new(),
    };
    if types.is_empty() {
        return "any JSON value".to_string();
    }
    let parts: Vec<String> = types
        .iter()
        .map(|name| describe_type(name, map, root, depth))
        .collect();
    join_or(&parts)
}

fn describe_type(name: &str, map: &Map<String, Value>, root: &Value, depth: usize) -> String {
    match name {
        "string" => {
            let mut text = "a string".to_string();
            let (min, max) = (uint(map, "minLength"), uint(map, "maxLength"));
            match (min, max) {
                (Some(min), Some(max)) if min == max => {
                    let _ = write!(text, " of exactly {}", count(min, "character"));
                }
                (Some(min), Some(max)) => {
                    let _ = write!(text, " of {min} to {max} characters");
                }
                (Some(min), None) if min > 0 => {
                    let _ = write!(text, " of at least {}", count(min, "character"));
                }
                (_, Some(max)) => {
                    let _ = write!(text, " of at most {}", count(max, "character"));
                }
                _ => {}
            }
            if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
                let _ = write!(text, " matching the pattern `{pattern}`");
            }
            if let Some(format) = map.get("format").and_then(Value::as_str) {
                let _ = write!(text, " in the `{format}` format");
            }
            text
        }
        "integer" => format!("an integer{}", bounds(map)),
        "number" => format!("a number{}", bounds(map)),
        "boolean" => "`true` or `false`".to_string(),
        "null" => "null".to_string(),
        "object" => {
            let fields: Vec<&str> = map
                .get("properties")
                .and_then(Value::as_object)
                .map(|properties| properties.keys().map(String::as_str).collect())
                .unwrap_or_default();
            if !fields.is_empty() {
                return format!("a JSON object with the fields {}", name_list(&fields));
            }
            match map.get("additionalProperties") {
                Some(values @ Value::Object(_)) => format!(
                    "a JSON object whose values are each {}",
                    describe_at(values, root, depth + 1)
                ),
                _ => "a JSON object".to_string(),
            }
        }
        "array" => {
            if let Some(Value::Array(positions)) = map.get("prefixItems") {
                let items: Vec<String> = positions
                    .iter()
                    .map(|item| describe_at(item, root, depth + 1))
                    .collect();
                return format!(
                    "a JSON array of {}: {}",
                    count(items.len() as u64, "item"),
                    items.join(", then ")
                );
            }
            let mut text = "a JSON array".to_string();
            match (uint(map, "minItems"), uint(map, "maxItems")) {
                (Some(min), Some(max)) if min == max => {
                    let _ = write!(text, " of exactly {}", count(min, "item"));
                }
                (Some(min), Some(max)) => {
                    let _ = write!(text, " of {min} to {max} items");
                }
                (Some(min), None) if min > 0 => {
                    let _ = write!(text, " of at least {}", count(min, "item"));
                }
                (_, Some(max)) => {
                    let _ = write!(text, " of at most {}", count(max, "item"));
                }
                _ => {}
            }
            if map.get("uniqueItems") == Some(&Value::Bool(true)) {
                text.push_str(" without repeated items");
            }
            if let Some(items) = map.get("items").filter(|items| items.is_object()) {
                let _ = write!(
                    text,
                    " whose items are each {}",
                    describe_at(items, root, depth + 1)
                );
            }
            text
        }
        other => format!("a JSON {other}"),
    }
}

/// " from 0 to 255", " of at least 1", " greater than 0", or nothing.
fn bounds(map: &Map<String, Value>) -> String {
    let lower = map
        .get("minimum")
        .map(|min| (min, false))
        .or_else(|| map.get("exclusiveMinimum").map(|min| (min, true)));
    let upper = map
        .get("maximum")
        .map(|max| (max, false))
        .or_else(|| map.get("exclusiveMaximum").map(|max| (max, true)));
    let mut text = match (lower, upper) {
        (Some((min, false)), Some((max, false))) => format!(" from {min} to {max}"),
        (Some((min, exclusive)), upper) => {
            let mut text = if exclusive {
                format!(" greater than {min}")
            } else {
                format!(" of at least {min}")
            };
            if let Some((max, exclusive)) = upper {
                let _ = write!(
                    text,
                    " and {} {max}",
                    if exclusive { "less than" } else { "at most" }
                );
            }
            text
        }
        (None, Some((max, true))) => format!(" less than {max}"),
        (None, Some((max, false))) => format!(" of at most {max}"),
        (None, None) => String::new(),
    };
    if let Some(step) = map.get("multipleOf") {
        let _ = write!(text, " that is a multiple of {step}");
    }
    text
}

fn uint(map: &Map<String, Value>, keyword: &str) -> Option<u64> {
    map.get(keyword).and_then(Value::as_u64)
}

/// "1 item", "3 items".
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn one_of_values(values: &[Value]) -> String {
    match values {
        [] => "nothing (no value is allowed here)".to_string(),
        [single] => format!("exactly {single}"),
        many => {
            let mut text = many
                .iter()
                .take(MAX_LISTED_VALUES)
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            if many.len() > MAX_LISTED_VALUES {
                let _ = write!(text, ", ... ({} values in all)", many.len());
            }
            format!("one of {text}")
        }
    }
}

/// "a", "a or b", "a, b or c".
fn join_or(parts: &[String]) -> String {
    match parts {
        [] => "any JSON value".to_string(),
        [single] => single.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The decoder's message in the model's terms. serde names the Rust type it expected
/// ("invalid type: integer `5`, expected struct Trip", "expected u8", "data did not match any
/// variant of untagged enum Shape"); the model knows only JSON, so each such phrase becomes the
/// JSON it stands for. Used only when the schema found nothing wrong, which for a derived type
/// means the decoder is stricter than its schema.
pub(crate) fn reword_decoder_message(message: &str) -> String {
    let mut text = message.to_string();
    // Longest phrases first: "tuple struct X" must not be read as "struct X".
    const NAMED: &[(&str, &str)] = &[
        (
            "data did not match any variant of untagged enum ",
            "the value fits none of the allowed forms",
        ),
        ("internally tagged enum ", "a JSON object with a tag field"),
        (
            "adjacently tagged enum ",
            "a JSON object with a tag field and a content field",
        ),
        ("tuple struct ", "a JSON array"),
        ("struct variant ", "a JSON object"),
        ("tuple variant ", "a JSON array"),
        ("newtype variant ", "a value"),
        ("unit variant ", "a string"),
        ("newtype struct ", "a value"),
        ("unit struct ", "null"),
        ("struct ", "a JSON object"),
        ("enum ", "one of the allowed values"),
    ];
    for (phrase, replacement) in NAMED {
        text = replace_named(&text, phrase, replacement);
    }
    const EXPECTED: &[(&str, &str)] = &[
        ("u8", "an integer from 0 to 255"),
        ("u16", "an integer from 0 to 65535"),
        ("u32", "an integer from 0 to 4294967295"),
        ("u64", "an integer from 0 to 18446744073709551615"),
        ("u128", "a non-negative integer"),
        ("usize", "an integer from 0 to 18446744073709551615"),
        ("i8", "an integer from -128 to 127"),
        ("i16", "an integer from -32768 to 32767"),
        ("i32", "an integer from -2147483648 to 2147483647"),
        (
            "i64",
            "an integer from -9223372036854775808 to 9223372036854775807",
        ),
        ("i128", "an integer"),
        (
            "isize",
            "an integer from -9223372036854775808 to 9223372036854775807",
        ),
        ("f32", "a number"),
        ("f64", "a number"),
        ("a sequence", "a JSON array"),
        ("a map", "a JSON object"),
        ("a borrowed string", "a string"),
        ("unit", "null"),
        ("option", "a value or null"),
        (
            "variant identifier",
            "the name of one of the allowed values",
        ),
        ("field identifier", "a field name"),
    ];
    for (rust, json) in EXPECTED {
        text = replace_word(
            &text,
            &format!("expected {rust}"),
            &format!("expected {json}"),
        );
    }
    // What serde calls what it found.
    for (rust, json) in [
        ("invalid type: sequence", "invalid type: an array"),
        ("invalid type: map", "invalid type: an object"),
        ("invalid type: unit value", "invalid type: null"),
    ] {
        text = replace_word(&text, rust, json);
    }
    without_paths(&text)
}

/// `text` with each `phrase Name` (the phrase at a word start, followed by a Rust name) replaced
/// by `replacement`.
fn replace_named(text: &str, phrase: &str, replacement: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find_word(rest, phrase) {
        out.push_str(&rest[..at]);
        out.push_str(replacement);
        let after = &rest[at + phrase.len()..];
        let name_len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(after.len());
        rest = &after[name_len..];
    }
    out.push_str(rest);
    out
}

/// `text` with every whole-word `from` replaced by `to`.
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find_word(rest, from) {
        let end = at + from.len();
        let ends_word = !rest[end..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        out.push_str(if ends_word { to } else { from });
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Where `phrase` first occurs at the start of a word ("struct " in "expected struct X", not in
/// "construct X").
fn find_word(text: &str, phrase: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find(phrase) {
        let at = from + found;
        let starts_word = !text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if starts_word {
            return Some(at);
        }
        from = at + phrase.len();
    }
    None
}

/// `text` with every Rust path (`a::b::C`, as a custom `Deserialize` may write) cut to its last
/// segment.
fn without_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("::") {
        // Drop the path's leading segments: back to the start of the word before `::`.
        let head = &rest[..at];
        let word_start = head
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| {
                i + head[i..].chars().next().map_or(1, char::len_utf8)
            });
        out.push_str(&head[..word_start]);
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn said(schema: Value) -> String {
        describe(&schema, &schema)
    }

    #[test]
    fn an_unknown_field_gets_the_closest_valid_one_and_the_list() {
        assert_eq!(
            unknown_field("limt", &["query", "limit"]),
            "unknown field `limt`; did you mean `limit`? valid fields: `query`, `limit`"
        );
        assert_eq!(
            unknown_field("colour", &["query", "limit"]),
            "unknown field `colour`; valid fields: `query`, `limit`"
        );
        assert_eq!(unknown_field_unlisted("x"), "unknown field `x`; remove it");
        assert_eq!(
            unknown_field("x", &[]),
            "unknown field `x`; this object takes no fields"
        );
        let many: Vec<String> = (0..25).map(|i| format!("f{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(unknown_field("zz", &many).ends_with("`f19` and 5 more"));
    }

    #[test]
    fn a_call_failing_again_and_again_is_told_to_stop() {
        assert_eq!(
            repeated_failure("flaky", 3),
            "\nThis identical call of `flaky` has now failed 3 times. Do not send it again: change \
             the arguments, use another tool, or answer with what you know. Sending it once more \
             ends the run."
        );
    }

    #[test]
    fn a_typed_answer_is_asked_for_in_words_the_model_can_act_on() {
        assert_eq!(
            answer_not_called("final_answer"),
            "Your reply was plain text, but this task's answer must be given by calling the tool \
             `final_answer` with arguments that follow its schema. Call `final_answer` now with \
             your answer."
        );
        assert_eq!(
            answer_not_json("expected value at line 1 column 1"),
            "Your reply must be the answer as one JSON value that follows the answer schema, and \
             it is not JSON (expected value at line 1 column 1). Reply with the JSON only."
        );
        let error = crate::error::AgentError::ArgumentMistakes {
            tool: "final_answer".into(),
            mistakes: vec![
                ArgumentMistake {
                    path: "city".into(),
                    message: "missing field".into(),
                },
                ArgumentMistake {
                    path: "days".into(),
                    message: "expected an integer".into(),
                },
            ],
            omitted: 2,
        };
        assert_eq!(
            answer_mistakes(&mistake_lines(&error)),
            "Your answer does not follow the answer schema:\n- at `city`: missing field\n- at \
             `days`: expected an integer\n- and 2 more\nReply with the corrected JSON only."
        );
        let one = crate::error::AgentError::InvalidArguments {
            tool: "final_answer".into(),
            path: "(root)".into(),
            message: "expected a JSON object".into(),
        };
        assert_eq!(
            mistake_lines(&one),
            "\n- at `(root)`: expected a JSON object"
        );
        assert_eq!(answer_accepted(), "Answer received.");
        assert_eq!(
            not_run_after_answer("final_answer"),
            "Not run: the final answer (`final_answer`) was given in the same turn, which ends the \
             run."
        );
    }

    #[test]
    fn a_missing_requirement_names_the_closest_tool_or_says_why_it_never_activates() {
        assert_eq!(
            required_tool_missing("file_write", "file_reed", false, Some("file_read")),
            "tool `file_write` requires the tool `file_reed`, which is not registered (did you \
             mean `file_read`?); register `file_reed`, or correct the name in `requires_tools`"
        );
        assert!(required_tool_missing("a", "b", false, None).contains("not registered; register"));
        assert!(
            required_tool_missing("a", "b", true, None).contains("is hidden and so never active")
        );
    }

    #[test]
    fn the_closest_name_allows_typos_transpositions_and_case() {
        let fields = ["query", "limit", "max_results", "id"];
        assert_eq!(closest("qurey", fields), Some("query"));
        assert_eq!(closest("limt", fields), Some("limit"));
        assert_eq!(closest("maxResults", fields), Some("max_results"));
        assert_eq!(closest("ID", fields), Some("id"));
        assert_eq!(
            closest("ix", fields),
            None,
            "two letters are too short to guess"
        );
        assert_eq!(closest("colour", fields), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn missing_fields_and_wrong_values_say_what_was_expected() {
        assert_eq!(
            missing_field("days", "an integer from 0 to 255"),
            "missing required field `days`; expected an integer from 0 to 255"
        );
        assert_eq!(
            expected_found("a string", &found(&json!(5))),
            "expected a string, found `5`"
        );
        assert!(ambiguous("a string or null").contains("exactly one of a string or null"));
        assert_eq!(nothing_allowed(), "no value is allowed here; remove it");
        assert_eq!(
            too_many_items(2),
            "expected at most 2 items; remove the rest"
        );
    }

    #[test]
    fn found_values_are_quoted_when_short_and_named_when_not() {
        assert_eq!(found(&json!(null)), "null");
        assert_eq!(found(&json!(true)), "`true`");
        assert_eq!(found(&json!("ten")), "the string \"ten\"");
        assert_eq!(found(&json!([])), "an empty array");
        assert_eq!(found(&json!([1, 2])), "an array of 2 items");
        assert_eq!(found(&json!({"a": 1})), "an object");
        let long = "é".repeat(100);
        let shown = found(&json!(long));
        assert!(
            shown.ends_with("... (200 bytes)") && shown.len() < 100,
            "{shown}"
        );
    }

    #[test]
    fn schemas_are_described_in_json_terms() {
        assert_eq!(
            said(json!({"type": "integer", "minimum": 0, "maximum": 255})),
            "an integer from 0 to 255"
        );
        assert_eq!(
            said(json!({"type": ["integer", "null"], "minimum": 1})),
            "an integer of at least 1 or null"
        );
        assert_eq!(
            said(json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1})),
            "a number greater than 0 and at most 1"
        );
        assert_eq!(
            said(json!({"type": "string", "minLength": 1, "maxLength": 1})),
            "a string of exactly 1 character"
        );
        assert_eq!(
            said(json!({"type": "string", "format": "date-time"})),
            "a string in the `date-time` format"
        );
        assert_eq!(
            said(json!({"type": "string", "enum": ["metric", "imperial"]})),
            "one of \"metric\", \"imperial\""
        );
        assert_eq!(said(json!({"const": "go"})), "exactly \"go\"");
        assert_eq!(
            said(
                json!({"type": "object", "properties": {"city": {}, "days": {}}, "title": "WeatherArgs"})
            ),
            "a JSON object with the fields `city`, `days`"
        );
        assert_eq!(
            said(json!({"type": "array", "items": {"type": "boolean"}, "maxItems": 3})),
            "a JSON array of at most 3 items whose items are each `true` or `false`"
        );
        assert_eq!(
            said(
                json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]})
            ),
            "a JSON array of 2 items: an integer, then a string"
        );
        assert_eq!(
            said(json!({"type": "object", "additionalProperties": {"type": "integer"}})),
            "a JSON object whose values are each an integer"
        );
        assert_eq!(
            said(
                json!({"anyOf": [{"$ref": "#/$defs/Trip"}, {"type": "null"}], "$defs": {"Trip": {"type": "object", "properties": {"to": {}}}}})
            ),
            "a JSON object with the fields `to` or null"
        );
        assert_eq!(said(json!({})), "any JSON value");
        assert_eq!(said(json!(false)), "nothing (no value is allowed here)");
    }

    #[test]
    fn a_recursive_schema_is_described_to_a_bounded_depth() {
        let schema = json!({"$ref": "#", "type": "object"});
        assert_eq!(said(schema), "a value as the tool's schema describes it");
    }

    #[test]
    fn the_decoders_words_lose_every_rust_name() {
        for (serde, model) in [
            (
                "invalid type: integer `5`, expected struct Trip",
                "invalid type: integer `5`, expected a JSON object",
            ),
            (
                "invalid type: string \"x\", expected tuple struct Point",
                "invalid type: string \"x\", expected a JSON array",
            ),
            (
                "data did not match any variant of untagged enum Shape",
                "the value fits none of the allowed forms",
            ),
            (
                "invalid type: map, expected enum Units",
                "invalid type: an object, expected one of the allowed values",
            ),
            (
                "invalid value: integer `300`, expected u8",
                "invalid value: integer `300`, expected an integer from 0 to 255",
            ),
            (
                "invalid type: sequence, expected a map",
                "invalid type: an array, expected a JSON object",
            ),
            (
                "invalid type: unit value, expected a string",
                "invalid type: null, expected a string",
            ),
            (
                "expected struct variant Shape::Circle",
                "expected a JSON object",
            ),
            (
                "bad value for my_crate::types::Secret",
                "bad value for Secret",
            ),
            ("cannot construct it", "cannot construct it"),
            ("expected u8s", "expected u8s"),
        ] {
            assert_eq!(reword_decoder_message(serde), model);
        }
    }

    #[test]
    fn several_mistakes_are_one_line_each_and_capped() {
        let mistakes = vec![
            ArgumentMistake {
                path: "query".into(),
                message: "missing required field `query`; expected a string".into(),
            },
            ArgumentMistake {
                path: "limit".into(),
                message: "expected an integer, found the string \"ten\"".into(),
            },
        ];
        assert_eq!(
            mistakes_list("search", &mistakes, 3),
            "invalid arguments for tool `search`, 5 mistakes; fix the arguments to match the \
             tool's schema and call it again:\n\
             - at `query`: missing required field `query`; expected a string\n\
             - at `limit`: expected an integer, found the string \"ten\"\n\
             - and 3 more"
        );
    }

    #[test]
    fn the_shape_of_the_arguments_is_told_with_what_to_send() {
        assert_eq!(
            arguments_are_text("{city: Oslo"),
            "the arguments are not a JSON object but the text \"{city: Oslo\"; send one JSON object"
        );
        assert!(
            arguments_are_an_array().contains("send one object whose keys are the parameter names")
        );
        assert_eq!(
            arguments_are_a_scalar(&json!(7)),
            "expected a JSON object of arguments, found `7`"
        );
        assert_eq!(
            arguments_too_deep(128),
            "the arguments nest more than 128 levels deep; send flatter arguments"
        );
        assert_eq!(not_an_object(&json!([1])), arguments_are_an_array());
        assert_eq!(
            not_an_object(&json!(true)),
            arguments_are_a_scalar(&json!(true))
        );
    }
}
