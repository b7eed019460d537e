//! Runnable examples of phi-agent, each a file beside this one; run one with
//! `cargo run --example NAME` from the workspace root:
//!
//! - `custom-tool`: the calculator agent, offline on a scripted model, or against OpenAI (chat
//!   completions, or the Responses API with `OPENAI_API=responses`), Anthropic or Gemini when
//!   `OPENAI_API_KEY`, `ANTHROPIC_API_KEY` or `GEMINI_API_KEY` is set (in that order;
//!   `PHI_PROVIDER` names one outright).
//! - `macro-tools`: the same kind of tools written as plain fns with `#[phi_tool]`.
//! - `method-tools`: tools that hold state, as the methods of a struct (`#[phi_tools]`).
//! - `deferred-tools`: exposure across turns (Direct, Deferred, Hidden).
//! - `streaming`: a streamed run, printing the model's text and tool calls as they arrive;
//!   offline on a scripted model, or against any of the providers above with a key.
//! - `typed-answer`: `run_typed::<T>`, the answer as a Rust value after a tool call, a refused
//!   answer fixed on the next turn; offline, or against any of the providers above with a key.
//!
//! `mcp-server` (serving tools over MCP) is an example of the `phi-agent` crate itself, built
//! with `--features mcp-http-server`, since its tests start it as a child process.
//!
//! The examples that talk to a model choose it with [`choose_model`]: a provider whose key is set
//! (precedence in [`choose_provider`]), else their own scripted model.

mod provider;

pub use provider::{Provider, choose_model, choose_provider};
