//! Semantic retrieval as an option: an [`Embedder`] turns texts into vectors, a
//! [`SemanticIndex`] holds one vector per Deferred tool (computed once per registry, cached on
//! disk by [`EmbeddingCache`] under a hash of the model and the tool's text), and a
//! [`HybridIndex`] fuses its ranking with the lexical [`ToolIndex`](super::ToolIndex) (see
//! [`Fusion`]).
//!
//! The lexical index needs none of this and stays dependency-free. Embedders that call a
//! provider's endpoint belong with the adapters (the `llm` layer sits above this one); a local
//! model would live in a crate of its own, so that the core build does not grow.

mod cache;
mod fusion;
mod hybrid;
mod semantic;
mod setting;

use async_trait::async_trait;

use crate::error::AgentResult;

pub use cache::EmbeddingCache;
pub use fusion::{Fusion, HybridConfig};
pub use hybrid::HybridIndex;
pub use semantic::SemanticIndex;
pub use setting::SemanticSearch;

/// Turns texts into vectors whose cosine similarity says how alike the texts are.
///
/// ```
/// use async_trait::async_trait;
/// use phi_agent::AgentResult;
/// use phi_agent::search::Embedder;
///
/// /// Two dimensions: how much a text talks about weather, and about money.
/// struct Toy;
///
/// #[async_trait]
/// impl Embedder for Toy {
///     fn model(&self) -> &str {
///         "toy-2"
///     }
///     async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
///         Ok(texts
///             .iter()
///             .map(|text| {
///                 let weather = ["rain", "forecast"].iter().filter(|w| text.contains(*w)).count();
///                 let money = ["pay", "invoice"].iter().filter(|w| text.contains(*w)).count();
///                 vec![weather as f32, money as f32]
///             })
///             .collect())
///     }
/// }
/// ```
#[async_trait]
pub trait Embedder: Send + Sync {
    /// The model's name: part of every cache key, so that vectors of two models never mix.
    fn model(&self) -> &str;

    /// One vector per text, in order, all of one length. Called with batches of at most
    /// [`max_batch`](Self::max_batch) texts.
    async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>>;

    /// Most texts one [`embed`](Self::embed) call is given. Default: 64.
    fn max_batch(&self) -> usize {
        64
    }

    /// The fusion of this model's ranking with the words' when it is the only model of a
    /// [`SemanticSearch`] (the one its figures were measured with). Default:
    /// [`HybridConfig::static_model`]; `phi-agent-embed`'s `SentenceEmbedder` answers
    /// [`HybridConfig::sentence_model`].
    fn fusion(&self) -> HybridConfig {
        HybridConfig::static_model()
    }
}
