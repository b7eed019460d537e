//! The tool list of a turn (the warm and cold tool list targets of BENCHMARKS.md), as the agent and
//! the OpenAI adapter build it: the session's `Arc<[ToolSpec]>` (rebuilt only when the active set
//! changes) and the request's `tools` bytes (the adapter keeps the serialized array of the last
//! list it saw).
//!
//! - `warm`: the list is unchanged since the last turn: the adapter serializes a request with the
//!   same `Arc<[ToolSpec]>`, so the tools part is copied as cached bytes.
//! - `cold`: a fresh registry's first turn: every schema is parsed, converted to the dialect,
//!   turned into a definition and serialized. `cold`: hand-written schemas already in strict
//!   form (the dialect borrows them). `cold_typed`: schemars-derived schemas with optional
//!   fields (the dialect is rebuilt), shared as typed tools share them. `cold_derived_text`: the
//!   derived schemas from hand-written tools, parsed from the registry's compact text. Each
//!   `*_process` row is the same first turn in a new process that has built only that
//!   registry, as a program's first turn is (the plain rows run in a process whose allocator
//!   recycles the last registry's memory, which spares them most page faults).
//! - `new_list`: a list the adapter has not seen yet, over schemas already derived.
//! - `activation_recheck`: the per-turn re-evaluation of Deferred tools that stay inactive.
//!
//! Instead of criterion, for load-independent figures of the cold first turn:
//! `PHI_TOOL_LIST_COUNT=<runs>` (under callgrind, see [`count_cold_list`]),
//! `PHI_TOOL_LIST_PARTS=<runs>` and `PHI_TOOL_LIST_FIRST=<kind>` (time and page faults of its
//! two parts, see [`print_parts`]).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use phi_agent::__private::{BoxFuture, FastPath, TypedCall};
use phi_agent::llm::{LlmRequest, OpenAiClient, ToolSpec};
use phi_agent::registry::{ActiveTools, ToolRegistry};
use phi_agent::schema::canonical_schema_for;
use phi_agent::{
    ActivationContext, AgentResult, Content, Tool, ToolConfig, ToolContext, ToolExposure,
};
use schemars::JsonSchema;
use serde_json::{Value, json};

/// A tool with its own name and schema, of the given exposure; with a shared schema it stands in
/// for a typed tool (through the registry's hidden hook).
struct Generated {
    name: &'static str,
    schema: Value,
    /// The canonical schema shared the way a `TypedTool` shares its argument type's.
    shared: Option<Arc<Value>>,
    exposure: ToolExposure,
}

#[async_trait]
impl Tool for Generated {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "Search one collection for matching records"
    }
    fn schema(&self) -> Value {
        self.schema.clone()
    }
    fn exposure(&self) -> ToolExposure {
        self.exposure
    }
    fn __fast_path(&self) -> FastPath<'_> {
        match self.shared {
            Some(_) => FastPath::Typed(self),
            None => FastPath::Plain,
        }
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(self.name)])
    }
    async fn should_activate(&self, _: &ActivationContext) -> bool {
        false
    }
}

impl TypedCall for Generated {
    fn shared_schema(&self) -> Arc<Value> {
        self.shared.clone().unwrap_or_default()
    }
    fn check_arguments(&self, _: &Value) -> AgentResult<()> {
        Ok(())
    }
    fn should_activate<'a>(&'a self, ctx: &'a ActivationContext) -> BoxFuture<'a, bool> {
        Tool::should_activate(self, ctx)
    }
    fn call_within<'a>(
        &'a self,
        args: &'a Value,
        ctx: &'a ToolContext,
        _: usize,
    ) -> BoxFuture<'a, AgentResult<Vec<Content>>> {
        self.call(args, ctx)
    }
}

/// The arguments of a typical derived tool: optional fields, no `deny_unknown_fields`, so its
/// strict dialect has to be rebuilt rather than borrowed.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct SearchArgs {
    /// What to look for
    query: String,
    limit: Option<u32>,
    filters: Filters,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Filters {
    tags: Vec<String>,
    /// ISO date
    since: Option<String>,
}

/// Which schema each generated tool carries, and how.
#[derive(Clone, Copy)]
enum SchemaKind {
    /// Hand-written, already in OpenAI strict form; the registry keeps it as compact text.
    StrictForm,
    /// Derived by schemars from `SearchArgs` and shared as an `Arc`, exactly as a `TypedTool`
    /// (and so `#[phi_tool]`) shares its argument type's: 1,000 such tools stand for 1,000
    /// argument types.
    Typed,
    /// The same derived schema returned by a hand-written `Tool`; kept as compact text.
    DerivedText,
}

