#!/usr/bin/env bash
# A whole agent run beside rig's (bench/agent-run, outside the workspace, so CI never builds rig):
# a scripted model with no latency, 10 turns of 3 tool calls then a final answer (11 model
# calls), the same three small tools on both sides, one agent per side serving every run.
# Prints the wall-time table (median of 15 batches of 100 runs, allocations counted by a global
# allocator) and, when valgrind is installed, instructions per run from callgrind (the headline:
# it does not depend on what else the machine runs). The load average is printed with each.
#
# Usage: scripts/agent-run-bench.sh [RUNS]   (RUNS counted under callgrind, default 20)
# Environment: CARGO_TARGET_DIR (default target/agent-run-bench).
# Pinned: bench/agent-run/Cargo.lock (rig-agent and rig-core 0.44.0, rig's `MockCompletionModel`
# from rig-core's `test-utils`).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$(pwd)/target/agent-run-bench}
cargo build --release --locked --manifest-path bench/agent-run/Cargo.toml
bin=$CARGO_TARGET_DIR/release/agent-run-bench

echo "== wall time ($(date -u '+%F %H:%M UTC'), $(uptime | sed 's/.*load/load/'))"
"$bin"

if ! command -v valgrind >/dev/null; then
    echo "valgrind not found: no instruction counts"
    exit 0
fi
out=$(mktemp)
echo "== callgrind, $runs runs of each side ($(uptime | sed 's/.*load/load/'))"
valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --count "$runs" 2>/dev/null
echo "| side | instructions per run | per model call (11) |"
echo "|---|---|---|"
for f in count_phi count_phi_seq count_rig; do
    total=$(callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
        grep -E "main.rs:agent_run_bench::$f\$|main.rs:agent_run_bench::$f " | head -1 |
        awk '{gsub(",", "", $1); print $1}')
    if [ -z "$total" ]; then
        echo "| $f | not found in the profile | |"
        continue
    fi
    echo "| $f | $((total / runs)) | $((total / runs / 11)) |"
done
rm -f "$out"
