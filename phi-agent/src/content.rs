//! What a tool returns: text, images, audio, JSON and resources.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One piece of a tool's result.
///
/// Text is what every provider reads. Images reach the providers that accept them in tool results
/// (Anthropic, MCP) and become a short note elsewhere. JSON is kept structured for MCP's
/// `structuredContent` and rendered as compact JSON text for models. Audio, embedded resources
/// and resource links reach MCP clients as they are; a model reads a text resource's text and a
/// one-line note for the rest ([`to_model_text`](Self::to_model_text)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
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
    /// Audio, base64-encoded.
    Audio {
        /// Base64-encoded audio bytes.
        data: String,
        /// The audio's MIME type, e.g. `audio/wav`.
        mime_type: String,
    },
    /// A resource's contents, embedded in the result (MCP's `resource` content).
    Resource {
        /// The resource.
        resource: ResourceContents,
    },
    /// A link to a resource the client may read (MCP's `resource_link` content).
    ResourceLink {
        /// The resource's URI.
        uri: String,
        /// Its name.
        name: String,
        /// What it is, for a person or model to read.
        description: Option<String>,
        /// Its MIME type, if known.
        mime_type: Option<String>,
    },
}

/// The contents of a resource: its URI, MIME type, and text or base64 bytes. What an embedded
/// resource carries ([`Content::Resource`]) and what an MCP server's `resources/read` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type, if known.
    pub mime_type: Option<String>,
    /// Its text or bytes.
    #[serde(flatten)]
    pub body: ResourceBody,
}

/// A resource's text or bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceBody {
    /// Text.
    Text(String),
    /// Bytes, base64-encoded.
    Blob(String),
}

impl ResourceContents {
    /// A text resource.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: ResourceBody::Text(text.into()),
        }
    }

    /// A binary resource from base64 `data`.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<String>,
    ) -> Self {
        Self {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            body: ResourceBody::Blob(data.into()),
        }
    }

    /// The text, when this is a text resource.
    pub fn as_text(&self) -> Option<&str> {
        match &self.body {
            ResourceBody::Text(text) => Some(text),
            ResourceBody::Blob(_) => None,
        }
    }
}

/// All of `content` as one text, the way a text-only provider shows it: each part's
/// [`Content::to_model_text`], one per line.
pub(crate) fn model_text(content: &[Content]) -> String {
    match content {
        [single] => single.to_model_text(),
        many => many
            .iter()
            .map(Content::to_model_text)
            .collect::<Vec<_>>()
            .join("\n"),
    }
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

    /// Audio content from base64 `data` and its `mime_type` (e.g. `audio/wav`).
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Audio {
            data: data.into(),
            mime_type: mime_type.into(),
        }
    }

    /// An embedded resource.
    ///
    /// ```
    /// use phi_agent::{Content, ResourceContents};
    /// let report = Content::resource(ResourceContents::text("file:///report.md", "text/markdown", "# Q3"));
    /// assert_eq!(report.to_model_text(), "[resource file:///report.md]\n# Q3");
    /// ```
    pub fn resource(resource: ResourceContents) -> Self {
        Content::Resource { resource }
    }

    /// A link to the resource at `uri`, called `name`.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Content::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }

    /// The text, when this is text content.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Content::Text { text } => Some(text),
            _ => None,
        }
    }

    /// This content as a model reads it when the provider takes only text: text as is, JSON as
    /// compact JSON, a text resource as its URI and text, and an image, audio, a binary resource
    /// or a resource link as a one-line note.
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
            Content::Audio { data, mime_type } => {
                format!(
                    "[audio: {mime_type}, {} bytes base64; this model cannot hear audio]",
                    data.len()
                )
            }
            Content::Resource { resource } => match &resource.body {
                ResourceBody::Text(text) => format!("[resource {}]\n{text}", resource.uri),
                ResourceBody::Blob(data) => format!(
                    "[resource {}: {}, {} bytes base64; not shown]",
                    resource.uri,
                    resource.mime_type.as_deref().unwrap_or("binary"),
                    data.len()
                ),
            },
            Content::ResourceLink {
                uri,
                name,
                description,
                ..
            } => match description {
                Some(description) => format!("[resource link: {name} <{uri}>: {description}]"),
                None => format!("[resource link: {name} <{uri}>]"),
            },
        }
    }

    /// Whether this is base64 media a text budget should not cut (images, audio, blobs).
    pub(crate) fn is_media(&self) -> bool {
        matches!(
            self,
            Content::Image { .. }
                | Content::Audio { .. }
                | Content::Resource {
                    resource: ResourceContents {
                        body: ResourceBody::Blob(_),
                        ..
                    }
                }
        )
    }

    /// Bytes this content takes when shown to a model (media count their base64 length).
    pub(crate) fn model_len(&self) -> usize {
        match self {
            Content::Text { text } => text.len(),
            Content::Image { data, .. } | Content::Audio { data, .. } => data.len(),
            Content::Json { value } => crate::limits::json_len(value),
            Content::Resource { resource } => {
                resource.uri.len()
                    + match &resource.body {
                        ResourceBody::Text(text) | ResourceBody::Blob(text) => text.len(),
                    }
            }
            Content::ResourceLink { .. } => self.to_model_text().len(),
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
