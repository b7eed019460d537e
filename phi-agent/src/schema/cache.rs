//! Dialect schemas computed at most once per tool and dialect, shared by every clone of a
//! [`ToolSpec`](crate::llm::ToolSpec) and its [`RegisteredTool`](crate::registry::RegisteredTool).

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::canonical::canonicalize;
use super::dialect::{Dialect, derive, derive_text};
use super::error::DialectError;

/// One derived form of a schema, filled on first use. Every part is boxed: a registry makes one
/// cache per tool offered to a model, on its first turn, and fills one or two of its slots, so
/// empty slots should cost a pointer, not a `Value` (which is ~80 bytes with `preserve_order`).
type Derived<T> = OnceLock<Result<Option<Box<T>>, Box<DialectError>>>;

/// Lazily filled dialect schemas of one tool. Hold it in an `Arc` next to the canonical schema
/// it was made for; the registry's `ToolSpec::dialect_schema` reads it.
#[derive(Default)]
pub struct DialectSchemas {
    /// `Ok(None)`: the dialect takes the canonical schema as it is, so no copy is kept.
    dialects: [Derived<Value>; Dialect::ALL.len()],
    /// The same as compact JSON text, for requests; `Ok(None)` as above.
    texts: [Derived<RawValue>; Dialect::ALL.len()],
    /// Read only where tools are served over MCP (the one protocol that takes output schemas).
    #[cfg_attr(not(feature = "mcp-server"), allow(dead_code))]
    output: OnceLock<Option<Box<Value>>>,
    warned: [OnceLock<()>; Dialect::ALL.len()],
}

impl DialectSchemas {
    /// `canonical` in `dialect`, computed on the first call and remembered. Every call must pass
    /// the same canonical schema (the one this cache sits beside).
    pub fn get<'a>(
        &'a self,
        canonical: &'a Value,
        dialect: Dialect,
    ) -> Result<&'a Value, &'a DialectError> {
        self.dialects[dialect.index()]
            .get_or_init(|| {
                derive(canonical, dialect)
                    .map(|schema| match schema {
                        Cow::Borrowed(_) => None,
                        Cow::Owned(changed) => Some(Box::new(changed)),
                    })
                    .map_err(Box::new)
            })
            .as_ref()
            .map(|changed| changed.as_deref().unwrap_or(canonical))
            .map_err(|error| &**error)
    }

    /// `canonical` in `dialect` as it goes into a request: the compact JSON text, computed on
    /// the first call and remembered, or `canonical` itself when the dialect takes it as it is.
    /// Requests only ever serialize a dialect schema, so this is kept apart from [`Self::get`]:
    /// a tool offered to a model holds its schema's text, not a second `Value`.
    pub(crate) fn wire<'a>(
        &'a self,
        canonical: &'a Value,
        dialect: Dialect,
    ) -> Result<WireSchema<'a>, &'a DialectError> {
        self.texts[dialect.index()]
            .get_or_init(|| derive_text(canonical, dialect).map_err(Box::new))
            .as_ref()
            .map(|text| match text {
                Some(text) => WireSchema::Text(text),
                None => WireSchema::Value(canonical),
            })
            .map_err(|error| &**error)
    }

    /// The tool's output schema in canonical form, when it has one with an object root (the
    /// only kind MCP accepts); `read` is called at most once.
    #[cfg_attr(not(feature = "mcp-server"), allow(dead_code))]
    pub fn output_schema(&self, read: impl FnOnce() -> Option<Value>) -> Option<&Value> {
        self.output
            .get_or_init(|| {
                let schema = canonicalize(read()?);
                (schema.get("type") == Some(&Value::from("object"))).then(|| Box::new(schema))
            })
            .as_deref()
    }
}

/// A dialect schema ready to serialize into a request.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WireSchema<'a> {
    /// A schema held as a `Value` (the canonical one).
    Value(&'a Value),
    /// A schema held as compact JSON text.
    Text(&'a RawValue),
}

impl Serialize for WireSchema<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            WireSchema::Value(schema) => schema.serialize(serializer),
            WireSchema::Text(text) => text.serialize(serializer),
        }
    }
}

impl DialectSchemas {
    /// Runs `warn` the first time for `dialect` only: a fallback is worth one log line per tool
    /// and dialect, not one per request.
    pub(crate) fn warn_once(&self, dialect: Dialect, warn: impl FnOnce()) {
        self.warned[dialect.index()].get_or_init(warn);
    }
}

impl fmt::Debug for DialectSchemas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let computed: Vec<Dialect> = Dialect::ALL
            .into_iter()
            .filter(|d| self.dialects[d.index()].get().is_some())
            .collect();
        f.debug_struct("DialectSchemas")
            .field("computed", &computed)
            .finish_non_exhaustive()
    }
}

/// Derived data: two caches are equal whatever they have computed so far.
impl PartialEq for DialectSchemas {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_empty_cache_is_small() {
        // One is allocated per tool on its first turn (a thousand tools: a thousand caches,
        // written in pages the process had not touched); it was 720 bytes with unboxed slots.
        assert!(
            size_of::<DialectSchemas>() <= 320,
            "{}",
            size_of::<DialectSchemas>()
        );
    }

    #[test]
    fn dialects_that_take_the_schema_as_it_is_keep_no_copy() {
        let canonical = json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": false
        });
        let cache = DialectSchemas::default();
        for dialect in [
            Dialect::OpenAiStrict,
            Dialect::OpenAi,
            Dialect::Anthropic,
            Dialect::Mcp,
        ] {
            let schema = cache.get(&canonical, dialect).unwrap();
            assert!(std::ptr::eq(schema, &canonical), "{dialect} copied");
        }
        // Strict mode must close this object: its own copy, computed once.
        let open = json!({"type": "object", "properties": {"city": {"type": "string"}}});
        let cache = DialectSchemas::default();
        let strict = cache.get(&open, Dialect::OpenAiStrict).unwrap();
        assert_eq!(strict["additionalProperties"], json!(false));
        let again = cache.get(&open, Dialect::OpenAiStrict).unwrap();
        assert!(std::ptr::eq(strict, again) && !std::ptr::eq(strict, &open));
    }
}
