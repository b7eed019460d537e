//! The model side of an agent: the [`LlmClient`] trait, the conversation types it speaks, and
//! the adapters: `OpenAiClient` and `ResponsesClient` (feature `openai`: chat completions and the
//! Responses API), `AnthropicClient` (feature `anthropic`), `GeminiClient` (feature `gemini`) and
//! the offline [`ScriptedLlm`]; [`definition`] builds each provider's tool objects. The
//! providers' embedding endpoints, for hybrid tool search: `OpenAiEmbedder` and `GeminiEmbedder`.

#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod adapter;
#[cfg(feature = "anthropic")]
mod anthropic;
mod cache;
#[cfg(all(
    test,
    any(feature = "openai", feature = "anthropic", feature = "gemini")
))]
mod cache_usage_tests;
pub mod definition;
#[cfg(any(feature = "openai", feature = "gemini"))]
mod embeddings;
#[cfg(feature = "gemini")]
mod gemini;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod http;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
// Each adapter uses the readers its provider needs: a build with one adapter leaves some unused.
#[cfg_attr(
    not(all(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code)
)]
mod lenient;
mod message;
#[cfg(feature = "openai")]
mod openai;
#[cfg(feature = "openai")]
mod responses;
mod scripted;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod settings;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod sse;
mod stream;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod tool_cache;
#[cfg(any(
    feature = "openai",
    feature = "anthropic",
    feature = "gemini",
    feature = "mcp-http-client"
))]
mod transport;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod wire;

use std::sync::Arc;

use async_trait::async_trait;
use futures_util::StreamExt;

use crate::error::AgentResult;

pub use crate::message::{Message, ProviderState, ToolCall, ToolSearchCall};
pub use crate::registry::ToolSpec;
#[cfg(feature = "anthropic")]
#[cfg_attr(docsrs, doc(cfg(feature = "anthropic")))]
pub use anthropic::{AnthropicClient, CodeExecutionVersion, ContextEditing};
pub use cache::PromptCache;
#[cfg(feature = "gemini")]
#[cfg_attr(docsrs, doc(cfg(feature = "gemini")))]
pub use embeddings::GeminiEmbedder;
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use embeddings::OpenAiEmbedder;
#[cfg(feature = "gemini")]
#[cfg_attr(docsrs, doc(cfg(feature = "gemini")))]
pub use gemini::{GeminiCache, GeminiClient, GeminiSchemaForm};
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "openai", feature = "anthropic", feature = "gemini")))
)]
pub use http::HttpConfig;
pub use message::{LlmRequest, LlmResponse, StopReason, Usage};
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use openai::OpenAiClient;
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use responses::ResponsesClient;
pub use scripted::ScriptedLlm;
pub use stream::{DeltaStream, StreamDelta};
#[cfg(any(
    feature = "openai",
    feature = "anthropic",
    feature = "gemini",
    feature = "mcp-http-client"
))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(
        feature = "openai",
        feature = "anthropic",
        feature = "gemini",
        feature = "mcp-http-client"
    )))
)]
pub use transport::{
    HttpBody, HttpError, HttpHeader, HttpMethod, HttpReply, HttpRequest, HttpTransport,
    ReqwestTransport,
};
#[doc(hidden)]
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub use wire::parse_response_body;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "openai", feature = "anthropic", feature = "gemini")))
)]
pub use wire::parse_stream_body;

/// A chat model that can call tools. Object safe: agents hold an `Arc<dyn LlmClient>`.
#[async_trait]
pub trait LlmClient: Send + Sync {
    /// Sends one request (system prompt, history, visible tools) and returns the model's reply.
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse>;

