//! A streamed `streamGenerateContent`: its chunks read into deltas and the whole reply.

use std::collections::VecDeque;

use super::content::PROVIDER;
use super::reply::{GenerateResponse, Reply};
use crate::error::{AgentError, AgentResult};
use crate::llm::http::ErrorCode;
use crate::llm::sse::{Decoder, Failure, read_event};
use crate::llm::{LlmResponse, StreamDelta};

/// A streamed `streamGenerateContent?alt=sse`: one chunk per event, no closing event; the reply
/// is complete once a chunk has said why it finished and the body ends.
#[derive(Default)]
pub(super) struct GeminiStream(Reply);

impl Decoder for GeminiStream {
    fn feed(
        &mut self,
        event: &sse_stream::Sse,
        out: &mut VecDeque<StreamDelta>,
    ) -> Result<Option<LlmResponse>, Failure> {
        let data = event.data.as_deref().unwrap_or_default();
        if data.trim().is_empty() {
            return Ok(None);
        }
        let mut chunk: GenerateResponse = read_event(PROVIDER, data)?;
        if let Some(error) = chunk.error.take() {
            // An error after a 200, in the shape of an error body: its code is an HTTP status.
            let status = match error.code {
                ErrorCode::Status(code) => u16::try_from(code).unwrap_or(200),
                _ => 200,
            };
            let message = error
                .describe()
                .unwrap_or_else(|| crate::llm::http::provider_message(data.as_bytes()));
            return Err(Failure::provider(PROVIDER, status, message));
        }
        self.0.read(chunk, Some(out)).map_err(|message| {
            Failure::fatal(AgentError::InvalidResponse {
                provider: PROVIDER,
                message,
            })
        })?;
        Ok(None)
    }

    fn finish(&mut self, _out: &mut VecDeque<StreamDelta>) -> Option<LlmResponse> {
        self.0.finish_reason.is_some().then(|| self.0.finish())
    }
}

/// A streamed body in memory, read as [`LlmClient::stream`](crate::llm::LlmClient::stream) reads the network's.
pub(crate) fn decode_stream(chunks: &[&[u8]]) -> AgentResult<Vec<StreamDelta>> {
    crate::llm::sse::decode_body::<GeminiStream>(PROVIDER, chunks)
}
