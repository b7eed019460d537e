//! A canonical schema in a dialect: the root rule every provider shares, checked first, then
//! the dialect's own rewrite (or none, where the dialect takes the canonical schema as it is).

use std::borrow::Cow;

use serde_json::Value;
use serde_json::value::RawValue;

use super::kind::Dialect;
use super::mcp_only::{has_mcp_keywords, without_mcp_keywords};
use super::root_constraints::{has_root_constraints, is_constraint, without_root_constraints};
use super::{anthropic, gemini, openai};
use crate::error::ROOT_PATH;
use crate::schema::error::{DialectError, SchemaProblem};
use crate::schema::walk::{has_keyword, keyword};

/// The canonical schema `canonical` (see [`canonicalize`](crate::schema::canonicalize)) in `dialect`.
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
        let stripped = for_providers(canonical);
        return openai::strict_text(stripped.as_ref().unwrap_or(canonical))
            .map_err(|problems| DialectError { dialect, problems });
    }
    match derive(canonical, dialect)? {
        Cow::Borrowed(_) => Ok(None),
        Cow::Owned(schema) => serde_json::value::to_raw_value(&schema)
            .map(Some)
            .map_err(|error| DialectError {
                dialect,
                problems: vec![SchemaProblem::unwritable(&error)],
            }),
    }
}

/// [`to_dialect`], borrowing `canonical` when the dialect takes it as it is: the caches keep
/// no second copy of a schema that needed no change.
///
/// A provider dialect is derived from the schema without its `x-mcp-*` keywords (see
/// [`mcp_only`](super::mcp_only)) and its root constraints (see
/// [`root_constraints`](super::root_constraints)); a schema that has neither is read as it is,
/// with no copy.
pub(crate) fn derive(canonical: &Value, dialect: Dialect) -> Result<Cow<'_, Value>, DialectError> {
    if dialect != Dialect::Mcp
        && let Some(stripped) = for_providers(canonical)
    {
        return derive_from(&stripped, dialect).map(|schema| Cow::Owned(schema.into_owned()));
    }
    derive_from(canonical, dialect)
}

/// `canonical` without what only MCP peers may see, or `None` when it has nothing of that.
fn for_providers(canonical: &Value) -> Option<Value> {
    let constrained = has_root_constraints(canonical);
    let marked = has_mcp_keywords(canonical);
    match (constrained, marked) {
        (false, false) => None,
        (true, false) => Some(without_root_constraints(canonical)),
        (false, true) => Some(without_mcp_keywords(canonical)),
        (true, true) => Some(without_mcp_keywords(&without_root_constraints(canonical))),
    }
}

/// [`derive`] from a schema that holds no keyword the dialect must strip.
fn derive_from(canonical: &Value, dialect: Dialect) -> Result<Cow<'_, Value>, DialectError> {
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
/// object schema without alternatives at its root (constraints on the root's own fields are not
/// alternatives: see `root_constraints`). [`ToolRegistry`](crate::registry::ToolRegistry)
/// refuses a tool whose schema breaks it, so a registered tool never fails a whole request.
///
/// ```
/// use phi_agent::schema::check_root;
/// use serde_json::json;
/// assert!(check_root(&json!({"type": "object", "properties": {}})).is_ok());
/// let err = check_root(&json!({"type": "string"})).unwrap_err();
/// assert_eq!(err.path, phi_agent::ROOT_PATH);
/// ```
pub fn check_root(schema: &Value) -> Result<(), SchemaProblem> {
    match root_problem(schema, Dialect::Anthropic) {
        Some(problem) => Err(problem),
        None => Ok(()),
    }
}

fn root_problem(schema: &Value, dialect: Dialect) -> Option<SchemaProblem> {
    let problem = |reason: String| SchemaProblem {
        path: ROOT_PATH.into(),
        reason,
    };
    let Some(root) = schema.as_object() else {
        return Some(problem(
            "the arguments schema must be a JSON object schema with `type: object`".into(),
        ));
    };
    if keyword(root, "type").and_then(Value::as_str) != Some("object") {
        return Some(problem(format!(
            "the arguments must be a JSON object (`type: object` at the root), as {} requires; \
             put the value in a field of an arguments struct",
            dialect.name()
        )));
    }
    if dialect == Dialect::Mcp {
        return None;
    }
    // Composition naming only the root's own fields narrows, and is left out of providers'
    // schemas (`root_constraints`); any other is alternatives the model would have to see.
    ["anyOf", "oneOf", "allOf", "not", "enum", "const", "$ref"]
        .into_iter()
        .find(|keyword| has_keyword(root, keyword) && !is_constraint(root, keyword))
        .map(|keyword| {
            problem(format!(
                "`{keyword}` at the root is rejected by {}; put the alternatives in a field \
                 of an arguments struct instead of flattening them",
                dialect.name()
            ))
        })
}
