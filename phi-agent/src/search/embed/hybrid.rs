//! The lexical and the semantic ranking (or two semantic rankings, from two models) fused into
//! one: by their scores, each divided by its ranking's best (the default, chosen on the held-out
//! tuning parts for one static model), or by reciprocal rank fusion, `Σ weight / (k + rank)` over
//! the rankings that found a tool.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Embedder, EmbeddingCache, SemanticIndex, SemanticSearch};
use crate::error::{AgentError, AgentResult};
use crate::registry::ToolRegistry;
use crate::search::{SearchHit, ToolIndex, interleave, steps};

/// How a [`HybridIndex`] turns its two rankings into one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Fusion {
    /// Each tool's lexical score divided by the best lexical score of the query, and its
    /// cosine similarity divided by the best one, summed with the weights. Keeps how far apart
    /// the candidates are, which ranks alone lose: on the held-out tuning parts it scored 0.792
    /// mean recall@5 against reciprocal rank fusion's best 0.783.
    #[default]
    Scores,
    /// Reciprocal rank fusion: `weight / (k + rank)` summed over the rankings that found a
    /// tool ([`HybridConfig::rrf_k`]). Needs no scores, so it fuses rankings of any kind.
    ReciprocalRank,
}

/// How a [`HybridIndex`] fuses its two rankings.
///
/// ```
/// use phi_agent::search::{Fusion, HybridConfig};
/// let config = HybridConfig::default()
///     .with_fusion(Fusion::ReciprocalRank)
///     .with_rrf_k(30.0)
///     .with_semantic_weight(2.0);
/// assert_eq!(config.candidates, 50);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct HybridConfig {
    /// How the rankings are fused. Default: [`Fusion::Scores`].
    pub fusion: Fusion,
    /// Reciprocal rank fusion's constant (used by [`Fusion::ReciprocalRank`] only): higher
    /// flattens the difference between ranks. Default: 60, the method's authors' value. On the
    /// held-out tuning parts, with `phi-agent-embed`'s static model, the best reciprocal rank
    /// fusion was k 1 with semantic weight 0.5 (mean recall@5 0.783), and k from 1 to 100
    /// moved it by under 0.02; fusion by scores did better, so it is the default.
    pub rrf_k: f32,
    /// How deep each ranking is read before fusing. Default: 50.
    pub candidates: usize,
    /// Weight of the lexical ranking. Default: 1.
    pub lexical_weight: f32,
    /// Weight of the semantic ranking. Default: 0.43 (with [`Fusion::Scores`], lexical 0.7 to
    /// semantic 0.3: the best of 0 to 0.6 in steps of 0.1 on the held-out tuning parts).
    pub semantic_weight: f32,
    /// Weight of the second semantic ranking, when the index has one
    /// ([`SemanticSearch::with_second`](super::SemanticSearch::with_second)). Default: 0.5, with `phi-agent-embed`'s static model second
    /// to its sentence-transformer (see [`HybridConfig::three_rankings`]).
    pub second_weight: f32,
    /// Whether the tools a best fused result needs first join the results, each just below it:
    /// the tool one of its parameters' docs names as the value's source (`` `dest_id` from
    /// `searchDestination` ``), or the one whose name says what an identifier parameter
    /// identifies (`find_artist` for `artistId`). The lexical ranking does the same with its own
    /// results (see [`ToolIndex`]). Default: on. On the held-out tuning parts it raised mean
    /// recall@5 from 0.748 to 0.794 with the static model, 0.773 to 0.806 with three rankings
    /// and 0.756 to 0.789 with all-MiniLM-L6-v2, no set more than 0.003 lower.
    pub producer_links: bool,
}

impl Default for HybridConfig {
    fn default() -> Self {
        Self {
            fusion: Fusion::Scores,
            rrf_k: 60.0,
            candidates: 50,
            lexical_weight: 1.0,
            semantic_weight: 0.43,
            second_weight: 0.5,
            producer_links: true,
        }
    }
}

impl HybridConfig {
    /// Sets [`fusion`](Self::fusion).
    pub fn with_fusion(mut self, fusion: Fusion) -> Self {
        self.fusion = fusion;
        self
    }

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

    /// Sets [`second_weight`](Self::second_weight).
    pub fn with_second_weight(mut self, weight: f32) -> Self {
        self.second_weight = weight;
        self
    }

    /// Sets [`producer_links`](Self::producer_links).
    pub fn with_producer_links(mut self, on: bool) -> Self {
        self.producer_links = on;
        self
    }

    /// The fusion chosen for `phi-agent-embed`'s `StaticEmbedder` (wordllama) alone with the
    /// words, on the held-out tuning parts: [`Fusion::Scores`], lexical 0.7 to semantic 0.3
    /// (weights 1 and 0.43), 50 candidates each. The same as [`default`](Self::default), and the
    /// fusion of BENCHMARKS.md's "static hybrid" column.
    pub fn static_model() -> Self {
        Self::default()
    }

