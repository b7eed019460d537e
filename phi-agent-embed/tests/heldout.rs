//! Hybrid tool search (the lexical index fused with a model's vectors: the static model and the
//! sentence-transformer) on phi-agent's held-out sets (`bench/tool-search/data/`:
//! BFCL, AgentDojo, NESTFUL and ComplexFuncBench, each split
//! into a tuning and a test part by a hash of the expected tools). Fusion's settings were chosen
//! on the tuning parts only (`hybrid_settings_on_the_tuning_parts`, ignored: it prints the grid);
//! the test parts are what BENCHMARKS.md reports.
//!
//! `cargo test -p phi-agent-embed --test heldout -- --nocapture` prints recall@5 and MRR per set,
//! part and kind, lexical, semantic and hybrid.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use phi_agent::registry::ToolRegistry;
use phi_agent::search::{Embedder, EmbeddingCache, Fusion, HybridConfig, HybridIndex};
use phi_agent::{AgentResult, Content, Tool, ToolContext, ToolExposure, static_text};
use phi_agent_embed::SentenceEmbedder;
use serde::Deserialize;
use serde_json::{Map, Value, json};

const SETS: [&str; 4] = ["bfcl", "agentdojo", "nestful", "complexfuncbench"];
const LIMIT: usize = 5;

#[derive(Deserialize)]
struct HeldOut {
    tools: Vec<ToolText>,
    queries: Vec<Query>,
}

#[derive(Deserialize)]
struct ToolText {
    name: String,
    description: String,
    params: Vec<(String, String)>,
}

#[derive(Deserialize)]
struct Query {
    text: String,
    expected: Vec<String>,
    kind: String,
    part: String,
}

struct Listed {
    name: &'static str,
    description: &'static str,
    schema: Value,
}

#[async_trait]
impl Tool for Listed {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn schema(&self) -> Value {
        self.schema.clone()
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Deferred
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(self.name)])
    }
}

