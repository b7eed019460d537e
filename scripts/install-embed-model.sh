#!/usr/bin/env bash
# Installs the small embedding model the hybrid-search tests and benchmarks use: the static
# token-embedding table and tokenizer that the PyPI package wordllama ships inside its wheel (MIT),
# into a venv under target/ (reused while the pinned version matches). Nothing else is fetched, and
# nothing at run time: the tests read the files where pip put them. Prints the package directory,
# the value for PHI_AGENT_EMBED_MODEL:
#     export PHI_AGENT_EMBED_MODEL="$(scripts/install-embed-model.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

WORDLLAMA=0.4.0.post1
work="${CARGO_TARGET_DIR:-target}/embed-model"
venv="$work/venv-wordllama-$WORDLLAMA"
export PIP_CACHE_DIR="$work/pip-cache"
if ! ls "$venv"/lib/python3*/site-packages/wordllama/weights/*.safetensors >/dev/null 2>&1; then
    echo "== installing wordllama==$WORDLLAMA (its model files only: --no-deps) into $venv" >&2
    python3 -m venv "$venv"
    # --no-deps: only the wheel's files are read (by Rust), so numpy, torch and the rest are not needed.
    "$venv/bin/pip" install --quiet --no-deps "wordllama==$WORDLLAMA" >&2
fi
dir=$(ls -d "$venv"/lib/python3*/site-packages/wordllama)
realpath "$dir"
