#!/usr/bin/env bash
# Wire-format interop suite: our chat completions and Anthropic adapters against fakellm, a mock
# server written by someone else, and our Responses API and Gemini adapters against
# interop/fake_apis.py (fakellm speaks neither), whose replies are built from the SDKs' own types;
# every exchange is validated by the official Python SDKs' types.
#
# Self-installing: creates target/interop-venv with fakellm, openai, anthropic and google-genai
# from PyPI (under $CARGO_TARGET_DIR when it is set, so worktrees that share a target directory
# share the venv too).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=${CARGO_TARGET_DIR:-target}
case "$TARGET" in /*) ;; *) TARGET="$PWD/$TARGET" ;; esac
VENV=$TARGET/interop-venv
WORK=$TARGET/interop
mkdir -p "$WORK"
if [ ! -x "$VENV/bin/fakellm" ] || ! "$VENV/bin/python" -c "import openai, anthropic, google.genai" 2>/dev/null; then
    echo "== interop: installing fakellm, openai, anthropic, google-genai into $VENV"
    python3 -m venv "$VENV"
    # `python -m pip`, not bin/pip: a venv copied from elsewhere keeps the old path in bin/pip.
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "fakellm==0.3.5" \
        openai anthropic google-genai
fi
PY="$VENV/bin/python"

free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
FAKE_PORT=$(free_port)
PROXY_PORT=$(free_port)
APIS_PORT=$(free_port)
APIS_PROXY_PORT=$(free_port)
CAPTURE="$WORK/exchanges.jsonl"
: > "$CAPTURE"
# What our adapters assembled from each streamed reply (tests/http/interop.rs writes it).
ASSEMBLED="$WORK/assembled.jsonl"
: > "$ASSEMBLED"

PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

"$VENV/bin/fakellm" serve --host 127.0.0.1 --port "$FAKE_PORT" --config interop/fakellm.yaml \
    > "$WORK/fakellm.log" 2>&1 &
PIDS+=($!)
"$PY" interop/capture_proxy.py "$PROXY_PORT" "http://127.0.0.1:$FAKE_PORT" "$CAPTURE" \
    > "$WORK/proxy.log" 2>&1 &
PIDS+=($!)
"$PY" interop/fake_apis.py "$APIS_PORT" > "$WORK/fake_apis.log" 2>&1 &
PIDS+=($!)
# The same capture file: the runs are sequential, and validate.py checks them in order.
"$PY" interop/capture_proxy.py "$APIS_PROXY_PORT" "http://127.0.0.1:$APIS_PORT" "$CAPTURE" \
    > "$WORK/apis_proxy.log" 2>&1 &
PIDS+=($!)

for _ in $(seq 1 100); do
    if "$PY" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$FAKE_PORT/_fakellm/stats', timeout=1)" 2>/dev/null; then
        break
    fi
    sleep 0.2
done

for port in "$APIS_PORT" "$PROXY_PORT" "$APIS_PROXY_PORT"; do
    for _ in $(seq 1 100); do
        if "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $port), timeout=1)" 2>/dev/null; then
            break
        fi
        sleep 0.2
    done
done

reset() { "$PY" -c "import urllib.request; urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:$FAKE_PORT/_fakellm/reset', method='POST'))"; }

cargo build --quiet --example custom-tool
cargo build --quiet -p phi-agent --test http

# The README's run command, unchanged, against each provider.
run_example() {
    local name=$1 server=$2; shift 2
    echo "== interop: cargo run --example custom-tool ($name via $server)"
    reset
    env "$@" cargo run --quiet --example custom-tool | tee "$WORK/$name.out"
    grep -q "^online:" "$WORK/$name.out" || { echo "$name: the example did not go online"; exit 1; }
    grep -q "<- calculator \[.*\] ok: 42" "$WORK/$name.out" || { echo "$name: no calculator result"; exit 1; }
    grep -q "^answer: 6 times 7 is 42" "$WORK/$name.out" || { echo "$name: wrong answer"; exit 1; }
}
# Only the variables of the provider under test are set (the example's precedence is unit-tested).
UNSET=(-u OPENAI_API_KEY -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u PHI_PROVIDER -u OPENAI_API)
run_example openai fakellm "${UNSET[@]}" OPENAI_API_KEY=sk-interop-not-a-key \
    OPENAI_BASE_URL="http://127.0.0.1:$PROXY_PORT/v1" OPENAI_MODEL=gpt-4o-mini
run_example anthropic fakellm "${UNSET[@]}" ANTHROPIC_API_KEY=sk-ant-interop-not-a-key \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$PROXY_PORT" ANTHROPIC_MODEL=claude-sonnet-4-5
run_example responses fake_apis.py "${UNSET[@]}" OPENAI_API_KEY=sk-interop-not-a-key OPENAI_API=responses \
    OPENAI_BASE_URL="http://127.0.0.1:$APIS_PROXY_PORT/v1" OPENAI_MODEL=gpt-4o-mini
run_example gemini fake_apis.py "${UNSET[@]}" GEMINI_API_KEY=AIza-interop-not-a-key \
    GEMINI_BASE_URL="http://127.0.0.1:$APIS_PROXY_PORT" GEMINI_MODEL=gemini-2.5-flash

echo "== interop: image and error results through every adapter, a retried 529, a plain and a streamed run of one conversation through each adapter (tests/http/interop.rs)"
reset
PHI_INTEROP_BASE_URL="http://127.0.0.1:$PROXY_PORT" \
    PHI_INTEROP_ASSEMBLED="$ASSEMBLED" \
    PHI_INTEROP_APIS_URL="http://127.0.0.1:$APIS_PROXY_PORT" \
    cargo test --quiet -p phi-agent --test http interop:: -- --ignored --test-threads=1

if grep -q "interop-not-a-key" "$WORK"/*.out; then
    echo "an API key was printed"; exit 1
fi

echo "== interop: validating every exchange with the SDKs' types, and the streamed ones with their stream accumulators"
"$PY" interop/validate.py "$CAPTURE" "$ASSEMBLED"
