//! The canonical argument schema: what MCP and Anthropic receive, and what every other dialect
//! is derived from.
//!
//! JSON Schema 2020-12 as schemars 1 writes it, with four changes that never alter which values
//! validate: no `$schema`, no root `title`, every non-recursive `$ref` replaced by its definition
//! (only recursive types keep `$defs`), and integer formats backed by the bounds the decoder
//! enforces (`format: uint32` alone lets `2^32` through; `maximum: 4294967295` does not).
//! The root gets `type: object` when it names no type and no alternatives.

use std::any::TypeId;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, OnceLock, RwLock};

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

use super::walk::{ANNOTATIONS, for_each_schema_mut, for_each_subschema_mut, has_type};

/// The canonical argument schema of `T`.
///
/// ```
/// #[derive(schemars::JsonSchema)]
/// struct Args {
///     /// City name
///     city: String,
///     /// Days ahead
///     days: u32,
/// }
/// let schema = phi_agent::schema::canonical_schema_for::<Args>();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["properties"]["city"]["description"], "City name");
/// assert_eq!(schema["properties"]["days"]["maximum"], u32::MAX);
/// assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
/// ```
pub fn canonical_schema_for<T: JsonSchema + ?Sized>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .for_deserialize()
        .with(|settings| settings.meta_schema = None)
        .into_generator();
    canonicalize(generator.into_root_schema_for::<T>().to_value())
}

/// Brings any argument schema (a hand-written one too) into canonical form: no `$schema`, no
/// root `title`, non-recursive `$ref`s inlined, integer formats backed by their bounds, and
/// `type: object` on a root that names no type. None of these changes which objects validate.
/// Idempotent.
///
/// ```
/// use serde_json::json;
/// let schema = phi_agent::schema::canonicalize(json!({
///     "$schema": "https://json-schema.org/draft/2020-12/schema",
///     "title": "Args",
///     "properties": {"units": {"$ref": "#/$defs/Units", "description": "Units"}},
///     "$defs": {"Units": {"type": "string", "enum": ["metric", "imperial"]}}
/// }));
/// assert_eq!(schema, json!({
///     "properties": {"units": {"type": "string", "enum": ["metric", "imperial"], "description": "Units"}},
///     "type": "object"
/// }));
/// ```
pub fn canonicalize(schema: Value) -> Value {
    let mut root = match schema {
        Value::Object(map) => map,
        Value::Bool(true) => Map::new(),
        other => return other,
    };
    root.remove("$schema");
    root.remove("title");

    let mut definitions = take_definitions(&mut root);
    let recursive = recursive_definitions(&definitions);
    let inlinable: HashMap<String, Value> = definitions
        .iter()
        .filter(|(name, _)| !recursive.contains(*name))
        .map(|(name, schema)| (name.clone(), schema.clone()))
        .collect();

    let mut root = Value::Object(root);
    inline_refs(&mut root, &inlinable);
    definitions.retain(|name, _| recursive.contains(name));
    for schema in definitions.values_mut() {
        inline_refs(schema, &inlinable);
    }

    let Value::Object(mut root) = root else {
        unreachable!("the root stays an object")
    };
    if !definitions.is_empty() {
        root.insert("$defs".into(), Value::Object(definitions));
    }
    let has_alternatives = ["anyOf", "oneOf", "allOf", "$ref", "enum", "const", "not"]
        .iter()
        .any(|keyword| root.contains_key(*keyword));
    if !root.contains_key("type") && !has_alternatives {
        root.insert("type".into(), Value::from("object"));
    }
    let mut root = Value::Object(root);
    for_each_schema_mut(&mut root, &mut add_integer_bounds);
    root
}

/// The canonical schema of `T`, derived once per type and shared afterwards.
pub(crate) fn cached<T: JsonSchema + ?Sized + 'static>() -> Arc<Value> {
    static CACHE: OnceLock<RwLock<HashMap<TypeId, Arc<Value>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = TypeId::of::<T>();
    if let Some(schema) = cache.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return schema.clone();
    }
    let schema = Arc::new(canonical_schema_for::<T>());
    cache
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert(schema)
        .clone()
}

/// Removes `$defs` (and the draft-7 `definitions`) from the root, merged into one map.
fn take_definitions(root: &mut Map<String, Value>) -> Map<String, Value> {
    let mut definitions = Map::new();
    for keyword in ["$defs", "definitions"] {
        if let Some(Value::Object(map)) = root.remove(keyword) {
            definitions.extend(map);
        }
    }
    definitions
}

/// The definition a local `$ref` points at: `#/$defs/Name` or `#/definitions/Name`.
pub(crate) fn definition_name(reference: &str) -> Option<String> {
    let encoded = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))?;
    if encoded.contains('/') {
        return None;
    }
    Some(decode_pointer_token(encoded))
}

