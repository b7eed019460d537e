//! One vector per Deferred tool, searched by cosine similarity.

use std::mem::size_of;

use super::Embedder;
use super::cache::{EmbeddingCache, Key, key};
use crate::error::{AgentError, AgentResult};
use crate::registry::{RegisteredTool, ToolRegistry};
use crate::tool::ToolExposure;

/// The vectors of a registry's Deferred tools (the tools [`ToolIndex`](super::super::ToolIndex)
/// indexes, in the same order), unit length, one flat array of 16-bit fixed-point components.
///
/// A search reads every tool's vector, so their size is its time: 10,000 vectors of 384 `f32`s
/// are 15 MB, which a search streams from memory at the machine's bandwidth. As 16-bit integers
/// they are half that, and their products sum in integer lanes that the compiler vectorizes for
/// the baseline CPU (multiply-adds of 16-bit pairs, SSE2 on x86-64). Each vector is scaled so
/// that its largest component is as large as keeps a whole dot product within an `i32`: 2,364
/// (about 11 bits) for 384 dimensions. A cosine read back differs from the `f32` one by a few
/// 10⁻⁵ (at most 6.6 × 10⁻⁵ over the unit test's 50 vectors of 384).
#[derive(Debug, Default)]
pub struct SemanticIndex {
    /// Per tool: its registration index.
    tools: Vec<usize>,
    dimensions: usize,
    /// Every tool's components, `dimensions` each, in fixed point.
    vectors: Vec<i16>,
    /// Per tool: the real value of one fixed-point step of its vector.
    steps: Vec<f32>,
}

/// How many of a request's nearest tools, per result asked for, its clauses rescore
/// ([`SemanticIndex::search_with_clauses`]).
const CLAUSE_POOL: usize = 4;

/// The largest fixed-point component for vectors of `dimensions`: the dot product of two such
/// vectors, and every partial sum of it, then stays within an `i32`.
fn largest_component(dimensions: usize) -> f32 {
    let largest = ((i32::MAX as f64) / dimensions.max(1) as f64)
        .sqrt()
        .floor();
    largest.min(i16::MAX as f64) as f32
}

/// Appends `vector` times `scale` to `out` in fixed point, and returns the real value of one
/// step (0, with all components 0, for a zero or non-finite vector): `out[i] × step` is the
/// scaled `i`th component.
fn quantize(vector: &[f32], scale: f32, out: &mut Vec<i16>) -> f32 {
    let largest = vector.iter().fold(0f32, |m, v| m.max((v * scale).abs()));
    if largest == 0.0 || !largest.is_finite() {
        out.extend(std::iter::repeat_n(0, vector.len()));
        return 0.0;
    }
    let step = largest / largest_component(vector.len());
    out.extend(vector.iter().map(|v| (v * scale / step).round() as i16));
    step
}

impl SemanticIndex {
    /// Embeds every Deferred tool of `registry` whose vector `cache` does not hold (in batches
    /// of [`Embedder::max_batch`]), and stores the new vectors in `cache`; save the cache to
    /// keep them for the next run.
    pub async fn build(
        registry: &ToolRegistry,
        embedder: &dyn Embedder,
        cache: &mut EmbeddingCache,
    ) -> AgentResult<Self> {
        let mut tools = Vec::new();
        let mut keys = Vec::new();
        let mut missing: Vec<(Key, String)> = Vec::new();
        for (index, tool) in registry.iter().enumerate() {
            if tool.exposure() != ToolExposure::Deferred {
                continue;
            }
            let text = tool_text(tool);
            let key = key(embedder.model(), &text);
            if cache.get(key).is_none() && !missing.iter().any(|(k, _)| *k == key) {
                missing.push((key, text));
            }
            tools.push(index);
            keys.push(key);
        }
        for batch in missing.chunks(embedder.max_batch().max(1)) {
            let texts: Vec<&str> = batch.iter().map(|(_, text)| text.as_str()).collect();
            let vectors = embedder.embed(&texts).await?;
            if vectors.len() != texts.len() {
                return Err(mismatch(format!(
                    "{} vectors for {} texts",
                    vectors.len(),
                    texts.len()
                )));
            }
            for ((key, _), vector) in batch.iter().zip(vectors) {
                cache.insert(*key, vector);
            }
        }
        let mut index = Self {
            tools,
            ..Self::default()
        };
        for key in keys {
            let vector = cache.get(key).unwrap_or_default();
            index.push(vector)?;
        }
        Ok(index)
    }

    fn push(&mut self, vector: &[f32]) -> AgentResult<()> {
        if self.vectors.is_empty() {
            self.dimensions = vector.len();
            // Every tool's vector is this long: one allocation of the final size.
            self.vectors.reserve_exact(self.tools.len() * vector.len());
            self.steps.reserve_exact(self.tools.len());
        }
        if vector.len() != self.dimensions || vector.is_empty() {
            return Err(mismatch(format!(
                "a vector of {} dimensions among vectors of {}",
                vector.len(),
                self.dimensions
            )));
        }
        let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
        let scale = if norm > 0.0 { 1.0 / norm } else { 0.0 };
        let step = quantize(vector, scale, &mut self.vectors);
        self.steps.push(step);
        Ok(())
    }

