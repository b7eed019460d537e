#!/usr/bin/env bash
# MCP serving, side by side: phi-agent's `serve_http`, rmcp's own `StreamableHttpService` (on
# hyper), the floor (hyper and serde with no MCP library: what any server must do; stateless
# only), the TypeScript SDK's server (express) and the Python SDK's and FastMCP's (uvicorn),
# each serving the same two tools (`add`, a 10 KB `echo`), stateless and stateful, driven by
# `wrk` at 1, 16 and 64 connections with a Lua script that sends one `tools/call` per request and
# checks every answer (bench/mcp-serving/wrk/tools-call.lua). Reports req/s, p50, p99, errors,
# the server's peak RSS and its CPU time per request, its req/s as a ratio to phi-agent's and its
# CPU per request as a ratio to the floor's in the same run. The load average is printed at the start and at the end: run it on a quiet
# machine (client and server share its cores).
#
# Usage: scripts/mcp-serving-bench.sh [--quick] [--soak] [--servers LIST]
#   --quick         1 s per row, 1 and 16 connections (checks the script end to end)
#   --soak          only the soak run: phi-agent (release), stateful, 64 connections calling `add`
#                   for SOAK_SECONDS (default 600) while sessions are opened and abandoned
#                   meanwhile; prints errors and the server's RSS over time
#   --servers LIST  comma-separated subset of phi,rmcp,floor,typescript,python,fastmcp (default: all)
# Environment: DURATION (seconds per row, default 10), CONNECTIONS (default "1 16 64"),
#   MCP_BENCH_DIR (the Python venv, logs and, unless CARGO_TARGET_DIR is set, the Rust target
#   directory; kept between runs so that the next run reuses them; default
#   target/mcp-serving-bench), SOAK_SECONDS, SOAK_IDLE_SECS
#   (sessions idle this long expire; default 60), SOAK_ABANDON_PER_SECOND (default 20),
#   SERVER_CPUS and WRK_CPUS (taskset CPU lists, e.g. 0-1 and 2-3: the server and `wrk` each on
#   cores of their own, as the dedicated-core runs that decide close rows are made).
# Needs: cargo, wrk (Debian: apt-get install -y wrk), node + npm, python3 (venv), curl.
# Every version is pinned: bench/mcp-serving/Cargo.lock, node/package-lock.json (npm ci),
# python/requirements.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
bench=$repo/bench/mcp-serving

quick=0
soak=0
servers="phi,rmcp,floor,typescript,python,fastmcp"
while (($#)); do
    case $1 in
    --quick) quick=1 ;;
    --soak) soak=1 ;;
    --servers)
        servers=$2
        shift
        ;;
    *)
        echo "unknown argument $1 (see the usage at the top of $0)" >&2
        exit 2
        ;;
    esac
    shift
done
if ((quick)); then
    duration=${DURATION:-1}
    connections=${CONNECTIONS:-"1 16"}
    soak_seconds=${SOAK_SECONDS:-20}
else
    duration=${DURATION:-10}
    connections=${CONNECTIONS:-"1 16 64"}
    soak_seconds=${SOAK_SECONDS:-600}
fi
work=${MCP_BENCH_DIR:-$repo/target/mcp-serving-bench}
mkdir -p "$work/bin" "$work/logs"
port=18808
url="http://127.0.0.1:$port/mcp"
started=$(date +%s)

for tool in wrk curl node npm python3 cargo; do
    command -v "$tool" >/dev/null || {
        echo "needs $tool (wrk: apt-get install -y wrk)" >&2
        exit 1
    }
done
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
echo "MCP serving benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average at start: $(loadavg)"
wants() { [[ ",$servers," == *",$1,"* ]]; }

# --- Servers, built or installed from the pinned versions -------------------------------------
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$work/target}
if wants rmcp && ((!soak)); then
    echo "Building rmcp's server (release)..."
    cargo build --release --quiet --manifest-path "$bench/Cargo.toml" --bin rmcp-server
    cp "$CARGO_TARGET_DIR/release/rmcp-server" "$work/bin/"
fi
if wants floor && ((!soak)); then
    echo "Building the floor server (release)..."
    cargo build --release --quiet --manifest-path "$bench/Cargo.toml" --bin floor-server
    cp "$CARGO_TARGET_DIR/release/floor-server" "$work/bin/"
fi
if wants phi || ((soak)); then
    echo "Building phi-agent's server (release)..."
    cargo build --release --quiet --manifest-path "$bench/Cargo.toml" --features phi --bin phi-server
    cp "$CARGO_TARGET_DIR/release/phi-server" "$work/bin/"
fi
if wants typescript && ((!soak)); then
    echo "Installing the TypeScript SDK (npm ci)..."
    (cd "$bench/node" && npm ci --no-audit --no-fund --silent)
