//! One search at 10,000 tools, lexical and hybrid with the static model and with the
//! sentence-transformer (the query's embedding included): p50 and p99 over BFCL's test
//! questions, bytes per tool, and (for the sentence-transformer) the time to embed the
//! catalogue. Times depend on the machine and its load. `PHI_SCALE_QUERIES=n` runs the first n
//! questions, for an instruction count under callgrind.

use std::sync::Arc;
use std::time::{Duration, Instant};

use phi_agent::registry::ToolRegistry;
use phi_agent::search::{Embedder, HybridIndex, SemanticSearch, lab};
use phi_agent::static_text;
use serde_json::{Map, json};
use tool_search_lab::models;
use tool_search_lab::sets::{HeldOut, Listed, load};

const TOOLS: usize = 10_000;

/// BFCL's tools repeated for vendors (`acme_<name>`, description suffixed "(on acme)") up to
/// 10,000, as the core crate's benchmark builds them: every tool has near-identical siblings.
fn registry(set: &HeldOut) -> ToolRegistry {
    let vendors = [
        "acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka",
    ];
    let mut registry = ToolRegistry::default();
    'fill: for vendor in vendors {
        for tool in &set.tools {
            if registry.len() == TOOLS {
                break 'fill;
            }
            let mut properties = Map::new();
            for (name, doc) in &tool.params {
                properties.insert(name.clone(), json!({"type": "string", "description": doc}));
            }
            // A name past the length limit with its prefix is left out.
            let _ = registry.register(Listed::deferred(
                static_text(format!("{vendor}_{}", tool.name)),
                static_text(format!("{} (on {vendor})", tool.description)),
                json!({"type": "object", "properties": properties}),
            ));
        }
    }
    assert_eq!(registry.len(), TOOLS);
    registry
}

/// The first `limit` questions of the set's test part.
fn test_questions(set: &HeldOut, limit: usize) -> Vec<&str> {
    set.queries
        .iter()
        .filter(|q| q.part == "test")
        .map(|q| q.text.as_str())
        .take(limit)
        .collect()
}

