//! Hybrid search as an agent's setting: the embedder, how its ranking is fused with the words,
//! and where tool vectors are kept between runs.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Embedder, HybridConfig};

/// Hybrid ranking for an agent's `search_tools`
/// ([`AgentBuilder::semantic_search`](crate::AgentBuilder::semantic_search)): the Deferred
/// tools are embedded once per agent, on its first search (vectors read from
/// [`cache_file`](Self::cache_file) when their tool's text is unchanged), and each search embeds
/// its query. Should the embedder fail, the search answers from the words alone and says so in
/// the log; the tool vectors are tried again on the next search. A search is no journaled step
/// (a durable run's replay searches again): a local model answers a replay the same, a provider's
/// endpoint as long as it serves the same model.
///
/// ```
/// use std::sync::Arc;
/// use phi_agent::search::{Embedder, HybridConfig, SemanticSearch};
/// # struct Model;
/// # #[async_trait::async_trait]
/// # impl Embedder for Model {
/// #     fn model(&self) -> &str { "m" }
/// #     async fn embed(&self, t: &[&str]) -> phi_agent::AgentResult<Vec<Vec<f32>>> { Ok(t.iter().map(|_| vec![1.0]).collect()) }
/// # }
/// let search = SemanticSearch::new(Arc::new(Model))
///     .with_cache_file("target/tool-embeddings.bin")
///     .with_config(HybridConfig::default().with_candidates(30));
/// assert_eq!(search.config.candidates, 30);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct SemanticSearch {
    /// Turns tool texts and queries into vectors.
    pub embedder: Arc<dyn Embedder>,
    /// How the two rankings are fused. Default: [`HybridConfig::default`].
    pub config: HybridConfig,
    /// The [`EmbeddingCache`](super::EmbeddingCache) file the tool vectors are read from and
    /// saved to. Default: none (vectors kept in memory, computed again by each new agent).
    pub cache_file: Option<PathBuf>,
    /// A second model whose ranking is fused too
    /// ([`HybridIndex::with_second`](super::HybridIndex::with_second), weighted by
    /// [`HybridConfig::second_weight`]). Default: none.
    pub second: Option<Arc<dyn Embedder>>,
}

impl std::fmt::Debug for SemanticSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SemanticSearch")
            .field("model", &self.embedder.model())
            .field("config", &self.config)
            .field("cache_file", &self.cache_file)
            .field("second_model", &self.second.as_ref().map(|e| e.model()))
            .finish()
    }
}

impl SemanticSearch {
    /// Hybrid search with `embedder`, the default fusion and no cache file.
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        Self {
            embedder,
            config: HybridConfig::default(),
            cache_file: None,
            second: None,
        }
    }

    /// Sets [`second`](Self::second). Pair it with a fusion for three rankings, such as
    /// [`HybridConfig::three_rankings`].
    pub fn with_second(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.second = Some(embedder);
        self
    }

    /// Sets [`config`](Self::config).
    pub fn with_config(mut self, config: HybridConfig) -> Self {
        self.config = config;
        self
    }

    /// Sets [`cache_file`](Self::cache_file).
    pub fn with_cache_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.cache_file = Some(path.into());
        self
    }
}
