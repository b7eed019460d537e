//! The providers' embedding endpoints as [`Embedder`]s, for hybrid tool search: OpenAI's
//! `/v1/embeddings` (feature `openai`) and Gemini's `batchEmbedContents` (feature `gemini`).
//! They share the chat adapters' HTTP side: the timeout, the retries that honour `Retry-After`,
//! the key kept out of errors and logs.

use async_trait::async_trait;
use reqwest::header::HeaderMap;
use serde::Serialize;
use serde_json::Value;

use super::HttpConfig;
use super::adapter::AdapterCore;
use crate::error::{AgentError, AgentResult};
use crate::search::Embedder;

/// The vectors of a reply's list, each read as numbers: an error names what is missing.
fn vectors(
    provider: &'static str,
    items: Option<&Vec<Value>>,
    field: &str,
    expected: usize,
) -> AgentResult<Vec<Vec<f32>>> {
    let invalid = |message: String| AgentError::InvalidResponse { provider, message };
    let items = items.ok_or_else(|| invalid("no list of embeddings in the reply".into()))?;
    if items.len() != expected {
        return Err(invalid(format!(
            "{} embeddings for {expected} texts",
            items.len()
        )));
    }
    items
        .iter()
        .map(|item| {
            item.get(field)
                .and_then(Value::as_array)
                .ok_or_else(|| invalid(format!("an embedding without `{field}`")))?
                .iter()
                .map(|value| {
                    value
                        .as_f64()
                        .map(|v| v as f32)
                        .ok_or_else(|| invalid(format!("a value that is not a number: {value}")))
                })
                .collect()
        })
        .collect()
}

/// Setters both embedders share: base URL, HTTP policy, dimensions.
macro_rules! embedder_setters {
    ($base_url:literal) => {
        #[doc = concat!("Sends requests to `base_url` instead (", $base_url, "); a trailing `/` is dropped.")]
        pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
            self.core.set_base_url(base_url.into());
            self
        }

        /// Uses `config` for timeouts and retries.
        pub fn with_http_config(mut self, config: HttpConfig) -> Self {
            self.core.http.config = config;
            self
        }

        /// Sends every request through `transport` instead of reqwest's (a cassette's recorder
        /// or replayer); timeouts and retries stay this embedder's.
        pub fn with_http_transport(
            mut self,
            transport: ::std::sync::Arc<dyn $crate::llm::HttpTransport>,
        ) -> Self {
            self.core.http.transport = transport;
            self
        }

        /// Asks for vectors of `dimensions` numbers (the models that can shorten theirs);
        /// default: the model's own length. Part of the model's name in cache keys, so vectors
        /// of two lengths never mix.
        pub fn with_dimensions(mut self, dimensions: u32) -> Self {
            self.dimensions = Some(dimensions);
            self.name = format!("{}@{dimensions}", self.core.model);
            self
        }

        /// The base URL requests go to.
        pub fn base_url(&self) -> &str {
            &self.core.base_url
        }
    };
}

/// OpenAI's embeddings endpoint (`POST {base}/embeddings`, or any server that speaks it).
///
/// ```
/// use std::sync::Arc;
/// use phi_agent::llm::OpenAiEmbedder;
/// use phi_agent::search::{Embedder, SemanticSearch};
/// let embedder = OpenAiEmbedder::new("sk-...", OpenAiEmbedder::DEFAULT_MODEL)?.with_dimensions(256);
/// assert_eq!(embedder.model(), "text-embedding-3-small@256");
/// let search = SemanticSearch::new(Arc::new(embedder));
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[cfg(feature = "openai")]
#[derive(Clone)]
pub struct OpenAiEmbedder {
    core: AdapterCore,
    dimensions: Option<u32>,
    name: String,
}

#[cfg(feature = "openai")]
impl std::fmt::Debug for OpenAiEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.core
            .debug(f, "OpenAiEmbedder")
            .field("dimensions", &self.dimensions)
            .finish()
    }
}

#[cfg(feature = "openai")]
impl OpenAiEmbedder {
    /// The model used by [`new`](Self::new)'s callers who have no preference.
    pub const DEFAULT_MODEL: &'static str = "text-embedding-3-small";

    /// An embedder for `model` using `api_key`, against the public API.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> AgentResult<Self> {
        let model = model.into();
        Ok(Self {
            core: AdapterCore::new(
                "openai",
                api_key.into(),
                model.clone(),
                super::OpenAiClient::DEFAULT_BASE_URL,
            )?,
            dimensions: None,
            name: model,
        })
    }

    embedder_setters!("e.g. `http://localhost:11434/v1`, with the `/v1`");

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        format!("{}/embeddings", self.core.base_url)
    }

    /// The JSON body posted for `texts`.
    pub fn request_body(&self, texts: &[&str]) -> Value {
        // Serializing strings and numbers to a `Value` cannot fail.
        serde_json::to_value(self.body(texts)).unwrap_or_default()
    }

    fn body<'a>(&'a self, texts: &'a [&'a str]) -> OpenAiEmbeddingsBody<'a> {
        OpenAiEmbeddingsBody {
            model: &self.core.model,
            input: texts,
            encoding_format: "float",
            dimensions: self.dimensions,
        }
    }

    fn headers(&self) -> AgentResult<HeaderMap> {
        let mut headers = HeaderMap::new();
        headers.insert(
            reqwest::header::AUTHORIZATION,
            self.core.key.header("Bearer ")?,
        );
        Ok(headers)
    }
}