    /// The fusion chosen for a sentence-transformer alone with the words (`phi-agent-embed`'s
    /// `SentenceEmbedder` with all-MiniLM-L6-v2), on the tuning parts of BFCL and AgentDojo:
    /// reciprocal rank fusion, k 30, weights 1 and 1 (mean recall@5 0.798 against 0.788 for the
    /// best fusion by scores). The fusion of BENCHMARKS.md's "MiniLM hybrid" column, and the one
    /// `SentenceEmbedder` names as its [`Embedder::fusion`].
    pub fn sentence_model() -> Self {
        Self::default()
            .with_fusion(Fusion::ReciprocalRank)
            .with_rrf_k(30.0)
            .with_semantic_weight(1.0)
            .with_second_weight(0.0)
    }

    /// The fusion chosen for three rankings (the words, a contextual model first, a static model
    /// [second](super::SemanticSearch::second)) on the held-out tuning parts, with
    /// `phi-agent-embed`'s `SentenceEmbedder` (all-MiniLM-L6-v2) and `StaticEmbedder` (wordllama):
    /// reciprocal rank fusion, k 10, 50 candidates each, weights 1 (lexical), 0.75 (first) and
    /// 0.5 (second). Mean recall@5 over the four tuning parts 0.773, against 0.756 for the
    /// sentence-transformer alone with the words and 0.742 for the static model alone with them.
    /// A [`SemanticSearch`](super::SemanticSearch) with a second model and no fusion of its own
    /// uses this one.
    pub fn three_rankings() -> Self {
        Self::default()
            .with_fusion(Fusion::ReciprocalRank)
            .with_rrf_k(10.0)
            .with_semantic_weight(0.75)
            .with_second_weight(0.5)
    }
}

/// A linked tool's fused score against the result that links to it ([`HybridConfig::producer_links`]):
/// just below it. Fused scores lie closer together than the lexical ranking's, so the lexical
/// share (0.8) leaves most linked tools out; on the held-out tuning parts, with three rankings
/// (and identifiers linked on all their words, as first built), 0.8 / 0.9 / 0.95 / 0.99 / 1
/// scored 0.788 / 0.797 / 0.802 / 0.804 / 0.805 mean recall@5. At 1 the linked tool ties its
/// result and their order is the registration order's, so not 1.
const FUSED_LINK_SHARE: f32 = 0.99;

/// A [`ToolIndex`] and a [`SemanticIndex`] (or two, from two models:
/// [`SemanticSearch::with_second`]) over the same tools, searched together. Built from a
/// [`SemanticSearch`] setting: [`SemanticSearch::build_index`].
pub struct HybridIndex {
    lexical: ToolIndex,
    semantic: SemanticIndex,
    embedder: Arc<dyn Embedder>,
    second: Option<(SemanticIndex, Arc<dyn Embedder>)>,
    config: HybridConfig,
}