fn load(set: &str) -> HeldOut {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../bench/tool-search/data")
        .join(format!("{set}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn registry(set: &HeldOut) -> ToolRegistry {
    let mut registry = ToolRegistry::default();
    for tool in &set.tools {
        let mut properties = Map::new();
        for (name, doc) in &tool.params {
            properties.insert(name.clone(), json!({"type": "string", "description": doc}));
        }
        registry
            .register(Listed {
                name: static_text(&tool.name),
                description: static_text(&tool.description),
                schema: json!({"type": "object", "properties": properties}),
            })
            .unwrap();
    }
    registry
}

#[derive(Default, Clone, Copy)]
struct Score {
    n: usize,
    recall: f64,
    reciprocal: f64,
}

impl Score {
    fn add(&mut self, found: &[usize], expected: &[usize]) {
        self.n += 1;
        let top = &found[..found.len().min(LIMIT)];
        let hits = expected.iter().filter(|e| top.contains(e)).count();
        self.recall += hits as f64 / expected.len().min(LIMIT) as f64;
        if let Some(rank) = top.iter().position(|f| expected.contains(f)) {
            self.reciprocal += 1.0 / (rank + 1) as f64;
        }
    }
    fn recall(&self) -> f64 {
        self.recall / self.n.max(1) as f64
    }
    fn mrr(&self) -> f64 {
        self.reciprocal / self.n.max(1) as f64
    }
}

/// Scores by (part, kind), `all` included.
type Table = BTreeMap<(String, String), Score>;

/// One set, indexed both ways, with every query's vector.
struct Prepared {
    name: &'static str,
    set: HeldOut,
    index: HybridIndex,
    vectors: Vec<Vec<f32>>,
    /// The queries' vectors from the index's second model (empty when it has none).
    second_vectors: Vec<Vec<f32>>,
    position: HashMap<String, usize>,
}

/// The sentence model run on every core: the tests embed thousands of tool texts.
fn on_every_core(model: SentenceEmbedder) -> SentenceEmbedder {
    model.with_threads(std::thread::available_parallelism().map_or(1, usize::from))
}

/// Every tool embedded, and the queries of `part` (all when `None`).
async fn prepare(model: Arc<dyn Embedder>, part: Option<&str>) -> Vec<Prepared> {
    prepare_with(model, None, part, |_| {}).await
}

/// Embeds the texts in batches of the model's size.
async fn embed_all(model: &dyn Embedder, texts: &[&str]) -> Vec<Vec<f32>> {
    let mut vectors = Vec::new();
    for batch in texts.chunks(model.max_batch()) {
        vectors.extend(model.embed(batch).await.unwrap());
    }
    vectors
}

/// [`prepare`] with each set's tools changed by `vary` first (what the tools' texts hold).
async fn prepare_with(
    model: Arc<dyn Embedder>,
    second: Option<Arc<dyn Embedder>>,
    part: Option<&str>,
    vary: impl Fn(&mut HeldOut),
) -> Vec<Prepared> {
    let mut prepared = Vec::new();
    for name in SETS {
        let mut set = load(name);
        vary(&mut set);
        if let Some(part) = part {
            set.queries.retain(|q| q.part == part);
        }
        let registry = registry(&set);
        let embedder = model.clone();
        let mut cache = EmbeddingCache::in_memory();
        let mut index =
            HybridIndex::build(&registry, embedder, &mut cache, HybridConfig::default())
                .await
                .unwrap();
        if let Some(second) = &second {
            index = index
                .with_second(&registry, second.clone(), &mut cache)
                .await
                .unwrap();
        }
        assert_eq!(index.semantic().len(), set.tools.len());
        let texts: Vec<&str> = set.queries.iter().map(|q| q.text.as_str()).collect();
        let vectors = embed_all(model.as_ref(), &texts).await;
        let second_vectors = match &second {
            Some(second) => embed_all(second.as_ref(), &texts).await,
            None => Vec::new(),
        };
        let position = set
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        prepared.push(Prepared {
            name,
            set,
            index,
            vectors,
            second_vectors,
            position,
        });
    }
    prepared
}

#[derive(Clone, Copy)]
enum Ranking {
    Lexical,
    Semantic,
    Hybrid(HybridConfig),
}

fn evaluate(p: &mut Prepared, ranking: Ranking, part: Option<&str>) -> Table {
    if let Ranking::Hybrid(config) = ranking {
        p.index.set_config(config);
    }
    let mut table = Table::new();
    for (i, (query, vector)) in p.set.queries.iter().zip(&p.vectors).enumerate() {
        if part.is_some_and(|part| part != query.part) {
            continue;
        }
        let found: Vec<usize> = match ranking {
            Ranking::Lexical => p
                .index
                .lexical()
                .search(&query.text, LIMIT)
                .iter()
                .map(|h| h.index)
                .collect(),
            Ranking::Semantic => p
                .index
                .semantic()
                .search_vector(vector, LIMIT, |_| true)
                .iter()
                .map(|(i, _)| *i)
                .collect(),
            Ranking::Hybrid(_) => p
                .index
                .fuse_both(
                    &query.text,
                    vector,
                    p.second_vectors.get(i).map(Vec::as_slice),
                    LIMIT,
                    |_| true,
                )
                .iter()
                .map(|h| h.index)
                .collect(),
        };
        let expected: Vec<usize> = query.expected.iter().map(|e| p.position[e]).collect();
        // Tasks that need several tools (most of AgentDojo's) apart from those that need one.
        let size = if expected.len() > 1 {
            "2+ tools"
        } else {
            "1 tool"
        };
        for kind in [query.kind.as_str(), "all", size] {
            table
                .entry((query.part.clone(), kind.to_string()))
                .or_default()
                .add(&found, &expected);
        }
    }
    table
}

fn all(part: &str) -> (String, String) {
    (part.to_string(), "all".to_string())
}

/// Prints the lexical, semantic and hybrid tables per set, part and kind, and returns each set's
/// hybrid recall@5 on its test part.
fn report(prepared: &mut [Prepared], chosen: HybridConfig) -> Vec<(&'static str, f64)> {
    let mut recalls = Vec::new();
    for p in prepared {
        let columns = [
            ("lexical", evaluate(p, Ranking::Lexical, None)),
            ("semantic", evaluate(p, Ranking::Semantic, None)),
            ("hybrid", evaluate(p, Ranking::Hybrid(chosen), None)),
        ];
        let mut header = format!("| {} | part | n |", p.name);
        for (name, _) in &columns {
            header.push_str(&format!(" {name} R@5 | {name} MRR |"));
        }
        println!("{header}");
        for key in columns[0].1.keys() {
            let mut row = format!("| {} | {} | {} |", key.1, key.0, columns[0].1[key].n);
            for (_, table) in &columns {
                row.push_str(&format!(
                    " {:.3} | {:.3} |",
                    table[key].recall(),
                    table[key].mrr()
                ));
            }
            println!("{row}");
        }
        if let Some(test) = columns[2].1.get(&all("test")) {
            println!(
                "{}: hybrid recall@5 {:.4} on the test part\n",
                p.name,
                test.recall()
            );
            recalls.push((p.name, test.recall()));
        }
    }
    recalls
}

fn assert_floors(recalls: &[(&str, f64)], measured: &[(&str, f64)]) {
    for (name, hybrid) in recalls {
        let floor = measured.iter().find(|(set, _)| set == name).unwrap().1 - 0.01;
        assert!(
            *hybrid >= floor,
            "{name}: hybrid recall@5 {hybrid:.3} on the test part, expected at least {floor:.3}"
        );
    }
}

/// The static model's tables, and the test parts' hybrid recall@5 asserted at what was
/// measured (2026-12-01; NESTFUL and ComplexFuncBench 2026-12-02, with producer links since
/// the same day) less 0.01, so a change that loses more fails here.
#[tokio::test(flavor = "current_thread")]
async fn hybrid_recall_at_5_and_mrr_on_the_test_parts() {
    let Some(model) = common::model() else { return };
    let mut prepared = prepare(Arc::new(model), None).await;
    let recalls = report(&mut prepared, HybridConfig::default());
    assert_floors(
        &recalls,
        &[
            ("bfcl", 0.888),
            ("agentdojo", 0.621),
            ("nestful", 0.781),
            ("complexfuncbench", 0.735),
        ],
    );
}

/// Fusion for the sentence-transformer, chosen on the tuning parts of BFCL and AgentDojo
/// (`sentence_hybrid_settings_on_the_tuning_parts`): reciprocal rank fusion, k 30, weights 1
/// and 1 (mean recall@5 0.798, against 0.788 for the best fusion by scores). A second ranking
/// (the static model, where the index has it) is left out.
fn sentence_fusion() -> HybridConfig {
    HybridConfig::default()
        .with_fusion(Fusion::ReciprocalRank)
        .with_rrf_k(30.0)
        .with_semantic_weight(1.0)
        .with_second_weight(0.0)
}

/// The sentence-transformer's tables on the test parts, fused with the words alone
/// (`sentence_fusion`), then with the words and the static model second
/// (`HybridIndex::with_second`, fused as `HybridConfig::three_rankings`, chosen on the tuning
/// parts by `three_rankings_on_the_tuning_parts`). Only the test parts' queries are embedded
/// (1,669 tools and 2,063 questions, by both models); hybrid recall@5 asserted at what was
/// measured (2026-12-02, with producer links after fusing) less 0.01.
#[tokio::test(flavor = "current_thread")]
async fn sentence_hybrid_recall_at_5_and_mrr_on_the_test_parts() {
    let (Some(static_model), Some(sentence)) = (common::model(), common::sentence_model()) else {
        return;
    };
    let mut prepared = prepare_with(
        Arc::new(on_every_core(sentence)),
        Some(Arc::new(static_model)),
        Some("test"),
        |_| {},
    )
    .await;
    println!("MiniLM and the words:\n");
    let recalls = report(&mut prepared, sentence_fusion());
    assert_floors(
        &recalls,
        &[
            ("bfcl", 0.895),
            ("agentdojo", 0.592),
            ("nestful", 0.804),
            ("complexfuncbench", 0.706),
        ],
    );
    println!("MiniLM, the static model and the words (HybridConfig::three_rankings):\n");
    let recalls = report(&mut prepared, HybridConfig::three_rankings());
    assert_floors(
        &recalls,
        &[
            ("bfcl", 0.901),
            ("agentdojo", 0.686),
            ("nestful", 0.818),
            ("complexfuncbench", 0.705),
        ],
    );
}

/// The grid the fusion settings were chosen from: mean recall@5 (then MRR) of the two tuning
/// parts, for fusion by scores (semantic share 0 to 0.6) and by reciprocal rank (k 1 to 100,
/// semantic weight 0.5 to 2). `cargo test -p phi-agent-embed --release --test heldout --
/// --ignored --nocapture`.
#[tokio::test(flavor = "current_thread")]
#[ignore]
async fn hybrid_settings_on_the_tuning_parts() {
    let Some(model) = common::model() else { return };
    grid(prepare(Arc::new(model), Some("tune")).await);
}

/// The same grid with the sentence-transformer.
#[tokio::test(flavor = "current_thread")]
#[ignore]
async fn sentence_hybrid_settings_on_the_tuning_parts() {
    let Some(model) = common::sentence_model() else {
        return;
    };
    grid(prepare(Arc::new(on_every_core(model)), Some("tune")).await);
}

/// Mean recall@5 and MRR over the sets, each set counting once.
fn means(scores: &[Score]) -> (f64, f64) {
    let n = scores.len().max(1) as f64;
    (
        scores.iter().map(Score::recall).sum::<f64>() / n,
        scores.iter().map(Score::mrr).sum::<f64>() / n,
    )
}

/// Each set's score on its tuning part with the hybrid fused by `config`.
fn on_tuning_parts(prepared: &mut [Prepared], config: HybridConfig) -> Vec<Score> {
    prepared
        .iter_mut()
        .map(|p| evaluate(p, Ranking::Hybrid(config), Some("tune"))[&all("tune")])
        .collect()
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
struct Lists {
    lexical: Vec<(usize, f32)>,
    static_model: Vec<(usize, f32)>,
    sentence: Vec<(usize, f32)>,
    expected: Vec<usize>,
}

/// `lists` fused with `weights` (one per list), by reciprocal rank (`Some(k)`) or by scores each
/// divided by its list's best (`None`), each list read to `depth`.
fn fuse_many(
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
fn three_lists<'a>(lexical: &'a [Prepared], sentence: &[Prepared]) -> Vec<(&'a str, Vec<Lists>)> {
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
                expected: query.expected.iter().map(|e| s.position[e]).collect(),
            });
        }
        sets.push((s.name, lists));
    }
    sets
}