fi
if { wants python || wants fastmcp; } && ((!soak)); then
    echo "Installing the Python SDK and FastMCP (venv)..."
    [[ -x $work/venv/bin/python ]] || python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install --quiet --disable-pip-version-check -r "$bench/python/requirements.txt"
fi

# The command line of `server` in `mode` (stateless or stateful).
server_command() {
    local server=$1 mode=$2 flag=""
    case $server in
    phi | rmcp | floor)
        [[ $mode == stateless ]] && flag=--stateless
        echo "$work/bin/$server-server --bind 127.0.0.1:$port $flag ${EXTRA_SERVER_ARGS:-}"
        ;;
    typescript)
        [[ $mode == stateless ]] && flag=--stateless
        echo "node $bench/node/server.mjs --port $port $flag"
        ;;
    python | fastmcp)
        [[ $mode == stateless ]] && flag=--stateless
        local sdk=mcp
        [[ $server == fastmcp ]] && sdk=fastmcp
        echo "$work/venv/bin/python $bench/python/server.py --sdk $sdk --port $port $flag"
        ;;
    esac
}

server_pid=""
start_server() {
    local server=$1 mode=$2
    local pin=()
    [[ -n ${SERVER_CPUS:-} ]] && pin=(taskset -c "$SERVER_CPUS")
    # shellcheck disable=SC2046
    "${pin[@]}" $(server_command "$server" "$mode") >"$work/logs/$server-$mode.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 600); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "$server ($mode) did not start; its log:" >&2
    cat "$work/logs/$server-$mode.log" >&2
    exit 1
}
stop_server() {
    [[ -n $server_pid ]] || return 0
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}
trap stop_server EXIT

# A session: `initialize`, then `notifications/initialized`; prints the session id and the
# negotiated protocol version.
open_session() {
    local headers body id version
    headers=$(mktemp)
    body=$(curl -sS -D "$headers" -X POST "$url" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' \
        -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wrk","version":"1"}}}')
    id=$(tr -d '\r' <"$headers" | awk 'tolower($1) == "mcp-session-id:" { print $2 }')
    rm -f "$headers"
    version=$(grep -o '"protocolVersion":"[^"]*"' <<<"$body" | head -1 | cut -d'"' -f4)
    [[ -n $id ]] || {
        echo "no session id in the initialize answer: $body" >&2
        return 1
    }
    curl -sS -o /dev/null -X POST "$url" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H "Mcp-Session-Id: $id" \
        -H "MCP-Protocol-Version: ${version:-2025-06-18}" \
        -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    echo "$id ${version:-2025-06-18}"
}