/// How many questions to time: `PHI_SCALE_QUERIES`, or `default`.
fn query_limit(default: usize) -> usize {
    std::env::var("PHI_SCALE_QUERIES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// The hybrid index over `registry` with the fusion the model names (wordllama's: the static
/// model's; the trained model's: `tool_search_model`), every tool embedded afresh.
async fn hybrid_index(registry: &ToolRegistry, embedder: Arc<dyn Embedder>) -> HybridIndex {
    SemanticSearch::new(embedder)
        .build_index(registry)
        .await
        .unwrap()
}

fn percentiles(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[times.len() * 99 / 100])
}

pub async fn one_search_at_10000_tools() {
    let Some(model) = models::model() else { return };
    let model = Arc::new(model);
    let set = load("bfcl");
    let registry = registry(&set);
    let queries = test_questions(&set, query_limit(usize::MAX));

    let started = Instant::now();
    let embedder: Arc<dyn Embedder> = model.clone();
    let mut index = hybrid_index(&registry, embedder).await;
    let build = started.elapsed();

    // The model's fusion without a request's clauses, each query timed both ways: what they cost.
    let config = index.config();
    let mut unclaused = Vec::new();
    let mut lexical = Vec::new();
    let mut embed = Vec::new();
    let mut hybrid = Vec::new();
    let mut found = 0;
    for query in &queries {
        let started = Instant::now();
        found += std::hint::black_box(index.lexical().search(query, 5)).len();
        lexical.push(started.elapsed());
        let started = Instant::now();
        std::hint::black_box(model.embed_one(query));
        embed.push(started.elapsed());
        let started = Instant::now();
        found += std::hint::black_box(index.search(query, 5).await.unwrap()).len();
        hybrid.push(started.elapsed());
        if config.clause_weight > 0.0 {
            index.set_config(config.with_clause_weight(0.0));
            let started = Instant::now();
            std::hint::black_box(index.search(query, 5).await.unwrap());
            unclaused.push(started.elapsed());
            index.set_config(config);
        }
    }
    let ((l50, l99), (e50, e99), (h50, h99)) = (
        percentiles(lexical),
        percentiles(embed),
        percentiles(hybrid),
    );
    let lexical_bytes = index.lexical().heap_bytes() as f64 / TOOLS as f64;
    let vector_bytes = index.semantic().heap_bytes() / index.semantic().len().max(1);
    println!(
        "{TOOLS} tools, {} BFCL test questions; index built in {build:?} (every tool embedded)",
        queries.len()
    );
    println!("lexical: p50 {l50:?}, p99 {l99:?}");
    println!("query embedding alone: p50 {e50:?}, p99 {e99:?}");
    println!("hybrid (query embedded, both rankings, fused): p50 {h50:?}, p99 {h99:?}");
    if !unclaused.is_empty() {
        let (u50, u99) = percentiles(unclaused);
        let several = queries.iter().filter(|q| lab::clauses(q).len() > 1).count();
        println!(
            "the same without clauses (clause weight {} → 0; {several} questions have several): \
             p50 {u50:?}, p99 {u99:?}",
            config.clause_weight
        );
    }
    println!(
        "memory per tool: lexical index {lexical_bytes:.0} B, vector {vector_bytes} B; the model {:.1} MB once",
        model.heap_bytes() as f64 / 1e6
    );
    assert!(found > 0);
}

/// The sentence-transformer at 10,000 tools: the catalogue embedded once (on every core), then
/// one search per BFCL test question (`PHI_SCALE_QUERIES=n`: the first n; default 200), the
/// query embedded on one thread as a search does.
pub async fn sentence_search_at_10000_tools() {
    let Some(model) = models::sentence_model() else {
        return;
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let set = load("bfcl");
    let registry = registry(&set);
    let queries = test_questions(&set, query_limit(200));

    let batch = Arc::new(model.with_threads(threads));
    let started = Instant::now();
    let embedder: Arc<dyn Embedder> = batch.clone();
    let index = hybrid_index(&registry, embedder).await;
    let build = started.elapsed();
    // A search embeds its one query on the calling thread (a batch of one is not split).
    let single: Arc<dyn Embedder> = batch.clone();

    let mut embed = Vec::new();
    let mut hybrid = Vec::new();
    let mut found = 0;
    for query in &queries {
        let started = Instant::now();
        std::hint::black_box(single.embed(&[query]).await.unwrap());
        embed.push(started.elapsed());
        let started = Instant::now();
        found += std::hint::black_box(index.search(query, 5).await.unwrap()).len();
        hybrid.push(started.elapsed());
    }
    let ((e50, e99), (h50, h99)) = (percentiles(embed), percentiles(hybrid));
    println!(
        "{TOOLS} tools embedded in {build:?} on {threads} threads ({:.2} ms a tool); {} BFCL test questions",
        build.as_secs_f64() * 1e3 / TOOLS as f64,
        queries.len()
    );
    println!("query embedding alone: p50 {e50:?}, p99 {e99:?}");
    println!("hybrid (query embedded, both rankings, fused): p50 {h50:?}, p99 {h99:?}");
    println!(
        "memory per tool: lexical index {:.0} B, vector {} B; the model {:.1} MB once",
        index.lexical().heap_bytes() as f64 / TOOLS as f64,
        index.semantic().heap_bytes() / index.semantic().len().max(1),
        batch.heap_bytes() as f64 / 1e6
    );
    assert!(found > 0);
}

/// The query embedding alone, for an instruction count per query under callgrind
/// (`--toggle-collect='phi_agent_embed::model::StaticEmbedder::embed_one*'`).
pub fn embedding_the_queries() {
    let Some(model) = models::model() else { return };
    let set = load("bfcl");
    let queries = test_questions(&set, usize::MAX);
    let started = Instant::now();
    let nonzero = queries
        .iter()
        .filter(|q| model.embed_one(q).iter().any(|v| *v != 0.0))
        .count();
    println!(
        "{} queries embedded in {:?}",
        queries.len(),
        started.elapsed()
    );
    assert_eq!(nonzero, queries.len());
}

/// The sentence-transformer's cost per query, which a hybrid search adds to the lexical search
/// and the vector scan: the first 200 BFCL test questions embedded one at a time on one thread
/// (the model crate is optimized even in test builds, so a test build measures it).
pub fn sentence_query_embedding() {
    let Some(model) = models::sentence_model() else {
        return;
    };
    let set = load("bfcl");
    let queries = test_questions(&set, 200);
    let tokens: usize = queries.iter().map(|q| model.tokenize(q).len()).sum();
    let mut times = Vec::new();
    for query in &queries {
        let started = Instant::now();
        std::hint::black_box(model.embed_one(query));
        times.push(started.elapsed());
    }
    let (p50, p99) = percentiles(times);
    println!(
        "{} queries, {:.1} tokens each on average: p50 {p50:?}, p99 {p99:?}",
        queries.len(),
        tokens as f64 / queries.len() as f64
    );
    assert!(tokens > queries.len() * 2);
}
