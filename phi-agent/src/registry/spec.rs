//! [`ToolSpec`]: a tool as the model is shown it. The registry makes one per registered tool; a
//! request carries the visible ones, and each adapter turns them into its provider's definitions.

use std::sync::Arc;

use serde_json::Value;

use crate::schema::{Dialect, DialectError, DialectSchemas};

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: &'static str,
    /// The tool's description.
    pub description: &'static str,
    /// The tool's argument schema, in canonical form.
    pub schema: Arc<Value>,
    /// The schema in each provider dialect, derived on first use and shared by every clone (and
    /// so by every turn's request). Crate-private: adapters read it through [`dialect_schema`]
    /// and the definitions in [`crate::llm::definition`].
    ///
    /// [`dialect_schema`]: ToolSpec::dialect_schema
    pub(crate) dialects: Arc<DialectSchemas>,
}

impl ToolSpec {
    /// A spec for a tool that is not in a registry; `schema` is brought into canonical form.
    pub fn new(name: &'static str, description: &'static str, schema: Value) -> Self {
        Self {
            name,
            description,
            schema: Arc::new(crate::schema::canonicalize(schema)),
            dialects: Arc::default(),
        }
    }

    /// The argument schema in `dialect`, computed at most once per tool and dialect; see
    /// [`crate::llm::definition`] for the provider tool objects built from it.
    pub fn dialect_schema(&self, dialect: Dialect) -> Result<&Value, &DialectError> {
        self.dialects.get(&self.schema, dialect)
    }

    /// The schema in `dialect`, or (for a spec that never went through a registry, whose
    /// schema may break a provider's root rule) the canonical schema as it is, with a warning
    /// once per tool and dialect: the provider will probably refuse it.
    pub(crate) fn dialect_schema_or_canonical(&self, dialect: Dialect) -> &Value {
        match self.dialect_schema(dialect) {
            Ok(schema) => schema,
            Err(error) => {
                self.dialects.warn_once(dialect, || {
                    tracing::warn!(
                        tool = self.name,
                        dialect = %dialect,
                        reason = %error,
                        "tool schema breaks the provider's root rule; sending it unchanged"
                    );
                });
                &self.schema
            }
        }
    }
}