fn generated(index: usize, exposure: ToolExposure, kind: SchemaKind) -> Generated {
    let name = String::leak(format!("search_{index}"));
    match kind {
        SchemaKind::Typed => {
            let schema = canonical_schema_for::<SearchArgs>();
            let shared = Some(Arc::new(schema.clone()));
            return Generated {
                name,
                schema,
                shared,
                exposure,
            };
        }
        SchemaKind::DerivedText => {
            return Generated {
                name,
                schema: canonical_schema_for::<SearchArgs>(),
                shared: None,
                exposure,
            };
        }
        SchemaKind::StrictForm => {}
    }
    Generated {
        name,
        shared: None,
        schema: json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                "filters": {
                    "type": "object",
                    "properties": {
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "since": {"type": "string", "description": "ISO date"}
                    },
                    "required": ["tags", "since"],
                    "additionalProperties": false
                }
            },
            "required": ["query", "limit", "filters"],
            "additionalProperties": false
        }),
        exposure,
    }
}

/// `direct` Direct tools, then `deferred` Deferred and `hidden` Hidden ones.
fn registry(direct: usize, deferred: usize, hidden: usize) -> ToolRegistry {
    registry_with(direct, deferred, hidden, SchemaKind::StrictForm)
}

fn registry_with(direct: usize, deferred: usize, hidden: usize, kind: SchemaKind) -> ToolRegistry {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    let exposures = std::iter::repeat_n(ToolExposure::Direct, direct)
        .chain(std::iter::repeat_n(ToolExposure::Deferred, deferred))
        .chain(std::iter::repeat_n(ToolExposure::Hidden, hidden));
    for (index, exposure) in exposures.enumerate() {
        registry
            .register(generated(index, exposure, kind))
            .expect("valid tool");
    }
    registry
}

fn request(tools: Arc<[ToolSpec]>) -> LlmRequest {
    LlmRequest::default()
        .with_system("You are a search assistant.")
        .with_messages(Vec::new())
        .with_tools(tools)
}

fn tool_list(registry: &ToolRegistry, active: &ActiveTools) -> Arc<[ToolSpec]> {
    registry.visible(active).map(|tool| tool.spec()).collect()
}

/// `runs` cold first turns of a fresh 1,000-tool registry (800 Direct) of schema `kind`, each
/// registry built outside the counted part, for instruction counts: with
/// `PHI_TOOL_LIST_COUNT=<runs>` the bench runs these instead of criterion, so that
/// `valgrind --tool=callgrind --toggle-collect='*count_first_turn_*'` sees a known number of lists.
#[inline(never)]
fn count_cold_list(rt: &tokio::runtime::Runtime, kind: SchemaKind, runs: usize) {
    for _ in 0..runs {
        let registry = registry_with(800, 150, 50, kind);
        let active = rt.block_on(registry.visible_tools(&ActivationContext::default()));
        let client = OpenAiClient::new("sk-bench", "gpt-4o-mini").expect("client");
        let first_turn = match kind {
            SchemaKind::StrictForm => count_first_turn_strict,
            SchemaKind::Typed => count_first_turn_typed,
            SchemaKind::DerivedText => count_first_turn_text,
        };
        black_box(first_turn(&registry, &active, &client));
    }
}

#[inline(never)]
fn count_first_turn_strict(r: &ToolRegistry, a: &ActiveTools, c: &OpenAiClient) -> usize {
    // A body of its own (identical ones are merged into one symbol).
    count_cold_first_turn(r, a, c) + black_box(0)
}

#[inline(never)]
fn count_first_turn_typed(r: &ToolRegistry, a: &ActiveTools, c: &OpenAiClient) -> usize {
    // A body of its own (identical ones are merged into one symbol).
    count_cold_first_turn(r, a, c) + black_box(1)
}

#[inline(never)]
fn count_first_turn_text(r: &ToolRegistry, a: &ActiveTools, c: &OpenAiClient) -> usize {
    // A body of its own (identical ones are merged into one symbol).
    count_cold_first_turn(r, a, c) + black_box(2)
}

