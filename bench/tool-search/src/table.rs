//! Markdown tables of scores, as BENCHMARKS.md shows them.

use crate::score::{Score, Table};

/// One table for `set`: a row per (part, kind), a column pair (recall@5, MRR) per ranking.
pub fn per_kind(set: &str, columns: &[(&str, Table)]) -> String {
    let mut out = format!("| {set} | part | n |");
    let mut rule = String::from("|---|---|---|");
    for (name, _) in columns {
        out.push_str(&format!(" {name} R@5 | {name} MRR |"));
        rule.push_str("---|---|");
    }
    out.push('\n');
    out.push_str(&rule);
    out.push('\n');
    let Some((_, first)) = columns.first() else {
        return out;
    };
    for ((part, kind), score) in first {
        let key = (part.clone(), kind.clone());
        out.push_str(&format!("| {kind} | {part} | {} |", score.n));
        for (_, table) in columns {
            out.push_str(&cell(table.get(&key).copied().unwrap_or_default()));
        }
        out.push('\n');
    }
    out
}

/// ` recall | mrr |` to three places.
pub fn cell(score: Score) -> String {
    format!(" {:.3} | {:.3} |", score.recall(), score.mrr())
}

/// Mean recall@5 and MRR over scores, each counting once.
pub fn means(scores: &[Score]) -> (f64, f64) {
    // A set with no question in a slice (LiveMCPBench in the trained model's validation slice:
    // the model was not trained on it) does not count.
    let counted: Vec<&Score> = scores.iter().filter(|s| s.n > 0).collect();
    let n = counted.len().max(1) as f64;
    (
        counted.iter().map(|s| s.recall()).sum::<f64>() / n,
        counted.iter().map(|s| s.mrr()).sum::<f64>() / n,
    )
}
