//! Code mode for [phi-agent](https://docs.rs/phi-agent): the model writes one small program that
//! calls many tools, so that a loop over twenty records or a chain of five lookups costs one model
//! turn instead of twenty, and only the program's result enters the conversation.
//!
//! [`RunCode`] is the tool: register it beside the tools it may call. Programs are
//! [Rhai](https://rhai.rs) (the README says why, with measurements), run in a sandbox with no
//! files, network, environment or clock, and bounded by [`CodeLimits`]. Every tool a program
//! calls goes through the run exactly as a direct call does
//! ([`ToolContext::call_tool`](phi_agent::ToolContext::call_tool)).
//!
//! ```
//! use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
//! use phi_agent::{base_agent_builder, phi_tool, tools, AgentConfig, PhiAgent};
//! use phi_agent_code::RunCode;
//!
//! /// The stock of an item.
//! #[phi_tool]
//! async fn stock(sku: String) -> u64 {
//!     sku.len() as u64
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> phi_agent::AgentResult<()> {
//! let program = r#"let total = 0; for sku in ["a", "bb"] { total += stock(#{ sku: sku }); } total"#;
//! let call = ToolCall::new("c1", "run_code", serde_json::json!({ "code": program }));
//! let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![call]), LlmResponse::text("3 in stock")]);
//! let tools = tools![stock];
//! let builder = base_agent_builder(llm)
//!     .register_tools(tools.clone())
//!     .register_tool(RunCode::new(&tools));
//! let output = PhiAgent::build(builder, AgentConfig::default())?.run("How many?").await?;
//! assert_eq!(output.tool_calls[0].result[0].to_model_text(), "3");
//! # Ok(())
//! # }
//! ```

mod limits;
mod sandbox;
mod stubs;
mod tool;

pub use limits::CodeLimits;
pub use tool::RunCode;
