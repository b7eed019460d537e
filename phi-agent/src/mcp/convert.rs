//! Translation between phi-agent's tool types and MCP's wire types (rmcp's model).

use std::sync::Arc;

use rmcp::model::{
    CallToolResult, ContentBlock, JsonObject, ProtocolVersion, Tool as McpToolDef,
    ToolAnnotations as McpAnnotations,
};
use serde_json::Value;

use crate::content::Content;
use crate::registry::{RegisteredTool, ToolCallResult};
use crate::schema::definition;
use crate::tool::ToolAnnotations;

/// Our annotations from MCP's.
pub(crate) fn annotations_from_mcp(hints: Option<&McpAnnotations>) -> ToolAnnotations {
    hints.map_or_else(ToolAnnotations::default, |hints| ToolAnnotations {
        read_only: hints.read_only_hint,
        destructive: hints.destructive_hint,
        idempotent: hints.idempotent_hint,
        open_world: hints.open_world_hint,
    })
}

/// The MCP tool definition of a registered tool: the MCP dialect of its schema, its output schema
/// and annotations, as [`definition::mcp`] builds them. Computed once per tool, when a server is
/// made.
pub(crate) fn tool_definition(tool: &RegisteredTool) -> McpToolDef {
    let definition = definition::mcp(tool);
    serde_json::from_value(definition).unwrap_or_else(|error| {
        // Unreachable for definitions built by `definition::mcp`; still no reason to panic.
        tracing::warn!(tool = tool.name(), %error, "MCP definition did not fit rmcp's tool type; serving the bare tool");
        McpToolDef::new(tool.name(), tool.description(), Arc::new(JsonObject::new()))
    })
}

/// A registry result as an MCP `tools/call` result.
///
/// JSON content goes out twice: as text (for clients and models that read only text) and, when
/// the result holds exactly one JSON value, as `structuredContent`. Protocol versions before
/// 2026-07-28 allow only an object there, so other JSON values are sent as text alone to them.
pub(crate) fn call_result(
    result: ToolCallResult,
    protocol: Option<&ProtocolVersion>,
) -> CallToolResult {
    let any_structured =
        protocol.is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    let mut json_values = result.content.iter().filter_map(|content| match content {
        Content::Json { value } => Some(value),
        _ => None,
    });
    let structured = match (json_values.next(), json_values.next()) {
        (Some(value), None) if value.is_object() || any_structured => Some(value.clone()),
        _ => None,
    };
    let blocks = result.content.into_iter().map(content_block).collect();
    let mut call_result = if result.is_error {
        CallToolResult::error(blocks)
    } else {
        CallToolResult::success(blocks)
    };
    call_result.structured_content = structured;
    call_result
}

fn content_block(content: Content) -> ContentBlock {
    match content {
        Content::Text { text } => ContentBlock::text(text),
        Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        Content::Json { value } => ContentBlock::text(value.to_string()),
    }
}

/// What an MCP server returned, as our content. `structuredContent` becomes [`Content::Json`], and
/// the text block that only repeats it is dropped so the model does not read it twice.
pub(crate) fn contents_from_mcp(result: CallToolResult) -> Vec<Content> {
    let structured = result.structured_content;
    let mut contents: Vec<Content> = result
        .content
        .into_iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => {
                let repeats_structured = structured.as_ref().is_some_and(|value| {
                    serde_json::from_str::<Value>(&text.text).is_ok_and(|parsed| &parsed == value)
                });
                (!repeats_structured).then(|| Content::text(text.text))
            }
            ContentBlock::Image(image) => Some(Content::image(image.data, image.mime_type)),
            ContentBlock::Audio(audio) => Some(Content::text(format!(
                "[audio: {}, {} bytes base64; not shown]",
                audio.mime_type,
                audio.data.len()
            ))),
            ContentBlock::Resource(resource) => Some(Content::text(
                serde_json::to_string(&resource.resource).unwrap_or_default(),
            )),
            ContentBlock::ResourceLink(link) => Some(Content::text(format!(
                "[resource: {} <{}>]",
                link.name, link.uri
            ))),
            other => Some(Content::text(
                serde_json::to_string(&other).unwrap_or_default(),
            )),
        })
        .collect();
    if let Some(value) = structured {
        contents.push(Content::json(value));
    }
    contents
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(content: Vec<Content>, is_error: bool) -> ToolCallResult {
        ToolCallResult { content, is_error }
    }

    #[test]
    fn json_objects_become_structured_content_and_text() {
        let value = json!({"temperature": 21});
        let out = call_result(result(vec![Content::json(value.clone())], false), None);
        assert_eq!(out.structured_content, Some(value.clone()));
        assert_eq!(out.is_error, Some(false));
        let text = &out.content[0].as_text().unwrap().text;
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), value);
    }

    #[test]
    fn non_object_json_is_structured_only_from_2026_07_28() {
        let legacy = call_result(result(vec![Content::json(json!(42.0))], false), None);
        assert_eq!(legacy.structured_content, None);
        assert_eq!(legacy.content[0].as_text().unwrap().text, "42.0");
        let modern = call_result(
            result(vec![Content::json(json!(42.0))], false),
            Some(&ProtocolVersion::V_2026_07_28),
        );
        assert_eq!(modern.structured_content, Some(json!(42.0)));
    }

    #[test]
    fn errors_stay_results() {
        let out = call_result(result(vec![Content::text("bad")], true), None);
        assert_eq!(out.is_error, Some(true));
        assert_eq!(out.content[0].as_text().unwrap().text, "bad");
    }

    #[test]
    fn imported_results_do_not_repeat_structured_content() {
        let value = json!({"a": 1});
        let mut remote = CallToolResult::success(vec![
            ContentBlock::text(value.to_string()),
            ContentBlock::text("note"),
        ]);
        remote.structured_content = Some(value.clone());
        assert_eq!(
            contents_from_mcp(remote),
            vec![Content::text("note"), Content::json(value)]
        );
    }

    #[test]
    fn annotations_round_trip() {
        let hints = ToolAnnotations {
            read_only: Some(true),
            destructive: None,
            idempotent: Some(true),
            open_world: Some(false),
        };
        let wire = definition::mcp_annotations(&hints).unwrap();
        let mcp: McpAnnotations = serde_json::from_value(wire).unwrap();
        assert_eq!(annotations_from_mcp(Some(&mcp)), hints);
        assert!(definition::mcp_annotations(&ToolAnnotations::default()).is_none());
    }
}