    /// Sends one request and yields the reply as it is written, ending with
    /// [`StreamDelta::Done`]. Dropping the stream abandons the request.
    ///
    /// The default waits for [`complete`](Self::complete) and yields its reply in one piece per
    /// text and per call, so every model streams; the HTTP adapters stream from the wire.
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse, ScriptedLlm, StreamDelta};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let llm = ScriptedLlm::new([LlmResponse::text("hello")]).with_pieces(2);
    /// let request = LlmRequest::default();
    /// let deltas: Vec<_> = llm.stream(&request).collect().await;
    /// assert_eq!(deltas[0].as_ref().unwrap(), &StreamDelta::Text("he".into()));
    /// assert_eq!(deltas.len(), 4, "he, ll, o, done");
    /// # }
    /// ```
    fn stream<'a>(&'a self, request: &'a LlmRequest) -> DeltaStream<'a> {
        whole_reply(self.complete(request), usize::MAX)
    }

    /// The provider's name for telemetry (`gen_ai.provider.name`), e.g. `openai`.
    fn provider(&self) -> &str {
        "custom"
    }

    /// The model's name for telemetry (`gen_ai.request.model`).
    fn model(&self) -> &str {
        "unknown"
    }

    /// Whether this client sends [`LlmRequest::deferred_tools`] to a tool search of its
    /// provider's own (and reports its searches in [`LlmResponse::tool_searches`]). Default:
    /// `false`, and [`ToolSearch::Native`](crate::ToolSearch::Native) then uses the local search.
    fn native_tool_search(&self) -> bool {
        false
    }

    /// Whether this client sends [`LlmRequest::response_format`] as the provider's structured
    /// output, so that the reply's text follows that schema. Default: `false`, and a typed run
    /// in [`AnswerMode::Native`](crate::AnswerMode::Native) then offers its final-answer tool
    /// instead.
    fn structured_output(&self) -> bool {
        false
    }

    /// Whether this client offers tools to code the model writes on the provider's side
    /// (programmatic tool calling: Anthropic's code execution, the Responses API's), marking
    /// each tool with who may call it ([`ToolSpec::callers`]). Default: `false`, and a tool
    /// that only code may call ([`ToolCallers::Code`](crate::ToolCallers::Code)) is then left
    /// out of the model's tools, and a direct call of it refused; with `true` it is sent, and
    /// the provider keeps the model from calling it directly.
    fn programmatic_tool_calling(&self) -> bool {
        false
    }
}

/// A shared model is a model, so a client chosen at run time (`Arc<dyn LlmClient>`) can be
/// handed to [`base_agent_builder`](crate::base_agent_builder).
#[async_trait]
impl<T: LlmClient + ?Sized> LlmClient for Arc<T> {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        (**self).complete(request).await
    }

    fn stream<'a>(&'a self, request: &'a LlmRequest) -> DeltaStream<'a> {
        (**self).stream(request)
    }

    fn provider(&self) -> &str {
        (**self).provider()
    }

    fn model(&self) -> &str {
        (**self).model()
    }

    fn native_tool_search(&self) -> bool {
        (**self).native_tool_search()
    }

    fn structured_output(&self) -> bool {
        (**self).structured_output()
    }

    fn programmatic_tool_calling(&self) -> bool {
        (**self).programmatic_tool_calling()
    }
}

/// A boxed model is a model.
#[async_trait]
impl<T: LlmClient + ?Sized> LlmClient for Box<T> {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        (**self).complete(request).await
    }

    fn stream<'a>(&'a self, request: &'a LlmRequest) -> DeltaStream<'a> {
        (**self).stream(request)
    }

    fn provider(&self) -> &str {
        (**self).provider()
    }

    fn model(&self) -> &str {
        (**self).model()
    }

    fn native_tool_search(&self) -> bool {
        (**self).native_tool_search()
    }

    fn structured_output(&self) -> bool {
        (**self).structured_output()
    }

    fn programmatic_tool_calling(&self) -> bool {
        (**self).programmatic_tool_calling()
    }
}

/// The deltas of the reply `reply` resolves to, cut into pieces of `piece` characters.
pub(crate) fn whole_reply<'a>(
    reply: impl std::future::Future<Output = AgentResult<LlmResponse>> + Send + 'a,
    piece: usize,
) -> DeltaStream<'a> {
    futures_util::stream::once(reply)
        .flat_map(move |reply| {
            let deltas = match reply {
                Ok(response) => stream::split_response(response, piece)
                    .into_iter()
                    .map(Ok)
                    .collect(),
                Err(error) => vec![Err(error)],
            };
            futures_util::stream::iter(deltas)
        })
        .boxed()
}
