//! One vector per Deferred tool, searched by cosine similarity.

use super::Embedder;
use super::cache::{EmbeddingCache, key};
use crate::error::{AgentError, AgentResult};
use crate::registry::{RegisteredTool, ToolRegistry};
use crate::tool::ToolExposure;

/// The vectors of a registry's Deferred tools (the tools [`ToolIndex`](super::super::ToolIndex)
/// indexes, in the same order), unit length, one flat array.
#[derive(Debug, Default)]
pub struct SemanticIndex {
    /// Per tool: its registration index.
    tools: Vec<usize>,
    dimensions: usize,
    vectors: Vec<f32>,
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
        let mut missing: Vec<(u64, String)> = Vec::new();
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
            dimensions: 0,
            vectors: Vec::new(),
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
        self.vectors.extend(vector.iter().map(|v| v * scale));
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
        if query.len() != self.dimensions || self.dimensions == 0 || limit == 0 {
            return Vec::new();
        }
        let norm = query.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return Vec::new();
        }
        let mut scored: Vec<(usize, f32)> = self
            .vectors
            .chunks_exact(self.dimensions)
            .zip(&self.tools)
            .filter(|(_, index)| accept(**index))
            .map(|(vector, &index)| (index, dot(vector, query) / norm))
            .collect();
        let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit - 1, by_score);
            scored.truncate(limit);
        }
        scored.sort_unstable_by(by_score);
        scored
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
}

/// The dot product of two vectors of one length, summed in eight lanes: a plain `.sum()` of
/// `f32`s must add in order and so stays scalar; eight independent sums let the compiler use
/// vector instructions (a search scans every tool's vector).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..8 {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

fn mismatch(message: String) -> AgentError {
    AgentError::InvalidResponse {
        provider: "embedder",
        message,
    }
}

/// What is embedded for a tool: its name with the words apart, its description, and its
/// parameters' names and docs, one a line. Any change to these changes the cache key.
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
    text
}

#[cfg(test)]
mod tests {
    use super::dot;

    #[test]
    fn the_lane_sum_is_the_dot_product() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..19).map(|i| (i % 3) as f32 - 1.0).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert_eq!(dot(&a, &b), plain);
        assert_eq!(dot(&[], &[]), 0.0);
    }
}
