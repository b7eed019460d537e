//! Proving that the alternatives of a `oneOf` never overlap, so that `anyOf` (the only union
//! OpenAI strict mode and Gemini know) accepts exactly the same values.
//!
//! serde's tagged enums are disjoint by construction (distinct tags, or distinct JSON types),
//! and schemars writes them as `oneOf`. An alternative set that cannot be proven disjoint is
//! reported instead of being converted. Rule: `docs/src/providers.md#oneof-as-anyof`.

use serde_json::{Map, Value};

use super::walk::types;

/// Whether no value can match two of `alternatives`.
pub(crate) fn provably_disjoint(alternatives: &[Value]) -> bool {
    alternatives.iter().enumerate().all(|(i, a)| {
        alternatives[i + 1..]
            .iter()
            .all(|b| match (a.as_object(), b.as_object()) {
                (Some(a), Some(b)) => disjoint(a, b),
                _ => false,
            })
    })
}

fn disjoint(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    if let (Some(a_types), Some(b_types)) = (json_types(a), json_types(b))
        && a_types
            .iter()
            .all(|t| !b_types.iter().any(|u| types_overlap(t, u)))
    {
        return true;
    }
    if let (Some(a_values), Some(b_values)) = (allowed_values(a), allowed_values(b))
        && a_values.iter().all(|v| !b_values.contains(v))
    {
        return true;
    }
    distinct_tags(a, b) || excludes_required(a, b) || excludes_required(b, a)
}

/// The JSON types a schema admits, from `type` or from its `const` / `enum` values.
fn json_types(schema: &Map<String, Value>) -> Option<Vec<&'static str>> {
    if let Some(names) = types(schema) {
        return Some(names.into_iter().map(static_type_name).collect());
    }
    let values = allowed_values(schema)?;
    Some(values.into_iter().map(type_of).collect())
}

fn static_type_name(name: &str) -> &'static str {
    match name {
        "null" => "null",
        "boolean" => "boolean",
        "integer" => "integer",
        "number" => "number",
        "string" => "string",
        "array" => "array",
        "object" => "object",
        _ => "unknown",
    }
}

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn types_overlap(a: &str, b: &str) -> bool {
    a == b
        || a == "unknown"
        || b == "unknown"
        || matches!((a, b), ("integer", "number") | ("number", "integer"))
}

/// The only values a schema admits (`const` or `enum`), if it lists them.
fn allowed_values(schema: &Map<String, Value>) -> Option<Vec<&Value>> {
    if let Some(value) = schema.get("const") {
        return Some(vec![value]);
    }
    schema
        .get("enum")
        .and_then(Value::as_array)
        .map(|values| values.iter().collect())
}

fn required(schema: &Map<String, Value>) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn property<'a>(schema: &'a Map<String, Value>, name: &str) -> Option<&'a Map<String, Value>> {
    schema.get("properties")?.get(name)?.as_object()
}

/// Both require a property (a tag) whose listed values do not meet.
fn distinct_tags(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    let b_required = required(b);
    required(a)
        .into_iter()
        .filter(|name| b_required.contains(name))
        .any(|name| {
            let values = |s| property(s, name).and_then(allowed_values);
            match (values(a), values(b)) {
                (Some(a_values), Some(b_values)) => a_values.iter().all(|v| !b_values.contains(v)),
                _ => false,
            }
        })
}

/// `a` requires a property that `b` forbids (closed object without that property).
fn excludes_required(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    let closed = b.get("additionalProperties") == Some(&Value::Bool(false))
        && !b.contains_key("patternProperties");
    closed
        && required(a)
            .into_iter()
            .any(|name| property(b, name).is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(alternatives: Value) -> bool {
        provably_disjoint(alternatives.as_array().unwrap())
    }

    #[test]
    fn tagged_alternatives_are_disjoint() {
        assert!(check(json!([{"const": "a"}, {"const": "b"}])));
        assert!(check(
            json!([{"type": "string", "enum": ["Ping"]}, {"type": "object"}])
        ));
        assert!(check(json!([
            {"type": "object", "properties": {"kind": {"const": "circle"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "square"}}, "required": ["kind"]}
        ])));
        assert!(check(json!([
            {"type": "object", "properties": {"Move": {}}, "required": ["Move"], "additionalProperties": false},
            {"type": "object", "properties": {"Say": {}}, "required": ["Say"], "additionalProperties": false}
        ])));
    }

    #[test]
    fn overlapping_alternatives_are_not() {
        assert!(!check(json!([{"type": "integer"}, {"type": "number"}])));
        assert!(!check(json!([{"const": "a"}, {"enum": ["b", "a"]}])));
        assert!(!check(json!([
            {"type": "object", "properties": {"a": {}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {}}, "required": ["b"]}
        ])));
        assert!(!check(json!([{"minimum": 0}, {"maximum": 10}])));
    }
}
