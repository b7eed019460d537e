//! What earlier requests could teach the search, tried on the trained model's validation slice
//! of the tuning parts (the requests it was not trained on), each learning from the rest of the
//! tuning part only: never the slice scored, never a test part. None is shipped: the first two
//! lose more than 0.01 on a set against the hybrid alone, and the third's gain rests on
//! AgentDojo's 17 questions (BENCHMARKS.md, "Tool search").
//!
//! - **Examples**: a tool's description extended with the requests that used it (document
//!   expansion), at most `n` of them.
//! - **Memory**: the nearest earlier requests (by the model's vectors) vote for the tools they
//!   used, and the votes' ranking is fused with the hybrid's by reciprocal rank.
//! - **Companions**: the tools earlier requests used together with the hybrid's first hits,
//!   fused with its ranking by reciprocal rank.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use phi_agent::search::{HybridConfig, ToolIndex};
use phi_agent_embed::StaticEmbedder;
use tool_search_lab::hybrid::{Prepared, Ranking, embed_all, evaluate, prepare_with};
use tool_search_lab::models;
use tool_search_lab::score::{LIMIT, Score, all};
use tool_search_lab::sets::{HeldOut, load, registry};
use tool_search_lab::table::means;

/// The tuning requests outside `held` (the validation slice), with the tools each used.
fn remembered<'a>(
    set: &'a HeldOut,
    held: &'a HashSet<String>,
) -> impl Iterator<Item = (&'a str, &'a [String])> {
    set.queries
        .iter()
        .filter(|q| q.part == "tune" && !held.contains(&q.text))
        .map(|q| (q.text.as_str(), q.expected.as_slice()))
}

/// Appends to each tool's description at most `most` of the remembered requests that used it.
fn expand(set: &mut HeldOut, held: &HashSet<String>, most: usize) {
    let mut used: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (text, tools) in remembered(set, held) {
        for tool in tools.iter().flat_map(|t| t.split('|')) {
            used.entry(tool.to_string())
                .or_default()
                .push(text.to_string());
        }
    }
    for tool in &mut set.tools {
        for example in used.get(&tool.name).into_iter().flatten().take(most) {
            tool.description.push('\n');
            tool.description.push_str(example);
        }
    }
}

/// One row: each set's recall@5 on the validation slice, and their mean.
fn row(name: &str, scores: &[Score]) {
    let cells: Vec<String> = scores
        .iter()
        .map(|s| format!("{:.3} (n {})", s.recall(), s.n))
        .collect();
    println!(
        "| {name} | {} | {:.4} |",
        cells.join(" | "),
        means(scores).0
    );
}

/// The validation slice's questions and the sets prepared for them, tools varied by `vary`.
async fn validation_slice(
    model: &Arc<StaticEmbedder>,
    held: &HashSet<String>,
    vary: impl Fn(&mut HeldOut),
) -> Vec<Prepared> {
    let mut prepared = prepare_with(model.clone(), None, Some("tune"), |set| {
        vary(set);
        set.queries.retain(|q| held.contains(&q.text));
    })
    .await;
    for p in &mut prepared {
        p.index.set_config(HybridConfig::static_model());
    }
    prepared
}

/// Lexical, vector and hybrid recall@5 on the validation slice, with 0 to all examples.
pub async fn examples_on_the_validation_slice() {
    let Some(model) = models::trained_model() else {
        return;
    };
    let model = Arc::new(model);
    let held = models::validation_questions();
    println!(
        "| examples, ranking | BFCL | AgentDojo | NESTFUL | ComplexFuncBench | LiveMCPBench | mean |"
    );
    println!("|---|---|---|---|---|---|---|");
    for most in [0, 1, 3, 10, usize::MAX] {
        let mut prepared = validation_slice(&model, &held, |set| expand(set, &held, most)).await;
        for (name, ranking) in [
            ("lexical", Ranking::Lexical),
            ("vectors", Ranking::Semantic),
            ("hybrid", Ranking::Hybrid(HybridConfig::static_model())),
        ] {
            let scores: Vec<Score> = prepared
                .iter_mut()
                .map(|p| evaluate(p, ranking, Some("tune"))[&all("tune")])
                .collect();
            let most = if most == usize::MAX {
                "all".to_string()
            } else {
                most.to_string()
            };
            row(&format!("{most}, {name}"), &scores);
        }
    }
}

