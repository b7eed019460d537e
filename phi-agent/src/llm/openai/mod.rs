//! OpenAI chat completions, and every server that speaks the same API: the client (`client`),
//! the request it builds (`request`), the reply it reads (`reply`) and the stream it decodes
//! (`stream`), over the assistant message both directions share (`message`). The Responses
//! API's adapter reuses the helpers both APIs read and write alike.

mod client;
mod message;
mod reply;
mod request;
mod stream;
#[cfg(test)]
mod tests;

pub use client::OpenAiClient;
pub(crate) use message::replayed_arguments;
pub(crate) use reply::{parse_arguments, parse_response};
pub(crate) use request::tool_result_text;
pub(crate) use stream::{decode_stream, stream_error_status};
