//! The typed stubs the model reads: one declaration per callable tool, from its JSON Schema
//! and description, in a TypeScript-like notation over Rhai's values (`#{ .. }` maps, `[..]`
//! arrays). Pure functions of the tools, so the text is byte-identical for the same tools in
//! the same order, and prompt caches hold.

use serde_json::Value;

/// The stub of one tool: its description as `//` lines, then `name(#{ .. }) -> result`.
pub(crate) fn stub(name: &str, description: &str, schema: &Value) -> String {
    let mut out = String::new();
    for line in description.trim().lines() {
        out.push_str("// ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let defs = Defs(schema);
    let params = object(schema, &defs, 1);
    out.push_str(name);
    out.push('(');
    out.push_str(&params);
    out.push_str(")\n");
    out
}

/// Where `$ref`s point: the root's `$defs` (or `definitions`).
struct Defs<'a>(&'a Value);

impl<'a> Defs<'a> {
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let name = reference
            .strip_prefix("#/$defs/")
            .or_else(|| reference.strip_prefix("#/definitions/"))?;
        self.0
            .get("$defs")
            .or_else(|| self.0.get("definitions"))?
            .get(name)
    }
}

/// An object schema as `#{ key: type, other?: type }`, one property per line with its
/// description as a trailing comment; `#{}` when it has no properties.
fn object(schema: &Value, defs: &Defs<'_>, depth: usize) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return "#{}".to_string();
    };
    if properties.is_empty() {
        return "#{}".to_string();
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let indent = "    ".repeat(depth);
    let mut out = String::from("#{\n");
    for (key, property) in properties {
        let optional = if required.contains(&key.as_str()) {
            ""
        } else {
            "?"
        };
        let property = deref(property, defs);
        out.push_str(&format!(
            "{indent}{key}{optional}: {}",
            type_of(property, defs, depth + 1)
        ));
        out.push(',');
        if let Some(note) = note(property) {
            out.push_str(&format!(" // {note}"));
        }
        out.push('\n');
    }
    out.push_str(&"    ".repeat(depth - 1));
    out.push('}');
    out
}

fn deref<'a>(schema: &'a Value, defs: &Defs<'a>) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => defs.resolve(reference).unwrap_or(schema),
        None => schema,
    }
}

/// A property's description and default, on one line.
fn note(schema: &Value) -> Option<String> {
    let description = schema
        .get("description")
        .and_then(Value::as_str)
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "));
    let default = schema
        .get("default")
        .map(|value| format!("default {value}"));
    match (description, default) {
        (Some(text), Some(default)) => Some(format!("{text} ({default})")),
        (Some(text), None) => Some(text),
        (None, Some(default)) => Some(default),
        (None, None) => None,
    }
}

/// The type of `schema` in the stub notation.
fn type_of(schema: &Value, defs: &Defs<'_>, depth: usize) -> String {
    let schema = deref(schema, defs);
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        return union(options.iter().map(Value::to_string));
    }
    if let Some(value) = schema.get("const") {
        return value.to_string();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            return union(options.iter().map(|option| type_of(option, defs, depth)));
        }
    }
    match schema.get("type") {
        Some(Value::String(kind)) => named(kind, schema, defs, depth),
        Some(Value::Array(kinds)) => union(
            kinds
                .iter()
                .filter_map(Value::as_str)
                .map(|kind| named(kind, schema, defs, depth)),
        ),
        _ if schema.get("properties").is_some() => object(schema, defs, depth),
        _ => "any".to_string(),
    }
}

fn named(kind: &str, schema: &Value, defs: &Defs<'_>, depth: usize) -> String {
    match kind {
        "string" => "string".to_string(),
        "integer" => "int".to_string(),
        "number" => "float".to_string(),
        "boolean" => "bool".to_string(),
        "null" => "()".to_string(),
        "array" => match schema.get("items") {
            Some(items) => format!("[{}]", type_of(items, defs, depth)),
            None => "[any]".to_string(),
        },
        "object" => object(schema, defs, depth),
        _ => "any".to_string(),
    }
}

fn union(options: impl Iterator<Item = String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for option in options {
        if !seen.contains(&option) {
            seen.push(option);
        }
    }
    seen.join(" | ")
}

/// The tools' stubs, one after the other with a blank line between.
pub(crate) fn stubs<'a>(tools: impl Iterator<Item = (&'a str, &'a str, Value)>) -> String {
    let mut out = String::new();
    for (name, description, schema) in tools {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&stub(name, description, &schema));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_becomes_a_typed_stub_with_its_docs() {
        let schema = json!({
            "type": "object",
            "properties": {
                "sku": {"type": "string", "description": "The item's SKU."},
                "qty": {"type": ["integer", "null"], "default": 1},
                "unit": {"enum": ["kg", "lb"]},
                "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}}
            },
            "required": ["sku", "unit"],
            "$defs": {"Tag": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}
        });
        let text = stub("lookup", "Look up an item.\nBy SKU.", &schema);
        assert_eq!(
            text,
            "// Look up an item.\n// By SKU.\nlookup(#{\n    sku: string, // The item's SKU.\n    qty?: int | (), // default 1\n    unit: \"kg\" | \"lb\",\n    tags?: [#{\n        name: string,\n    }],\n})\n"
        );
    }

    #[test]
    fn a_tool_without_parameters_takes_an_empty_map() {
        let text = stub(
            "now",
            "The time.",
            &json!({"type": "object", "properties": {}}),
        );
        assert_eq!(text, "// The time.\nnow(#{})\n");
    }
}
