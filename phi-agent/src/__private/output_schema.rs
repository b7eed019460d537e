//! Whether a tool's output type has a JSON Schema worth publishing (MCP `outputSchema`), picked
//! by [`Probe`]: generated code calls `(&Probe::<T>::new()).output_schema()` with both traits
//! below in scope.

use std::sync::Arc;

use serde_json::Value;

use super::probe::Probe;

/// Chosen when the output type implements `JsonSchema`.
pub trait OutputSchemaFromType {
    /// The output's canonical schema (shared by every tool with this output type), unless it
    /// is text or content or not an object.
    fn output_schema(self) -> Option<Arc<Value>>;
}

impl<T: schemars::JsonSchema + 'static> OutputSchemaFromType for &Probe<T> {
    fn output_schema(self) -> Option<Arc<Value>> {
        // Text and content are sent as they are, so a schema of them would promise a structure
        // the result does not have.
        if crate::output::is_unstructured::<T>() {
            return None;
        }
        let schema = crate::schema::cached::<T>();
        // MCP's outputSchema must describe an object.
        (schema.get("type").and_then(Value::as_str) == Some("object")).then_some(schema)
    }
}

/// Chosen when the output type has no `JsonSchema`.
pub trait OutputSchemaNone {
    /// No output schema.
    fn output_schema(self) -> Option<Arc<Value>>;
}

impl<T> OutputSchemaNone for Probe<T> {
    fn output_schema(self) -> Option<Arc<Value>> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Content;

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Report {
        lines: Vec<String>,
    }

    // The borrow picks the `JsonSchema` impl by autoref; clippy cannot see that.
    #[allow(clippy::needless_borrow)]
    #[test]
    fn only_object_outputs_with_a_schema_get_an_output_schema() {
        let report = (&Probe::<Report>::new()).output_schema();
        assert_eq!(report.expect("an object schema")["type"], "object");
        assert_eq!((&Probe::<String>::new()).output_schema(), None);
        assert_eq!((&Probe::<Vec<Content>>::new()).output_schema(), None);
        assert_eq!((&Probe::<Value>::new()).output_schema(), None);
        assert_eq!((&Probe::<u32>::new()).output_schema(), None);
        struct NoSchema;
        assert_eq!((&Probe::<NoSchema>::new()).output_schema(), None);
    }
}