/// How a request's memory votes and joins the hybrid.
#[derive(Clone, Copy)]
struct Memory {
    /// Earlier requests that vote.
    neighbours: usize,
    /// The least cosine a voter needs.
    floor: f32,
    /// The votes' weight in the reciprocal-rank fusion (the hybrid's is 1; k is 10).
    weight: f32,
}

/// Cosine of two vectors (0 when either is zero).
fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norms =
        a.iter().map(|x| x * x).sum::<f32>().sqrt() * b.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norms == 0.0 { 0.0 } else { dot / norms }
}

/// Tools, best first: the votes of the nearest `memory.neighbours` requests in `vectors` (each
/// with its tools in `used`), by their summed cosines.
fn votes(memory: Memory, vector: &[f32], vectors: &[Vec<f32>], used: &[Vec<usize>]) -> Vec<usize> {
    let mut near: Vec<(f32, usize)> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (cosine(vector, v), i))
        .filter(|(similarity, _)| *similarity >= memory.floor)
        .collect();
    near.sort_by(|a, b| b.0.total_cmp(&a.0));
    near.truncate(memory.neighbours);
    let mut votes: BTreeMap<usize, f32> = BTreeMap::new();
    for (similarity, i) in near {
        for tool in &used[i] {
            *votes.entry(*tool).or_default() += similarity;
        }
    }
    let mut ranked: Vec<(usize, f32)> = votes.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked.into_iter().map(|(tool, _)| tool).collect()
}

/// Reciprocal-rank fusion (k 10) of two rankings, the second at `weight`.
fn fuse(first: &[usize], second: &[usize], weight: f32) -> Vec<usize> {
    let mut fused: BTreeMap<usize, f32> = BTreeMap::new();
    for (rank, tool) in first.iter().enumerate() {
        *fused.entry(*tool).or_default() += 1.0 / (10.0 + rank as f32);
    }
    for (rank, tool) in second.iter().enumerate() {
        *fused.entry(*tool).or_default() += weight / (10.0 + rank as f32);
    }
    let mut ranked: Vec<(usize, f32)> = fused.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked.into_iter().map(|(tool, _)| tool).collect()
}

/// The hybrid alone, then fused with the memory of the remembered requests, on the validation
/// slice: a grid of neighbours, floors and weights.
pub async fn memory_on_the_validation_slice() {
    let Some(model) = models::trained_model() else {
        return;
    };
    let model = Arc::new(model);
    let held = models::validation_questions();
    let prepared = validation_slice(&model, &held, |_| {}).await;
    let mut memories = Vec::new();
    for p in &prepared {
        let set = load(p.name);
        let (texts, used): (Vec<&str>, Vec<Vec<usize>>) = remembered(&set, &held)
            .map(|(text, tools)| {
                (
                    text,
                    tools
                        .iter()
                        .flat_map(|t| t.split('|'))
                        .map(|t| p.position[t])
                        .collect(),
                )
            })
            .unzip();
        memories.push((embed_all(model.as_ref(), &texts).await, used));
    }
    println!("| memory | BFCL | AgentDojo | NESTFUL | ComplexFuncBench | LiveMCPBench | mean |");
    println!("|---|---|---|---|---|---|---|");
    let mut grid = vec![None];
    for neighbours in [1, 3, 5, 10] {
        for floor in [0.0, 0.6, 0.75, 0.85] {
            for weight in [0.5, 1.0, 2.0] {
                grid.push(Some(Memory {
                    neighbours,
                    floor,
                    weight,
                }));
            }
        }
    }
    for memory in grid {
        let scores: Vec<Score> = prepared
            .iter()
            .zip(&memories)
            .map(|(p, (vectors, used))| {
                let mut score = Score::default();
                for (query, vector) in p.set.queries.iter().zip(&p.vectors) {
                    let hybrid: Vec<usize> = p
                        .index
                        .fuse_both(&query.text, vector, None, 20, |_| true)
                        .iter()
                        .map(|h| h.index)
                        .collect();
                    let found = match memory {
                        Some(memory) => fuse(
                            &hybrid,
                            &votes(memory, vector, vectors, used),
                            memory.weight,
                        ),
                        None => hybrid,
                    };
                    let expected = query.positions(|e| p.position[e]);
                    score.add(&found, &expected);
                }
                score
            })
            .collect();
        let name = match memory {
            None => "none (the hybrid)".to_string(),
            Some(m) => format!(
                "{} nearest, cosine >= {}, weight {}",
                m.neighbours, m.floor, m.weight
            ),
        };
        row(&name, &scores);
    }
}

