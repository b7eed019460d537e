//! MCP bridge (feature `mcp`): serve a [`ToolRegistry`](crate::registry::ToolRegistry) to any MCP
//! client, and use any MCP server's tools in an agent.
//!
//! Built on [rmcp](https://docs.rs/rmcp), the official Rust SDK, which is re-exported as
//! [`rmcp`] for transports and types this module does not wrap.
//!
//! - Serving: [`serve_stdio`] (what desktop clients launch), [`serve_http`] (streamable HTTP on
//!   loopback, with a bearer token and `Origin` checks), or [`McpServer`] on any rmcp transport.
//! - Using: [`McpClient::connect_stdio`] starts a server as a child process and imports its tools
//!   as [`Tool`](crate::Tool)s ([`McpTool`]) with provider-safe names ([`ProviderSafeNames`]).

mod client;
mod convert;
mod http;
mod names;
mod server;

pub use rmcp;

pub use client::{McpClient, McpClientOptions, McpTool};
pub use http::{HttpOptions, HttpServer, serve_http};
pub use names::ProviderSafeNames;
pub use server::{McpServer, serve_stdio};
