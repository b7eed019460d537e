//! What reordering the trained model's hybrid candidates could reach: recall at 5 to 50 on the
//! test parts (`ceiling`), and the candidates with each ranking's view of them for a reranker
//! tried outside (`candidates`, read by `train/rerank.py`; not shipped).

use std::sync::Arc;

use phi_agent::search::HybridConfig;
use tool_search_lab::hybrid::prepare_with;
use tool_search_lab::models;

/// Recall at 5, 10, 20 and 50 of the trained model's hybrid on each test part: how many of the
/// tools a task needs are among the candidates at all, the most any reordering of them could
/// put in the first five (`-- ceiling`).
pub async fn ceiling_on_the_test_parts() {
    let Some(model) = models::trained_model() else {
        return;
    };
    let mut prepared = prepare_with(Arc::new(model), None, Some("test"), |_| {}).await;
    println!("| test part | n | R@5 | R@10 | R@20 | R@50 | all needed in the first 20 |");
    println!("|---|---|---|---|---|---|---|");
    for p in &mut prepared {
        p.index.set_config(HybridConfig::tool_search_model());
        let depths = [5usize, 10, 20, 50];
        let mut sums = [0f64; 4];
        let mut whole = 0usize;
        for (query, vector) in p.set.queries.iter().zip(&p.vectors) {
            let found: Vec<usize> = p
                .index
                .fuse_both(&query.text, vector, None, 50, |_| true)
                .iter()
                .map(|h| h.index)
                .collect();
            let expected = query.positions(|e| p.position[e]);
            let met = |top: &[usize], e: &Vec<usize>| e.iter().any(|e| top.contains(e));
            for (sum, depth) in sums.iter_mut().zip(depths) {
                let top = &found[..found.len().min(depth)];
                let hits = expected.iter().filter(|e| met(top, e)).count();
                *sum += hits as f64 / expected.len().min(depth) as f64;
            }
            let top = &found[..found.len().min(20)];
            whole += usize::from(expected.iter().all(|e| met(top, e)));
        }
        let n = p.set.queries.len();
        let cells: Vec<String> = sums
            .iter()
            .map(|s| format!("{:.3}", s / n as f64))
            .collect();
        println!(
            "| {} | {n} | {} | {:.3} |",
            p.name,
            cells.join(" | "),
            whole as f64 / n as f64
        );
    }
}

/// Every validation-slice (`tune`) or test question's first 20 candidates fused as wordllama is
/// (`static_model`), with what each ranking said of them, one JSON line a question, for a
/// reranker tried outside (`-- candidates tune|test`).
pub async fn candidates(part: &str) {
    let Some(model) = models::trained_model() else {
        return;
    };
    let held = models::validation_questions();
    let mut prepared = prepare_with(Arc::new(model), None, Some(part), |set| {
        if part == "tune" {
            set.queries.retain(|q| held.contains(&q.text));
        }
    })
    .await;
    for p in &mut prepared {
        for (query, vector) in p.set.queries.iter().zip(&p.vectors) {
            p.index.set_config(HybridConfig::static_model());
            let fused: Vec<usize> = p
                .index
                .fuse_both(&query.text, vector, None, 20, |_| true)
                .iter()
                .map(|h| h.index)
                .collect();
            p.index.set_config(
                HybridConfig::static_model()
                    .with_producer_links(false)
                    .with_breadth(0.0),
            );
            let plain: Vec<usize> = p
                .index
                .fuse_both(&query.text, vector, None, 50, |_| true)
                .iter()
                .map(|h| h.index)
                .collect();
            let lexical = p.index.lexical().search(&query.text, 50);
            let top = lexical.first().map_or(1.0, |h| h.score);
            let semantic = p
                .index
                .semantic()
                .search_vector(vector, p.set.tools.len(), |_| true);
            let rank_in =
                |list: &[usize], tool: usize| list.iter().position(|t| *t == tool).unwrap_or(99);
            let candidates: Vec<serde_json::Value> = fused
                .iter()
                .enumerate()
                .map(|(rank, &tool)| {
                    let lex = lexical.iter().position(|h| h.index == tool);
                    let (vrank, cos) = semantic
                        .iter()
                        .position(|(t, _)| *t == tool)
                        .map_or((9999, 0.0), |at| (at, semantic[at].1));
                    serde_json::json!({
                        "tool": tool,
                        "name": p.set.tools[tool].name,
                        "text": format!("{} {}", p.set.tools[tool].name, p.set.tools[tool].description),
                        "fused": rank,
                        "plain": rank_in(&plain, tool),
                        "lex": lex.unwrap_or(99),
                        "lex_score": lex.map_or(0.0, |at| lexical[at].score / top),
                        "vrank": vrank,
                        "cos": cos,
                    })
                })
                .collect();
            let expected = query.positions(|e| p.position[e]);
            println!(
                "{}",
                serde_json::json!({
                    "set": p.name,
                    "query": query.text,
                    "expected": expected,
                    "candidates": candidates,
                })
            );
        }
    }
}