impl std::fmt::Debug for HybridIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HybridIndex")
            .field("tools", &self.lexical.len())
            .field("model", &self.embedder.model())
            .field(
                "second_model",
                &self.second.as_ref().map(|(_, e)| e.model()),
            )
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl HybridIndex {
    /// Indexes the Deferred tools of `registry` both ways, as `search` says: its model (and its
    /// second, if any), fused by [`SemanticSearch::fusion`]. Vectors missing from `cache` are
    /// computed and stored there (see [`SemanticIndex::build`]); one cache holds both models'
    /// vectors apart (its keys name the model).
    /// [`SemanticSearch::build_index`] does the same with the setting's cache file.
    pub async fn build(
        registry: &ToolRegistry,
        search: &SemanticSearch,
        cache: &mut EmbeddingCache,
    ) -> AgentResult<Self> {
        let semantic = SemanticIndex::build(registry, search.embedder.as_ref(), cache).await?;
        let second = match &search.second {
            Some(embedder) => Some((
                SemanticIndex::build(registry, embedder.as_ref(), cache).await?,
                embedder.clone(),
            )),
            None => None,
        };
        Ok(Self {
            lexical: ToolIndex::for_fusion(registry),
            semantic,
            embedder: search.embedder.clone(),
            second,
            config: search.fusion(),
        })
    }

    /// The `limit` tools that best match `query`, best first; the query is embedded first. A
    /// query that lists several [`steps`](crate::search::steps) is searched step by step (each
    /// step embedded, all in one call per model), the steps' results taking turns.
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
        let steps = steps(query);
        let texts: &[&str] = if steps.len() == 1 { &[query] } else { &steps };
        let vectors = embed_texts(self.embedder.as_ref(), texts).await?;
        let second = match &self.second {
            Some((_, embedder)) => Some(embed_texts(embedder.as_ref(), texts).await?),
            None => None,
        };
        let mut rankings: Vec<Vec<SearchHit>> = texts
            .iter()
            .zip(&vectors)
            .enumerate()
            .map(|(step, (text, vector))| {
                let second = second.as_ref().map(|vectors| vectors[step].as_slice());
                self.fuse_both(text, vector, second, limit, &accept)
            })
            .collect();
        if rankings.len() == 1 {
            return Ok(rankings.remove(0));
        }
        Ok(interleave(rankings, limit))
    }

    /// The fused ranking for `query` and its vector (the first model's; a second ranking, if
    /// any, is left out: see [`fuse_both`](Self::fuse_both)).
    pub fn fuse(
        &self,
        query: &str,
        vector: &[f32],
        limit: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<SearchHit> {
        self.fuse_both(query, vector, None, limit, accept)
    }

    /// The fused ranking for `query`, its vector from the first model and, when the index has a
    /// [second](Self::second) one, `second`: its vector from that model (`None` leaves the
    /// second ranking out).
    pub fn fuse_both(
        &self,
        query: &str,
        vector: &[f32],
        second: Option<&[f32]>,
        limit: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<SearchHit> {
        let depth = self.config.candidates.max(limit);
        let c = self.config;
        let lexical = self.lexical.search_unlinked(query, depth, &accept);
        let semantic = self.semantic.search_vector(vector, depth, &accept);
        let second = match (&self.second, second) {
            (Some((index, _)), Some(vector)) => index.search_vector(vector, depth, &accept),
            _ => Vec::new(),
        };
        let mut fused: HashMap<usize, f32> = HashMap::new();
        match c.fusion {
            Fusion::ReciprocalRank => {
                let rrf = |weight: f32, rank: usize| weight / (c.rrf_k + rank as f32 + 1.0);
                for (rank, hit) in lexical.iter().enumerate() {
                    *fused.entry(hit.index).or_default() += rrf(c.lexical_weight, rank);
                }
                for (rank, (index, _)) in semantic.iter().enumerate() {
                    *fused.entry(*index).or_default() += rrf(c.semantic_weight, rank);
                }
                for (rank, (index, _)) in second.iter().enumerate() {
                    *fused.entry(*index).or_default() += rrf(c.second_weight, rank);
                }
            }
            Fusion::Scores => {
                // Both lists are best first; a best of zero (or less) leaves the scores as
                // they are rather than dividing by it.
                let scale = |best: Option<f32>| match best {
                    Some(best) if best > 0.0 && best.is_finite() => 1.0 / best,
                    _ => 1.0,
                };
                let lexical_scale = c.lexical_weight * scale(lexical.first().map(|h| h.score));
                let semantic_scale = c.semantic_weight * scale(semantic.first().map(|h| h.1));
                let second_scale = c.second_weight * scale(second.first().map(|h| h.1));
                for hit in &lexical {
                    *fused.entry(hit.index).or_default() += hit.score * lexical_scale;
                }
                for (index, similarity) in &semantic {
                    *fused.entry(*index).or_default() += similarity * semantic_scale;
                }
                for (index, similarity) in &second {
                    *fused.entry(*index).or_default() += similarity * second_scale;
                }
            }
        }
        let mut ranked: Vec<(usize, f32)> = fused.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if c.producer_links {
            self.lexical
                .lift_producers(&mut ranked, FUSED_LINK_SHARE, &accept);
        }
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
                    step: 0,
                })
            })
            .collect()
    }

    /// How the two rankings are fused.
    pub fn config(&self) -> HybridConfig {
        self.config
    }

    /// Changes how the two rankings are fused, keeping both indexes (trying settings needs no
    /// rebuild).
    pub fn set_config(&mut self, config: HybridConfig) {
        self.config = config;
    }

    /// The lexical index.
    pub fn lexical(&self) -> &ToolIndex {
        &self.lexical
    }

    /// The semantic index.
    pub fn semantic(&self) -> &SemanticIndex {
        &self.semantic
    }

    /// The second semantic index, when there is one ([`SemanticSearch::with_second`]).
    pub fn second(&self) -> Option<&SemanticIndex> {
        self.second.as_ref().map(|(index, _)| index)
    }
}

/// One vector per text from `embedder` (a query, or its steps), in batches of its size.
async fn embed_texts(embedder: &dyn Embedder, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
    let mut all = Vec::with_capacity(texts.len());
    for batch in texts.chunks(embedder.max_batch().max(1)) {
        let vectors = embedder.embed(batch).await?;
        if vectors.len() != batch.len() {
            return Err(AgentError::InvalidResponse {
                provider: "embedder",
                message: format!("{} vectors for {} queries", vectors.len(), batch.len()),
            });
        }
        all.extend(vectors);
    }
    Ok(all)
}
