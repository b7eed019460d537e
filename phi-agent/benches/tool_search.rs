//! Tool search at scale (the tool search figures of BENCHMARKS.md): 10,000 Deferred tools made
//! from the fixture's 329 (`tests/core/tool_search_fixture.txt`), each repeated for 31 vendors
//! or products, so that the vocabulary is the fixture's and every near-duplicate has dozens of
//! siblings.
//!
//! - `build_10000`: `ToolIndex::build` over the registry (every schema read once, not kept).
//! - `search_10000`: one search of the fixture's queries in turn (criterion's median is the p50
//!   of one search over a mix of short and long queries).
//! - Printed once: p50 and p99 of single searches timed one by one, and the index's heap bytes
//!   per tool (`ToolIndex::heap_bytes`, which counts the dictionary, postings and per-tool
//!   entries at their capacity); the same for 10,000 tools made from the held-out BFCL set's
//!   1,427 (`bench/tool-search/data/bfcl.json`, vendor-prefixed the same way) searched
//!   with its test part's questions, which are longer than the fixture's queries.
//! - Printed once: p50 and p99 of one hybrid search (`HybridIndex::search`, the query embedded by
//!   a stand-in embedder that hashes words into 384 dimensions, the size of a small
//!   sentence-transformer's vectors) over the same 10,000 BFCL-made tools: the fusion and the
//!   vector scan, not a model's own time.

use std::hint::black_box;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use criterion::{Criterion, criterion_group, criterion_main};
use phi_agent::registry::ToolRegistry;
use phi_agent::search::{Embedder, HybridConfig, SemanticSearch, ToolIndex};
use phi_agent::{AgentResult, Content, Tool, ToolContext, ToolExposure};
use serde_json::{Map, Value, json};

const FIXTURE: &str = include_str!("../tests/core/tool_search_fixture.txt");
const TOOLS: usize = 10_000;
const VENDORS: [&str; 31] = [
    "acme",
    "globex",
    "initech",
    "umbrella",
    "hooli",
    "vandelay",
    "stark",
    "wayne",
    "wonka",
    "tyrell",
    "cyberdyne",
    "soylent",
    "aperture",
    "oscorp",
    "gringotts",
    "monarch",
    "nakatomi",
    "massive",
    "virtucon",
    "zorg",
    "duff",
    "krusty",
    "pied",
    "dunder",
    "sterling",
    "prestige",
    "bluth",
    "cogswell",
    "spacely",
    "weyland",
    "yoyodyne",
];

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
        Ok(Vec::new())
    }
}

fn leak(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// 10,000 tools: the fixture's, each with a vendor prefix and the vendor named in its
/// description.
fn registry() -> ToolRegistry {
    let base: Vec<(String, String, Value)> = FIXTURE
        .lines()
        .filter_map(|line| line.strip_prefix("T "))
        .map(|record| {
            let parts: Vec<&str> = record.split(" | ").map(str::trim).collect();
            let mut properties = Map::new();
            for parameter in parts.get(2).unwrap_or(&"").split("; ") {
                let (name, doc) = parameter.split_once(": ").unwrap_or((parameter, ""));
                if !name.trim().is_empty() {
                    properties.insert(
                        name.trim().to_string(),
                        json!({"type": "string", "description": doc.trim()}),
                    );
                }
            }
            (
                parts[0].to_string(),
                parts[1].to_string(),
                json!({"type": "object", "properties": properties}),
            )
        })
        .collect();
    vendored(&base)
}

/// [`TOOLS`] tools made from `base` by vendor prefixes.
fn vendored(base: &[(String, String, Value)]) -> ToolRegistry {
    let mut registry = ToolRegistry::default();
    for i in 0..TOOLS {
        let (name, description, schema) = &base[i % base.len()];
        let vendor = VENDORS[i / base.len() % VENDORS.len()];
        registry
            .register(Listed {
                // Within the 64-byte name rule: a long BFCL name gets a number instead.
                name: leak(if vendor.len() + name.len() < 64 {
                    format!("{vendor}_{name}")
                } else {
                    format!("{vendor}_{i}")
                }),
                description: leak(format!("{description} (on {vendor})")),
                schema: schema.clone(),
            })
            .expect("distinct names");
    }
    registry
}

fn queries() -> Vec<&'static str> {
    FIXTURE
        .lines()
        .filter_map(|line| line.strip_prefix("Q "))
        .map(|record| record.split(" | ").nth(1).expect("a query").trim())
        .collect()
}

