//! Redacting what a schema marks secret before a value goes into telemetry: every value whose
//! schema says `writeOnly: true` (JSON Schema's word for a value that is sent but never shown
//! back, such as a password) or `format: "password"` becomes `"<redacted>"`.
//!
//! The walk follows `properties`, `additionalProperties`, `items`, `prefixItems`, the branches
//! of `anyOf`/`oneOf`/`allOf`, and local `$ref`s into `$defs`/`definitions` (to a bounded depth,
//! since a recursive schema has no end). A value under a branch that marks it is redacted
//! whichever branch it matches: telemetry errs on the side of saying less.

use serde_json::Value;

/// What a redacted value is recorded as.
pub(super) const REDACTED: &str = "<redacted>";

/// How many schemas deep the walk goes (a recursive `$ref` would go on forever).
const MAX_DEPTH: usize = 32;

/// Redacts, in `value`, every value `schema` marks secret.
pub(super) fn write_only(value: &mut Value, schema: &Value) {
    walk(value, schema, schema, 0);
}

fn is_secret(schema: &Value) -> bool {
    schema.get("writeOnly") == Some(&Value::Bool(true))
        || schema.get("format").and_then(Value::as_str) == Some("password")
}

/// `schema` with a local `$ref` followed, once.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .unwrap_or(schema),
        None => schema,
    }
}

fn walk(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = resolve(schema, root);
    if is_secret(schema) {
        *value = Value::String(REDACTED.to_string());
        return;
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = schema.get(combinator).and_then(Value::as_array) {
            if branches
                .iter()
                .any(|branch| is_secret(resolve(branch, root)))
            {
                *value = Value::String(REDACTED.to_string());
                return;
            }
            for branch in branches {
                walk(value, branch, root, depth + 1);
            }
        }
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|s| s.is_object());
            for (key, item) in map.iter_mut() {
                if let Some(sub) = properties.and_then(|p| p.get(key)).or(additional) {
                    walk(item, sub, root, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            let prefix = schema.get("prefixItems").and_then(Value::as_array);
            let rest = schema.get("items").filter(|s| s.is_object());
            for (index, item) in items.iter_mut().enumerate() {
                if let Some(sub) = prefix.and_then(|p| p.get(index)).or(rest) {
                    walk(item, sub, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn write_only_values_are_redacted_wherever_they_are() {
        let schema = json!({
            "type": "object",
            "properties": {
                "user": {"type": "string"},
                "password": {"type": "string", "writeOnly": true},
                "pin": {"type": "string", "format": "password"},
                "tokens": {"type": "array", "items": {"$ref": "#/$defs/Token"}},
                "maybe": {"anyOf": [{"type": "string", "writeOnly": true}, {"type": "null"}]},
                "extra": {"type": "object", "additionalProperties": {"type": "string", "writeOnly": true}}
            },
            "$defs": {"Token": {"type": "object", "properties": {"value": {"type": "string", "writeOnly": true}, "name": {"type": "string"}}}}
        });
        let mut value = json!({
            "user": "ada", "password": "hunter2", "pin": "1234",
            "tokens": [{"value": "t0k3n", "name": "ci"}],
            "maybe": "secret", "extra": {"k": "v"}
        });
        write_only(&mut value, &schema);
        assert_eq!(
            value,
            json!({
                "user": "ada", "password": REDACTED, "pin": REDACTED,
                "tokens": [{"value": REDACTED, "name": "ci"}],
                "maybe": REDACTED, "extra": {"k": REDACTED}
            })
        );
    }

    #[test]
    fn a_recursive_schema_ends() {
        let schema = json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}, "key": {"writeOnly": true}}}}});
        let mut value = json!({"key": "a"});
        let mut cursor = &mut value;
        for _ in 0..100 {
            cursor["next"] = json!({"key": "b"});
            cursor = &mut cursor["next"];
        }
        write_only(&mut value, &schema);
        assert_eq!(value["key"], REDACTED);
        assert_eq!(value["next"]["next"]["key"], REDACTED);
    }
}
