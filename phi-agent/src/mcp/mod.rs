//! MCP bridge (features `mcp-server`, `mcp-http-server` and `mcp-client`, all in `mcp`): serve a [`ToolRegistry`](crate::registry::ToolRegistry) to any MCP
//! client, and use any MCP server's tools in an agent.
//!
//! Built on [rmcp](https://docs.rs/rmcp), the official Rust SDK, which is re-exported as
//! [`rmcp`] for transports and types this module does not wrap.
//!
//! - Serving: [`serve_stdio`] (what desktop clients launch), [`serve_http`] (streamable HTTP on
//!   loopback, with a bearer token, `Origin` checks, and sessions bounded by an idle timeout and
//!   a cap, or none at all: [`HttpOptions`]), or [`McpServer`] on any rmcp transport. Both
//!   answer a malformed message with its JSON-RPC error and go on serving.
//! - Besides tools, a server serves [`Resource`]s, [`ResourceTemplate`]s, [`Prompt`]s and
//!   completions ([`McpServer::with_completion`]), and honours `logging/setLevel`; a running
//!   tool's progress, log messages and questions ([`ToolContext::elicit`](crate::ToolContext::elicit),
//!   [`ToolContext::sample`](crate::ToolContext::sample)) go to the client. [`mcp_server!`](crate::mcp_server)
//!   names the server after your crate.
//! - Using: [`McpClient::connect_stdio`] starts a server as a child process, and
//!   `McpClient::connect_http` (feature `mcp-http-client`) reaches one over streamable HTTP; both
//!   import its tools as [`Tool`](crate::Tool)s ([`McpTool`]) with provider-safe names
//!   ([`ProviderSafeNames`]), prefixed per server if asked, and follow `tools/list_changed`.
//!   Over HTTP a server behind OAuth 2.1 is authorized with `McpOAuth`; a server's questions and
//!   sampling requests go to the handlers of [`McpClientOptions`].
//!
//! The two roles live apart: `server/` serves (its transports in `server/stdio.rs` and
//! `server/http/`), `client/` imports, and `convert.rs`, beside them, translates between
//! phi-agent's content and MCP's for both.
//!
//! `mcp-server` serves over stdio (or any rmcp transport) and builds no HTTP stack;
//! `mcp-http-server` adds streamable HTTP on hyper's HTTP/1 server (still no HTTP client, no TLS);
//! `mcp-client` imports tools over stdio, also without an HTTP client; `mcp-http-client` adds
//! streamable HTTP on reqwest with rustls (ring).

#[cfg(feature = "mcp-client")]
mod client;
mod convert;
#[cfg(feature = "mcp-server")]
mod server;

pub use rmcp;

#[cfg(feature = "mcp-http-client")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-http-client")))]
pub use client::{
    McpAssertion, McpAuthorizer, McpCrossApp, McpDpopKey, McpHttpOptions, McpOAuth, McpOAuthGrant,
    McpPrivateKey,
};
#[cfg(feature = "mcp-client")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-client")))]
pub use client::{McpClient, McpClientOptions, McpTool, McpToolsChanged, ProviderSafeNames};
#[cfg(feature = "mcp-server")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-server")))]
pub use server::{
    APP_VIEW_MIME_TYPE, CompletionTarget, ListChanged, McpServer, Prompt, PromptMessage, Resource,
    ResourceTemplate, definition, serve_stdio,
};
#[cfg(feature = "mcp-http-server")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp-http-server")))]
pub use server::{HttpOptions, HttpServer, ServerCard, serve_http};
