//! Serving over MCP's streamable HTTP transport.

mod endpoint;

pub use endpoint::{HttpOptions, HttpServer, serve_http};
