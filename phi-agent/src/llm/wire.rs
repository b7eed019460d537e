//! The adapters' reading of a response body, reachable without a network: for fuzzing and for
//! tests of what a hostile or broken server can send.

use super::{LlmResponse, StreamDelta};
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

/// Reads a streamed body (server-sent events, arriving in `chunks` cut anywhere) the way the
/// adapter of `provider` reads a stream: its deltas, ending with
/// [`StreamDelta::Done`](super::StreamDelta::Done), or the error that ends it.
///
/// Not part of the stable API; it exists for the benchmarks and the reliability tests.
///
/// ```
/// # #[cfg(feature = "anthropic")] {
/// use phi_agent::llm::{StreamDelta, parse_stream_body};
/// let body = concat!(
///     "event: content_block_start\n",
///     "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
///     "event: content_block_delta\n",
///     "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n",
///     "event: message_stop\n",
///     "data: {\"type\":\"message_stop\"}\n\n",
/// );
/// let (head, tail) = body.as_bytes().split_at(30);
/// let deltas = parse_stream_body("anthropic", &[head, tail])?;
/// assert_eq!(deltas[0], StreamDelta::Text("hi".into()));
/// assert!(matches!(&deltas[1], StreamDelta::Done(reply) if reply.text == "hi"));
/// # }
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[doc(hidden)]
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub fn parse_stream_body(provider: &str, chunks: &[&[u8]]) -> AgentResult<Vec<StreamDelta>> {
    match provider {
        #[cfg(feature = "openai")]
        "openai" => super::openai::decode_stream(chunks),
        #[cfg(feature = "openai")]
        "openai-responses" => super::responses::decode_stream(chunks),
        #[cfg(feature = "anthropic")]
        "anthropic" => super::anthropic::decode_stream(chunks),
        #[cfg(feature = "gemini")]
        "gemini" => super::gemini::decode_stream(chunks),
        other => Err(AgentError::Config(format!(
            "no adapter for provider `{other}` in this build; use `openai` or `openai-responses` (feature `openai`), `anthropic` or `gemini` (each behind its feature of the same name)"
        ))),
    }
}