/// A fusion of the three lists: reciprocal rank's k (`None`: scores), depth, weights.
type Three = (Option<f32>, usize, [f32; 3]);

/// Prints one row per fusion (recall@5 per set, mean recall@5 and MRR) and returns them, best
/// mean recall@5 (then MRR) first.
fn three_grid(
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
/// grid the choice is made from, mean recall@5 over the sets. `cargo test -p phi-agent-embed
/// --release --test heldout three_rankings -- --ignored --nocapture`.
#[tokio::test(flavor = "current_thread")]
#[ignore]
async fn three_rankings_on_the_tuning_parts() {
    let (Some(static_model), Some(sentence)) = (common::model(), common::sentence_model()) else {
        return;
    };
    let static_sets = prepare(Arc::new(static_model), Some("tune")).await;
    let sentence_sets = prepare(Arc::new(on_every_core(sentence)), Some("tune")).await;
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

/// A change to a set's tools before they are embedded.
type Vary = fn(&mut HeldOut);

/// What MiniLM is given for a tool, on the tuning parts: the whole text (as shipped), the name
/// and description alone, parameter names without their docs, and the whole text cut at 128
/// word pieces (what the model was trained on) instead of 256. `cargo test -p phi-agent-embed
/// --release --test heldout sentence_tool_text -- --ignored --nocapture`.
#[tokio::test(flavor = "current_thread")]
#[ignore]
async fn sentence_tool_text_on_the_tuning_parts() {
    let (Some(static_model), Some(sentence)) = (common::model(), common::sentence_model()) else {
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
    let Some(short) = common::sentence_model() else {
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

/// Producer links after fusing (`HybridConfig::producer_links`), on the tuning parts only: each shipped
/// fusion with and without them (mean recall@5 over the sets, each counting once).
/// `cargo test -p phi-agent-embed --release --test heldout links_in_the_hybrids -- --ignored
/// --nocapture`.
#[tokio::test(flavor = "current_thread")]
#[ignore]
async fn links_in_the_hybrids_on_the_tuning_parts() {
    let (Some(static_model), Some(sentence)) = (common::model(), common::sentence_model()) else {
        return;
    };
    let static_sets = prepare(Arc::new(common::model().unwrap()), Some("tune")).await;
    let both = prepare_with(
        Arc::new(on_every_core(sentence)),
        Some(Arc::new(static_model)),
        Some("tune"),
        |_| {},
    )
    .await;
    let mut sets = [static_sets, both];
    let configs = [
        (
            0,
            "static model and the words (default)",
            HybridConfig::default(),
        ),
        (1, "MiniLM and the words", sentence_fusion()),
        (1, "three rankings", HybridConfig::three_rankings()),
    ];
    println!(
        "| fusion (tuning parts) | links | {} | mean R@5 | mean MRR |",
        SETS.join(" R@5 | ")
    );
    for (which, name, config) in configs {
        for links in [false, true] {
            let config = config.with_producer_links(links);
            let scores = on_tuning_parts(&mut sets[which], config);
            let (recall, mrr) = means(&scores);
            let cells: Vec<String> = scores
                .iter()
                .map(|s| format!("{:.3}", s.recall()))
                .collect();
            println!(
                "| {name} | {links} | {} | {recall:.4} | {mrr:.4} |",
                cells.join(" | ")
            );
            assert!(recall > 0.0);
        }
    }
}
