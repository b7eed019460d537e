//! How a [`HybridIndex`](super::HybridIndex) fuses its rankings ([`Fusion`], [`HybridConfig`]),
//! and the presets the published figures used.

/// How a [`HybridIndex`](super::HybridIndex) turns its two rankings into one.
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

/// How a [`HybridIndex`](super::HybridIndex) fuses its two rankings.
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
    /// results (see [`ToolIndex`](crate::search::ToolIndex)). Default: on. On the held-out tuning parts it raised mean
    /// recall@5 from 0.748 to 0.794 with the static model, 0.773 to 0.806 with three rankings
    /// and 0.756 to 0.789 with all-MiniLM-L6-v2, no set more than 0.003 lower.
    pub producer_links: bool,
    /// How much covering a long request is worth when its first fused results are chosen, as
    /// the lexical ranking's are (see [`ToolIndex`](crate::search::ToolIndex)): a tool for each
    /// step it names before a third variant of one. 0 turns it off. Default: 0.2, the lexical
    /// ranking's; each preset has the weight chosen for it on the held-out tuning parts (0, 0.2,
    /// 0.5, 1, 1.5 and 2 tried). At 0.2 it raised mean recall@5 there from 0.794 to 0.799 with
    /// the static model.
    pub breadth: f32,
    /// Weight of a request's best-matching clause in the (first) semantic ranking: each tool is
    /// scored by its similarity to the whole request plus this weight times its best similarity
    /// to one of the request's clauses (its sentences, and their parts between "and" and "then"),
    /// so that a step one clause names is not drowned by the others' words. 0 (the default)
    /// embeds the request alone.
    pub clause_weight: f32,
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
            breadth: 0.2,
            clause_weight: 0.0,
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

    /// Sets [`breadth`](Self::breadth) (0 turns it off).
    pub fn with_breadth(mut self, weight: f32) -> Self {
        self.breadth = weight;
        self
    }

    /// Sets [`clause_weight`](Self::clause_weight) (0 turns it off).
    pub fn with_clause_weight(mut self, weight: f32) -> Self {
        self.clause_weight = weight;
        self
    }

    /// The fusion chosen for `phi-agent-embed`'s `StaticEmbedder` (wordllama) alone with the
    /// words, on the held-out tuning parts: [`Fusion::Scores`], lexical 0.7 to semantic 0.3
    /// (weights 1 and 0.43), 50 candidates each. The same as [`default`](Self::default), and the
    /// fusion of BENCHMARKS.md's "static hybrid" column.
    pub fn static_model() -> Self {
        Self::default()
    }

    /// The fusion chosen for the static model trained for tool search (`phi-agent-embed`'s
    /// `StaticEmbedder` loading what `bench/tool-search/train/train.py` writes, whose weights name
    /// this fusion), on the tuning questions its training kept aside and LiveMCPBench's tuning
    /// part (which it never saw): fusion by scores, weights 0.4 (lexical) and 0.6, 100 candidates
    /// each (mean recall@5 there 0.804 against 0.792 by reciprocal rank, k 1 and weight 0.75, the
    /// fusion chosen before; the same best on two other training seeds' models), and
    /// [`breadth`](Self::breadth) 0.5 (0.804 → 0.808 against 0.2; from 1 up AgentDojo loses 0.015),
    /// and [`clause_weight`](Self::clause_weight) 0.2 (0.805 → 0.814, the best of 0 to 1.5; no set
    /// lower; with the semantic share varied too, none did better).
    /// The fusion of BENCHMARKS.md's "trained static hybrid" column.
    pub fn tool_search_model() -> Self {
        Self::default()
            .with_fusion(Fusion::Scores)
            .with_candidates(100)
            .with_lexical_weight(0.4)
            .with_semantic_weight(0.6)
            .with_breadth(0.5)
            .with_clause_weight(0.2)
    }

    /// The fusion chosen for a sentence-transformer alone with the words (`phi-agent-embed`'s
    /// `SentenceEmbedder` with all-MiniLM-L6-v2), on the tuning parts of BFCL and AgentDojo:
    /// reciprocal rank fusion, k 30, weights 1 and 1 (mean recall@5 0.798 against 0.788 for the
    /// best fusion by scores), [`breadth`](Self::breadth) 0.5 (four tuning parts: 0.797 → 0.799
    /// against 0.2), [`clause_weight`](Self::clause_weight) 1.5 (0.753 → 0.772 over the five tuning
    /// parts, 0 to 1.5 tried; BFCL 0.006 lower; a request of several clauses has each embedded
    /// too, about as many tokens again). The fusion of BENCHMARKS.md's "MiniLM hybrid" column,
    /// and the one `SentenceEmbedder` names as its [`Embedder::fusion`](super::Embedder::fusion).
    pub fn sentence_model() -> Self {
        Self::default()
            .with_fusion(Fusion::ReciprocalRank)
            .with_rrf_k(30.0)
            .with_semantic_weight(1.0)
            .with_second_weight(0.0)
            .with_breadth(0.5)
            .with_clause_weight(1.5)
    }

    /// The fusion chosen for three rankings (the words, a contextual model first, a static model
    /// [second](super::SemanticSearch::second)) on the held-out tuning parts, with
    /// `phi-agent-embed`'s `SentenceEmbedder` (all-MiniLM-L6-v2) and `StaticEmbedder` (wordllama):
    /// reciprocal rank fusion, k 10, 50 candidates each, weights 1 (lexical), 0.75 (first) and
    /// 0.5 (second). Mean recall@5 over the four tuning parts 0.773, against 0.756 for the
    /// sentence-transformer alone with the words and 0.742 for the static model alone with them;
    /// [`breadth`](Self::breadth) 0.5 (0.809 → 0.812 against 0.2; 1.5 scored more but lost 0.011
    /// on AgentDojo), [`clause_weight`](Self::clause_weight) 1 for the first model (0.745 → 0.762
    /// over the five tuning parts, 0 to 1.5 tried; BFCL 0.002 lower). A
    /// [`SemanticSearch`](super::SemanticSearch) with a second model and no fusion of its own uses
    /// this one.
    pub fn three_rankings() -> Self {
        Self::default()
            .with_fusion(Fusion::ReciprocalRank)
            .with_rrf_k(10.0)
            .with_semantic_weight(0.75)
            .with_second_weight(0.5)
            .with_breadth(0.5)
            .with_clause_weight(1.0)
    }
}
