//! Hybrid tool search (the lexical index fused with a model's vectors: the static model and the
//! sentence-transformer) on phi-agent's held-out sets (`phi-agent/tests/core/tool_search_heldout/`: BFCL and AgentDojo, each split
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
use serde::Deserialize;
use serde_json::{Map, Value, json};

const SETS: [&str; 2] = ["bfcl", "agentdojo"];
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
        .join("../phi-agent/tests/core/tool_search_heldout")
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
    position: HashMap<String, usize>,
}

/// Every tool embedded, and the queries of `part` (all when `None`).
async fn prepare(model: Arc<dyn Embedder>, part: Option<&str>) -> Vec<Prepared> {
    let mut prepared = Vec::new();
    for name in SETS {
        let mut set = load(name);
        if let Some(part) = part {
            set.queries.retain(|q| q.part == part);
        }
        let registry = registry(&set);
        let embedder = model.clone();
        let mut cache = EmbeddingCache::in_memory();
        let index = HybridIndex::build(&registry, embedder, &mut cache, HybridConfig::default())
            .await
            .unwrap();
        assert_eq!(index.semantic().len(), set.tools.len());
        let texts: Vec<&str> = set.queries.iter().map(|q| q.text.as_str()).collect();
        let mut vectors = Vec::new();
        for batch in texts.chunks(model.max_batch()) {
            vectors.extend(model.embed(batch).await.unwrap());
        }
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
    for (query, vector) in p.set.queries.iter().zip(&p.vectors) {
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
                .fuse(&query.text, vector, LIMIT, |_| true)
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
        println!();
        recalls.push((p.name, columns[2].1[&all("test")].recall()));
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
/// measured (2026-12-01) less 0.01, so a change that loses more fails here.
#[tokio::test(flavor = "current_thread")]
async fn hybrid_recall_at_5_and_mrr_on_the_test_parts() {
    let Some(model) = common::model() else { return };
    let mut prepared = prepare(Arc::new(model), None).await;
    let recalls = report(&mut prepared, HybridConfig::default());
    assert_floors(&recalls, &[("bfcl", 0.889), ("agentdojo", 0.576)]);
}

/// Fusion for the sentence-transformer, chosen on the tuning parts
/// (`sentence_hybrid_settings_on_the_tuning_parts`): reciprocal rank fusion, k 30, weights 1
/// and 1 (mean recall@5 0.798, against 0.788 for the best fusion by scores).
fn sentence_fusion() -> HybridConfig {
    HybridConfig::default()
        .with_fusion(Fusion::ReciprocalRank)
        .with_rrf_k(30.0)
        .with_semantic_weight(1.0)
}

/// The sentence-transformer's tables on the test parts (only those queries are embedded: the
/// 1,496 tools and 1,371 questions; 101 s of CPU in a test build, 2026-12-02, load 6), hybrid
/// recall@5 asserted at what was measured (2026-12-02) less 0.01.
#[tokio::test(flavor = "current_thread")]
async fn sentence_hybrid_recall_at_5_and_mrr_on_the_test_parts() {
    let Some(model) = common::sentence_model() else {
        return;
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut prepared = prepare(Arc::new(model.with_threads(threads)), Some("test")).await;
    let recalls = report(&mut prepared, sentence_fusion());
    assert_floors(&recalls, &[("bfcl", 0.895), ("agentdojo", 0.543)]);
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
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    grid(prepare(Arc::new(model.with_threads(threads)), Some("tune")).await);
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
    println!(
        "| fusion | k | candidates | lexical weight | semantic weight | bfcl R@5 | bfcl MRR | agentdojo R@5 | agentdojo MRR | mean R@5 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut best: Option<(f64, f64, HybridConfig)> = None;
    for config in configs {
        let scores: Vec<Score> = prepared
            .iter_mut()
            .map(|p| evaluate(p, Ranking::Hybrid(config), Some("tune"))[&all("tune")])
            .collect();
        let recall = scores.iter().map(Score::recall).sum::<f64>() / 2.0;
        let mrr = scores.iter().map(Score::mrr).sum::<f64>() / 2.0;
        println!(
            "| {:?} | {} | {} | {:.2} | {:.2} | {:.3} | {:.3} | {:.3} | {:.3} | {recall:.3} |",
            config.fusion,
            config.rrf_k,
            config.candidates,
            config.lexical_weight,
            config.semantic_weight,
            scores[0].recall(),
            scores[0].mrr(),
            scores[1].recall(),
            scores[1].mrr()
        );
        if best.is_none_or(|(r, m, _)| (recall, mrr) > (r, m)) {
            best = Some((recall, mrr, config));
        }
    }
    let (recall, mrr, config) = best.unwrap();
    println!("best on the tuning parts: {config:?} (mean R@5 {recall:.3}, MRR {mrr:.3})");
    assert!(recall > 0.0);
}
