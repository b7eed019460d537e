//! The lexical and the semantic ranking fused by reciprocal rank fusion: a tool's score is
//! `Σ weight / (k + rank)` over the rankings that found it, so neither ranking's raw scores
//! (BM25's unbounded sums, cosine similarities) need to be made comparable.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Embedder, EmbeddingCache, SemanticIndex};
use crate::error::{AgentError, AgentResult};
use crate::registry::ToolRegistry;
use crate::search::{SearchHit, ToolIndex};

/// How a [`HybridIndex`] fuses its two rankings.
///
/// ```
/// use phi_agent::search::HybridConfig;
/// let config = HybridConfig::default().with_rrf_k(30.0).with_semantic_weight(2.0);
/// assert_eq!(config.candidates, 50);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct HybridConfig {
    /// Reciprocal rank fusion's constant: higher flattens the difference between ranks.
    /// Default: 60, the value of the method's authors (no embedding model ships with the
    /// crate, so it has not been chosen on the held-out sets).
    pub rrf_k: f32,
    /// How deep each ranking is read before fusing. Default: 50.
    pub candidates: usize,
    /// Weight of the lexical ranking. Default: 1.
    pub lexical_weight: f32,
    /// Weight of the semantic ranking. Default: 1.
    pub semantic_weight: f32,
}

impl Default for HybridConfig {
    fn default() -> Self {
        Self {
            rrf_k: 60.0,
            candidates: 50,
            lexical_weight: 1.0,
            semantic_weight: 1.0,
        }
    }
}

impl HybridConfig {
    /// Sets [`rrf_k`](Self::rrf_k).
    pub fn with_rrf_k(mut self, rrf_k: f32) -> Self {
        self.rrf_k = rrf_k;
        self
    }

    /// Sets [`candidates`](Self::candidates).
    pub fn with_candidates(mut self, candidates: usize) -> Self {
        self.candidates = candidates;
        self
    }

    /// Sets [`lexical_weight`](Self::lexical_weight).
    pub fn with_lexical_weight(mut self, weight: f32) -> Self {
        self.lexical_weight = weight;
        self
    }

    /// Sets [`semantic_weight`](Self::semantic_weight).
    pub fn with_semantic_weight(mut self, weight: f32) -> Self {
        self.semantic_weight = weight;
        self
    }
}

/// A [`ToolIndex`] and a [`SemanticIndex`] over the same tools, searched together.
pub struct HybridIndex {
    lexical: ToolIndex,
    semantic: SemanticIndex,
    embedder: Arc<dyn Embedder>,
    config: HybridConfig,
}

impl std::fmt::Debug for HybridIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HybridIndex")
            .field("tools", &self.lexical.len())
            .field("model", &self.embedder.model())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl HybridIndex {
    /// Indexes the Deferred tools of `registry` both ways; vectors missing from `cache` are
    /// computed by `embedder` and stored there (see [`SemanticIndex::build`]).
    pub async fn build(
        registry: &ToolRegistry,
        embedder: Arc<dyn Embedder>,
        cache: &mut EmbeddingCache,
        config: HybridConfig,
    ) -> AgentResult<Self> {
        let semantic = SemanticIndex::build(registry, embedder.as_ref(), cache).await?;
        Ok(Self {
            lexical: ToolIndex::build(registry),
            semantic,
            embedder,
            config,
        })
    }

    /// The `limit` tools that best match `query`, best first; the query is embedded first.
    pub async fn search(&self, query: &str, limit: usize) -> AgentResult<Vec<SearchHit>> {
        self.search_where(query, limit, |_| true).await
    }

    /// [`search`](Self::search) among the tools whose registration index `accept` lets through.
    pub async fn search_where(
        &self,
        query: &str,
        limit: usize,
        accept: impl Fn(usize) -> bool,
    ) -> AgentResult<Vec<SearchHit>> {
        let vectors = self.embedder.embed(&[query]).await?;
        let [vector] = vectors.as_slice() else {
            return Err(AgentError::InvalidResponse {
                provider: "embedder",
                message: format!("{} vectors for one query", vectors.len()),
            });
        };
        Ok(self.fuse(query, vector, limit, accept))
    }

    /// The fused ranking for `query` and its vector.
    pub fn fuse(
        &self,
        query: &str,
        vector: &[f32],
        limit: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<SearchHit> {
        let depth = self.config.candidates.max(limit);
        let c = self.config;
        let mut fused: HashMap<usize, f32> = HashMap::new();
        for (rank, hit) in self
            .lexical
            .search_where(query, depth, &accept)
            .iter()
            .enumerate()
        {
            *fused.entry(hit.index).or_default() +=
                c.lexical_weight / (c.rrf_k + rank as f32 + 1.0);
        }
        for (rank, (index, _)) in self
            .semantic
            .search_vector(vector, depth, &accept)
            .iter()
            .enumerate()
        {
            *fused.entry(*index).or_default() += c.semantic_weight / (c.rrf_k + rank as f32 + 1.0);
        }
        let mut ranked: Vec<(usize, f32)> = fused.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
            .into_iter()
            .filter_map(|(index, score)| {
                let (_, name, description) = self.lexical.tool(index)?;
                Some(SearchHit {
                    name,
                    description,
                    score,
                    index,
                })
            })
            .collect()
    }

    /// The lexical index.
    pub fn lexical(&self) -> &ToolIndex {
        &self.lexical
    }

    /// The semantic index.
    pub fn semantic(&self) -> &SemanticIndex {
        &self.semantic
    }
}
