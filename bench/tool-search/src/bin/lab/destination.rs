//! The written step (`Parts::written_step`): a task that names a text file to keep its result in
//! (`save it to /root/notes/report.md`) needs a tool that writes files, a step no request spells
//! out and no ranking of the request as a whole finds among five (LiveMCPBench: 18 of 94 tasks).
//! Such a request gets the best tool for "write text to a file" in its fifth place. Chosen on the
//! tuning parts (the second, third and fifth place scored alike there; the fifth keeps the
//! request's own four), then run once on the test parts.

use std::sync::Arc;

use phi_agent::search::lab::{self, Parts};
use phi_agent::search::{HybridConfig, ToolIndex};
use tool_search_lab::hybrid::{hybrid_search, prepare_with};
use tool_search_lab::models;
use tool_search_lab::score::{LIMIT, Score};
use tool_search_lab::sets::{SETS, load, registry};
use tool_search_lab::table::means;

/// Recall@5 per set on `part` of the lexical ranking and the trained hybrid, each without the
/// written step and as shipped.
pub async fn destination_table(part: &str) {
    let Some(model) = models::trained_model() else {
        return;
    };
    let mut prepared = prepare_with(Arc::new(model), None, Some(part), |_| {}).await;
    println!("| {part} parts | {} | mean |", SETS.join(" | "));
    println!("|---|{}---|", "---|".repeat(SETS.len()));
    let named: Vec<String> = prepared
        .iter()
        .map(|p| {
            let queries = p.set.queries.iter();
            queries
                .filter(|q| lab::writes_a_file(&q.text))
                .count()
                .to_string()
        })
        .collect();
    println!(
        "| requests naming a text file to keep | {} | |",
        named.join(" | ")
    );
    for hybrid in [false, true] {
        for written in [false, true] {
            let mut scores = Vec::new();
            for p in &mut prepared {
                p.index.set_config(HybridConfig::tool_search_model());
                let parts = Parts {
                    written_step: written,
                    ..Parts::default()
                };
                let lexical: ToolIndex = lab::build(&registry(&load(p.name)), parts);
                let mut score = Score::default();
                for (i, (query, vector)) in p.set.queries.iter().zip(&p.vectors).enumerate() {
                    let found = match (hybrid, written) {
                        (false, _) => lexical.search(&query.text, LIMIT),
                        (true, false) => p.index.fuse(&query.text, vector, LIMIT, |_| true),
                        (true, true) => hybrid_search(p, i, &query.text, vector, LIMIT),
                    };
                    let found: Vec<usize> = found.iter().map(|h| h.index).collect();
                    score.add(&found, &query.positions(|e| p.position[e]));
                }
                scores.push(score);
            }
            let name = format!(
                "{}, {}",
                if hybrid { "trained hybrid" } else { "lexical" },
                if written {
                    "as shipped"
                } else {
                    "no written step"
                }
            );
            let cells: Vec<String> = scores
                .iter()
                .map(|s| format!("{:.3}", s.recall()))
                .collect();
            println!(
                "| {name} | {} | {:.4} |",
                cells.join(" | "),
                means(&scores).0
            );
        }
    }
}
