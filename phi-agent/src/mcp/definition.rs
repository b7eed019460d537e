//! The MCP tool object of a registered tool, as `tools/list` serves it
//! (`docs/providers.md#mcp-tool-object`, `#mcp-annotations`, `#mcp-output-schema`).

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool as McpToolDef};
use serde_json::{Map, Value};

use crate::registry::RegisteredTool;
use crate::schema::Dialect;
use crate::tool::ToolAnnotations;

/// The MCP tool object (protocol 2025-11-25): `name`, `description`, `inputSchema`,
/// `outputSchema` when [`Tool::output_schema`](crate::Tool::output_schema) gives one with an
/// object root, and `annotations` from [`Tool::annotations`](crate::Tool::annotations)
/// (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`; hints left at `None`
/// are omitted so the protocol defaults apply).
pub fn definition(tool: &RegisteredTool) -> Value {
    let spec = tool.spec();
    let mut object = Map::new();
    object.insert("name".into(), spec.name.into());
    object.insert("description".into(), spec.description.into());
    object.insert(
        "inputSchema".into(),
        spec.dialect_schema_or_canonical(Dialect::Mcp).clone(),
    );
    if let Some(output) = spec.dialects.output_schema(|| tool.tool().output_schema()) {
        object.insert("outputSchema".into(), output.clone());
    }
    if let Some(annotations) = annotations(&tool.tool().annotations()) {
        object.insert("annotations".into(), annotations);
    }
    Value::Object(object)
}

/// MCP `annotations`, or `None` when the tool sets no hint.
pub(crate) fn annotations(annotations: &ToolAnnotations) -> Option<Value> {
    let hints = [
        ("readOnlyHint", annotations.read_only),
        ("destructiveHint", annotations.destructive),
        ("idempotentHint", annotations.idempotent),
        ("openWorldHint", annotations.open_world),
    ];
    let object: Map<String, Value> = hints
        .into_iter()
        .filter_map(|(key, hint)| Some((key.to_string(), Value::Bool(hint?))))
        .collect();
    (!object.is_empty()).then_some(Value::Object(object))
}

/// The MCP tool definition of a registered tool: the MCP dialect of its schema, its output schema
/// and annotations, as [`definition`] builds them. Computed once per tool, when a server is
/// made.
pub(crate) fn tool_definition(tool: &RegisteredTool) -> McpToolDef {
    let definition = definition(tool);
    serde_json::from_value(definition).unwrap_or_else(|error| {
        // Unreachable for definitions built by `definition`; still no reason to panic.
        tracing::warn!(tool = tool.name(), %error, "MCP definition did not fit rmcp's tool type; serving the bare tool");
        McpToolDef::new(tool.name(), tool.description(), Arc::new(JsonObject::new()))
    })
}
