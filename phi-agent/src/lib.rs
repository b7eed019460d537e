//! # phi-agent
//!
//! Write LLM-agent tools as plain Rust functions and run agents over them.
//!
//! - [`Tool`] and [`TypedTool`]: the two ways to write a tool by hand.
//! - [`registry::ToolRegistry`]: names, exposure ([`ToolExposure`]), activation and safe dispatch.
//! - [`PhiAgent`]: a model ([`llm::LlmClient`]) and its tools.
//! - `mcp` (feature `mcp`): serve a registry to MCP clients, and import MCP servers' tools.

mod agent;
mod config;
mod content;
mod context;
mod decode;
mod error;
mod limits;
mod output;
mod state;
mod tool;
mod typed;

pub mod llm;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod registry;
pub mod schema;

pub use agent::{AgentBuilder, AgentConfig, PhiAgent, base_agent_builder};
pub use config::ToolConfig;
pub use content::Content;
pub use context::{ActivationContext, ToolContext};
pub use error::{AgentError, AgentResult};
pub use llm::LlmClient;
pub use state::SharedState;
pub use tool::{Tool, ToolAnnotations, ToolExposure, ToolMetadata};
pub use typed::TypedTool;