#[cfg(feature = "openai")]
#[async_trait]
impl Embedder for OpenAiEmbedder {
    fn model(&self) -> &str {
        &self.name
    }

    async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let reply = self
            .core
            .post(&self.endpoint(), self.headers(), &self.body(texts))
            .await?;
        let mut items = reply.get("data").and_then(Value::as_array).cloned();
        // Each item says which input it embeds; the order of the list is not promised.
        if let Some(items) = &mut items {
            items.sort_by_key(|item| item.get("index").and_then(Value::as_u64));
        }
        vectors("openai", items.as_ref(), "embedding", texts.len())
    }

    /// The endpoint takes up to 2,048 inputs; 256 keeps one request's body and time modest.
    fn max_batch(&self) -> usize {
        256
    }
}

/// Gemini's embeddings (`POST {base}/v1beta/models/{model}:batchEmbedContents`).
///
/// ```
/// use phi_agent::llm::GeminiEmbedder;
/// use phi_agent::search::Embedder;
/// let embedder = GeminiEmbedder::new("AIza...", GeminiEmbedder::DEFAULT_MODEL)?;
/// assert_eq!(embedder.model(), "gemini-embedding-001");
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[cfg(feature = "gemini")]
#[derive(Clone)]
pub struct GeminiEmbedder {
    core: AdapterCore,
    dimensions: Option<u32>,
    name: String,
}

#[cfg(feature = "gemini")]
impl std::fmt::Debug for GeminiEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.core
            .debug(f, "GeminiEmbedder")
            .field("dimensions", &self.dimensions)
            .finish()
    }
}

#[cfg(feature = "gemini")]
impl GeminiEmbedder {
    /// The model used by [`new`](Self::new)'s callers who have no preference.
    pub const DEFAULT_MODEL: &'static str = "gemini-embedding-001";

    /// An embedder for `model` using `api_key`, against the public API.
    pub fn new(api_key: impl Into<String>, model: impl Into<String>) -> AgentResult<Self> {
        let model = model.into();
        Ok(Self {
            core: AdapterCore::new(
                "gemini",
                api_key.into(),
                model.clone(),
                super::GeminiClient::DEFAULT_BASE_URL,
            )?,
            dimensions: None,
            name: model,
        })
    }

    embedder_setters!("the host only, e.g. `http://localhost:8080`: `/v1beta/...` is appended");

    /// The URL requests are posted to.
    pub fn endpoint(&self) -> String {
        format!(
            "{}/v1beta/models/{}:batchEmbedContents",
            self.core.base_url, self.core.model
        )
    }

    /// The JSON body posted for `texts`: one request per text.
    pub fn request_body(&self, texts: &[&str]) -> Value {
        // Serializing strings and numbers to a `Value` cannot fail.
        serde_json::to_value(self.body(texts)).unwrap_or_default()
    }

    fn body<'a>(&self, texts: &'a [&'a str]) -> GeminiEmbeddingsBody<'a> {
        let model = format!("models/{}", self.core.model);
        GeminiEmbeddingsBody {
            requests: texts
                .iter()
                .map(|text| GeminiEmbedRequest {
                    model: model.clone(),
                    content: GeminiEmbedContent {
                        parts: [GeminiTextPart { text }],
                    },
                    output_dimensionality: self.dimensions,
                })
                .collect(),
        }
    }

    fn headers(&self) -> AgentResult<HeaderMap> {
        let mut headers = HeaderMap::new();
        headers.insert("x-goog-api-key", self.core.key.header("")?);
        Ok(headers)
    }
}

#[cfg(feature = "gemini")]
#[async_trait]
impl Embedder for GeminiEmbedder {
    fn model(&self) -> &str {
        &self.name
    }

    async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let reply = self
            .core
            .post(&self.endpoint(), self.headers(), &self.body(texts))
            .await?;
        let items = reply.get("embeddings").and_then(Value::as_array);
        vectors("gemini", items, "values", texts.len())
    }

    /// `batchEmbedContents` takes at most 100 requests.
    fn max_batch(&self) -> usize {
        100
    }
}

/// An `/embeddings` request.
#[cfg(feature = "openai")]
#[derive(Serialize)]
struct OpenAiEmbeddingsBody<'a> {
    model: &'a str,
    input: &'a [&'a str],
    encoding_format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dimensions: Option<u32>,
}

/// A `batchEmbedContents` request: one request per text.
#[cfg(feature = "gemini")]
#[derive(Serialize)]
struct GeminiEmbeddingsBody<'a> {
    requests: Vec<GeminiEmbedRequest<'a>>,
}

#[cfg(feature = "gemini")]
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GeminiEmbedRequest<'a> {
    model: String,
    content: GeminiEmbedContent<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_dimensionality: Option<u32>,
}

#[cfg(feature = "gemini")]
#[derive(Serialize)]
struct GeminiEmbedContent<'a> {
    parts: [GeminiTextPart<'a>; 1],
}

#[cfg(feature = "gemini")]
#[derive(Serialize)]
struct GeminiTextPart<'a> {
    text: &'a str,
}
