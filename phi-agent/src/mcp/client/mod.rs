//! Using an MCP server's tools: connect over stdio (a child process) or streamable HTTP
//! (feature `mcp-http-client`), and wrap each remote tool as a [`Tool`](crate::Tool).
//!
//! [`McpClient`] holds the [`imports`] (the tool set, following the server's list) over the
//! [`connection`] its tools share; [`connect`] opens that connection and answers the server
//! through [`talk`]; each remote tool is an [`McpTool`]. Over HTTP, [`oauth`] configures OAuth 2.1
//! and [`authorization`] runs it, with the machine grants of [`machine`] and DPoP's proofs
//! ([`dpop`], [`dpop_http`]).

mod about;
#[cfg(feature = "mcp-http-client")]
mod address_policy;
#[cfg(feature = "mcp-http-client")]
mod assertion;
#[cfg(feature = "mcp-http-client")]
mod authorization;
mod connect;
mod connection;
#[cfg(feature = "mcp-http-client")]
mod dpop;
#[cfg(feature = "mcp-http-client")]
mod dpop_http;
#[cfg(feature = "mcp-http-client")]
mod grant;
#[cfg(feature = "mcp-http-client")]
mod http;
mod imports;
#[cfg(feature = "mcp-http-client")]
mod jwt;
#[cfg(feature = "mcp-http-client")]
mod machine;
mod mcp_client;
mod names;
#[cfg(feature = "mcp-http-client")]
mod oauth;
mod options;
mod result;
#[cfg(feature = "mcp-http-client")]
mod seam;
#[cfg(feature = "skills")]
mod skills;
mod talk;
mod tool;

#[cfg(feature = "mcp-http-client")]
pub use assertion::McpAssertion;
#[cfg(feature = "mcp-http-client")]
pub use dpop::McpDpopKey;
#[cfg(feature = "mcp-http-client")]
pub use grant::{McpCrossApp, McpOAuthGrant, McpPrivateKey};
#[cfg(feature = "mcp-http-client")]
pub use http::McpHttpOptions;
pub use imports::McpToolsChanged;
pub use mcp_client::McpClient;
pub use names::ProviderSafeNames;
#[cfg(feature = "mcp-http-client")]
pub use oauth::{McpAuthorizer, McpOAuth};
pub use options::McpClientOptions;
pub use tool::McpTool;
