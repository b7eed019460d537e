#!/usr/bin/env bash
# Instructions per `tools/call`, by server: each release server of bench/mcp-serving runs under
# `valgrind --tool=callgrind`, is sent 100 calls to warm up, its counters are zeroed, and it is
# sent 500 more; the instructions of those 500 (every thread of the server) ÷ 500 is the figure.
# Unlike req/s and CPU time, it does not depend on what else runs on the machine, so it pairs
# a change's before and after on shared cores. The profiles are kept (callgrind.out.*) for
# `callgrind_annotate --inclusive=yes`.
#
# Usage: scripts/mcp-serving-instructions.sh [NAME=BINARY ...]
#   default: phi, rmcp and floor, built here (release). NAME=BINARY measures that binary (one of
#   bench/mcp-serving's servers, e.g. a copy built before a change) under NAME instead.
# Environment: CALLS (default 500), TOOLS (default "add echo"), MODES (default "stateless";
#   "stateless stateful" adds one session with SSE answers; the floor has no sessions),
#   MCP_BENCH_DIR (profiles and logs; default target/mcp-serving-bench).
# Needs: valgrind, python3, cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
bench=$repo/bench/mcp-serving
work=${MCP_BENCH_DIR:-$repo/target/mcp-serving-bench}
mkdir -p "$work/bin" "$work/callgrind"
calls=${CALLS:-500}
port=18809

declare -a servers=()
if (($#)); then
    servers=("$@")
else
    export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$work/target}
    echo "Building the servers (release)..."
    cargo build --release --quiet --manifest-path "$bench/Cargo.toml" --features phi --bins
    for name in phi rmcp floor; do
        cp "$CARGO_TARGET_DIR/release/$name-server" "$work/bin/"
        servers+=("$name=$work/bin/$name-server")
    done
fi
echo "Instructions per tools/call, $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"

pid=""
stop() {
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=""
}
trap stop EXIT

printf '| server | mode | tool | instructions per call |\n|---|---|---|---|\n'
for entry in "${servers[@]}"; do
    name=${entry%%=*} binary=${entry#*=}
    for mode in ${MODES:-stateless}; do
        [[ $name == floor* && $mode == stateful ]] && continue
        for tool in ${TOOLS:-add echo}; do
            flag=--stateless stateful=""
            [[ $mode == stateful ]] && flag="" stateful=--stateful
            out=$work/callgrind/callgrind.out.$name.$mode.$tool
            rm -f "$out"*
            valgrind --tool=callgrind --callgrind-out-file="$out" \
                "$binary" --bind "127.0.0.1:$port" $flag >"$work/callgrind/$name.$mode.$tool.log" 2>&1 &
            pid=$!
            for _ in $(seq 600); do
                if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
                sleep 0.1
            done
            python3 "$bench/send-calls.py" "$port" "$tool" 100 $stateful >/dev/null
            callgrind_control -z "$pid" >/dev/null
            python3 "$bench/send-calls.py" "$port" "$tool" "$calls" $stateful >/dev/null
            callgrind_control -d "$pid" >/dev/null
            stop
            # The dump after zeroing holds the measured calls alone (summed over its threads).
            total=$(cat "$out".* 2>/dev/null | awk '/^summary:/ { sum += $2 } END { print sum + 0 }')
            printf '| %s | %s | %s | %s |\n' "$name" "$mode" "$tool" \
                "$(awk -v t="$total" -v n="$calls" 'BEGIN { printf "%.0f", t / n }')"
        done
    done
done