/// The held-out BFCL set's tools, and its test part's questions.
fn bfcl() -> (Vec<(String, String, Value)>, Vec<&'static str>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bench/tool-search/data/bfcl.json"
    );
    let set: Value = serde_json::from_str(&std::fs::read_to_string(path).expect(path)).expect(path);
    let tools = set["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| {
            let mut properties = Map::new();
            for param in tool["params"].as_array().expect("params") {
                properties.insert(
                    param[0].as_str().unwrap_or("").to_string(),
                    json!({"type": "string", "description": param[1]}),
                );
            }
            (
                tool["name"].as_str().expect("name").to_string(),
                tool["description"].as_str().unwrap_or("").to_string(),
                json!({"type": "object", "properties": properties}),
            )
        })
        .collect();
    let questions = set["queries"]
        .as_array()
        .expect("queries")
        .iter()
        .filter(|query| query["part"] == "test")
        .map(|query| leak(query["text"].as_str().expect("text").to_string()))
        .collect();
    (tools, questions)
}

/// p50 and p99 of single searches, each query of `queries` timed `rounds` times.
fn print_latency(label: &str, index: &ToolIndex, queries: &[&str], rounds: usize) {
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..rounds {
        for query in queries {
            let started = Instant::now();
            black_box(index.search(black_box(query), 5));
            times.push(started.elapsed());
        }
    }
    times.sort();
    println!(
        "tool_search ({label}): {} tools, {} single searches: p50 {:?}, p99 {:?}; index {} bytes = {} bytes per tool",
        index.len(),
        times.len(),
        times[times.len() / 2],
        times[times.len() * 99 / 100],
        index.heap_bytes(),
        index.heap_bytes() / index.len().max(1)
    );
}

/// Words hashed into [`DIMENSIONS`] buckets: costs what a vector lookup costs, says nothing a
/// model would.
struct Hashed;

const DIMENSIONS: usize = 384;

#[async_trait]
impl Embedder for Hashed {
    fn model(&self) -> &str {
        "hashed-384"
    }
    async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|text| {
                let mut vector = vec![0f32; DIMENSIONS];
                for word in text.split(|c: char| !c.is_alphanumeric()) {
                    let hash = word.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                    });
                    vector[(hash % DIMENSIONS as u64) as usize] += 1.0;
                }
                vector
            })
            .collect())
    }
}

fn print_hybrid_latency(tools: &[(String, String, Value)], queries: &[&str]) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let registry = vendored(tools);
    let index = runtime
        .block_on(
            SemanticSearch::new(std::sync::Arc::new(Hashed))
                .with_config(HybridConfig::static_model())
                .build_index(&registry),
        )
        .expect("built");
    let mut times: Vec<Duration> = Vec::new();
    for query in queries {
        let started = Instant::now();
        black_box(
            runtime
                .block_on(index.search(black_box(query), 5))
                .expect("searched"),
        );
        times.push(started.elapsed());
    }
    times.sort();
    println!(
        "tool_search (hybrid, BFCL): {} tools, {DIMENSIONS} dimensions, {} single searches: p50 {:?}, p99 {:?}; vectors {} bytes per tool",
        index.lexical().len(),
        times.len(),
        times[times.len() / 2],
        times[times.len() * 99 / 100],
        index.semantic().heap_bytes() / index.semantic().len().max(1)
    );
}

fn bench(c: &mut Criterion) {
    let registry = registry();
    let queries = queries();
    let index = ToolIndex::build(&registry);
    assert_eq!(index.len(), TOOLS);
    print_latency("fixture", &index, &queries, 20);
    let (bfcl_tools, bfcl_questions) = bfcl();
    let bfcl_index = ToolIndex::build(&vendored(&bfcl_tools));
    assert_eq!(bfcl_index.len(), TOOLS);
    print_latency("BFCL", &bfcl_index, &bfcl_questions, 3);
    print_hybrid_latency(&bfcl_tools, &bfcl_questions);

    let mut group = c.benchmark_group("tool_search");
    group.sample_size(20);
    group.bench_function("build_10000", |b| {
        b.iter(|| black_box(ToolIndex::build(black_box(&registry))))
    });
    let mut next = 0;
    group.bench_function("search_10000", |b| {
        b.iter(|| {
            next = (next + 1) % queries.len();
            black_box(index.search(black_box(queries[next]), 5))
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
