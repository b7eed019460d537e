//! The output-schema probe: whether a tool's output type has a JSON Schema worth publishing
//! (MCP `outputSchema`).
//!
//! A trait bound cannot ask "does `T` implement `JsonSchema`?", so generated code calls
//! `(&OutputSchemaProbe::<T>::new()).output_schema()` with both traits in scope. Method
//! resolution on the concrete type picks the impl: [`OutputSchemaFromType`] is implemented on
//! `&OutputSchemaProbe<T>` for `T: JsonSchema` and matches the call as written;
//! [`OutputSchemaNone`] is implemented on the probe itself for every `T` and is reached by
//! auto-deref only when the first does not apply.

use std::marker::PhantomData;

use serde_json::Value;

/// Probes, by method resolution on a concrete type, whether a tool's output type has a JSON
/// Schema worth publishing as its output schema.
pub struct OutputSchemaProbe<T>(PhantomData<fn() -> T>);

impl<T> OutputSchemaProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T> Default for OutputSchemaProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for OutputSchemaProbe<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for OutputSchemaProbe<T> {}

/// Chosen when the output type implements `JsonSchema`.
pub trait OutputSchemaFromType {
    /// The output's canonical schema, unless it is text or content or not an object.
    fn output_schema(self) -> Option<Value>;
}

impl<T: schemars::JsonSchema + 'static> OutputSchemaFromType for &OutputSchemaProbe<T> {
    fn output_schema(self) -> Option<Value> {
        // Text and content are sent as they are, so a schema of them would promise a structure
        // the result does not have.
        if crate::output::is_unstructured::<T>() {
            return None;
        }
        let schema = crate::schema::cached::<T>();
        // MCP's outputSchema must describe an object.
        (schema.get("type").and_then(Value::as_str) == Some("object"))
            .then(|| schema.as_ref().clone())
    }
}

/// Chosen when the output type has no `JsonSchema`.
pub trait OutputSchemaNone {
    /// No output schema.
    fn output_schema(self) -> Option<Value>;
}

impl<T> OutputSchemaNone for OutputSchemaProbe<T> {
    fn output_schema(self) -> Option<Value> {
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
        let report = (&OutputSchemaProbe::<Report>::new()).output_schema();
        assert_eq!(report.expect("an object schema")["type"], "object");
        assert_eq!((&OutputSchemaProbe::<String>::new()).output_schema(), None);
        assert_eq!(
            (&OutputSchemaProbe::<Vec<Content>>::new()).output_schema(),
            None
        );
        assert_eq!((&OutputSchemaProbe::<Value>::new()).output_schema(), None);
        assert_eq!((&OutputSchemaProbe::<u32>::new()).output_schema(), None);
        struct NoSchema;
        assert_eq!(
            (&OutputSchemaProbe::<NoSchema>::new()).output_schema(),
            None
        );
    }
}