/// The counted part of [`count_cold_list`]: what `cold_*` times.
#[inline(never)]
fn count_cold_first_turn(
    registry: &ToolRegistry,
    active: &ActiveTools,
    client: &OpenAiClient,
) -> usize {
    let request = request(tool_list(registry, active));
    client.request_bytes(&request).len()
}

/// Minor page faults of this process so far (`/proc/self/stat`, field 10; 0 where there is no
/// such file). Faults are a cost of the cold list that instruction counts do not show: each
/// page the first turn writes for the first time costs the kernel ~2 µs on the benchmark
/// machine (a VM), and a thousand tools' text is hundreds of pages.
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    after_name
        .split_whitespace()
        .nth(7)
        .and_then(|field| field.parse().ok())
        .unwrap_or(0)
}

/// One cold first turn of a fresh 1,000-tool registry of schema `kind`, in two parts: the tool
/// list (`ToolSpec`s; the text kinds parse their schemas here) and the request's bytes (dialect
/// texts derived, the tools array and the body written). Wall time (ms) and minor page faults
/// of each part, as `[list ms, bytes ms, list faults, bytes faults]`; the registry is built
/// before and dropped after, as in `cold_*`.
fn first_turn_parts(rt: &tokio::runtime::Runtime, kind: SchemaKind) -> [f64; 4] {
    let registry = registry_with(800, 150, 50, kind);
    let active = rt.block_on(registry.visible_tools(&ActivationContext::default()));
    let client = OpenAiClient::new("sk-bench", "gpt-4o-mini").expect("client");
    let (parts, request, bytes) = parts_of_first_turn(&registry, &active, &client);
    drop(black_box((request, bytes)));
    parts
}

/// The measured part of [`first_turn_parts`] (a function of its own for
/// `valgrind --toggle-collect='*parts_of_first_turn*'`).
#[inline(never)]
fn parts_of_first_turn(
    registry: &ToolRegistry,
    active: &ActiveTools,
    client: &OpenAiClient,
) -> ([f64; 4], LlmRequest, Vec<u8>) {
    let faults = minor_faults();
    let start = Instant::now();
    let request = request(tool_list(registry, active));
    let listed = Instant::now();
    let listed_faults = minor_faults();
    let bytes = client.request_bytes(&request);
    let written = Instant::now();
    let written_faults = minor_faults();
    let parts = [
        (listed - start).as_secs_f64() * 1e3,
        (written - listed).as_secs_f64() * 1e3,
        (listed_faults - faults) as f64,
        (written_faults - listed_faults) as f64,
    ];
    (parts, request, bytes)
}