/// How the tools used together with the best hits join the hybrid.
#[derive(Clone, Copy)]
struct Companions {
    /// The hybrid's first hits whose companions are brought in.
    hits: usize,
    /// The least number of remembered requests that used both tools.
    together: usize,
    /// The companions' weight in the reciprocal-rank fusion (the hybrid's is 1; k is 10).
    weight: f32,
}

/// Tools, best first: for each of the first `companions.hits` of `hybrid`, the tools remembered
/// requests used with it, each by the share of its requests that also used them (at least
/// `companions.together` requests), weighted by the hit's reciprocal rank.
fn companions(companions: Companions, hybrid: &[usize], used: &[Vec<usize>]) -> Vec<usize> {
    let mut votes: BTreeMap<usize, f32> = BTreeMap::new();
    for (rank, hit) in hybrid.iter().take(companions.hits).enumerate() {
        let with_hit: Vec<&Vec<usize>> = used.iter().filter(|tools| tools.contains(hit)).collect();
        let mut together: BTreeMap<usize, usize> = BTreeMap::new();
        for tools in &with_hit {
            for tool in tools.iter().filter(|tool| *tool != hit) {
                *together.entry(*tool).or_default() += 1;
            }
        }
        for (tool, count) in together {
            if count >= companions.together {
                *votes.entry(tool).or_default() +=
                    count as f32 / with_hit.len() as f32 / (1.0 + rank as f32);
            }
        }
    }
    let mut ranked: Vec<(usize, f32)> = votes.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked.into_iter().map(|(tool, _)| tool).collect()
}

