//! Serving over MCP's streamable HTTP transport.
//!
//! rmcp's `StreamableHttpService` speaks the protocol and validates the `Host` and `Origin`
//! headers (the MCP specification requires `Origin` validation against DNS rebinding); around
//! it, [`serve`] binds the socket (loopback unless told otherwise) and runs the connections on
//! hyper, [`endpoint`] checks the bearer token before a request reaches rmcp and screens each
//! POST body so that a malformed message gets its JSON-RPC error, [`sessions`] caps the number
//! of live sessions and gives each call a stream it may close for the client to resume
//! ([`resumable`]), and [`card`] serves the Server Card. A stateless `tools/call` whose every
//! check is certain to pass is answered by [`direct`] without rmcp's transport. [`options`] is
//! what the caller sets.

mod card;
mod direct;
mod endpoint;
mod options;
mod resumable;
mod serve;
mod sessions;

pub use card::ServerCard;
pub use options::HttpOptions;
pub use serve::{HttpServer, serve_http};
