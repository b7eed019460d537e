//! Hybrid search as an agent's setting: the embedder, how its ranking is fused with the words,
//! and where tool vectors are kept between runs; and the index built from it.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Embedder, EmbeddingCache, HybridConfig, HybridIndex};
use crate::error::{AgentError, AgentResult};
use crate::registry::ToolRegistry;

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
    /// The [`EmbeddingCache`] file the tool vectors are read from and saved to (a file that
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

    /// The hybrid index of `registry`'s Deferred tools, as an agent with this setting builds
    /// it: vectors read from the [`cache_file`](Self::cache_file) where their tool's text is
    /// unchanged, the others embedded, the file saved again (a file that cannot be written is
    /// logged, not an error: the index stands without it). Fails when the file is not a cache,
    /// or the embedder fails.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use phi_agent::registry::ToolRegistry;
    /// use phi_agent::search::{Embedder, SemanticSearch};
    /// # use phi_agent::{AgentResult, Content, Tool, ToolContext, ToolExposure};
    /// # use serde_json::{json, Value};
    /// # struct T(&'static str, &'static str);
    /// # #[async_trait::async_trait]
    /// # impl Tool for T {
    /// #     fn name(&self) -> &'static str { self.0 }
    /// #     fn description(&self) -> &'static str { self.1 }
    /// #     fn schema(&self) -> Value { json!({"type": "object"}) }
    /// #     fn exposure(&self) -> ToolExposure { ToolExposure::Deferred }
    /// #     async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> { Ok(vec![]) }
    /// # }
    /// /// Knows one thing: whether a text is about money.
    /// struct Money;
    ///
    /// #[async_trait::async_trait]
    /// impl Embedder for Money {
    ///     fn model(&self) -> &str {
    ///         "money-1"
    ///     }
    ///     async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
    ///         let about = |t: &str| ["pay", "owe", "money"].iter().any(|w| t.contains(w));
    ///         Ok(texts.iter().map(|t| vec![about(t) as u8 as f32, 1.0]).collect())
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> AgentResult<()> {
    /// let mut registry = ToolRegistry::default();
    /// registry.register(T("read_file", "Read a file from the disk."))?;
    /// registry.register(T("send_money", "Pay someone from the account."))?;
    /// let index = SemanticSearch::new(Arc::new(Money)).build_index(&registry).await?;
    /// // No word of the query is in `send_money`'s text; the model knows what it is about.
    /// let hits = index.search("settle what I owe", 1).await?;
    /// assert_eq!(hits[0].name, "send_money");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn build_index(&self, registry: &ToolRegistry) -> AgentResult<HybridIndex> {
        let mut cache = match &self.cache_file {
            Some(path) => EmbeddingCache::open(path)
                .map_err(|error| AgentError::Config(format!("tool embedding cache: {error}")))?,
            None => EmbeddingCache::in_memory(),
        };
        let index = HybridIndex::build(registry, self, &mut cache).await?;
        if let Err(error) = cache.save() {
            tracing::warn!(%error, "tool embedding cache not saved");
        }
        Ok(index)
    }
}
