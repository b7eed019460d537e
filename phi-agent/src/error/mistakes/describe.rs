//! A schema and a value in words, for "expected .., found ..": what a schema allows ("an integer
//! from 0 to 255") and what was sent in its place (`5`, "an array of 3 items"). Titles,
//! descriptions and definition names are never used: they may be Rust type names.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::limits;

/// Field names an "unknown field" text lists before it says how many more there are.
const MAX_LISTED_FIELDS: usize = 20;

/// Values of an `enum` a description lists before it says how many there are in all.
const MAX_LISTED_VALUES: usize = 12;

/// How far a description follows nested schemas (a recursive type would never end).
const MAX_DESCRIBE_DEPTH: usize = 3;

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

/// `` `a`, `b`, `c` `` (at most [`MAX_LISTED_FIELDS`], then how many more).
pub(super) fn name_list(names: &[&str]) -> String {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn said(schema: Value) -> String {
        describe(&schema, &schema)
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
}