/// Undoes JSON Pointer (`~0`, `~1`) and URI fragment (`%XX`) escaping.
fn decode_pointer_token(token: &str) -> String {
    let bytes = token.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit();
        if escaped {
            let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
            out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out)
        .replace("~1", "/")
        .replace("~0", "~")
}

/// The local definitions each schema refers to.
fn references(schema: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut schema = schema.clone();
    for_each_schema_mut(&mut schema, &mut |map| {
        if let Some(name) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(definition_name)
        {
            found.insert(name);
        }
    });
    found
}

/// Definitions that can reach themselves through `$ref`s: these must stay references.
fn recursive_definitions(definitions: &Map<String, Value>) -> BTreeSet<String> {
    let edges: HashMap<&str, BTreeSet<String>> = definitions
        .iter()
        .map(|(name, schema)| (name.as_str(), references(schema)))
        .collect();
    let mut recursive = BTreeSet::new();
    for start in definitions.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&str> = edges[start.as_str()].iter().map(String::as_str).collect();
        while let Some(name) = stack.pop() {
            if name == start {
                recursive.insert(start.clone());
                break;
            }
            if seen.insert(name)
                && let Some(next) = edges.get(name)
            {
                stack.extend(next.iter().map(String::as_str));
            }
        }
    }
    recursive
}

/// Replaces every `$ref` to one of `inlinable` by the definition itself.
///
/// The definitions form no cycle (recursive ones are excluded), so this terminates.
fn inline_refs(schema: &mut Value, inlinable: &HashMap<String, Value>) {
    let Value::Object(map) = schema else { return };
    let target = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(definition_name)
        .and_then(|name| inlinable.get(&name));
    if let Some(definition) = target {
        let mut siblings = map.clone();
        siblings.remove("$ref");
        let mut replacement = merge(definition.clone(), siblings);
        inline_refs(&mut replacement, inlinable);
        *schema = replacement;
        return;
    }
    for_each_subschema_mut(map, &mut |sub| inline_refs(sub, inlinable));
}

/// A definition together with the keywords written beside the `$ref` to it. The siblings'
/// annotations (a field's own description) win over the definition's; a constraint written on
/// both sides keeps both by nesting the definition in `allOf`.
fn merge(definition: Value, siblings: Map<String, Value>) -> Value {
    let mut definition = match definition {
        Value::Object(map) => map,
        Value::Bool(true) => Map::new(),
        other if siblings.is_empty() => return other,
        other => {
            let mut wrapper = siblings;
            wrapper.insert("allOf".into(), Value::Array(vec![other]));
            return Value::Object(wrapper);
        }
    };
    let clash = siblings
        .keys()
        .any(|key| definition.contains_key(key) && !ANNOTATIONS.contains(&key.as_str()));
    if clash {
        let mut wrapper = siblings;
        wrapper.insert(
            "allOf".into(),
            Value::Array(vec![Value::Object(definition)]),
        );
        return Value::Object(wrapper);
    }
    for (key, value) in siblings {
        definition.insert(key, value);
    }
    Value::Object(definition)
}

/// Adds the bounds that an integer `format` implies and the decoder enforces.
fn add_integer_bounds(schema: &mut Map<String, Value>) {
    let is_integer = has_type(schema, "integer");
    if !is_integer {
        return;
    }
    let (min, max): (Value, Value) = match schema.get("format").and_then(Value::as_str) {
        Some("int8") => (i8::MIN.into(), i8::MAX.into()),
        Some("int16") => (i16::MIN.into(), i16::MAX.into()),
        Some("int32") => (i32::MIN.into(), i32::MAX.into()),
        Some("int64") => (i64::MIN.into(), i64::MAX.into()),
        Some("int") => ((isize::MIN as i64).into(), (isize::MAX as i64).into()),
        Some("uint8") => (0.into(), u8::MAX.into()),
        Some("uint16") => (0.into(), u16::MAX.into()),
        Some("uint32") => (0.into(), u32::MAX.into()),
        Some("uint64") => (0.into(), u64::MAX.into()),
        Some("uint") => (0.into(), (usize::MAX as u64).into()),
        // serde_json (without `arbitrary_precision`) reads no integer beyond 64 bits.
        Some("int128") => (i64::MIN.into(), u64::MAX.into()),
        Some("uint128") => (0.into(), u64::MAX.into()),
        _ => return,
    };
    if !schema.contains_key("minimum") && !schema.contains_key("exclusiveMinimum") {
        schema.insert("minimum".into(), min);
    }
    if !schema.contains_key("maximum") && !schema.contains_key("exclusiveMaximum") {
        schema.insert("maximum".into(), max);
    }
}
