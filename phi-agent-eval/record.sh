#!/usr/bin/env bash
# Re-records the checked-in cassettes (phi-agent-eval/tests/cassettes/): the MCP client's against
# phi-agent's own MCP server, which the test starts on loopback; the adapters' against the interop
# suite's fakes: fakellm (OpenAI chat completions, Anthropic) and interop/fake_apis.py (Responses,
# Gemini), started here on free ports from the interop venv (interop/run.sh makes it). Replaying
# them needs none of this: `cargo test -p phi-agent-eval`.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test -p phi-agent-eval --test mcp record -- --ignored --exact

TARGET=${CARGO_TARGET_DIR:-target}
case "$TARGET" in /*) ;; *) TARGET="$PWD/$TARGET" ;; esac
VENV=$TARGET/interop-venv
if [ ! -x "$VENV/bin/fakellm" ]; then
    echo "no interop venv at $VENV: run interop/run.sh once (it installs fakellm and the SDKs)"; exit 1
fi
PY="$VENV/bin/python"
free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
FAKE_PORT=$(free_port)
APIS_PORT=$(free_port)
LOGS=$(mktemp -d)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
"$VENV/bin/fakellm" serve --host 127.0.0.1 --port "$FAKE_PORT" --config interop/fakellm.yaml \
    > "$LOGS/fakellm.log" 2>&1 &
PIDS+=($!)
"$PY" interop/fake_apis.py "$APIS_PORT" > "$LOGS/fake_apis.log" 2>&1 &
PIDS+=($!)
for port in "$FAKE_PORT" "$APIS_PORT"; do
    for _ in $(seq 1 100); do
        if "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $port), timeout=1)" 2>/dev/null; then
            break
        fi
        sleep 0.2
    done
done
PHI_RECORD_FAKELLM_URL="http://127.0.0.1:$FAKE_PORT" PHI_RECORD_APIS_URL="http://127.0.0.1:$APIS_PORT" \
    cargo test -p phi-agent-eval --test cassettes record -- --ignored --exact
