//! Serving a [`ToolRegistry`](crate::registry::ToolRegistry) to MCP clients: [`McpServer`]
//! (its settings and sessions in `settings` and `session`, rmcp's handler in `handler`, one
//! file per concern it answers), and the transports, `stdio` and `http`.

mod activation;
mod approval;
mod completion;
mod definition;
mod derived;
#[cfg(feature = "mcp-http-server")]
mod direct_call;
mod handler;
mod headers;
#[cfg(feature = "mcp-http-server")]
mod http;
mod listeners;
mod peer;
#[cfg(feature = "mcp-http-server")]
mod plain_call;
mod polling;
mod prompt_get;
mod prompts;
mod resources;
mod rounds;
mod screen;
mod session;
mod settings;
mod skills;
mod stdio;
mod tasks;
#[cfg(feature = "mcp-http-server")]
mod tool_call;
mod tools;

pub use completion::CompletionTarget;
#[cfg(all(test, feature = "mcp-client"))]
pub(super) use definition::annotations;
pub use definition::definition;
#[cfg(feature = "mcp-http-server")]
pub use http::{HttpOptions, HttpServer, ServerCard, serve_http};
pub use listeners::ListChanged;
pub use prompts::{Prompt, PromptMessage};
pub use resources::{APP_VIEW_MIME_TYPE, Resource, ResourceTemplate};
pub use settings::McpServer;
pub use stdio::serve_stdio;
