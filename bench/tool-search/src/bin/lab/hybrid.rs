//! The hybrids' grids, on the tuning parts: fusion by scores and by reciprocal rank for one
//! model, three rankings (the words, the static model, MiniLM), what MiniLM is given of a tool,
//! and producer links after fusing; and the one three-ranking fusion chosen with a fine-tuned
//! MiniLM, run once on the test parts.

use std::collections::HashMap;
use std::sync::Arc;

use phi_agent::search::{Embedder, Fusion, HybridConfig};
use tool_search_lab::hybrid::{Prepared, on_tuning_parts, prepare, prepare_with};
use tool_search_lab::models::{self, on_every_core};
use tool_search_lab::score::{LIMIT, Score};
use tool_search_lab::sets::{HeldOut, SETS};
use tool_search_lab::table::means;

/// The grid the fusion settings were chosen from, for the static model, or with `sentence` the
/// sentence-transformer, or with `trained` the trained static model: mean recall@5 (then MRR) of
/// the tuning parts, for fusion by scores (semantic share 0 to 1) and by reciprocal rank (k 1 to
/// 100, semantic weight 0.5 to 2). With both flags, the sentence model (a fine-tuned one, as
/// `train/finetune_minilm.py` writes) on the questions the trained model's fusion is chosen on.
pub async fn fusion_grid(sentence: bool, trained: bool) {
    let model: Arc<dyn Embedder> = if sentence {
        let Some(model) = models::sentence_model() else {
            return;
        };
        Arc::new(on_every_core(model))
    } else if trained {
        let Some(model) = models::trained_model() else {
            return;
        };
        Arc::new(model)
    } else {
        let Some(model) = models::model() else { return };
        Arc::new(model)
    };
    let prepared = if trained {
        // Of the sets the trained model trained on, only the questions the training kept aside:
        // on the rest the model (or a sentence model fine-tuned on the same slice) has seen the
        // answers.
        let unseen = models::UnseenByTraining::load();
        println!("on the trained model's validation slice and LiveMCPBench's tuning part\n");
        prepare_with(model, None, Some("tune"), |set| unseen.keep(set)).await
    } else {
        prepare(model, Some("tune")).await
    };
    grid(prepared);
}

