//! A cassette on disk: JSON Lines, one exchange a line, in the order the requests were sent.
//! Bodies that are JSON are stored as JSON (readable, and diffable in review); a streamed reply
//! keeps its chunks as they arrived, so that a replay cuts the stream in the same places.

use std::path::Path;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::CassetteError;

/// One request and what came back for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// The request, secrets redacted.
    pub request: RecordedRequest,
    /// The reply, or the transport's failure.
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// A request as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// The method: `POST` for the adapters; the MCP client's event streams are `GET`s and its
    /// session's end a `DELETE`.
    pub method: String,
    /// The whole URL, secrets in its query redacted.
    pub url: String,
    /// Whether the reply was asked for as a stream.
    #[serde(default)]
    pub stream: bool,
    /// The headers, secrets redacted, in the order they were sent.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
}

/// What the server answered, or why nothing came.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A reply.
    Reply(RecordedReply),
    /// The transport's failure (a refused connection, a broken stream), replayed as such.
    Failure(String),
}

/// A reply as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedReply {
    /// The HTTP status.
    pub status: u16,
    /// The headers, secrets redacted.
    pub headers: Vec<(String, String)>,
    /// A whole body (a reply that was not streamed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Body>,
    /// A streamed body, chunk by chunk as it arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunks: Option<Vec<Chunk>>,
    /// Set when the stream broke off after these chunks, with the transport's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broke_off: Option<String>,
    /// Set for a GET's stream the client let go of while the server still held it open (the MCP
    /// client's event stream, until its session ends): a replay keeps it open after its chunks
    /// too, where an ended stream would have the client reconnect.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub left_open: bool,
}

/// A body: JSON when it is JSON that serializes back to the same bytes, else text, else bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Body {
    /// JSON whose compact serialization is the body's bytes.
    Json(Value),
    /// UTF-8 text.
    Text(String),
    /// Anything else.
    Bytes(Vec<u8>),
}

impl Body {
    /// The body of `bytes`, in the most readable form that keeps them exactly.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        if let Ok(value) = serde_json::from_slice::<Value>(bytes)
            && serde_json::to_vec(&value).is_ok_and(|again| again == bytes)
        {
            return Body::Json(value);
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => Body::Text(text.to_string()),
            Err(_) => Body::Bytes(bytes.to_vec()),
        }
    }

    /// The bytes this body stands for.
    pub fn to_bytes(&self) -> Bytes {
        match self {
            // Serializing a JSON value to memory cannot fail.
            Body::Json(value) => serde_json::to_vec(value).unwrap_or_default().into(),
            Body::Text(text) => Bytes::copy_from_slice(text.as_bytes()),
            Body::Bytes(bytes) => Bytes::copy_from_slice(bytes),
        }
    }

    /// The body as JSON, if it is JSON (stored as such, or text that parses).
    pub fn json(&self) -> Option<Value> {
        match self {
            Body::Json(value) => Some(value.clone()),
            Body::Text(text) => serde_json::from_str(text).ok(),
            Body::Bytes(bytes) => serde_json::from_slice(bytes).ok(),
        }
    }
}

/// One chunk of a streamed reply: text, or bytes when the network cut inside a character.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Chunk {
    /// UTF-8 text.
    Text(String),
    /// Anything else.
    Bytes(Vec<u8>),
}

impl Chunk {
    /// The chunk of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(text) => Chunk::Text(text.to_string()),
            Err(_) => Chunk::Bytes(bytes.to_vec()),
        }
    }

    /// Its bytes.
    pub fn to_bytes(&self) -> Bytes {
        match self {
            Chunk::Text(text) => Bytes::copy_from_slice(text.as_bytes()),
            Chunk::Bytes(bytes) => Bytes::copy_from_slice(bytes),
        }
    }
}

/// Reads the exchanges of the cassette at `path`.
pub fn load(path: &Path) -> Result<Vec<Exchange>, CassetteError> {
    let text = std::fs::read_to_string(path).map_err(|error| CassetteError::Io {
        path: path.display().to_string(),
        message: error.to_string(),
    })?;
    parse(&text).map_err(|(line, message)| CassetteError::Malformed {
        path: path.display().to_string(),
        line,
        message,
    })
}

/// The exchanges of a cassette's text; on failure the line (from 1) and what is wrong with it.
pub fn parse(text: &str) -> Result<Vec<Exchange>, (usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            serde_json::from_str(line).map_err(|error| (index + 1, error.to_string()))
        })
        .collect()
}

/// The text of a cassette holding `exchanges`.
pub fn render(exchanges: &[Exchange]) -> String {
    let mut text = String::new();
    for exchange in exchanges {
        // Serializing JSON values and strings to memory cannot fail.
        text.push_str(&serde_json::to_string(exchange).unwrap_or_default());
        text.push('\n');
    }
    text
}
