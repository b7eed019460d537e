//! The OpenAI Responses API, and every server that speaks it: the client (`client`), the
//! request it builds (`request`), the reply it reads (`reply`) and the stream it decodes
//! (`stream`), over the items both directions share (`item`).

mod client;
mod item;
mod reply;
mod request;
mod stream;
#[cfg(test)]
mod tests;

pub use client::ResponsesClient;
pub(crate) use reply::parse_response;
pub(crate) use stream::decode_stream;