fn grid(mut prepared: Vec<Prepared>) {
    let mut configs = Vec::new();
    for share in [
        0.0f32, 0.1, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0,
    ] {
        for candidates in [20, 50, 100] {
            configs.push(
                HybridConfig::default()
                    .with_fusion(Fusion::Scores)
                    .with_candidates(candidates)
                    .with_lexical_weight(1.0 - share)
                    .with_semantic_weight(share),
            );
        }
    }
    for k in [1.0, 3.0, 10.0, 30.0, 60.0, 100.0] {
        for weight in [0.5, 0.75, 1.0, 1.5, 2.0] {
            configs.push(
                HybridConfig::default()
                    .with_fusion(Fusion::ReciprocalRank)
                    .with_rrf_k(k)
                    .with_semantic_weight(weight),
            );
        }
    }
    let names: Vec<&str> = prepared.iter().map(|p| p.name).collect();
    println!(
        "| fusion | k | candidates | lexical weight | semantic weight | {} | mean R@5 |",
        names
            .iter()
            .map(|n| format!("{n} R@5 | {n} MRR"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!(
        "|---|---|---|---|---|{}---|",
        "---|---|".repeat(names.len())
    );
    let mut best: Option<(f64, f64, HybridConfig)> = None;
    for config in configs {
        let scores = on_tuning_parts(&mut prepared, config);
        let (recall, mrr) = means(&scores);
        let cells: Vec<String> = scores
            .iter()
            .map(|s| format!("{:.3} | {:.3}", s.recall(), s.mrr()))
            .collect();
        println!(
            "| {:?} | {} | {} | {:.2} | {:.2} | {} | {recall:.3} |",
            config.fusion,
            config.rrf_k,
            config.candidates,
            config.lexical_weight,
            config.semantic_weight,
            cells.join(" | ")
        );
        if best.is_none_or(|(r, m, _)| (recall, mrr) > (r, m)) {
            best = Some((recall, mrr, config));
        }
    }
    let (recall, mrr, config) = best.unwrap();
    println!("best on the tuning parts: {config:?} (mean R@5 {recall:.3}, MRR {mrr:.3})");
    assert!(recall > 0.0);
}

/// One query's three rankings, best first, each `(tool, score)`, read to depth 100.
pub struct Lists {
    lexical: Vec<(usize, f32)>,
    static_model: Vec<(usize, f32)>,
    sentence: Vec<(usize, f32)>,
    expected: Vec<Vec<usize>>,
}

/// `lists` fused with `weights` (one per list), by reciprocal rank (`Some(k)`) or by scores each
/// divided by its list's best (`None`), each list read to `depth`.
pub fn fuse_many(
    lists: &[&[(usize, f32)]],
    weights: &[f32],
    rrf_k: Option<f32>,
    depth: usize,
) -> Vec<usize> {
    let mut fused: HashMap<usize, f32> = HashMap::new();
    for (list, weight) in lists.iter().zip(weights) {
        if *weight == 0.0 {
            continue;
        }
        let list = &list[..list.len().min(depth)];
        let best = list.first().map_or(1.0, |(_, s)| *s);
        let scale = if best > 0.0 { weight / best } else { *weight };
        for (rank, (tool, score)) in list.iter().enumerate() {
            *fused.entry(*tool).or_default() += match rrf_k {
                Some(k) => weight / (k + rank as f32 + 1.0),
                None => score * scale,
            };
        }
    }
    let mut ranked: Vec<(usize, f32)> = fused.into_iter().collect();
    ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.into_iter().take(LIMIT).map(|(i, _)| i).collect()
}

/// The three rankings of every query of `lexical` (whose lexical index and static vectors are
/// used) and `sentence` (whose MiniLM vectors are), by set.
pub fn three_lists<'a>(
    lexical: &'a [Prepared],
    sentence: &[Prepared],
) -> Vec<(&'a str, Vec<Lists>)> {
    let mut sets = Vec::new();
    for (s, m) in lexical.iter().zip(sentence) {
        let mut lists = Vec::new();
        for ((query, sv), mv) in s.set.queries.iter().zip(&s.vectors).zip(&m.vectors) {
            lists.push(Lists {
                lexical: s
                    .index
                    .lexical()
                    .search(&query.text, 100)
                    .iter()
                    .map(|h| (h.index, h.score))
                    .collect(),
                static_model: s.index.semantic().search_vector(sv, 100, |_| true),
                sentence: m.index.semantic().search_vector(mv, 100, |_| true),
                expected: query.positions(|e| s.position[e]),
            });
        }
        sets.push((s.name, lists));
    }
    sets
}

/// A fusion of the three lists: reciprocal rank's k (`None`: scores), depth, weights.
pub type Three = (Option<f32>, usize, [f32; 3]);

/// Prints one row per fusion (recall@5 per set, mean recall@5 and MRR) and returns them, best
/// mean recall@5 (then MRR) first.
pub fn three_grid(
    label: &str,
    sets: &[(&str, Vec<Lists>)],
    configs: &[Three],
) -> Vec<(f64, f64, Three)> {
    let names: Vec<&str> = sets.iter().map(|(n, _)| *n).collect();
    println!(
        "| {label}: fusion | depth | lexical, static, MiniLM weights | {} R@5 | mean R@5 | mean MRR |",
        names.join(" R@5 | ")
    );
    let mut rows = Vec::new();
    for &(rrf_k, depth, weights) in configs {
        let scores: Vec<Score> = sets
            .iter()
            .map(|(_, lists)| {
                let mut score = Score::default();
                for l in lists {
                    let found = fuse_many(
                        &[&l.lexical, &l.static_model, &l.sentence],
                        &weights,
                        rrf_k,
                        depth,
                    );
                    score.add(&found, &l.expected);
                }
                score
            })
            .collect();
        let (recall, mrr) = means(&scores);
        let fusion = rrf_k.map_or("scores".to_string(), |k| format!("rrf k {k}"));
        let cells: Vec<String> = scores
            .iter()
            .map(|s| format!("{:.3}", s.recall()))
            .collect();
        println!(
            "| {fusion} | {depth} | {weights:?} | {} | {recall:.3} | {mrr:.3} |",
            cells.join(" | ")
        );
        rows.push((recall, mrr, (rrf_k, depth, weights)));
    }
    rows.sort_by(|a, b| (b.0, b.1).partial_cmp(&(a.0, a.1)).unwrap());
    rows
}

/// Fusing three rankings (the words, the static model, MiniLM), on the tuning parts only: the
/// grid the choice is made from, mean recall@5 over the sets (`-- three-rankings`).
///
/// With `trained`, the trained static model takes wordllama's place, on the questions a fusion
/// for it may be chosen on (`models::UnseenByTraining`); the rows whose MiniLM weight is 0 are
/// then the trained hybrid without MiniLM, the baseline in the same table.
pub async fn three_rankings_on_the_tuning_parts(trained: bool) {
    let static_model = if trained {
        models::trained_model()
    } else {
        models::model()
    };
    let (Some(static_model), Some(sentence)) = (static_model, models::sentence_model()) else {
        return;
    };
    let unseen = models::UnseenByTraining::load();
    let keep = |set: &mut HeldOut| {
        if trained {
            unseen.keep(set);
        }
    };
    let static_sets = prepare_with(Arc::new(static_model), None, Some("tune"), keep).await;
    let sentence_sets =
        prepare_with(Arc::new(on_every_core(sentence)), None, Some("tune"), keep).await;
    let sets = three_lists(&static_sets, &sentence_sets);
    let mut configs: Vec<Three> = Vec::new();
    for depth in [20, 50, 100] {
        for k in [3.0, 10.0, 30.0, 60.0] {
            for ws in [0.0, 0.25, 0.5, 0.75, 1.0] {
                for wm in [0.0, 0.5, 0.75, 1.0, 1.5] {
                    configs.push((Some(k), depth, [1.0, ws, wm]));
                }
            }
        }
        for ws in [0.0, 0.1, 0.2, 0.3, 0.4, 0.5] {
            for wm in [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7] {
                configs.push((None, depth, [1.0, ws, wm]));
            }
        }
    }
    let rows = three_grid("tuning parts", &sets, &configs);
    println!("best ten on the tuning parts:");
    for (recall, mrr, config) in rows.iter().take(10) {
        println!("{config:?}: mean R@5 {recall:.3}, MRR {mrr:.3}");
    }
    assert!(rows[0].0 > 0.0);
}

/// The three rankings chosen on the tuning parts with a sentence model fine-tuned for tool
/// retrieval (`train/finetune_minilm.py`; by scores, the first 20 of each, weights 1.0, 0.5, 0.7),
/// beside the same fusion without the sentence model, run once on the test parts
/// (`-- three-rankings --trained --test`).
pub async fn three_rankings_on_the_test_parts() {
    let (Some(static_model), Some(sentence)) = (models::trained_model(), models::sentence_model())
    else {
        return;
    };
    let static_sets = prepare(Arc::new(static_model), Some("test")).await;
    let sentence_sets = prepare(Arc::new(on_every_core(sentence)), Some("test")).await;
    let configs: Vec<Three> = vec![(None, 20, [1.0, 0.5, 0.0]), (None, 20, [1.0, 0.5, 0.7])];
    let rows = three_grid(
        "test parts",
        &three_lists(&static_sets, &sentence_sets),
        &configs,
    );
    assert!(rows[0].0 > 0.0);
}

/// A change to a set's tools before they are embedded.
pub type Vary = fn(&mut HeldOut);

/// What MiniLM is given for a tool, on the tuning parts: the whole text (as shipped), the name
/// and description alone, parameter names without their docs, and the whole text cut at 128
/// word pieces (what the model was trained on) instead of 256 (`-- sentence-text`).
pub async fn sentence_tool_text_on_the_tuning_parts() {
    let (Some(static_model), Some(sentence)) = (models::model(), models::sentence_model()) else {
        return;
    };
    let static_sets = prepare(Arc::new(static_model), Some("tune")).await;
    let configs: Vec<Three> = vec![
        (Some(30.0), 50, [0.0, 0.0, 1.0]),
        (Some(30.0), 50, [1.0, 0.0, 1.0]),
        (Some(10.0), 50, [1.0, 0.0, 0.75]),
        (Some(10.0), 50, [1.0, 0.5, 0.75]),
        (Some(10.0), 50, [1.0, 0.25, 0.75]),
        (None, 50, [1.0, 0.4, 0.4]),
    ];
    let whole = Arc::new(on_every_core(sentence));
    let variants: [(&str, Vary); 3] = [
        ("as shipped", |_| {}),
        ("name and description", |set| {
            set.tools.iter_mut().for_each(|t| t.params.clear())
        }),
        ("parameter names without docs", |set| {
            set.tools
                .iter_mut()
                .for_each(|t| t.params.iter_mut().for_each(|p| p.1.clear()))
        }),
    ];
    for (label, vary) in variants {
        let sentence_sets = prepare_with(whole.clone(), None, Some("tune"), vary).await;
        three_grid(label, &three_lists(&static_sets, &sentence_sets), &configs);
    }
    let Some(short) = models::sentence_model() else {
        return;
    };
    let short = Arc::new(on_every_core(short).with_max_tokens(128));
    let sentence_sets = prepare(short, Some("tune")).await;
    three_grid(
        "128 word pieces",
        &three_lists(&static_sets, &sentence_sets),
        &configs,
    );
}

/// What [`after_fusing_on_the_tuning_parts`] varies.
#[derive(Clone, Copy)]
pub enum AfterFusing {
    /// Producer links, off and on.
    Links,
    /// Breadth's weight.
    Breadth,
    /// The weight of a request's best clause in the semantic ranking (before fusing).
    Clauses,
}

/// What a hybrid does besides fusing, on and off, on the tuning parts only: producer links
/// (`HybridConfig::producer_links`, `-- hybrid-links`), breadth (`HybridConfig::breadth`,
/// `-- hybrid-breadth`) or a request's clauses (`HybridConfig::clause_weight`,
/// `-- hybrid-clauses`), for each shipped fusion (mean recall@5 over the sets, each counting
/// once); the trained model on its validation slice (the tuning questions it was not trained on).
pub async fn after_fusing_on_the_tuning_parts(what: AfterFusing) {
    let (Some(static_model), Some(sentence)) = (models::model(), models::sentence_model()) else {
        return;
    };
    let static_sets = prepare(Arc::new(models::model().unwrap()), Some("tune")).await;
    let both = prepare_with(
        Arc::new(on_every_core(sentence)),
        Some(Arc::new(static_model)),
        Some("tune"),
        |_| {},
    )
    .await;
    let mut sets = vec![static_sets, both];
    let mut configs = vec![
        (
            0,
            "static model and the words (default)",
            HybridConfig::default(),
        ),
        (1, "MiniLM and the words", HybridConfig::sentence_model()),
        (1, "three rankings", HybridConfig::three_rankings()),
    ];
    if let Some(trained) = models::trained_model() {
        let unseen = models::UnseenByTraining::load();
        sets.push(
            prepare_with(Arc::new(trained), None, Some("tune"), |set| {
                unseen.keep(set)
            })
            .await,
        );
        configs.push((
            2,
            "trained static model (validation slice; LiveMCPBench's tuning part)",
            HybridConfig::tool_search_model(),
        ));
    }
    let name_of = match what {
        AfterFusing::Links => "links",
        AfterFusing::Breadth => "breadth",
        AfterFusing::Clauses => "clause weight",
    };
    println!(
        "| fusion (tuning parts) | {name_of} | {} | mean R@5 | mean MRR |",
        SETS.join(" R@5 | ")
    );
    for (which, name, config) in configs {
        // Links off and on; breadth off, then at weights from the lexical ranking's up.
        let settings: Vec<(String, HybridConfig)> = match what {
            AfterFusing::Breadth => [0.0, 0.2, 0.5, 1.0, 1.5, 2.0]
                .into_iter()
                .map(|weight| (format!("{weight}"), config.with_breadth(weight)))
                .collect(),
            AfterFusing::Links => [false, true]
                .into_iter()
                .map(|on| (format!("{on}"), config.with_producer_links(on)))
                .collect(),
            AfterFusing::Clauses => [0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5]
                .into_iter()
                .map(|weight| (format!("{weight}"), config.with_clause_weight(weight)))
                .collect(),
        };
        for (setting, config) in settings {
            let scores = on_tuning_parts(&mut sets[which], config);
            let (recall, mrr) = means(&scores);
            let cells: Vec<String> = scores
                .iter()
                .map(|s| format!("{:.3}", s.recall()))
                .collect();
            println!(
                "| {name} | {setting} | {} | {recall:.4} | {mrr:.4} |",
                cells.join(" | ")
            );
            assert!(recall > 0.0);
        }
    }
}
