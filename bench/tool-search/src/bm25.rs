//! Plain BM25, the reference the ranking must beat: one field, words as they are (lowercased
//! runs of letters and digits), k1 = 1.2, b = 0.75, Lucene's idf. And word overlap beside it.

use std::collections::HashMap;

use crate::score::LIMIT;
use crate::sets::{HeldOut, ToolText};

/// A plain BM25 index of one set's tools.
pub struct PlainBm25 {
    postings: HashMap<String, Vec<(usize, f64)>>,
    idf: HashMap<String, f64>,
}

impl PlainBm25 {
    /// Indexes `set`'s tools: each one document of its name, description, parameter names and
    /// parameter docs.
    pub fn new(set: &HeldOut) -> Self {
        let docs: Vec<Vec<String>> = set.tools.iter().map(document).collect();
        let n = docs.len() as f64;
        let average = docs.iter().map(Vec::len).sum::<usize>() as f64 / n.max(1.0);
        let (k1, b) = (1.2, 0.75);
        let mut postings: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        for (doc, words) in docs.iter().enumerate() {
            let mut tf: HashMap<&str, f64> = HashMap::new();
            for word in words {
                *tf.entry(word).or_default() += 1.0;
            }
            let norm = k1 * (1.0 - b + b * words.len() as f64 / average.max(1.0));
            for (word, tf) in tf {
                postings
                    .entry(word.to_string())
                    .or_default()
                    .push((doc, tf * (k1 + 1.0) / (tf + norm)));
            }
        }
        let idf = postings
            .iter()
            .map(|(word, list)| {
                let df = list.len() as f64;
                (word.clone(), (1.0 + (n - df + 0.5) / (df + 0.5)).ln())
            })
            .collect();
        Self { postings, idf }
    }

    /// The best tools for `query`, by BM25.
    pub fn rank(&self, query: &str) -> Vec<usize> {
        self.sum_over_words(query, |word, weight| self.idf[word] * weight)
    }

    /// Word overlap: tools by how many of the query's distinct words they contain.
    pub fn overlap(&self, query: &str) -> Vec<usize> {
        self.sum_over_words(query, |_, _| 1.0)
    }

    /// The best [`LIMIT`] tools by the sum of `score(word, weight)` over the query's distinct
    /// words and their postings.
    fn sum_over_words(&self, query: &str, score: impl Fn(&str, f64) -> f64) -> Vec<usize> {
        let mut words: Vec<String> = words(query).collect();
        words.sort();
        words.dedup();
        let mut scores: HashMap<usize, f64> = HashMap::new();
        for word in &words {
            for &(doc, weight) in self.postings.get(word).map_or(&[][..], Vec::as_slice) {
                *scores.entry(doc).or_default() += score(word, weight);
            }
        }
        let mut ranked: Vec<(usize, f64)> = scores.into_iter().collect();
        // Ties to the lower position.
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(LIMIT);
        ranked.into_iter().map(|(doc, _)| doc).collect()
    }
}

/// Words as plain BM25 sees them: lowercased runs of letters and digits.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// One document per tool: its name, description, parameter names and docs, and its group's
/// name and description (an MCP server's, as phi-agent is given them), one field.
fn document(tool: &ToolText) -> Vec<String> {
    let mut all: Vec<String> = words(&tool.name).chain(words(&tool.description)).collect();
    for (name, doc) in &tool.params {
        all.extend(words(name));
        all.extend(words(doc));
    }
    if let Some((name, description)) = &tool.group {
        all.extend(words(name));
        all.extend(words(description));
    }
    all
}
