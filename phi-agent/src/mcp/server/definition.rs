//! The MCP tool object of a registered tool, as `tools/list` serves it
//! (`docs/src/providers.md#mcp-tool-object`, `#mcp-annotations`, `#mcp-output-schema`).

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool as McpToolDef};
use serde_json::{Map, Value};

use crate::registry::RegisteredTool;
use crate::schema::Dialect;
use crate::tool::{TaskSupport, ToolAnnotations};

/// The MCP tool object (protocol 2025-11-25): `name`, `description`, `inputSchema`,
/// `outputSchema` when [`ToolOptions::output_schema`](crate::ToolOptions::output_schema) gives one with an
/// object root, and `annotations` from [`ToolOptions::annotations`](crate::ToolOptions::annotations)
/// (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`; hints left at `None`
/// are omitted so the protocol defaults apply).
///
/// The input schema is the MCP dialect of the canonical schema, except that a schema which
/// declares its dialect (`$schema`) or definitions (`$defs`, or draft 7's `definitions`) at its
/// root is served as the tool declares it, its `$defs` and `$ref`s kept: JSON Schema 2020-12 is
/// MCP's default dialect since 2025-11-25, so a schema without `$schema` is 2020-12 too, and
/// clients resolve its `$ref`s. (Inlining is for the providers' dialects, which take no
/// `$ref`.) In both schemas, a `format`
/// that JSON Schema does not define (`uint32`, `int64`, `double`, which schemars writes for Rust
/// numbers) is left out, since validators warn on every unknown one; the bounds that back it
/// stay, so the same values validate.
///
/// A tool that may run as a task ([`ToolOptions::task_support`](crate::ToolOptions::task_support)) says so in
/// `_meta`, as `{"execution": {"taskSupport": "optional"}}` (or `"required"`): the shape of the
/// 2025-11-25 tool's `execution` field, which rmcp's tool type (and the 2026-07-28 one, where the
/// server decides per call) has no room for. A tool with a view
/// ([`ToolOptions::ui_resource`](crate::ToolOptions::ui_resource)) names it in `_meta.ui.resourceUri`
/// (MCP Apps).
pub fn definition(tool: &RegisteredTool) -> Value {
    let spec = tool.spec();
    let mut object = Map::new();
    object.insert("name".into(), spec.name.into());
    object.insert("description".into(), spec.description.into());
    let declared = tool.tool().schema();
    let mut input = if served_as_declared(&declared) {
        declared
    } else {
        spec.dialect_schema_or_canonical(Dialect::Mcp).clone()
    };
    drop_unknown_formats(&mut input, 0);
    super::headers::plain_header_types(&mut input);
    object.insert("inputSchema".into(), input);
    if let Some(output) = spec
        .dialects
        .output_schema(|| tool.output_schema().map(|s| (**s).clone()))
    {
        let mut output = output.clone();
        drop_unknown_formats(&mut output, 0);
        object.insert("outputSchema".into(), output);
    }
    if let Some(annotations) = annotations(&tool.annotations()) {
        object.insert("annotations".into(), annotations);
    }
    let mut meta = Map::new();
    let support = tool.task_support();
    if support != TaskSupport::Forbidden {
        meta.insert(
            "execution".into(),
            serde_json::json!({"taskSupport": support.as_str()}),
        );
    }
    if let Some(uri) = tool.ui_resource() {
        // MCP Apps (SEP-1865): the view's resource, and the flat key of the extension's
        // earlier drafts, which hosts of that time still read.
        meta.insert("ui".into(), serde_json::json!({"resourceUri": uri}));
        meta.insert("ui/resourceUri".into(), uri.into());
    }
    if !meta.is_empty() {
        object.insert("_meta".into(), Value::Object(meta));
    }
    Value::Object(object)
}

/// Whether a tool's own schema is what `tools/list` serves: an object schema that names its
/// dialect or has definitions, which the canonical form would strip or inline.
fn served_as_declared(declared: &Value) -> bool {
    let names_dialect_or_definitions = ["$schema", "$defs", "definitions"]
        .iter()
        .any(|keyword| declared.get(keyword).is_some());
    names_dialect_or_definitions && declared.get("type") == Some(&Value::from("object"))
}

/// The formats JSON Schema 2020-12 defines (its format vocabulary, section 7.3).
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Removes every `format` whose value is not a standard format, at any depth (a property named
/// `format` is kept: only a string value of a schema's `format` keyword goes).
pub(crate) fn drop_unknown_formats(schema: &mut Value, depth: usize) {
    if depth > 128 {
        return;
    }
    match schema {
        Value::Object(map) => {
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|format| !STANDARD_FORMATS.contains(&format))
            {
                map.remove("format");
            }
            for (key, value) in map.iter_mut() {
                if key == "properties"
                    || key == "$defs"
                    || key == "definitions"
                    || key == "patternProperties"
                {
                    // A map of names to schemas: each value is a schema.
                    if let Value::Object(schemas) = value {
                        for schema in schemas.values_mut() {
                            drop_unknown_formats(schema, depth + 1);
                        }
                    }
                } else if key != "const" && key != "enum" && key != "default" && key != "examples" {
                    drop_unknown_formats(value, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                drop_unknown_formats(item, depth + 1);
            }
        }
        _ => {}
    }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::drop_unknown_formats;

    #[test]
    fn only_unknown_formats_go_and_a_property_named_format_stays() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "format": {"type": "string", "format": "date-time"},
                "count": {"type": "integer", "format": "uint32", "minimum": 0, "maximum": 4294967295u64},
                "items": {"type": "array", "items": {"type": "number", "format": "double"}},
                "tag": {"const": {"format": "uint8"}}
            },
            "$defs": {"Id": {"type": "integer", "format": "int64"}}
        });
        drop_unknown_formats(&mut schema, 0);
        assert_eq!(schema["properties"]["format"]["format"], "date-time");
        assert!(schema["properties"]["count"].get("format").is_none());
        assert_eq!(schema["properties"]["count"]["maximum"], 4294967295u64);
        assert!(
            schema["properties"]["items"]["items"]
                .get("format")
                .is_none()
        );
        assert_eq!(
            schema["properties"]["tag"]["const"]["format"], "uint8",
            "values are not schemas"
        );
        assert!(schema["$defs"]["Id"].get("format").is_none());
    }
}
