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
//! - `tracing`: a run with its logs, each turn and tool call printed as it ends (a
//!   `tracing-subscriber` set-up with span events); offline.
//! - `typed-answer`: `.typed::<T>()`, the answer as a Rust value after a tool call, a refused
//!   answer fixed on the next turn; offline, or against any of the providers above with a key.
//! - `eval`: record, replay, evaluate: a small dataset through the calculator agent, its model
//!   exchanges replayed offline from a checked-in cassette, or recorded again against a fake.
//!
//! `code-mode` (the model's one program loops over five orders and calls two tools for each;
//! offline) is an example of the `phi-agent-code` crate, so that the calculator does not build
//! the Rhai engine. `mcp-server` (serving tools over MCP) is an example of the `phi-agent` crate itself, built
//! with `--features mcp-http-server`, since its tests start it as a child process; so is
//! `mcp-client` (importing a server's tools over HTTP with OAuth, or over stdio; `--features
//! mcp-http-client`), which `interop/mcp/run-client` runs against other servers.
//!
//! The examples that talk to a model choose it with [`choose_model`]: a provider whose key is set
//! (precedence in [`choose_provider`]), else their own scripted model.

mod provider;

pub use provider::{Provider, choose_model, choose_provider};

use phi_agent::llm::Usage;

/// How an example reports a run's tokens: the counts, or, when the model counted none (the
/// scripted model counts no tokens), that it did not, rather than a `0/0` that reads like a
/// bug.
pub fn tokens(usage: Usage) -> String {
    if usage == Usage::default() {
        return "tokens: none counted (a scripted model counts none)".to_string();
    }
    format!(
        "tokens in/out: {}/{}",
        usage.input_tokens, usage.output_tokens
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_token_counts_says_so() {
        assert_eq!(
            tokens(Usage::default()),
            "tokens: none counted (a scripted model counts none)"
        );
        let usage = Usage::new(120, 7);
        assert_eq!(tokens(usage), "tokens in/out: 120/7");
    }
}
