//! The canonical argument schema: what MCP and Anthropic receive, and what every other dialect
//! is derived from.
//!
//! JSON Schema 2020-12 as schemars 1 writes it, with four changes that never alter which values
//! validate: no `$schema`, no root `title`, every non-recursive `$ref` replaced by its definition
//! (only recursive types keep `$defs`; a definition graph that would blow up when inlined keeps
//! all its `$ref`s, see [`super::inline`]), and integer formats backed by the bounds the decoder
//! enforces (`format: uint32` alone lets `2^32` through; `maximum: 4294967295` does not).
//! The root gets `type: object` when it names no type and no alternatives. Each change and why:
//! `docs/src/providers.md#canonical`.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use schemars::JsonSchema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value};

use super::inline::inline_definitions;
use super::walk::{for_each_schema_mut, has_type};

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
    canonicalize(generator().into_root_schema_for::<T>().to_value())
}

/// The generator of argument schemas; not generic, so built by one function for every type.
fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .for_deserialize()
        .with(|settings| settings.meta_schema = None)
        .into_generator()
}

/// Brings any argument schema (a hand-written one too) into canonical form: no `$schema`, no
/// root `title`, non-recursive `$ref`s inlined (all `$ref`s kept when inlining would copy a
/// definition graph out of bounds), integer formats backed by their bounds, and
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
    let root = match schema {
        Value::Object(map) => map,
        Value::Bool(true) => Map::new(),
        other => return other,
    };
    // A root that is only a `$ref` takes its definition's place, whatever that is (a definition
    // of `false` makes a schema no arguments fit, which registration then refuses).
    let mut root = match inline_definitions(root) {
        Value::Object(map) => map,
        other => return other,
    };
    root.remove("$schema");
    root.remove("title");
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
    cached_by(TypeId::of::<T>(), canonical_schema_for::<T>)
}

/// [`cached`] for the type `key`, derived by `derive`: the cache itself is compiled once, not
/// once per argument type.
fn cached_by(key: TypeId, derive: fn() -> Value) -> Arc<Value> {
    static CACHE: OnceLock<RwLock<HashMap<TypeId, Arc<Value>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(schema) = cache.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return schema.clone();
    }
    let schema = Arc::new(derive());
    cache
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert(schema)
        .clone()
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

/// Inlining as canonicalization applies it: the limits that keep a definition graph's `$ref`s.
#[cfg(test)]
mod tests {
    use std::time::Instant;

    use serde_json::json;

    use serde_json::{Map, Value};

    use super::canonicalize;
    use crate::schema::inline::{MAX_DEFINITIONS, MAX_INLINED_DEPTH};
    use crate::schema::{Dialect, to_dialect};

    /// `d0` uses `d1` twice, `d1` uses `d2` twice, ...: 2^`levels` copies if inlined.
    fn doubling(levels: usize) -> Value {
        let mut definitions = Map::new();
        for level in 0..levels {
            let next = format!("#/$defs/d{}", level + 1);
            definitions.insert(
                format!("d{level}"),
                json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}}}),
            );
        }
        definitions.insert(format!("d{levels}"), json!({"type": "string"}));
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": definitions})
    }

    /// `c0` uses `c1`, which uses `c2`, ...: one copy each, nested `links` deep.
    fn chain(links: usize) -> Value {
        let mut definitions = Map::new();
        for link in 0..links {
            let next = format!("#/$defs/c{}", link + 1);
            definitions.insert(
                format!("c{link}"),
                json!({"type": "object", "properties": {"next": {"$ref": next}}}),
            );
        }
        definitions.insert(format!("c{links}"), json!({"type": "integer"}));
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/c0"}}, "$defs": definitions})
    }

    fn refs_kept(schema: &Value) -> bool {
        schema["properties"]["x"].get("$ref").is_some() && schema.get("$defs").is_some()
    }

    #[test]
    fn a_root_ref_takes_its_definitions_place_whatever_it_is() {
        // Once a panic: the root became `false`, not an object.
        let refuses_all = json!({"$ref": "#/$defs/a", "$defs": {"a": false}});
        assert_eq!(canonicalize(refuses_all), json!(false));
        let nested = json!({"$ref": "#/$defs/a", "$defs": {"a": {
            "title": "A", "properties": {"n": {"type": "integer"}}, "$defs": {}
        }}});
        let schema = canonicalize(nested);
        assert_eq!(
            schema,
            json!({"properties": {"n": {"type": "integer"}}, "type": "object"})
        );
        assert_eq!(canonicalize(schema.clone()), schema, "idempotent");
    }

    #[test]
    fn small_definition_graphs_are_inlined() {
        let schema = canonicalize(doubling(4));
        assert!(schema.get("$defs").is_none(), "{schema}");
        let leaf = &schema["properties"]["x"]["properties"]["a"]["properties"]["b"];
        assert_eq!(
            leaf["properties"]["a"]["properties"]["b"],
            json!({"type": "string"})
        );
        let schema = canonicalize(chain(MAX_INLINED_DEPTH - 1));
        assert!(schema.get("$defs").is_none());
    }

    #[test]
    fn exponential_inlining_is_refused_and_the_refs_stay() {
        let started = Instant::now();
        let schema = canonicalize(doubling(64));
        assert!(refs_kept(&schema), "2^64 copies were not made");
        assert_eq!(schema["$defs"].as_object().unwrap().len(), 65);
        // Still a schema every dialect can read (Gemini refuses `$ref` with a reason).
        assert!(to_dialect(&schema, Dialect::OpenAiStrict).is_ok());
        assert!(to_dialect(&schema, Dialect::Gemini).is_err());
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    }

    #[test]
    fn inlining_that_would_nest_too_deep_is_refused() {
        // Ten definitions, each 20 levels of arrays around the next: 200 levels once inlined.
        let mut definitions = Map::new();
        for link in 0..10 {
            let mut wrapped = json!({"$ref": format!("#/$defs/w{}", link + 1)});
            for _ in 0..20 {
                wrapped = json!({"type": "array", "items": wrapped});
            }
            definitions.insert(format!("w{link}"), wrapped);
        }
        definitions.insert("w10".into(), json!({"type": "string"}));
        let schema = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/w0"}}, "$defs": definitions});
        assert!(refs_kept(&canonicalize(schema)));
    }

    #[test]
    fn deep_and_numerous_definitions_stay_references() {
        let deep = canonicalize(chain(MAX_INLINED_DEPTH + 8));
        assert!(refs_kept(&deep), "nesting would pass the limit");
        let started = Instant::now();
        let many = canonicalize(chain(20 * MAX_DEFINITIONS));
        assert!(refs_kept(&many));
        assert_eq!(
            many["$defs"].as_object().unwrap().len(),
            20 * MAX_DEFINITIONS + 1
        );
        assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    }
}
