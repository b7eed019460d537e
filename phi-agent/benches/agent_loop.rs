//! Loop overhead (the loop overhead target of BENCHMARKS.md): a 100-turn run on a zero-latency
//! model with a trivial tool, against the tool's own cost measured in the same run. Per-turn
//! overhead is `(run / 100) - tool call`, computed from the medians printed here (see
//! BENCHMARKS.md).

#[path = "support/agent.rs"]
mod support;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use phi_agent::registry::ToolSource;
use phi_agent::{AgentResult, Content, Tool, ToolContext};
use serde_json::{Value, json};

const TURNS: usize = 100;

fn bench_loop(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let agent = support::agent(TURNS);
    let probe = rt.block_on(agent.run("go")).expect("run");
    assert_eq!(probe.turns, TURNS, "the model answers on the last turn");
    assert_eq!(probe.tool_calls.len(), TURNS - 1);

    let mut group = c.benchmark_group("loop");
    group.bench_function("run_100_turns", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(agent.run("go").await.expect("run"));
                }
                start.elapsed()
            })
        })
    });
    // The same run with `add` and 200 other tools from a live source (as an MCP server's tools
    // are offered): the per-turn cost of following the source (one generation read while it is
    // unchanged) and of calling a live tool, beside `run_100_turns`.
    let live = live_agent(TURNS, 200);
    let probe = rt.block_on(live.run("go")).expect("run");
    assert_eq!(probe.tool_calls.len(), TURNS - 1);
    assert!(probe.tool_calls.iter().all(|call| !call.is_error));
    group.bench_function("run_100_turns_live_200", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(live.run("go").await.expect("run"));
                }
                start.elapsed()
            })
        })
    });
    // The tool's own time per turn: the same call through the `Tool` trait.
    let args = json!({"a": 1, "b": 1});
    let ctx = ToolContext::default();
    group.bench_function("tool_call", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(support::Add.call(black_box(&args), &ctx).await.ok());
                }
                start.elapsed()
            })
        })
    });
    group.finish();
}

/// A tool that is only offered.
struct Filler(&'static str);

#[async_trait::async_trait]
impl Tool for Filler {
    fn name(&self) -> &'static str {
        self.0
    }
    fn description(&self) -> &'static str {
        "A tool that is offered and never called"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(Vec::new())
    }
}

/// A source that never changes.
struct Fixed(Vec<Arc<dyn Tool>>);

impl ToolSource for Fixed {
    fn generation(&self) -> u64 {
        1
    }
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.0.clone()
    }
}

/// [`support::agent`] with `add` and `fillers` more tools from a live source instead of its own.
fn live_agent(turns: usize, fillers: usize) -> phi_agent::PhiAgent {
    let mut tools: Vec<Arc<dyn Tool>> = vec![Arc::new(support::Add)];
    tools.extend((0..fillers).map(|index| {
        Arc::new(Filler(Box::leak(
            format!("filler_{index}").into_boxed_str(),
        ))) as Arc<dyn Tool>
    }));
    let builder = phi_agent::base_agent_builder(support::InstantModel { turns })
        .register_source(Arc::new(Fixed(tools)));
    let config = phi_agent::AgentConfig::default().with_max_turns(turns);
    phi_agent::PhiAgent::build(builder, config).expect("valid agent")
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_loop
}
criterion_main!(benches);
