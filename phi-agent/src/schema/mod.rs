//! JSON Schemas for tool arguments.
//!
//! [`canonical_schema_for`] derives the canonical schema of a type: JSON Schema 2020-12 without
//! `$schema` and the root `title` (the tool description replaces it), with an object root.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The canonical argument schema of `T`.
///
/// ```
/// #[derive(schemars::JsonSchema)]
/// struct Args {
///     /// City name
///     city: String,
/// }
/// let schema = phi_agent::schema::canonical_schema_for::<Args>();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["properties"]["city"]["description"], "City name");
/// assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
/// ```
pub fn canonical_schema_for<T: JsonSchema + ?Sized>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .for_deserialize()
        .with(|settings| settings.meta_schema = None)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(root) = schema.as_object_mut() {
        root.remove("title");
        if !root.contains_key("type") && !root.contains_key("$ref") {
            root.insert("type".into(), Value::from("object"));
        }
    }
    schema
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
