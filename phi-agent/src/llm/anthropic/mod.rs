//! The Anthropic messages API: the client (`client`), the request it builds (`request`), the
//! reply it reads (`reply`) and the stream it decodes (`stream`), over the content blocks both
//! directions share (`content`), with cache breakpoints placed by `cache`.

mod cache;
mod client;
mod code_version;
mod content;
mod context_editing;
mod reply;
mod request;
mod stream;
#[cfg(test)]
mod tests;

pub use client::AnthropicClient;
pub use code_version::CodeExecutionVersion;
pub use context_editing::ContextEditing;
pub(crate) use reply::parse_response;
pub(crate) use stream::decode_stream;
