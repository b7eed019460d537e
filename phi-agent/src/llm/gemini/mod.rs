//! The Gemini API's `generateContent`: the client (`client`), the request it builds
//! (`request`), the reply it reads (`reply`, whole or chunk by chunk) and the stream it decodes
//! (`stream`), over the contents and parts both directions share (`content`).

mod cache;
mod client;
mod content;
mod reply;
mod request;
mod stream;
#[cfg(test)]
mod tests;

pub use cache::GeminiCache;
pub use client::{GeminiClient, GeminiSchemaForm};
pub(crate) use reply::parse_response;
pub(crate) use stream::decode_stream;
