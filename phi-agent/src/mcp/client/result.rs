//! What an MCP server's `tools/call` result becomes for the model.
//!
//! The protocol lets a result say the same thing twice: `structuredContent` (JSON for programs)
//! and `content` (blocks, by convention including a text rendering of that JSON). A model given
//! both reads the result twice and pays for it twice, so each result reaches it once:
//!
//! - text blocks that only render the structured value (they parse to the same JSON, or are one
//!   of its strings, as servers that wrap a text as `{"content": text}` do) are replaced by the
//!   value, as [`Content::Json`];
//! - when the blocks say more than a rendering (other text, an image), the blocks are given and
//!   the structured copy is left out: the protocol makes it the same result in another form, and
//!   a copy of an image inside it would reach the model as base64 text;
//! - images and audio are passed as [`Content::Image`] and [`Content::Audio`], never as their
//!   base64 text; embedded resources and resource links keep their kind.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use crate::content::Content;
use crate::mcp::convert::resource_from_mcp;

/// `result` as our content, with its structured value given once (see the module docs).
pub(crate) fn contents_from_mcp(result: CallToolResult) -> Vec<Content> {
    let CallToolResult {
        content,
        structured_content,
        ..
    } = result;
    let Some(structured) = structured_content else {
        return content.into_iter().map(block_content).collect();
    };
    let only_renderings = content.iter().all(|block| {
        block
            .as_text()
            .is_some_and(|text| renders(&text.text, &structured))
    });
    if only_renderings {
        vec![Content::json(structured)]
    } else {
        content.into_iter().map(block_content).collect()
    }
}

/// Whether `text` only renders `value`: the same JSON, or one of its strings.
fn renders(text: &str, value: &Value) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|parsed| &parsed == value)
        || has_string(value, text)
}

/// Whether `value` holds the string `text` anywhere.
fn has_string(value: &Value, text: &str) -> bool {
    match value {
        Value::String(string) => string == text,
        Value::Array(items) => items.iter().any(|item| has_string(item, text)),
        Value::Object(fields) => fields.values().any(|field| has_string(field, text)),
        _ => false,
    }
}

/// One content block as our content: images and audio as themselves, never as base64 text.
fn block_content(block: ContentBlock) -> Content {
    match block {
        ContentBlock::Text(text) => Content::text(text.text),
        ContentBlock::Image(image) => Content::image(image.data, image.mime_type),
        ContentBlock::Audio(audio) => Content::audio(audio.data, audio.mime_type),
        ContentBlock::Resource(resource) => match resource_from_mcp(resource.resource.clone()) {
            Some(resource) => Content::resource(resource),
            None => Content::text(serde_json::to_string(&resource.resource).unwrap_or_default()),
        },
        ContentBlock::ResourceLink(link) => Content::ResourceLink {
            uri: link.uri,
            name: link.name,
            description: link.description,
            mime_type: link.mime_type,
        },
        other => Content::text(serde_json::to_string(&other).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn structured(blocks: Vec<ContentBlock>, value: Value) -> CallToolResult {
        let mut result = CallToolResult::success(blocks);
        result.structured_content = Some(value);
        result
    }

    #[test]
    fn a_json_rendering_is_replaced_by_the_value() {
        let value = json!({"a": 1});
        let result = structured(vec![ContentBlock::text(value.to_string())], value.clone());
        assert_eq!(contents_from_mcp(result), vec![Content::json(value)]);
    }

    #[test]
    fn a_text_wrapped_as_structured_content_reaches_the_model_once() {
        // What server-filesystem sends for every result.
        let text = "[DIR] src\n[FILE] README.md";
        let value = json!({"content": text});
        let result = structured(vec![ContentBlock::text(text)], value.clone());
        assert_eq!(contents_from_mcp(result), vec![Content::json(value)]);
    }

    #[test]
    fn blocks_that_say_more_are_given_without_the_structured_copy() {
        let value = json!({"a": 1});
        let result = structured(
            vec![
                ContentBlock::text(value.to_string()),
                ContentBlock::text("note"),
            ],
            value,
        );
        assert_eq!(
            contents_from_mcp(result),
            vec![Content::text(r#"{"a":1}"#), Content::text("note")]
        );
    }

    #[test]
    fn images_are_content_not_base64_text() {
        // server-filesystem's `read_media_file`: the image, and a structured copy of it.
        let image = ContentBlock::image("iVBORw0KGgo=", "image/png");
        let value = json!({"content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}]});
        let result = structured(vec![image], value);
        assert_eq!(
            contents_from_mcp(result),
            vec![Content::image("iVBORw0KGgo=", "image/png")]
        );
        let plain = CallToolResult::success(vec![ContentBlock::image("AAAA", "image/jpeg")]);
        assert_eq!(
            contents_from_mcp(plain),
            vec![Content::image("AAAA", "image/jpeg")]
        );
    }

    #[test]
    fn structured_content_alone_is_given_as_json() {
        let result = structured(Vec::new(), json!([1, 2]));
        assert_eq!(
            contents_from_mcp(result),
            vec![Content::json(json!([1, 2]))]
        );
    }
}
