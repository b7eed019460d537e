//! Server focus, an experiment not shipped: a task on real MCP servers takes most of its tools
//! from one server (LiveMCPBench: 0.75 of a tuning task's tools come from its biggest server), so
//! the tools of the server the best results come from are lifted. Only LiveMCPBench's tools have
//! groups; the other sets are unchanged by it. On its tuning part every weight lost (trained
//! hybrid 0.544; the best result's server lifted 0.409–0.536, a server's share of the first 3,
//! 5 or 10 results 0.441–0.526): the first results' server is often not the one the task needs
//! most, and the lift crowds out the other servers' steps.

use std::collections::HashMap;
use std::sync::Arc;

use phi_agent::search::HybridConfig;
use tool_search_lab::hybrid::{Prepared, hybrid_search, prepare};
use tool_search_lab::models;
use tool_search_lab::score::{LIMIT, Score};

/// How a group's weight is read off the first results.
#[derive(Clone, Copy, Debug)]
enum Focus {
    /// The group of the best result.
    Best,
    /// Each group's share of the first `n` results' scores.
    Share(usize),
}

/// `ranked` (best first, with scores) with each grouped tool's score raised by `weight` times its
/// group's weight, re-sorted.
fn focused(p: &Prepared, ranked: &[(usize, f32)], focus: Focus, weight: f32) -> Vec<usize> {
    let group = |tool: usize| p.set.tools[tool].group.as_ref().map(|g| g.0.as_str());
    let best = ranked.first().map_or(1.0, |r| r.1.max(1e-6));
    let mut weights: HashMap<&str, f32> = HashMap::new();
    match focus {
        Focus::Best => {
            if let Some(g) = ranked.first().and_then(|r| group(r.0)) {
                weights.insert(g, 1.0);
            }
        }
        Focus::Share(n) => {
            let total: f32 = ranked.iter().take(n).map(|r| r.1.max(0.0)).sum();
            for (tool, score) in ranked.iter().take(n) {
                if let Some(g) = group(*tool) {
                    *weights.entry(g).or_default() += score.max(0.0) / total.max(1e-6);
                }
            }
        }
    }
    let mut scored: Vec<(usize, f32)> = ranked
        .iter()
        .map(|&(tool, score)| {
            let lift = group(tool)
                .and_then(|g| weights.get(g))
                .copied()
                .unwrap_or(0.0);
            (tool, score / best + weight * lift)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().map(|(tool, _)| tool).collect()
}

/// Recall@5 on LiveMCPBench's `part` with the trained hybrid, its first 50 results refocused.
pub async fn server_focus(part: &str) {
    let Some(trained) = models::trained_model() else {
        return;
    };
    let mut prepared = prepare(Arc::new(trained), Some(part)).await;
    let p = prepared
        .iter_mut()
        .find(|p| p.name == "livemcpbench")
        .expect("LiveMCPBench");
    p.index.set_config(HybridConfig::tool_search_model());
    let rankings: Vec<Vec<(usize, f32)>> = (0..p.set.queries.len())
        .map(|i| {
            let text = p.set.queries[i].text.clone();
            hybrid_search(p, i, &text, &p.vectors[i], 50)
                .iter()
                .map(|h| (h.index, h.score))
                .collect()
        })
        .collect();
    println!("| focus | weight | LiveMCPBench {part} R@5 | MRR |");
    for focus in [
        Focus::Best,
        Focus::Share(3),
        Focus::Share(5),
        Focus::Share(10),
    ] {
        for weight in [0.0f32, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0] {
            let mut score = Score::default();
            for (i, ranked) in rankings.iter().enumerate() {
                let found: Vec<usize> = focused(p, ranked, focus, weight)
                    .into_iter()
                    .take(LIMIT)
                    .collect();
                let expected = p.set.queries[i].positions(|e| p.position[e]);
                score.add(&found, &expected);
            }
            println!(
                "| {focus:?} | {weight} | {:.3} | {:.3} |",
                score.recall(),
                score.mrr()
            );
        }
    }
}
