//! A whole agent run beside rig's, in one process: a scripted model with no latency answers
//! 10 turns of 3 tool calls each, then a final text (11 model calls); the same three small tools
//! on both sides. Prints time and allocations per run and per model call.
//!
//! Modes (`scripts/agent-run-bench.sh` runs them):
//! - no argument: timed, runs of each side in alternating batches, medians;
//! - `--count N`: N runs of each side in `count_phi` / `count_phi_seq` / `count_rig`, for
//!   `valgrind --tool=callgrind` (instructions do not depend on the machine's load).
//!
//! Both scripted models hand out turns prepared before the counted region: rig's own
//! `MockCompletionModel` (rig-core's `test-utils`) pops a prepared `MockTurn` from its queue, and
//! ours pops a prepared `LlmResponse` from a queue the same way. One agent per side serves every
//! run, as an application would keep one.

mod alloc;
mod phi;
mod rig;

use std::hint::black_box;
use std::time::Instant;

/// Tool-calling turns per run; each asks for [`CALLS`] calls, then one more turn answers.
pub const TURNS: usize = 10;
/// Tool calls the model asks for per turn.
pub const CALLS: usize = 3;
/// Model calls per run: the tool-calling turns and the final answer.
pub const MODEL_CALLS: usize = TURNS + 1;

/// The arguments of the `k`-th call of `turn`: `add`, `mul` and `upper` in turn.
pub fn call_of(turn: usize, k: usize) -> (&'static str, serde_json::Value) {
    let n = (turn * CALLS + k) as i64;
    match k % 3 {
        0 => ("add", serde_json::json!({"a": n, "b": 1})),
        1 => ("mul", serde_json::json!({"a": n, "b": 2})),
        _ => ("upper", serde_json::json!({"text": format!("word {n}")})),
    }
}

#[inline(never)]
fn count_phi(rt: &tokio::runtime::Runtime, agent: &phi::Side, runs: usize) {
    for _ in 0..runs {
        black_box(rt.block_on(agent.run()));
    }
}

#[inline(never)]
fn count_phi_seq(rt: &tokio::runtime::Runtime, agent: &phi::Side, runs: usize) {
    for _ in 0..runs {
        black_box(rt.block_on(agent.run()));
    }
}

#[inline(never)]
fn count_rig(rt: &tokio::runtime::Runtime, agent: &rig::Side, runs: usize) {
    for _ in 0..runs {
        black_box(rt.block_on(agent.run()));
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rt = runtime();
    // Each side's answer is checked once before anything is measured.
    phi::Side::new(1, 8).check(&rt);
    phi::Side::new(1, 1).check(&rt);
    rig::Side::new(1).check(&rt);

    if let Some(pos) = args.iter().position(|a| a == "--count") {
        let runs: usize = args
            .get(pos + 1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(100);
        let phi = phi::Side::new(runs, 8);
        let phi_seq = phi::Side::new(runs, 1);
        let rig = rig::Side::new(runs);
        count_phi(&rt, &phi, runs);
        count_phi_seq(&rt, &phi_seq, runs);
        count_rig(&rt, &rig, runs);
        println!("counted {runs} runs of each side: see callgrind_annotate --inclusive=yes");
        return;
    }

    let batch = 100;
    let rounds = 15;
    let mut phi_times = Vec::new();
    let mut seq_times = Vec::new();
    let mut rig_times = Vec::new();
    let (mut phi_allocs, mut seq_allocs, mut rig_allocs) = (0, 0, 0);
    for _ in 0..rounds {
        let side = phi::Side::new(batch, 8);
        let (t, a) = timed(|| count_phi(&rt, &side, batch));
        phi_times.push(t / batch as f64);
        phi_allocs = a / batch as u64;
        let side = phi::Side::new(batch, 1);
        let (t, a) = timed(|| count_phi_seq(&rt, &side, batch));
        seq_times.push(t / batch as f64);
        seq_allocs = a / batch as u64;
        let side = rig::Side::new(batch);
        let (t, a) = timed(|| count_rig(&rt, &side, batch));
        rig_times.push(t / batch as f64);
        rig_allocs = a / batch as u64;
    }
    println!(
        "median of {rounds} batches of {batch} runs; a run = {MODEL_CALLS} model calls, {} tool calls",
        TURNS * CALLS
    );
    println!("| side | µs per run | µs per model call | allocations per run | per model call |");
    println!("|---|---|---|---|---|");
    for (name, times, allocs) in [
        (
            "phi-agent `PhiAgent` (default: up to 8 tools at once)",
            &mut phi_times,
            phi_allocs,
        ),
        (
            "phi-agent `PhiAgent`, one tool at a time",
            &mut seq_times,
            seq_allocs,
        ),
        (
            "rig-agent `Agent` (default: one tool at a time)",
            &mut rig_times,
            rig_allocs,
        ),
    ] {
        times.sort_by(f64::total_cmp);
        let us = times[times.len() / 2] * 1e6;
        println!(
            "| {name} | {us:.1} | {:.2} | {allocs} | {:.1} |",
            us / MODEL_CALLS as f64,
            allocs as f64 / MODEL_CALLS as f64
        );
    }
}

/// Seconds taken by `f` and the allocations it made.
fn timed(f: impl FnOnce()) -> (f64, u64) {
    let before = alloc::count();
    let start = Instant::now();
    f();
    let elapsed = start.elapsed().as_secs_f64();
    (elapsed, alloc::count() - before)
}
