//! Translation between phi-agent's tool types and MCP's wire types (rmcp's model).

//! Serving needs the first half (results out), importing the second (results and hints in).

#[cfg(feature = "mcp-server")]
use rmcp::model::ProtocolVersion;
#[cfg(feature = "mcp-client")]
use rmcp::model::ToolAnnotations as McpAnnotations;
#[cfg(feature = "mcp-server")]
use rmcp::model::{CallToolResult, ContentBlock};

#[cfg(feature = "mcp-server")]
use crate::content::Content;
use crate::content::ResourceBody;
#[cfg(feature = "mcp-server")]
use crate::registry::ToolCallResult;
#[cfg(feature = "mcp-client")]
use crate::tool::ToolAnnotations;

/// Our annotations from MCP's.
#[cfg(feature = "mcp-client")]
pub(crate) fn annotations_from_mcp(hints: Option<&McpAnnotations>) -> ToolAnnotations {
    hints.map_or_else(ToolAnnotations::default, |hints| ToolAnnotations {
        read_only: hints.read_only_hint,
        destructive: hints.destructive_hint,
        idempotent: hints.idempotent_hint,
        open_world: hints.open_world_hint,
    })
}

/// A registry result as an MCP `tools/call` result.
///
/// JSON content goes out twice: as text (for clients and models that read only text) and, when
/// the result holds exactly one JSON value, as `structuredContent`. Protocol versions before
/// 2026-07-28 allow only an object there, so other JSON values are sent as text alone to them.
#[cfg(feature = "mcp-server")]
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

#[cfg(feature = "mcp-server")]
pub(crate) fn content_block(content: Content) -> ContentBlock {
    match content {
        Content::Text { text } => ContentBlock::text(text),
        Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        Content::Audio { data, mime_type } => ContentBlock::audio(data, mime_type),
        Content::Json { value } => ContentBlock::text(value.to_string()),
        Content::Resource { resource } => ContentBlock::resource(resource_contents(resource)),
        Content::ResourceLink {
            uri,
            name,
            description,
            mime_type,
        } => {
            let mut link = rmcp::model::Resource::new(uri, name);
            link.description = description;
            link.mime_type = mime_type;
            ContentBlock::resource_link(link)
        }
    }
}

/// Our resource contents as MCP's.
#[cfg(feature = "mcp-server")]
pub(crate) fn resource_contents(
    resource: crate::content::ResourceContents,
) -> rmcp::model::ResourceContents {
    let (uri, mime_type) = (resource.uri, resource.mime_type);
    match resource.body {
        ResourceBody::Text(text) => rmcp::model::ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            meta: None,
        },
        ResourceBody::Blob(blob) => rmcp::model::ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            meta: None,
        },
    }
}

/// MCP's resource contents as ours.
#[cfg(feature = "mcp-client")]
pub(crate) fn resource_from_mcp(
    resource: rmcp::model::ResourceContents,
) -> Option<crate::content::ResourceContents> {
    match resource {
        rmcp::model::ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => Some(crate::content::ResourceContents {
            uri,
            mime_type,
            body: ResourceBody::Text(text),
        }),
        rmcp::model::ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => Some(crate::content::ResourceContents {
            uri,
            mime_type,
            body: ResourceBody::Blob(blob),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[cfg(feature = "mcp-server")]
    fn result(content: Vec<Content>, is_error: bool) -> ToolCallResult {
        ToolCallResult { content, is_error }
    }

    #[cfg(feature = "mcp-server")]
    #[test]
    fn json_objects_become_structured_content_and_text() {
        let value = json!({"temperature": 21});
        let out = call_result(result(vec![Content::json(value.clone())], false), None);
        assert_eq!(out.structured_content, Some(value.clone()));
        assert_eq!(out.is_error, Some(false));
        let text = &out.content[0].as_text().unwrap().text;
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), value);
    }

    #[cfg(feature = "mcp-server")]
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

    #[cfg(feature = "mcp-server")]
    #[test]
    fn errors_stay_results() {
        let out = call_result(result(vec![Content::text("bad")], true), None);
        assert_eq!(out.is_error, Some(true));
        assert_eq!(out.content[0].as_text().unwrap().text, "bad");
    }

    #[cfg(all(feature = "mcp-server", feature = "mcp-client"))]
    #[test]
    fn annotations_round_trip() {
        let hints = ToolAnnotations {
            read_only: Some(true),
            destructive: None,
            idempotent: Some(true),
            open_world: Some(false),
        };
        let wire = super::super::server::annotations(&hints).unwrap();
        let mcp: McpAnnotations = serde_json::from_value(wire).unwrap();
        assert_eq!(annotations_from_mcp(Some(&mcp)), hints);
        assert!(super::super::server::annotations(&ToolAnnotations::default()).is_none());
    }
}