/// The trained hybrid (as shipped, breadth included) alone, then fused with the tools remembered
/// requests used together with its first hits, on the validation slice: a grid.
pub async fn companions_on_the_validation_slice() {
    let Some(model) = models::trained_model() else {
        return;
    };
    let model = Arc::new(model);
    let held = models::validation_questions();
    let mut prepared = validation_slice(&model, &held, |_| {}).await;
    let mut used_sets = Vec::new();
    for p in &mut prepared {
        p.index.set_config(HybridConfig::tool_search_model());
        let set = load(p.name);
        let used: Vec<Vec<usize>> = remembered(&set, &held)
            .map(|(_, tools)| {
                tools
                    .iter()
                    .flat_map(|t| t.split('|'))
                    .map(|t| p.position[t])
                    .collect()
            })
            .collect();
        used_sets.push(used);
    }
    println!(
        "| companions | BFCL | AgentDojo | NESTFUL | ComplexFuncBench | LiveMCPBench | mean |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut grid = vec![None];
    for hits in [2, 3, 4] {
        for together in [1, 2] {
            for weight in [0.05, 0.1, 0.15, 0.2, 0.25, 0.3] {
                grid.push(Some(Companions {
                    hits,
                    together,
                    weight,
                }));
            }
        }
    }
    for setting in grid {
        let scores: Vec<Score> = prepared
            .iter()
            .zip(&used_sets)
            .map(|(p, used)| {
                let mut score = Score::default();
                for (query, vector) in p.set.queries.iter().zip(&p.vectors) {
                    // `LEXICAL=1`: the lexical ranking's first 20 instead of the hybrid's.
                    let hybrid: Vec<usize> = if std::env::var_os("LEXICAL").is_some() {
                        p.index.lexical().search(&query.text, 20)
                    } else {
                        p.index.fuse_both(&query.text, vector, None, 20, |_| true)
                    }
                    .iter()
                    .map(|h| h.index)
                    .collect();
                    let found = match setting {
                        Some(c) => fuse(&hybrid, &companions(c, &hybrid, used), c.weight),
                        None => hybrid,
                    };
                    let expected = query.positions(|e| p.position[e]);
                    score.add(&found, &expected);
                }
                score
            })
            .collect();
        let name = match setting {
            None => "none (the hybrid)".to_string(),
            Some(c) => format!(
                "first {} hits, together >= {}, weight {}",
                c.hits, c.together, c.weight
            ),
        };
        row(&name, &scores);
    }
}

/// The setting chosen on the validation slice (`companions`): the best mean recall@5 with no set
/// more than 0.01 lower than the hybrid alone.
const CHOSEN: Companions = Companions {
    hits: 3,
    together: 1,
    weight: 0.25,
};

/// The chosen companions on the test parts, once: every tuning request remembered, the trained
/// hybrid (and the lexical ranking) with and without them.
pub async fn companions_on_the_test_parts() {
    let Some(model) = models::trained_model() else {
        return;
    };
    let mut prepared = prepare_with(Arc::new(model), None, Some("test"), |_| {}).await;
    println!(
        "| test parts | ranking | BFCL | AgentDojo | NESTFUL | ComplexFuncBench | LiveMCPBench | mean |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut used_sets = Vec::new();
    let mut lexicals = Vec::new();
    for p in &mut prepared {
        p.index.set_config(HybridConfig::tool_search_model());
        let set = load(p.name);
        // The lexical index as shipped (the hybrid's own is built for fusion).
        lexicals.push(ToolIndex::build(&registry(&set)));
        let used: Vec<Vec<usize>> = set
            .queries
            .iter()
            .filter(|q| q.part == "tune")
            .map(|q| q.positions(|e| p.position[e]).concat())
            .collect();
        used_sets.push(used);
    }
    for lexical in [false, true] {
        for setting in [None, Some(CHOSEN)] {
            let scores: Vec<Score> = prepared
                .iter()
                .zip(&used_sets)
                .zip(&lexicals)
                .map(|((p, used), lexical_index)| {
                    let mut score = Score::default();
                    for (query, vector) in p.set.queries.iter().zip(&p.vectors) {
                        // Alone, each ranking is asked for what is scored, as shipped (its
                        // breadth depends on how many are asked for); companions need 20.
                        let limit = if setting.is_some() { 20 } else { LIMIT };
                        let ranked: Vec<usize> = if lexical {
                            lexical_index.search(&query.text, limit)
                        } else {
                            p.index
                                .fuse_both(&query.text, vector, None, limit, |_| true)
                        }
                        .iter()
                        .map(|h| h.index)
                        .collect();
                        let found = match setting {
                            Some(c) => fuse(&ranked, &companions(c, &ranked, used), c.weight),
                            None => ranked,
                        };
                        score.add(&found, &query.positions(|e| p.position[e]));
                    }
                    score
                })
                .collect();
            let name = format!(
                "{}, {}",
                if lexical { "lexical" } else { "trained hybrid" },
                if setting.is_some() {
                    "with companions"
                } else {
                    "alone"
                }
            );
            row(&name, &scores);
        }
    }
}
