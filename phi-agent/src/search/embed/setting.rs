//! Hybrid search as an agent's setting: the embedder, how its ranking is fused with the words,
//! and where tool vectors are kept between runs (the index built from it:
//! [`SemanticSearch::build_index`], beside the index).

use std::path::PathBuf;
use std::sync::Arc;

use super::{Embedder, HybridConfig};

/// Hybrid ranking for an agent's `search_tools`
/// ([`AgentBuilder::semantic_search`](crate::AgentBuilder::semantic_search)), or for a harness
/// of its own ([`build_index`](Self::build_index)): the Deferred tools are embedded once per
/// index (vectors read from [`cache_file`](Self::cache_file) when their tool's text is
/// unchanged), and each search embeds its query. In an agent, should the embedder fail, the
/// search answers from the words alone and says so in the log; the tool vectors are tried again
/// on the next search. A search is no journaled step (a durable run's replay searches again): a
/// local model answers a replay the same, a provider's endpoint as long as it serves the same
/// model.
///
/// The fusion is the one tuned for the setting unless [`with_config`](Self::with_config) sets
/// one ([`fusion`](Self::fusion)): with a second model, [`HybridConfig::three_rankings`];
/// otherwise the model's own ([`Embedder::fusion`]).
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
/// let search = SemanticSearch::new(Arc::new(Model)).with_cache_file("target/tool-embeddings.bin");
/// assert_eq!(search.fusion(), HybridConfig::static_model(), "the model's own");
/// let search = search.with_second(Arc::new(Model));
/// assert_eq!(search.fusion(), HybridConfig::three_rankings(), "tuned for two models");
/// let search = search.with_config(HybridConfig::three_rankings().with_candidates(30));
/// assert_eq!(search.fusion().candidates, 30, "set, it is kept");
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct SemanticSearch {
    /// Turns tool texts and queries into vectors.
    pub embedder: Arc<dyn Embedder>,
    /// How the rankings are fused; `None` (the default) takes the one tuned for the setting
    /// ([`fusion`](Self::fusion)).
    pub config: Option<HybridConfig>,
    /// The [`EmbeddingCache`](super::EmbeddingCache) file the tool vectors are read from and saved to (a file that
    /// several settings share keeps each model's vectors). Default: none (vectors kept in
    /// memory, computed again by each new index).
    pub cache_file: Option<PathBuf>,
    /// A second model whose ranking is fused too (weighted by [`HybridConfig::second_weight`]).
    /// Default: none.
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
    /// Hybrid search with `embedder`, its tuned fusion and no cache file.
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        Self {
            embedder,
            config: None,
            cache_file: None,
            second: None,
        }
    }

    /// Sets [`second`](Self::second). Unless [`with_config`](Self::with_config) sets another,
    /// the fusion is then [`HybridConfig::three_rankings`].
    pub fn with_second(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.second = Some(embedder);
        self
    }

    /// Sets [`config`](Self::config): this fusion, whatever the models.
    pub fn with_config(mut self, config: HybridConfig) -> Self {
        self.config = Some(config);
        self
    }

    /// Sets [`cache_file`](Self::cache_file).
    pub fn with_cache_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.cache_file = Some(path.into());
        self
    }

    /// The fusion an index built from this setting uses: [`config`](Self::config) when set;
    /// else, with a second model, [`HybridConfig::three_rankings`] (the fusion the published
    /// figures for two models used); else the model's [`Embedder::fusion`].
    pub fn fusion(&self) -> HybridConfig {
        match (self.config, &self.second) {
            (Some(config), _) => config,
            (None, Some(_)) => HybridConfig::three_rankings(),
            (None, None) => self.embedder.fusion(),
        }
    }
}
