//! Loop overhead (the loop overhead target of BENCHMARKS.md): a 100-turn run on a zero-latency
//! model with a trivial tool, against the tool's own cost measured in the same run. Per-turn
//! overhead is `(run / 100) - tool call`, computed from the medians printed here (see
//! BENCHMARKS.md).

#[path = "support/agent.rs"]
mod support;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use phi_agent::{Tool, ToolContext};
use serde_json::json;

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
