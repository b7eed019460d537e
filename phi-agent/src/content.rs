//! What a tool returns: text, images and JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One piece of a tool's result.
///
/// Text is what every provider reads. Images reach the providers that accept them in tool results
/// (Anthropic, MCP) and become a short note elsewhere. JSON is kept structured for MCP's
/// `structuredContent` and rendered as compact JSON text for models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64-encoded image bytes.
        data: String,
        /// The image's MIME type, e.g. `image/png`.
        mime_type: String,
    },
    /// A structured JSON value.
    Json {
        /// The value.
        value: Value,
    },
}

impl Content {
    /// Text content.
    ///
    /// ```
    /// use phi_agent::Content;
    /// assert_eq!(Content::text("Done").as_text(), Some("Done"));
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }

    /// Image content from base64 `data` and its `mime_type`.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// Structured JSON content.
    pub fn json(value: Value) -> Self {
        Content::Json { value }
    }

    /// The text, when this is text content.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text { text } => Some(text),
            _ => None,
        }
    }

    /// This content as a model reads it when the provider takes only text: text as is, JSON as
    /// compact JSON, an image as a one-line note.
    pub fn to_model_text(&self) -> String {
        match self {
            Content::Text { text } => text.clone(),
            Content::Json { value } => value.to_string(),
            Content::Image { data, mime_type } => {
                format!(
                    "[image: {mime_type}, {} bytes base64; this model cannot view images]",
                    data.len()
                )
            }
        }
    }

    /// Bytes this content takes when shown to a model (images count their base64 length).
    pub(crate) fn model_len(&self) -> usize {
        match self {
            Content::Text { text } => text.len(),
            Content::Image { data, .. } => data.len(),
            Content::Json { value } => crate::limits::json_len(value),
        }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::text(text)
    }
}

/// Cuts `contents` to at most `limit` bytes as the model sees them, ending with a marker that
/// says how much was cut. Returns the contents unchanged when they fit.
pub(crate) fn truncate_output(contents: Vec<Content>, limit: usize) -> Vec<Content> {
    let total: usize = contents.iter().map(Content::model_len).sum();
    if total <= limit {
        return contents;
    }
    let mut budget = limit;
    let mut kept = Vec::with_capacity(contents.len() + 1);
    for content in contents {
        let len = content.model_len();
        if len <= budget {
            budget -= len;
            kept.push(content);
            continue;
        }
        if let Content::Image { .. } = content {
            continue;
        }
        let mut text = content.to_model_text();
        text.truncate(crate::limits::floor_char_boundary(&text, budget));
        if !text.is_empty() {
            kept.push(Content::text(text));
        }
        break;
    }
    kept.push(Content::text(format!(
        "\n[output truncated: {total} bytes, limit {limit}; ask for less, e.g. a narrower query or a page of results]"
    )));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_a_prefix_and_says_so() {
        let out = truncate_output(vec![Content::text("é".repeat(100))], 51);
        let text = out[0].as_text().unwrap();
        assert_eq!(text.len(), 50, "cut on a char boundary");
        assert!(
            out[1]
                .as_text()
                .unwrap()
                .contains("output truncated: 200 bytes, limit 51")
        );
        let small = vec![Content::text("ok")];
        assert_eq!(truncate_output(small.clone(), 10), small);
    }
}
