//! The adapters' reading of a response body, reachable without a network: for fuzzing and for
//! tests of what a hostile or broken server can send.

use super::LlmResponse;
use crate::error::{AgentError, AgentResult};

/// Reads `body` the way the adapter of `provider` (`"openai"`, `"openai-responses"`,
/// `"anthropic"` or `"gemini"`) reads a 2xx
/// answer: JSON first (with serde_json's nesting limit of 128), then the provider's shape.
///
/// Not part of the stable API; it exists for the fuzz targets and the reliability tests.
///
/// ```
/// # #[cfg(all(feature = "openai", feature = "anthropic"))] {
/// use phi_agent::llm::parse_response_body;
/// let reply = parse_response_body("anthropic", br#"{"content": [{"type": "text", "text": "hi"}]}"#)?;
/// assert_eq!(reply.text, "hi");
/// assert!(parse_response_body("openai", b"[[[").is_err());
/// # }
/// # #[cfg(feature = "gemini")] {
/// let body = br#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "now"}}]}}]}"#;
/// assert_eq!(phi_agent::llm::parse_response_body("gemini", body)?.tool_calls[0].id, "call_0");
/// # }
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[doc(hidden)]
pub fn parse_response_body(provider: &str, body: &[u8]) -> AgentResult<LlmResponse> {
    let (name, parse): (
        &'static str,
        fn(&serde_json::Value) -> AgentResult<LlmResponse>,
    ) = match provider {
        #[cfg(feature = "openai")]
        "openai" => ("openai", super::openai::parse_response),
        #[cfg(feature = "openai")]
        "openai-responses" => ("openai", super::responses::parse_response),
        #[cfg(feature = "anthropic")]
        "anthropic" => ("anthropic", super::anthropic::parse_response),
        #[cfg(feature = "gemini")]
        "gemini" => ("gemini", super::gemini::parse_response),
        other => {
            return Err(AgentError::Config(format!(
                "no adapter for provider `{other}` in this build; use `openai` or `openai-responses` (feature `openai`), `anthropic` or `gemini` (each behind its feature of the same name)"
            )));
        }
    };
    let value = super::http::parse_json(name, body)?;
    parse(&value)
}
