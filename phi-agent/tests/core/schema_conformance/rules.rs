//! What each provider accepts, written down from docs/src/providers.md independently of the code that
//! derives the dialects, so that a dialect bug cannot hide behind itself.

use phi_agent::schema::Dialect;
use serde_json::{Map, Value};

/// Every rule of `dialect` that `schema` breaks, with the JSON pointer where.
pub fn check(schema: &Value, dialect: Dialect) -> Vec<String> {
    let mut problems = Vec::new();
    let root = schema.as_object().expect("a dialect schema is an object");
    if root.get("type") != Some(&Value::from("object")) {
        problems.push("root: type must be \"object\"".to_string());
    }
    if dialect != Dialect::Mcp {
        for keyword in ["anyOf", "oneOf", "allOf", "not", "enum", "const"] {
            if root.contains_key(keyword) {
                problems.push(format!("root: `{keyword}` at the root"));
            }
        }
    }
    for keyword in ["$schema", "title"] {
        if root.contains_key(keyword) {
            problems.push(format!("root: `{keyword}` must be dropped"));
        }
    }
    visit(schema, "", &mut |pointer, map| match dialect {
        Dialect::OpenAiStrict => openai_strict(pointer, map, &mut problems),
        Dialect::Gemini => gemini(pointer, map, &mut problems),
        Dialect::OpenAi | Dialect::Anthropic | Dialect::Mcp => {}
    });
    if dialect == Dialect::OpenAiStrict && schema.to_string().len() > 120_000 {
        problems.push("more than 120k characters".into());
    }
    problems
}

fn openai_strict(pointer: &str, map: &Map<String, Value>, problems: &mut Vec<String>) {
    let mut fail = |why: String| problems.push(format!("{pointer}: {why}"));
    if map.contains_key("$ref") && map.len() > 1 {
        fail("`$ref` has sibling keywords".into());
    }
    for keyword in [
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "prefixItems",
        "patternProperties",
        "propertyNames",
        "unevaluatedProperties",
        "uniqueItems",
        "minLength",
        "maxLength",
        "dependentRequired",
        "dependentSchemas",
        "contains",
    ] {
        if map.contains_key(keyword) {
            fail(format!("`{keyword}` is not supported"));
        }
    }
    if let Some(format) = map.get("format").and_then(Value::as_str) {
        let allowed = [
            "date-time",
            "time",
            "date",
            "duration",
            "email",
            "hostname",
            "ipv4",
            "ipv6",
            "uuid",
        ];
        if !allowed.contains(&format) {
            fail(format!("format `{format}` is not allowed"));
        }
    }
    let is_object = match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    };
    if is_object {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            fail("object without `additionalProperties: false`".into());
        }
        let properties: Vec<&String> = map
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().collect())
            .unwrap_or_else(|| {
                fail("object without `properties`".into());
                Vec::new()
            });
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if properties.len() != required.len()
            || properties.iter().any(|p| !required.contains(&p.as_str()))
        {
            fail("not every property is required".into());
        }
    }
    let typed = ["type", "enum", "const", "anyOf", "$ref"]
        .iter()
        .any(|k| map.contains_key(*k));
    if !typed {
        fail("a schema without a type (accepts anything)".into());
    }
    if pointer.matches("/properties/").count() > 10 {
        fail("more than 10 levels of nesting".into());
    }
}

fn gemini(pointer: &str, map: &Map<String, Value>, problems: &mut Vec<String>) {
    let mut fail = |why: String| problems.push(format!("{pointer}: {why}"));
    for keyword in [
        "$ref",
        "$defs",
        "definitions",
        "additionalProperties",
        "const",
        "oneOf",
        "allOf",
        "not",
        "title",
        "$schema",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "propertyNames",
        "prefixItems",
        "patternProperties",
        "default",
        "examples",
    ] {
        if map.contains_key(keyword) {
            fail(format!("`{keyword}` is not accepted"));
        }
    }
    match map.get("type") {
        Some(Value::String(_)) => {}
        Some(_) => fail("`type` must be one string".into()),
        None if map.contains_key("anyOf") => {}
        None => fail("a schema without `type`".into()),
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array)
        && !values.iter().all(Value::is_string)
    {
        fail("enum values must be strings".into());
    }
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !["float", "double", "int32", "int64", "enum", "date-time"].contains(&format)
    {
        fail(format!("format `{format}` is not accepted"));
    }
    let empty_object = map.get("type") == Some(&Value::from("object"))
        && map
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(|p| p.is_empty());
    if empty_object && !pointer.is_empty() {
        fail("object without properties".into());
    }
}

/// Calls `f` on every subschema with its JSON pointer.
fn visit(schema: &Value, pointer: &str, f: &mut dyn FnMut(&str, &Map<String, Value>)) {
    // A boolean subschema is checked as the empty schema it stands for, which names no type.
    let empty = Map::new();
    let map = schema.as_object().unwrap_or(&empty);
    f(pointer, map);
    for (keyword, value) in map {
        match keyword.as_str() {
            "properties" | "$defs" | "patternProperties" => {
                for (name, sub) in value.as_object().into_iter().flatten() {
                    visit(sub, &format!("{pointer}/{keyword}/{name}"), f);
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                for (index, sub) in value.as_array().into_iter().flatten().enumerate() {
                    visit(sub, &format!("{pointer}/{keyword}/{index}"), f);
                }
            }
            // `additionalProperties: false` closes an object; it is not a subschema to check.
            "additionalProperties" if value.is_boolean() => {}
            "items" | "additionalProperties" | "not" => {
                visit(value, &format!("{pointer}/{keyword}"), f)
            }
            _ => {}
        }
    }
}

/// A Gemini schema read as JSON Schema: `nullable: true` becomes a `null` alternative.
pub fn gemini_as_json_schema(schema: &Value) -> Value {
    let Some(map) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        let converted = match key.as_str() {
            "properties" => Value::Object(
                value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(name, sub)| (name.clone(), gemini_as_json_schema(sub)))
                    .collect(),
            ),
            "items" => gemini_as_json_schema(value),
            "anyOf" => Value::Array(
                value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(gemini_as_json_schema)
                    .collect(),
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), converted);
    }
    if out.remove("nullable") == Some(Value::Bool(true)) {
        if let Some(Value::String(t)) = out.get("type").cloned() {
            out.insert("type".into(), serde_json::json!([t, "null"]));
        }
        if let Some(Value::Array(values)) = out.get_mut("enum") {
            values.push(Value::Null);
        }
        if let Some(Value::Array(alternatives)) = out.get_mut("anyOf") {
            alternatives.push(serde_json::json!({"type": "null"}));
        }
    }
    Value::Object(out)
}
