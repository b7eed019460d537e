//! Serving a [`ToolRegistry`](crate::registry::ToolRegistry) to MCP clients.

mod definition;
mod derived;
#[cfg(feature = "mcp-http-server")]
mod http;
mod peer;
#[cfg(feature = "mcp-http-server")]
mod plain_call;
mod prompts;
mod resources;
mod rounds;
mod screen;
mod settings;
mod stdio;
mod tasks;
#[cfg(feature = "mcp-http-server")]
mod tool_call;

#[cfg(all(test, feature = "mcp-client"))]
pub(super) use definition::annotations;
pub use definition::definition;
#[cfg(feature = "mcp-http-server")]
pub use http::{HttpOptions, HttpServer, serve_http};
pub use prompts::{Prompt, PromptMessage};
pub use resources::{Resource, ResourceTemplate};
pub use settings::{CompletionTarget, McpServer, serve_stdio};
