//! A registered tool's canonical schema, kept as compact JSON text until something reads it.
//!
//! A `serde_json::Value` with `preserve_order` costs several kilobytes for a schema of a dozen
//! nodes (an index map per object), while its JSON text costs a few hundred bytes. A large
//! registry (an MCP server's thousands of tools, most of them deferred or hidden) therefore keeps
//! the text and parses it on the first read; tools that are offered to a model pay for the
//! `Value` once, on their first turn. A typed tool shares the schema its argument type already
//! holds (one `Arc` per type), so it stores no text at all.

use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::schema::DialectSchemas;

/// The canonical schema and the dialect schemas derived from it, shared by every clone of a
/// [`RegisteredTool`](super::RegisteredTool) and every [`ToolSpec`](crate::llm::ToolSpec) made
/// from it.
#[derive(Default)]
pub(super) struct StoredSchema {
    /// Compact JSON text of the schema; empty when `value` was filled at registration.
    text: Box<str>,
    value: OnceLock<Arc<Value>>,
    dialects: OnceLock<Arc<DialectSchemas>>,
    /// The compiled check of a hand-written tool's arguments, built on its first call; boxed,
    /// so that the many tools never called (or typed) pay a pointer for it.
    #[cfg(feature = "schema-validation")]
    check: OnceLock<Option<Box<crate::decode::ArgumentCheck>>>,
}

impl StoredSchema {
    /// Keeps `schema` (canonical) as text when its text is sure to read back as exactly the same
    /// value; otherwise (a float, nesting near the parser's depth limit) keeps the value itself,
    /// so that reading it later can never fail nor change it.
    pub(super) fn compact(schema: Value) -> Self {
        if !reads_back_exactly(&schema, 0) {
            return Self::shared(Arc::new(schema));
        }
        match serde_json::to_string(&schema) {
            Ok(text) => Self {
                text: text.into_boxed_str(),
                ..Self::default()
            },
            Err(_) => Self::shared(Arc::new(schema)),
        }
    }

    /// Holds an already shared `schema` as it is.
    pub(super) fn shared(schema: Arc<Value>) -> Self {
        Self {
            value: OnceLock::from(schema),
            ..Self::default()
        }
    }

    /// The schema, parsed from its text on the first call.
    pub(super) fn value(&self) -> &Arc<Value> {
        self.value.get_or_init(|| {
            // `compact` stores only text that reads back (see `reads_back_exactly`).
            Arc::new(super::schema_text::read(&self.text).unwrap_or_default())
        })
    }

    /// Calls `read` with the schema without keeping a parsed copy that was not there already:
    /// for reading every tool once (a search index), which must not leave each of thousands of
    /// schemas parsed in memory.
    pub(super) fn peek<R>(&self, read: impl FnOnce(&Value) -> R) -> R {
        match self.value.get() {
            Some(value) => read(value),
            None => read(&super::schema_text::read(&self.text).unwrap_or_default()),
        }
    }

    /// Why `args` does not fit the schema, for a tool whose arguments the registry checks; the
    /// check is compiled on the first call.
    #[cfg(feature = "schema-validation")]
    pub(super) fn refuse(&self, tool: &str, args: &Value) -> Option<crate::error::AgentError> {
        let check = self
            .check
            .get_or_init(|| crate::decode::ArgumentCheck::new(self.value()).map(Box::new));
        check.as_ref()?.refuse(tool, self.value(), args)
    }

    /// The dialect cache, created on the first call.
    pub(super) fn dialects(&self) -> &Arc<DialectSchemas> {
        self.dialects.get_or_init(Arc::default)
    }
}

/// Nesting the parser still reads (it stops at 128 levels), with room to spare.
const MAX_TEXT_DEPTH: usize = 100;

/// Whether `value`'s JSON text parses back to an equal value: no float (whose shortest text the
/// default parser may round differently in the last bit) and no nesting deeper than the parser
/// reads. Integers, strings, booleans and null always read back exactly.
fn reads_back_exactly(value: &Value, depth: usize) -> bool {
    match value {
        Value::Number(number) => !number.is_f64(),
        Value::Array(items) => {
            depth < MAX_TEXT_DEPTH && items.iter().all(|item| reads_back_exactly(item, depth + 1))
        }
        Value::Object(map) => {
            depth < MAX_TEXT_DEPTH && map.values().all(|item| reads_back_exactly(item, depth + 1))
        }
        Value::Null | Value::Bool(_) | Value::String(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn text_reads_back_as_the_same_schema() {
        let schema = json!({"type": "object", "properties": {"z": {"type": "integer", "minimum": -3}, "a": {}}});
        let stored = StoredSchema::compact(schema.clone());
        assert!(!stored.text.is_empty(), "kept as text");
        assert!(
            stored.value.get().is_none(),
            "not parsed before the first read"
        );
        assert_eq!(**stored.value(), schema);
        let keys: Vec<&String> = stored.value()["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(keys, ["z", "a"], "declaration order kept");
    }

    #[test]
    fn a_schema_with_a_float_is_kept_as_a_value() {
        let schema =
            json!({"type": "object", "properties": {"x": {"type": "number", "maximum": 0.1}}});
        let stored = StoredSchema::compact(schema.clone());
        assert!(
            stored.text.is_empty(),
            "a float's text might read back one bit off"
        );
        assert_eq!(**stored.value(), schema);
    }

    #[test]
    fn a_schema_too_deep_to_parse_back_is_kept_as_a_value() {
        let mut schema = json!({"type": "string"});
        for _ in 0..200 {
            schema = json!({"type": "array", "items": schema});
        }
        let stored = StoredSchema::compact(schema.clone());
        assert!(stored.text.is_empty());
        assert_eq!(**stored.value(), schema);
    }
}