    /// The `limit` tools nearest to `query` (a vector of the same embedder), best first, as
    /// (registration index, cosine similarity), among those `accept` lets through.
    pub fn search_vector(
        &self,
        query: &[f32],
        limit: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        self.search_with_clauses(query, &[], 0.0, limit, accept)
    }

    /// [`search_vector`](Self::search_vector) with each tool's score raised by `weight` times its
    /// best cosine similarity to one of `clauses` (vectors of the query's clauses, from the same
    /// embedder; see [`HybridConfig::clause_weight`](super::HybridConfig::clause_weight)). A clause
    /// vector of another length, zero or not finite is left out.
    pub fn search_with_clauses(
        &self,
        query: &[f32],
        clauses: &[Vec<f32>],
        weight: f32,
        limit: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        if self.dimensions == 0 || limit == 0 {
            return Vec::new();
        }
        let Some((components, query_step)) = self.quantized(query) else {
            return Vec::new();
        };
        let clauses: Vec<(Vec<i16>, f32)> = if weight == 0.0 || !weight.is_finite() {
            Vec::new()
        } else {
            clauses.iter().filter_map(|c| self.quantized(c)).collect()
        };
        // Each tool's similarity to the whole request, by its position among the vectors.
        let mut scored: Vec<(usize, f32)> = self
            .vectors
            .chunks_exact(self.dimensions)
            .zip(&self.steps)
            .enumerate()
            .filter(|(position, _)| accept(self.tools[*position]))
            .map(|(position, (vector, &step))| {
                (
                    position,
                    dot(vector, &components) as f32 * step * query_step,
                )
            })
            .collect();
        let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if !clauses.is_empty() {
            // The clauses lift the request's nearest tools only: at its weight a clause moves a
            // tool up a little, not from the far end of the catalogue, and the pool keeps a long
            // request's cost near a short one's.
            let pool = limit.saturating_mul(CLAUSE_POOL).min(scored.len());
            if pool > 0 && scored.len() > pool {
                scored.select_nth_unstable_by(pool - 1, by_score);
                scored.truncate(pool);
            }
            for (position, score) in &mut scored {
                let start = *position * self.dimensions;
                let vector = &self.vectors[start..start + self.dimensions];
                let step = self.steps[*position];
                let best = clauses
                    .iter()
                    .map(|(clause, clause_step)| dot(vector, clause) as f32 * step * clause_step)
                    .fold(f32::MIN, f32::max);
                *score += weight * best;
            }
        }
        for entry in &mut scored {
            entry.0 = self.tools[entry.0];
        }
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit - 1, by_score);
            scored.truncate(limit);
        }
        scored.sort_unstable_by(by_score);
        scored
    }

    /// `vector` normalized and in fixed point, with its step; `None` when it has another length
    /// than the tools' vectors, or is zero or not finite.
    fn quantized(&self, vector: &[f32]) -> Option<(Vec<i16>, f32)> {
        if vector.len() != self.dimensions {
            return None;
        }
        let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return None;
        }
        let mut components = Vec::with_capacity(vector.len());
        let step = quantize(vector, 1.0 / norm, &mut components);
        Some((components, step))
    }

    /// Number of tools indexed.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Length of every vector (0 when empty).
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// Bytes held on the heap: per tool its vector (2 bytes a dimension), the scale of its
    /// vector and its registration index.
    pub fn heap_bytes(&self) -> usize {
        self.vectors.capacity() * size_of::<i16>()
            + self.steps.capacity() * size_of::<f32>()
            + self.tools.capacity() * size_of::<usize>()
    }
}

/// The dot product of two fixed-point vectors of one length, summed in sixteen `i32` lanes,
/// which the compiler turns into vector multiply-adds of 16-bit pairs. Components at most
/// [`largest_component`] keep every sum within an `i32`.
fn dot(a: &[i16], b: &[i16]) -> i32 {
    let mut lanes = [0i32; 16];
    let (a_chunks, b_chunks) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..16 {
            lanes[lane] += i32::from(x[lane]) * i32::from(y[lane]);
        }
    }
    lanes.iter().sum::<i32>() + tail
}

fn mismatch(message: String) -> AgentError {
    AgentError::InvalidResponse {
        provider: "embedder",
        message,
    }
}

