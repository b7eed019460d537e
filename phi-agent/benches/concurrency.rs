//! Concurrency (the concurrency target of BENCHMARKS.md): 1,000 sessions over one shared agent, all
//! at once, on a multi-thread runtime with 1 and then 2 worker threads. Each session runs 3 turns
//! (two tool calls, then the answer). Throughput is `1,000 / median time` runs per second.
//!
//! That no lock is held across an `.await` is proven statically: the workspace denies clippy's
//! `await_holding_lock`.

#[path = "support/agent.rs"]
mod support;

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const SESSIONS: usize = 1_000;
const TURNS: usize = 3;

fn bench_concurrency(c: &mut Criterion) {
    let agent = support::agent(TURNS);
    let mut group = c.benchmark_group("concurrency");
    group.throughput(Throughput::Elements(SESSIONS as u64));
    group.sample_size(20);
    for workers in [1, 2] {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .expect("runtime");
        group.bench_with_input(
            BenchmarkId::new("1000_sessions", format!("{workers}_workers")),
            &workers,
            |b, _| {
                b.iter_custom(|iters| {
                    rt.block_on(async {
                        let start = Instant::now();
                        for _ in 0..iters {
                            let runs: Vec<_> = (0..SESSIONS)
                                .map(|_| {
                                    let agent = agent.clone();
                                    tokio::spawn(async move { agent.run("go").await })
                                })
                                .collect();
                            for run in runs {
                                let output = run.await.expect("no panic").expect("run");
                                assert_eq!(output.turns, TURNS);
                            }
                        }
                        start.elapsed()
                    })
                })
            },
        );
    }
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
    targets = bench_concurrency
}
criterion_main!(benches);
