//! Recall@5 and MRR of a ranking over a set's queries, per part and kind.

use std::collections::{BTreeMap, HashMap};

use phi_agent::search::ToolIndex;

use crate::sets::HeldOut;

/// Results per query a ranking is asked for; recall is counted in the first 5.
pub const LIMIT: usize = 5;

/// Recall@5 and MRR summed over queries.
#[derive(Debug, Default, Clone, Copy)]
pub struct Score {
    /// Queries counted.
    pub n: usize,
    recall: f64,
    reciprocal: f64,
}

impl Score {
    /// Adds one query: `found` are tool positions, best first; `expected` the tools it needs,
    /// each as its alternatives (one position, or several when the set cannot tell which
    /// server's tool of one name is meant: the first found counts).
    pub fn add(&mut self, found: &[usize], expected: &[Vec<usize>]) {
        self.n += 1;
        let top = &found[..found.len().min(LIMIT)];
        let hits = expected
            .iter()
            .filter(|e| e.iter().any(|e| top.contains(e)))
            .count();
        self.recall += hits as f64 / expected.len().min(LIMIT) as f64;
        if let Some(rank) = top
            .iter()
            .position(|f| expected.iter().any(|e| e.contains(f)))
        {
            self.reciprocal += 1.0 / (rank + 1) as f64;
        }
    }

    /// Mean recall@5.
    pub fn recall(&self) -> f64 {
        self.recall / self.n.max(1) as f64
    }

    /// Mean reciprocal rank of the first expected tool in the first 5.
    pub fn mrr(&self) -> f64 {
        self.reciprocal / self.n.max(1) as f64
    }
}

/// Scores by (part, kind), kind `all` included.
pub type Table = BTreeMap<(String, String), Score>;

/// The key of a part's score over all its queries.
pub fn all(part: &str) -> (String, String) {
    (part.to_string(), "all".to_string())
}

/// Per (part, kind) the score of `rank` (tool positions, best first) on `set`.
pub fn evaluate(set: &HeldOut, rank: impl Fn(&str) -> Vec<usize>) -> Table {
    let position: HashMap<&str, usize> = set
        .tools
        .iter()
        .enumerate()
        .map(|(i, tool)| (tool.name.as_str(), i))
        .collect();
    let mut table = Table::new();
    for query in &set.queries {
        let expected = query.positions(|name| position[name]);
        let found = rank(&query.text);
        for kind in [query.kind.as_str(), "all"] {
            table
                .entry((query.part.clone(), kind.to_string()))
                .or_default()
                .add(&found, &expected);
        }
    }
    table
}

/// phi-agent's ranking as a ranking function.
pub fn ours(index: &ToolIndex) -> impl Fn(&str) -> Vec<usize> + '_ {
    |query| {
        index
            .search(query, LIMIT)
            .iter()
            .map(|hit| hit.index)
            .collect()
    }
}
