//! Why a provider dialect cannot express a schema.

use std::fmt;

use super::dialect::Dialect;
use crate::error::ROOT_PATH;

/// One part of a schema that a dialect cannot express faithfully.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaProblem {
    /// JSON path of the field, e.g. `filters.extra`; [`ROOT_PATH`](crate::ROOT_PATH) for the
    /// arguments object itself.
    pub path: String,
    /// Why it cannot be expressed, e.g. "maps cannot be expressed in OpenAI strict mode".
    pub reason: String,
}

impl SchemaProblem {
    /// The problem of a dialect schema that serde_json could not write (it writes every `Value`;
    /// this is for completeness, not a case anyone has seen).
    pub(crate) fn unwritable(error: &serde_json::Error) -> Self {
        SchemaProblem {
            path: ROOT_PATH.into(),
            reason: format!("the schema could not be written as JSON: {error}"),
        }
    }
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.path, self.reason)
    }
}

/// A schema that a dialect cannot express without allowing or forbidding something the tool's
/// decoding does not. Lists every problem found, in document order.
///
/// ```
/// # use phi_agent::schema::{Dialect, to_dialect};
/// # use serde_json::json;
/// let schema = json!({
///     "type": "object",
///     "properties": {"filters": {"type": "object", "properties": {
///         "extra": {"type": "object", "additionalProperties": {"type": "string"}}
///     }, "required": ["extra"]}},
///     "required": ["filters"]
/// });
/// let err = to_dialect(&schema, Dialect::OpenAiStrict).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "`filters.extra`: maps cannot be expressed in OpenAI strict mode"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct DialectError {
    /// The dialect that cannot express the schema.
    pub dialect: Dialect,
    /// What cannot be expressed, and where. Never empty.
    pub problems: Vec<SchemaProblem>,
}

impl fmt::Display for DialectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, problem) in self.problems.iter().enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}