/// What is embedded for a tool: its name with the words apart, its description, its
/// parameters' names and docs, one a line, and its group's name and description
/// ([`ToolGroup`](crate::ToolGroup)) when it has one. Any change to these changes the cache key.
pub(crate) fn tool_text(tool: &RegisteredTool) -> String {
    let mut text = tool.name().replace(['_', '-', '.'], " ");
    text.push('\n');
    text.push_str(tool.description());
    tool.peek_schema(|schema| {
        if let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) {
            for (name, property) in properties {
                text.push('\n');
                text.push_str(name);
                if let Some(doc) = property.get("description").and_then(|d| d.as_str()) {
                    text.push_str(": ");
                    text.push_str(doc);
                }
            }
        }
    });
    if let Some(group) = tool.group() {
        text.push('\n');
        text.push_str(&group.name);
        if !group.description.is_empty() {
            text.push_str(": ");
            text.push_str(&group.description);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lane_sum_is_the_dot_product() {
        let a: Vec<i16> = (0..37).map(|i| i * 100 - 1800).collect();
        let b: Vec<i16> = (0..37).map(|i| (i % 3) * 700 - 700).collect();
        let plain: i32 = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| i32::from(x) * i32::from(y))
            .sum();
        assert_eq!(dot(&a, &b), plain);
        assert_eq!(dot(&[], &[]), 0);
    }

    #[test]
    fn a_clause_lifts_the_tool_it_names_and_a_broken_one_counts_for_nothing() {
        let mut index = SemanticIndex {
            tools: vec![10, 11, 12],
            ..SemanticIndex::default()
        };
        for vector in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]] {
            index.push(&vector).unwrap();
        }
        let order =
            |found: Vec<(usize, f32)>| found.into_iter().map(|(t, _)| t).collect::<Vec<_>>();
        let request = [1.0, 1.0, 0.0];
        // The whole request is nearest the tool for both, then ties, broken by registration.
        assert_eq!(
            order(index.search_vector(&request, 3, |_| true)),
            [12, 10, 11]
        );
        let clause = [vec![0.0, 2.0, 0.0]];
        let with = index.search_with_clauses(&request, &clause, 0.5, 3, |_| true);
        assert_eq!(order(with.clone()), [12, 11, 10]);
        // 0.707 for the request, 0.5 × 1 for the clause.
        assert!((with[1].1 - 1.207).abs() < 1e-3, "{with:?}");
        let unchanged = [12, 10, 11];
        for broken in [vec![0.0; 3], vec![f32::NAN; 3], vec![1.0, 2.0]] {
            let found = index.search_with_clauses(&request, &[broken], 0.5, 3, |_| true);
            assert_eq!(order(found), unchanged);
        }
        for weight in [0.0, f32::NAN] {
            let found = index.search_with_clauses(&request, &clause, weight, 3, |_| true);
            assert_eq!(order(found), unchanged);
        }
        // A filter and a limit apply as without clauses.
        let found = index.search_with_clauses(&request, &clause, 0.5, 1, |tool| tool != 12);
        assert_eq!(order(found), [11]);
    }

    #[test]
    fn the_largest_vectors_sum_within_an_i32() {
        for dimensions in [1, 7, 384, 1536, 3072, 100_000] {
            let unit = largest_component(dimensions) as i16;
            let worst = vec![-unit; dimensions];
            let exact: i64 = worst.iter().map(|&x| i64::from(x) * i64::from(x)).sum();
            assert!(exact <= i64::from(i32::MAX), "{dimensions}");
            assert_eq!(i64::from(dot(&worst, &worst)), exact, "{dimensions}");
        }
    }

    #[test]
    fn cosines_read_back_close_to_the_float_ones() {
        // A deterministic spread of vectors, as an embedder's are: mostly small components.
        let mut seed = 7u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 20_001) as f32 / 10_000.0 - 1.0
        };
        let mut index = SemanticIndex {
            tools: (0..50).collect(),
            ..SemanticIndex::default()
        };
        let vectors: Vec<Vec<f32>> = (0..50)
            .map(|_| (0..384).map(|_| next().powi(3)).collect())
            .collect();
        for vector in &vectors {
            index.push(vector).unwrap();
        }
        let query: Vec<f32> = (0..384).map(|_| next().powi(3) * 5.0).collect();
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let found = index.search_vector(&query, 50, |_| true);
        assert_eq!(found.len(), 50);
        for (tool, cosine) in found {
            let v = &vectors[tool];
            let exact =
                v.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>() / norm(v) / norm(&query);
            assert!(
                (cosine - exact).abs() < 2e-4,
                "{tool}: {cosine} against {exact}"
            );
        }
    }

    #[test]
    fn a_zero_or_broken_vector_scores_zero() {
        let mut index = SemanticIndex {
            tools: vec![0, 1],
            ..SemanticIndex::default()
        };
        index.push(&[0.0, 0.0, 0.0]).unwrap();
        index.push(&[f32::NAN, 1.0, 0.0]).unwrap();
        let found = index.search_vector(&[1.0, 0.0, 0.0], 2, |_| true);
        assert_eq!(found, vec![(0, 0.0), (1, 0.0)]);
    }
}
