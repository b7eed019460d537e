//! Provider dialects, derived from the canonical schema.
//!
//! Each dialect either expresses the canonical schema faithfully or reports why it cannot
//! ([`DialectError`]); none rewrites a schema into one that accepts a value the tool's decoder
//! rejects, or rejects a value the argument type can produce, with one documented exception.
//! Two narrowings are allowed because they lose no meaning: OpenAI strict mode forbids unknown
//! fields (the decoder would ignore them) and requires every field (an `Option` field becomes a
//! union with `null`; a field with a serde default must be sent, and the default is a value the
//! model can send). The exception is a loss: Gemini cannot say that an object is closed
//! (`additionalProperties: false`), so its schema lets through an unknown field that the decoder
//! refuses; dispatch answers such a call with the field the model probably meant, which costs a
//! turn and nothing else (`docs/providers.md#gemini-no-additional-properties`).

mod anthropic;
mod gemini;
mod openai;
mod rebuilt;

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;
use serde_json::value::RawValue;

use super::error::{DialectError, SchemaProblem};

/// A provider's variant of JSON Schema. The rules behind each, and the provider documentation
/// they come from, are in `docs/providers.md` (one section per dialect, e.g.
/// `docs/providers.md#openai-strict`, `#gemini`; `#shared-object-root` for the root rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// OpenAI function calling with `strict: true`: every object closed, every field required,
    /// `anyOf` the only union, a small keyword and format allowlist.
    OpenAiStrict,
    /// OpenAI function calling without `strict`: the canonical schema under an object root.
    OpenAi,
    /// Anthropic `input_schema`: the canonical schema; no `anyOf` / `oneOf` / `allOf` at the root.
    Anthropic,
    /// Gemini `parameters` (an OpenAPI 3 subset): no `$ref`, `nullable` instead of `null`
    /// unions, string-only enums, no `additionalProperties`.
    Gemini,
    /// MCP `inputSchema` (2025-11-25): the canonical schema under an object root.
    Mcp,
}

impl Dialect {
    /// Every dialect, in the order of the conformance table.
    pub const ALL: [Dialect; 5] = [
        Dialect::OpenAiStrict,
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
    ];

    /// A short human name, as used in error messages ("OpenAI strict mode").
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAiStrict => "OpenAI strict mode",
            Dialect::OpenAi => "OpenAI (non-strict)",
            Dialect::Anthropic => "Anthropic",
            Dialect::Gemini => "Gemini",
            Dialect::Mcp => "MCP",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The canonical schema `canonical` (see [`canonicalize`](super::canonicalize)) in `dialect`.
///
/// ```
/// use phi_agent::schema::{Dialect, canonical_schema_for, to_dialect};
/// use serde_json::json;
///
/// #[derive(schemars::JsonSchema)]
/// struct Args {
///     city: String,
///     days: Option<u8>,
/// }
/// let strict = to_dialect(&canonical_schema_for::<Args>(), Dialect::OpenAiStrict).unwrap();
/// assert_eq!(strict["required"], json!(["city", "days"]));
/// assert_eq!(strict["additionalProperties"], json!(false));
/// assert_eq!(strict["properties"]["days"]["type"], json!(["integer", "null"]));
///
/// let gemini = to_dialect(&canonical_schema_for::<Args>(), Dialect::Gemini).unwrap();
/// assert_eq!(gemini["properties"]["days"]["type"], "integer");
/// assert_eq!(gemini["properties"]["days"]["nullable"], true);
/// ```
pub fn to_dialect(canonical: &Value, dialect: Dialect) -> Result<Value, DialectError> {
    derive(canonical, dialect).map(Cow::into_owned)
}

/// [`to_dialect`] as compact JSON text, `None` when the dialect takes `canonical` as it is: what
/// a request carries. OpenAI strict mode writes its text without building a `Value`.
pub(crate) fn derive_text(
    canonical: &Value,
    dialect: Dialect,
) -> Result<Option<Box<RawValue>>, DialectError> {
    if dialect == Dialect::OpenAiStrict && root_problem(canonical, dialect).is_none() {
        return openai::strict_text(canonical)
            .map_err(|problems| DialectError { dialect, problems });
    }
    match derive(canonical, dialect)? {
        Cow::Borrowed(_) => Ok(None),
        Cow::Owned(schema) => serde_json::value::to_raw_value(&schema)
            .map(Some)
            .map_err(|error| DialectError {
                dialect,
                problems: vec![unwritable(&error)],
            }),
    }
}

/// The problem of a dialect schema that serde_json could not write (it writes every `Value`;
/// this is for completeness, not a case anyone has seen).
pub(super) fn unwritable(error: &serde_json::Error) -> SchemaProblem {
    SchemaProblem {
        path: "(root)".into(),
        reason: format!("the schema could not be written as JSON: {error}"),
    }
}

/// [`to_dialect`], borrowing `canonical` when the dialect takes it as it is: the caches keep
/// no second copy of a schema that needed no change.
pub(crate) fn derive(canonical: &Value, dialect: Dialect) -> Result<Cow<'_, Value>, DialectError> {
    let result = match root_problem(canonical, dialect) {
        Some(problem) => Err(vec![problem]),
        None => match dialect {
            Dialect::OpenAiStrict => openai::strict(canonical),
            Dialect::OpenAi | Dialect::Mcp => Ok(Cow::Borrowed(canonical)),
            Dialect::Anthropic => anthropic::input_schema(canonical),
            Dialect::Gemini => gemini::parameters(canonical).map(Cow::Owned),
        },
    };
    result.map_err(|problems| DialectError { dialect, problems })
}

/// Checks the rule every provider shares: the arguments are one JSON object, described by an
/// object schema without alternatives at its root. [`ToolRegistry`](crate::registry::ToolRegistry)
/// refuses a tool whose schema breaks it, so a registered tool never fails a whole request.
///
/// ```
/// use phi_agent::schema::check_root;
/// use serde_json::json;
/// assert!(check_root(&json!({"type": "object", "properties": {}})).is_ok());
/// let err = check_root(&json!({"type": "string"})).unwrap_err();
/// assert_eq!(err.path, "(root)");
/// ```
pub fn check_root(schema: &Value) -> Result<(), SchemaProblem> {
    match root_problem(schema, Dialect::Anthropic) {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

fn root_problem(schema: &Value, dialect: Dialect) -> Option<SchemaProblem> {
    let problem = |reason: String| SchemaProblem {
        path: "(root)".into(),
        reason,
    };
    let Some(root) = schema.as_object() else {
        return Some(problem(
            "the arguments schema must be a JSON object schema with `type: object`".into(),
        ));
    };
    if crate::schema::walk::keyword(root, "type").and_then(Value::as_str) != Some("object") {
        return Some(problem(format!(
            "the arguments must be a JSON object (`type: object` at the root), as {} requires; \
             put the value in a field of an arguments struct",
            dialect.name()
        )));
    }
    if dialect == Dialect::Mcp {
        return None;
    }
    ["anyOf", "oneOf", "allOf", "not", "enum", "const", "$ref"]
        .into_iter()
        .find(|keyword| crate::schema::walk::has_keyword(root, keyword))
        .map(|keyword| {
            problem(format!(
                "`{keyword}` at the root is rejected by {}; put the alternatives in a field \
                 of an arguments struct instead of flattening them",
                dialect.name()
            ))
        })
}
