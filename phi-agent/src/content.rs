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