# CPU seconds (user + system) the server process has used so far.
cpu_seconds() {
    awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$server_pid/stat"
}
peak_rss_mib() { awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$server_pid/status"; }
rss_mib() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$server_pid/status"; }

# One wrk run; prints its RESULT line (see the Lua script).
run_wrk() {
    local tool=$1 conns=$2 seconds=$3 session=$4 protocol=$5 threads=2
    ((conns < threads)) && threads=$conns
    local pin=()
    [[ -n ${WRK_CPUS:-} ]] && pin=(taskset -c "$WRK_CPUS")
    MCP_TOOL=$tool MCP_SESSION=$session MCP_PROTOCOL=$protocol \
        "${pin[@]}" wrk -t "$threads" -c "$conns" -d "${seconds}s" --timeout 10s -s "$bench/wrk/tools-call.lua" "$url" 2>>"$work/logs/wrk.err" |
        grep '^RESULT' || echo "RESULT requests=0 seconds=$seconds p50_us=0 p99_us=0 bad_answers=1 transport_errors=0"
}
field() { grep -o "$1=[0-9.]*" <<<"$2" | cut -d= -f2; }

# --- Soak --------------------------------------------------------------------------------------
if ((soak)); then
    idle=${SOAK_IDLE_SECS:-60}
    per_second=${SOAK_ABANDON_PER_SECOND:-20}
    EXTRA_SERVER_ARGS="--idle-secs $idle" start_server phi stateful
    read -r session protocol < <(open_session)
    echo "Soak: phi-agent serve_http (release), stateful, 64 connections calling add for ${soak_seconds} s;"
    echo "meanwhile $per_second sessions a second opened and abandoned (idle timeout $idle s)."
    run_wrk add 1 2 "$session" "$protocol" >/dev/null # warm-up
    (
        end=$(($(date +%s) + soak_seconds))
        opened=0
        while (($(date +%s) < end)); do
            for _ in $(seq "$per_second"); do open_session >/dev/null 2>&1 && opened=$((opened + 1)); done
            sleep 1
        done
        echo "$opened" >"$work/logs/soak-opened"
    ) &
    abandoner=$!
    run_wrk add 64 "$soak_seconds" "$session" "$protocol" >"$work/logs/soak-result" &
    driver=$!
    echo "  t (s)   RSS (MiB)"
    t=0
    while kill -0 "$driver" 2>/dev/null; do
        printf '  %5d   %s\n' "$t" "$(rss_mib)"
        sleep 10
        t=$((t + 10))
    done
    wait "$abandoner" || true
    result=$(cat "$work/logs/soak-result")
    requests=$(field requests "$result")
    echo "  requests: $requests ($(awk -v r="$requests" -v s="$soak_seconds" 'BEGIN { printf "%.0f", r / s }') req/s), p50 $(field p50_us "$result") us, p99 $(field p99_us "$result") us"
    echo "  errors: $(($(field bad_answers "$result") + $(field transport_errors "$result"))) (bad answers $(field bad_answers "$result"), transport $(field transport_errors "$result"))"
    echo "  sessions opened and abandoned: $(cat "$work/logs/soak-opened" 2>/dev/null || echo 0)"
    echo "  RSS now $(rss_mib) MiB, peak $(peak_rss_mib) MiB"
    stop_server
    echo "Load average at end: $(loadavg); wall time $(($(date +%s) - started)) s"
    exit 0
fi

# --- The table ---------------------------------------------------------------------------------
declare -A rps cpus
results=$work/logs/results.tsv
printf 'server\tmode\ttool\tconnections\treq/s\tp50 ms\tp99 ms\terrors\tpeak RSS MiB\tCPU us/req\n' >"$results"
for server in phi rmcp floor typescript python fastmcp; do
    wants "$server" || continue
    for mode in stateless stateful; do
        [[ $server == floor && $mode == stateful ]] && continue # the floor has no sessions
        start_server "$server" "$mode"
        session="" protocol=2025-06-18
        if [[ $mode == stateful ]]; then read -r session protocol < <(open_session); fi
        run_wrk add 2 1 "$session" "$protocol" >/dev/null # warm-up
        for tool in add echo; do
            for conns in $connections; do
                cpu_before=$(cpu_seconds)
                result=$(run_wrk "$tool" "$conns" "$duration" "$session" "$protocol")
                cpu_after=$(cpu_seconds)
                requests=$(field requests "$result")
                seconds=$(field seconds "$result")
                errors=$(($(field bad_answers "$result") + $(field transport_errors "$result")))
                rate=$(awk -v r="$requests" -v s="$seconds" 'BEGIN { printf "%.0f", (s > 0 ? r / s : 0) }')
                cpu=$(awk -v a="$cpu_before" -v b="$cpu_after" -v r="$requests" 'BEGIN { printf "%.1f", (r > 0 ? (b - a) * 1e6 / r : 0) }')
                p50=$(awk -v v="$(field p50_us "$result")" 'BEGIN { printf "%.2f", v / 1000 }')
                p99=$(awk -v v="$(field p99_us "$result")" 'BEGIN { printf "%.2f", v / 1000 }')
                rps[$server/$mode/$tool/$conns]=$rate
                cpus[$server/$mode/$tool/$conns]=$cpu
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$server" "$mode" "$tool" "$conns" \
                    "$rate" "$p50" "$p99" "$errors" "$(peak_rss_mib)" "$cpu" >>"$results"
                printf '  %-10s %-9s %-4s %2s conns: %7s req/s  p50 %6s ms  p99 %7s ms  errors %s  CPU %s us/req\n' \
                    "$server" "$mode" "$tool" "$conns" "$rate" "$p50" "$p99" "$errors" "$cpu"
            done
        done
        echo "  $server $mode: peak RSS $(peak_rss_mib) MiB"
        stop_server
    done
done

# Markdown: every row, with its req/s as a ratio to phi-agent's and its CPU per request as a
# ratio to the floor's (stateless), in the same tool and connection count.
echo
echo "| server | mode | tool | connections | req/s | ÷ phi-agent | p50 ms | p99 ms | errors | peak RSS MiB | CPU µs/req | CPU ÷ floor |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
tail -n +2 "$results" | while IFS=$'\t' read -r server mode tool conns rate p50 p99 errors rss cpu; do
    base=${rps[phi/$mode/$tool/$conns]:-}
    ratio="—"
    [[ -n $base && $base != 0 ]] && ratio=$(awk -v r="$rate" -v b="$base" 'BEGIN { printf "%.2f", r / b }')
    floor=${cpus[floor/stateless/$tool/$conns]:-}
    floor_ratio="—"
    [[ -n $floor && $floor != 0.0 ]] && floor_ratio=$(awk -v c="$cpu" -v f="$floor" 'BEGIN { printf "%.2f", c / f }')
    echo "| $server | $mode | $tool | $conns | $rate | $ratio | $p50 | $p99 | $errors | $rss | $cpu | $floor_ratio |"
done
echo
echo "Load average at end: $(loadavg); wall time $(($(date +%s) - started)) s (rows of ${duration} s; results in $results)"
