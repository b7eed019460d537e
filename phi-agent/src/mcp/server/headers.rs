//! SEP-2243's `x-mcp-header` on the server side: the annotated properties as clients require
//! them, and the tool definitions rmcp reads to check a call's `Mcp-Param-*` headers against its
//! body.
//!
//! rmcp's streamable HTTP server makes that check itself (protocol 2026-07-28 on; a missing or
//! mismatched header is answered `400` with JSON-RPC error `-32020`) with the schema
//! [`ServerHandler::get_tool`](rmcp::ServerHandler::get_tool) gives; the handler gives one only
//! for a tool that has annotations, so a call of any other tool costs a name look-up and
//! nothing more. The direct path (`http/direct.rs`) answers only requests before 2026-07-28,
//! on which rmcp checks no header either.

use rmcp::model::JsonObject;
use serde_json::Value;

/// The key a property carries to be mirrored into `Mcp-Param-{value}`.
const HEADER_KEY: &str = "x-mcp-header";

/// Whether any property reached from the root through `properties` alone (where MCP clients
/// look) carries `x-mcp-header`.
pub(super) fn has_header_annotations(schema: &JsonObject) -> bool {
    fn any(properties: Option<&Value>, depth: usize) -> bool {
        let Some(Value::Object(properties)) = properties else {
            return false;
        };
        depth < 64
            && properties.values().any(|property| {
                property.get(HEADER_KEY).is_some() || any(property.get("properties"), depth + 1)
            })
    }
    any(schema.get("properties"), 0)
}

/// Serves each annotated property of an `Option<T>` parameter with `T`'s plain type: schemars
/// writes `"type": ["string", "null"]`, which clients refuse under `x-mcp-header` (they drop
/// the whole tool), while the SEP already reads `null` or an absent argument as "no header".
/// The property stays optional, so no call that decoded before is refused now.
pub(super) fn plain_header_types(schema: &mut Value) {
    fn visit(properties: Option<&mut Value>, depth: usize) {
        let Some(Value::Object(properties)) = properties else {
            return;
        };
        if depth >= 64 {
            return;
        }
        for property in properties.values_mut() {
            let Value::Object(map) = property else {
                continue;
            };
            if map.contains_key(HEADER_KEY)
                && let Some(Value::Array(types)) = map.get("type")
            {
                let mut named = types.iter().filter_map(Value::as_str);
                let plain = match (named.next(), named.next(), named.next()) {
                    (Some("null"), Some(other), None) | (Some(other), Some("null"), None) => {
                        Some(other.to_owned())
                    }
                    _ => None,
                };
                if let Some(plain) = plain.filter(|_| types.len() == 2) {
                    map.insert("type".into(), Value::String(plain));
                }
            }
            visit(map.get_mut("properties"), depth + 1);
        }
    }
    if let Value::Object(root) = schema {
        visit(root.get_mut("properties"), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_header_properties_get_their_plain_type() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": ["string", "null"], "x-mcp-header": "Region"},
                "note": {"type": ["string", "null"]},
                "tenant": {"type": "integer", "x-mcp-header": "Tenant"}
            }
        });
        plain_header_types(&mut schema);
        assert_eq!(schema["properties"]["region"]["type"], "string");
        assert_eq!(
            schema["properties"]["note"]["type"],
            json!(["string", "null"])
        );
        assert_eq!(schema["properties"]["tenant"]["type"], "integer");
        let object = schema.as_object().unwrap();
        assert!(has_header_annotations(object));
        let plain = json!({"type": "object", "properties": {"note": {"type": "string"}}});
        assert!(!has_header_annotations(plain.as_object().unwrap()));
    }
}
