//! Visiting the subschemas of a JSON Schema (2020-12 keywords), without entering data such as
//! `enum`, `const`, `default` or `examples`.

use serde_json::{Map, Value};

use super::path::Step;

/// Keywords whose value is one subschema.
const SINGLE: &[&str] = &[
    "additionalProperties",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];

/// Keywords whose value is an array of subschemas.
const ARRAYS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];

/// Keywords whose value maps names to subschemas.
const MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// Calls `visit` on every direct subschema of `schema`, with the step that leads to it.
pub(crate) fn for_each_subschema_mut(
    schema: &mut Map<String, Value>,
    visit: &mut dyn FnMut(Step, &mut Value),
) {
    for (keyword, value) in schema.iter_mut() {
        let keyword = keyword.as_str();
        if SINGLE.contains(&keyword) {
            let step = match keyword {
                "additionalProperties" => Step::MapValue,
                "items" => Step::Item,
                other => Step::Keyword(other.to_string()),
            };
            visit(step, value);
        } else if let Some(keyword) = ARRAYS.iter().find(|k| **k == keyword) {
            if let Value::Array(items) = value {
                for (index, item) in items.iter_mut().enumerate() {
                    let step = if *keyword == "prefixItems" {
                        Step::Position(index)
                    } else {
                        Step::Alternative(keyword, index)
                    };
                    visit(step, item);
                }
            }
        } else if MAPS.contains(&keyword)
            && let Value::Object(entries) = value
        {
            for (name, item) in entries.iter_mut() {
                let step = match keyword {
                    "$defs" | "definitions" => Step::Definition(name.clone()),
                    "properties" => Step::Field(name.clone()),
                    other => Step::Keyword(format!("{other}.{name}")),
                };
                visit(step, item);
            }
        }
    }
}

/// Calls `visit` on every schema inside `schema` (itself included), depth first.
pub(crate) fn for_each_schema_mut(
    schema: &mut Value,
    visit: &mut dyn FnMut(&mut Map<String, Value>),
) {
    if let Value::Object(map) = schema {
        visit(map);
        for_each_subschema_mut(map, &mut |_, sub| for_each_schema_mut(sub, visit));
    }
}

/// The schema types `schema` names in `type` (a string or an array), if any.
pub(crate) fn types(schema: &Map<String, Value>) -> Option<Vec<&str>> {
    match schema.get("type")? {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) => Some(names.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

/// Keywords that describe without constraining: dropping one never changes which values validate.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
    "$anchor",
    "contentEncoding",
    "contentMediaType",
];
