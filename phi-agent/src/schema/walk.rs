//! Visiting the subschemas of a JSON Schema (2020-12 keywords), without entering data such as
//! `enum`, `const`, `default` or `examples`.

use serde_json::{Map, Value};

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

/// Calls `visit` on every direct subschema of `schema`.
pub(crate) fn for_each_subschema_mut(
    schema: &mut Map<String, Value>,
    visit: &mut dyn FnMut(&mut Value),
) {
    for (keyword, value) in schema.iter_mut() {
        let keyword = keyword.as_str();
        if SINGLE.contains(&keyword) {
            visit(value);
        } else if ARRAYS.contains(&keyword) {
            if let Value::Array(items) = value {
                items.iter_mut().for_each(&mut *visit);
            }
        } else if MAPS.contains(&keyword)
            && let Value::Object(entries) = value
        {
            entries.values_mut().for_each(&mut *visit);
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
        for_each_subschema_mut(map, &mut |sub| for_each_schema_mut(sub, visit));
    }
}

/// Whether `test` holds for any schema inside `schema` (itself included), depth first, reading
/// the same subschemas as [`for_each_schema_mut`].
pub(crate) fn any_schema(
    schema: &Value,
    test: &mut dyn FnMut(&Map<String, Value>) -> bool,
) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    if test(map) {
        return true;
    }
    map.iter().any(|(keyword, value)| {
        let keyword = keyword.as_str();
        if SINGLE.contains(&keyword) {
            any_schema(value, test)
        } else if ARRAYS.contains(&keyword) {
            value
                .as_array()
                .is_some_and(|items| items.iter().any(|item| any_schema(item, test)))
        } else if MAPS.contains(&keyword) {
            value
                .as_object()
                .is_some_and(|entries| entries.values().any(|entry| any_schema(entry, test)))
        } else {
            false
        }
    })
}

/// Maps with at most this many entries are searched by a scan: schema objects are small, and
/// comparing a few short keys costs a fraction of hashing the one looked for (serde_json's
/// ordered map hashes with SipHash), which was a quarter of deriving a cold tool list.
const SCAN_MAX: usize = 16;

/// `map`'s value of `key`, as `map.get(key)` answers; see [`SCAN_MAX`].
pub(crate) fn keyword<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() <= SCAN_MAX {
        map.iter()
            .find_map(|(name, value)| (name.as_str() == key).then_some(value))
    } else {
        map.get(key)
    }
}

/// Whether `map` has `key`, as `map.contains_key(key)` answers; see [`SCAN_MAX`].
pub(crate) fn has_keyword(map: &Map<String, Value>, key: &str) -> bool {
    keyword(map, key).is_some()
}

/// Whether `map` has any of `keys`: one pass over `map`'s keys (see [`SCAN_MAX`]).
pub(crate) fn has_any_keyword(map: &Map<String, Value>, keys: &[&str]) -> bool {
    if map.len() <= SCAN_MAX {
        map.keys().any(|name| keys.contains(&name.as_str()))
    } else {
        keys.iter().any(|key| map.contains_key(*key))
    }
}

/// The schema types `schema` names in `type` (a string or an array), if any.
pub(crate) fn types(schema: &Map<String, Value>) -> Option<Vec<&str>> {
    match keyword(schema, "type")? {
        Value::String(name) => Some(vec![name.as_str()]),
        Value::Array(names) => Some(names.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

/// Whether `schema` names the type `name` in `type` (a string or an array).
pub(crate) fn has_type(schema: &Map<String, Value>, name: &str) -> bool {
    match keyword(schema, "type") {
        Some(Value::String(named)) => named == name,
        Some(Value::Array(names)) => names.iter().any(|named| named.as_str() == Some(name)),
        _ => false,
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
