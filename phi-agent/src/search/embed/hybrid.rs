//! The lexical and the semantic ranking (or two semantic rankings, from two models) fused into
//! one: by their scores, each divided by its ranking's best (the default, chosen on the held-out
//! tuning parts for one static model), or by reciprocal rank fusion, `Σ weight / (k + rank)` over
//! the rankings that found a tool.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Embedder, EmbeddingCache, Fusion, HybridConfig, SemanticIndex, SemanticSearch};
use crate::error::{AgentError, AgentResult};
use crate::registry::ToolRegistry;
use crate::search::{SearchHit, ToolIndex, WRITTEN_STEP, clauses, interleave, steps, with_writer};

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
        // A request of one step that keeps its result in a text file also has the file's writing
        // searched for, embedded in the same call; so are its clauses, when they count.
        let writes = steps.len() == 1 && self.lexical.implies_writing(query);
        let clauses = match steps.len() == 1 {
            true => self.counted_clauses(query),
            false => Vec::new(),
        };
        let mut texts: Vec<&str> = if steps.len() == 1 { vec![query] } else { steps };
        if writes {
            texts.push(WRITTEN_STEP);
        }
        let searched = texts.len();
        texts.extend(&clauses);
        let mut vectors = embed_texts(self.embedder.as_ref(), &texts).await?;
        let clause_vectors = vectors.split_off(searched);
        let second = match &self.second {
            Some((_, embedder)) => Some(embed_texts(embedder.as_ref(), &texts[..searched]).await?),
            None => None,
        };
        let mut rankings: Vec<Vec<SearchHit>> = texts[..searched]
            .iter()
            .zip(&vectors)
            .enumerate()
            .map(|(step, (text, vector))| {
                let second = second.as_ref().map(|vectors| vectors[step].as_slice());
                // The written step's ranking gives one tool; the request's own has its clauses.
                let (limit, clauses) = match writes && step == 1 {
                    true => (1, &[][..]),
                    false => (limit, &clause_vectors[..]),
                };
                self.fuse_with_clauses(text, vector, clauses, second, limit, &accept)
            })
            .collect();
        if writes {
            let writer = rankings.pop().and_then(|r| r.into_iter().next());
            return Ok(with_writer(rankings.remove(0), writer, limit));
        }
        if rankings.len() == 1 {
            return Ok(rankings.remove(0));
        }
        Ok(interleave(rankings, limit))
    }

    /// The clauses of a request of one step that the fusion counts: none when its
    /// [`clause_weight`](HybridConfig::clause_weight) is 0 or the request is one clause.
    fn counted_clauses<'q>(&self, query: &'q str) -> Vec<&'q str> {
        if self.config.clause_weight <= 0.0 {
            return Vec::new();
        }
        let clauses = clauses(query);
        if clauses.len() > 1 {
            clauses
        } else {
            Vec::new()
        }
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
        self.fuse_with_clauses(query, vector, &[], second, limit, accept)
    }

    /// [`fuse_both`](Self::fuse_both) with the vectors of the query's clauses from the first
    /// model, which count in its ranking by [`HybridConfig::clause_weight`] (none: the query
    /// alone).
    pub fn fuse_with_clauses(
        &self,
        query: &str,
        vector: &[f32],
        clauses: &[Vec<f32>],
        second: Option<&[f32]>,
        limit: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<SearchHit> {
        let depth = self.config.candidates.max(limit);
        let c = self.config;
        let lexical = self.lexical.search_unlinked(query, depth, &accept);
        let semantic =
            self.semantic
                .search_with_clauses(vector, clauses, c.clause_weight, depth, &accept);
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
        if c.breadth > 0.0 {
            self.lexical.spread(query, &mut ranked, c.breadth);
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

impl SemanticSearch {
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
