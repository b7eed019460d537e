//! Keywords meant for MCP peers alone: `x-mcp-*` (SEP-2243's `x-mcp-header`, which tells an MCP
//! client to mirror an argument into an `Mcp-Param-*` header). No provider reads them, OpenAI
//! strict mode refuses unknown keywords, and a model has no use for them, so every provider
//! dialect is derived from the schema without them; the MCP dialect keeps them.

use serde_json::{Map, Value};

use crate::schema::walk::{any_schema, for_each_schema_mut};

/// The prefix of MCP's own keywords.
const PREFIX: &str = "x-mcp-";

fn is_mcp_only(keyword: &str) -> bool {
    keyword.starts_with(PREFIX)
}

fn has_own(schema: &Map<String, Value>) -> bool {
    schema.keys().any(|keyword| is_mcp_only(keyword))
}

/// Whether any schema inside `schema` (itself included) has an `x-mcp-*` keyword. Data
/// (`default`, `enum`, ..) and property names are not keywords, and are not read.
pub(super) fn has_mcp_keywords(schema: &Value) -> bool {
    any_schema(schema, &mut |map| has_own(map))
}

/// `schema` without its `x-mcp-*` keywords, wherever they are.
pub(super) fn without_mcp_keywords(schema: &Value) -> Value {
    let mut schema = schema.clone();
    for_each_schema_mut(&mut schema, &mut |map| {
        map.retain(|keyword, _| !is_mcp_only(keyword));
    });
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strips_keywords_not_data_or_property_names() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "x-mcp-header": {"type": "string", "default": {"x-mcp-header": "kept"}},
                "nested": {"type": "object", "properties": {
                    "tenant": {"type": "integer", "x-mcp-header": "Tenant"}
                }}
            }
        });
        assert!(has_mcp_keywords(&schema));
        let stripped = without_mcp_keywords(&schema);
        assert!(!has_mcp_keywords(&stripped));
        assert_eq!(stripped["properties"]["region"], json!({"type": "string"}));
        assert_eq!(
            stripped["properties"]["nested"]["properties"]["tenant"],
            json!({"type": "integer"})
        );
        // A property named like the keyword, and data that holds it, are not keywords.
        assert_eq!(
            stripped["properties"]["x-mcp-header"]["default"],
            json!({"x-mcp-header": "kept"})
        );
        let plain = json!({"type": "object", "properties": {"x-mcp-header": {"type": "string"}}});
        assert!(!has_mcp_keywords(&plain));
    }
}
