#!/usr/bin/env bash
# Builds the static model trained for tool search (bench/tool-search/train/train.py): wordllama's
# table (scripts/install-embed-model.sh) trained contrastively on the held-out sets' tuning parts,
# cut to 128 dimensions, f16 (8.2 MB, MIT as wordllama). Its packages (numpy, tokenizers,
# safetensors) come from PyPI into a venv under target/; the run takes about a minute on one core.
# Reused while the script, its data and the pins are unchanged. Prints the model's directory, the
# value for PHI_AGENT_TOOL_MODEL:
#     export PHI_AGENT_TOOL_MODEL="$(scripts/install-tool-search-model.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

PINS="numpy==2.4.6 tokenizers==0.23.3 safetensors==0.8.0"
wordllama="$(scripts/install-embed-model.sh)"
work="${CARGO_TARGET_DIR:-target}/tool-search-model"
venv="$work/venv"
export PIP_CACHE_DIR="$work/pip-cache"
key=$(cat bench/tool-search/train/train.py bench/tool-search/data/*.json <(echo "$PINS") | sha256sum | cut -c1-16)
out="$work/model-$key"
if [ ! -f "$out/tokenizer.json" ]; then
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/pip" freeze 2>/dev/null | grep -q "^numpy==2.4.6$"; then
        echo "== installing $PINS into $venv" >&2
        python3 -m venv "$venv"
        # shellcheck disable=SC2086 # the pins are words
        "$venv/bin/pip" install --quiet $PINS >&2
    fi
    echo "== training the tool-search model into $out" >&2
    # One thread: the same arithmetic in the same order, so a rerun on a machine gives the same
    # weights (another CPU's BLAS kernels may round differently; the tests allow 0.01).
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$venv/bin/python" bench/tool-search/train/train.py \
        --model "$wordllama" --out "$out.partial" --dims 128 --epochs 15 --lr 2e-2 >&2
    rm -rf "$out" && mv "$out.partial" "$out"
fi
realpath "$out"
