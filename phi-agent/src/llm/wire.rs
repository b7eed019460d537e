//! The adapters' reading of a response body, reachable without a network: for fuzzing and for
//! tests of what a hostile or broken server can send.

use super::{LlmResponse, anthropic, openai};
use crate::error::{AgentError, AgentResult};

/// Reads `body` the way the adapter of `provider` (`"openai"` or `"anthropic"`) reads a 2xx
/// answer: JSON first (with serde_json's nesting limit of 128), then the provider's shape.
///
/// Not part of the stable API; it exists for the fuzz targets and the reliability tests.
///
/// ```
/// use phi_agent::llm::parse_response_body;
/// let reply = parse_response_body("anthropic", br#"{"content": [{"type": "text", "text": "hi"}]}"#)?;
/// assert_eq!(reply.text, "hi");
/// assert!(parse_response_body("openai", b"[[[").is_err());
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[doc(hidden)]
pub fn parse_response_body(provider: &str, body: &[u8]) -> AgentResult<LlmResponse> {
    let (name, parse): (
        &'static str,
        fn(&serde_json::Value) -> AgentResult<LlmResponse>,
    ) = match provider {
        "openai" => ("openai", openai::parse_response),
        "anthropic" => ("anthropic", anthropic::parse_response),
        other => {
            return Err(AgentError::Config(format!(
                "no adapter for provider `{other}`; use `openai` or `anthropic`"
            )));
        }
    };
    let value = super::http::parse_json(name, body)?;
    parse(&value)
}
