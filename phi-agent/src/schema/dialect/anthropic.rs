//! Anthropic `input_schema`: JSON Schema 2020-12 under an object root.
//!
//! The root check (no `anyOf` / `oneOf` / `allOf` at the top level) is shared with the other
//! dialects; below the root Anthropic takes the canonical schema as it is. Rules:
//! `docs/src/providers.md#anthropic`.

use std::borrow::Cow;

use serde_json::Value;

use crate::schema::error::SchemaProblem;

pub(super) fn input_schema(canonical: &Value) -> Result<Cow<'_, Value>, Vec<SchemaProblem>> {
    Ok(Cow::Borrowed(canonical))
}