/// `PHI_TOOL_LIST_PARTS=<runs>`: the medians of [`first_turn_parts`] over `runs` fresh
/// registries of each kind, one process (as criterion repeats them), printed one line a kind.
/// `PHI_TOOL_LIST_FIRST=<kind>` (`strict`, `typed`, `text`): the same for the first registry of
/// the process only, the one a program has (run it in a loop for a distribution): the
/// allocator has not recycled a thousand earlier registries' memory, so the faults are those
/// of a program's first turn.
fn print_parts(parts: &[[f64; 4]], kind: SchemaKind) {
    let median = |part: usize| {
        let mut values: Vec<f64> = parts.iter().map(|run| run[part]).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let label = match kind {
        SchemaKind::StrictForm => "cold",
        SchemaKind::Typed => "cold_typed",
        SchemaKind::DerivedText => "cold_derived_text",
    };
    println!(
        "{label:>17}: list {:.3} ms + bytes {:.3} ms = {:.3} ms; page faults {} + {}",
        median(0),
        median(1),
        median(0) + median(1),
        median(2),
        median(3),
    );
}

fn bench_tool_list(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    const KINDS: [SchemaKind; 3] = [
        SchemaKind::StrictForm,
        SchemaKind::Typed,
        SchemaKind::DerivedText,
    ];
    let runs_from = |var: &str| std::env::var(var).ok().and_then(|runs| runs.parse().ok());
    if let Some(runs) = runs_from("PHI_TOOL_LIST_COUNT") {
        for kind in KINDS {
            count_cold_list(&rt, kind, runs);
        }
        return;
    }
    if let Some(runs) = runs_from("PHI_TOOL_LIST_PARTS") {
        for kind in KINDS {
            let parts: Vec<[f64; 4]> = (0..runs).map(|_| first_turn_parts(&rt, kind)).collect();
            print_parts(&parts, kind);
        }
        return;
    }
    if let Ok(kind) = std::env::var("PHI_TOOL_LIST_FIRST") {
        let kind = match kind.as_str() {
            "strict" => SchemaKind::StrictForm,
            "typed" => SchemaKind::Typed,
            "text" => SchemaKind::DerivedText,
            other => panic!("PHI_TOOL_LIST_FIRST={other}: strict, typed or text"),
        };
        let parts = first_turn_parts(&rt, kind);
        print_parts(&[parts], kind);
        // For `first_turn_in_new_process`.
        println!("first_turn_ns={}", ((parts[0] + parts[1]) * 1e6) as u64);
        return;
    }
    let client = OpenAiClient::new("sk-bench", "gpt-4o-mini").expect("client");
    let mut group = c.benchmark_group("tool_list");
    for (label, direct, deferred, hidden) in [("200", 200, 0, 0), ("1000", 800, 150, 50)] {
        let registry = registry(direct, deferred, hidden);
        let mut active = rt.block_on(registry.visible_tools(&ActivationContext::default()));
        let tools = tool_list(&registry, &active);
        assert_eq!(tools.len(), direct, "only Direct tools are visible");
        let request = request(tools);
        let first = client.request_bytes(&request);
        assert!(first.len() > direct * 200, "every tool is in the body");
        group.bench_function(format!("warm/{label}"), |b| {
            b.iter(|| black_box(client.request_bytes(black_box(&request))))
        });
        group.bench_function(format!("activation_recheck/{label}"), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        black_box(registry.activate(&mut active).await);
                    }
                    start.elapsed()
                })
            })
        });
    }
    // A list the adapter has not seen (a new `Arc`) over a registry that has served before: the
    // first turn after a Deferred tool is activated. Schemas and dialects are reused; the list is
    // serialized again. (Sessions showing just the Direct tools share the registry's one list,
    // so a new session's first turn is `warm`.)
    let served = registry(800, 150, 50);
    let served_active = rt.block_on(served.visible_tools(&ActivationContext::default()));
    client.request_bytes(&request(tool_list(&served, &served_active)));
    group.bench_function("new_list/1000", |b| {
        b.iter(|| {
            let request = request(tool_list(&served, &served_active));
            black_box(client.request_bytes(&request))
        })
    });
    for (label, kind) in [
        ("cold/1000", SchemaKind::StrictForm),
        ("cold_typed/1000", SchemaKind::Typed),
        ("cold_derived_text/1000", SchemaKind::DerivedText),
    ] {
        group.bench_function(label, |b| {
            b.iter_batched(
                || {
                    let registry = registry_with(800, 150, 50, kind);
                    let active = rt.block_on(registry.visible_tools(&ActivationContext::default()));
                    let client = OpenAiClient::new("sk-bench", "gpt-4o-mini").expect("client");
                    (registry, active, client)
                },
                |(registry, active, client)| {
                    let request = request(tool_list(&registry, &active));
                    black_box(client.request_bytes(&request));
                    (registry, client)
                },
                BatchSize::PerIteration,
            )
        });
    }
    // The same first turns, each in a process of its own that has built just that registry:
    // a program's first turn. The rows above repeat it in one process, whose allocator hands
    // each registry the memory the last one freed, so they miss the page faults of memory the
    // process never touched (over a thousand for the text kinds' parsed schemas).
    group.sample_size(10);
    for (label, kind) in [
        ("cold_process/1000", "strict"),
        ("cold_typed_process/1000", "typed"),
        ("cold_derived_text_process/1000", "text"),
    ] {
        group.bench_function(label, |b| {
            b.iter_custom(|iters| (0..iters).map(|_| first_turn_in_new_process(kind)).sum())
        });
    }
    group.finish();
}

/// The time of [`first_turn_parts`] for `kind` (`PHI_TOOL_LIST_FIRST`) as a child process
/// running this bench binary measures it.
fn first_turn_in_new_process(kind: &str) -> Duration {
    let output = std::process::Command::new(std::env::current_exe().expect("the bench binary"))
        .arg("--bench")
        .env("PHI_TOOL_LIST_FIRST", kind)
        .output()
        .expect("the child runs");
    let nanos = String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("first_turn_ns=")?.parse().ok())
        .expect("the child prints its time");
    Duration::from_nanos(nanos)
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_tool_list
}
criterion_main!(benches);
