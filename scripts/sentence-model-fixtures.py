#!/usr/bin/env python3
"""Writes the fixtures phi-agent-embed's SentenceEmbedder is checked against, from the model
directory that scripts/install-sentence-model.sh prints:

- tests/wordpiece_ids.json: token ids the reference `tokenizers` library gives (the model's own
  tokenizer.json, its truncation set to the model's 256 tokens and padding off) for texts of the
  held-out sets and edge cases (accents, CJK, Thai, emoji, control characters, literal special
  tokens, a word past 100 characters, a text past the limit);
- tests/sentence_vectors.json: embeddings of a few texts by a BERT forward pass written here in
  numpy (independent of the Rust code: the weights read from model.safetensors with numpy, the
  token ids from `tokenizers`), mean-pooled and normalized as sentence-transformers does.

Needs `tokenizers` and `numpy`, in a venv of its own:
    python3 -m venv /tmp/fixture-venv && /tmp/fixture-venv/bin/pip install tokenizers numpy
    /tmp/fixture-venv/bin/python scripts/sentence-model-fixtures.py "$(scripts/install-sentence-model.sh)"
"""
import json
import math
import pathlib
import struct
import sys

import numpy as np
from tokenizers import Tokenizer

from heldout_sample import heldout_texts

MAX_TOKENS = 256

root = pathlib.Path(__file__).resolve().parent.parent
model = pathlib.Path(sys.argv[1])
tokenizer = Tokenizer.from_file(str(model / "tokenizer.json"))
tokenizer.no_padding()
tokenizer.enable_truncation(MAX_TOKENS)

texts = [
    "",
    " ",
    "  two  spaces  ",
    "get_weather_forecast",
    "camelCaseName and dotted.name",
    "Line one\nline two\ttab",
    "naïve café, Zürich – “quoted” — 😀 emoji",
    "ÀÉÎÕÜ Ångström façade jalapeño",
    "今日の天気を教えて",
    "订一张去上海的机票",
    "날씨 알려줘",
    "พยากรณ์อากาศวันนี้",
    "zero\u200bwidth and soft\u00adhyphen and a\u0000nul and bell\u0007",
    "a literal [CLS] and [SEP] and [MASK] inside, [unk] lowercase",
    "[CLS]",
    "ΟΔΥΣΣΕΥΣ ΣΟΦΟΣ Straße İstanbul",
    "line\u2028separator\u000bvertical\u000cfeed\u0085next\u00a0nbsp\u3000ideographic",
    "1234567890 3.14159 -42 $5 50% a+b=c x^2 #tag @user ~home",
    "x" * 300,
    "unbelievably antidisestablishmentarianism supercalifragilisticexpialidocious",
    "word " * 400,
]
texts += heldout_texts(root, query_step=25, tool_step=30)
cases = [[t, tokenizer.encode(t).ids] for t in texts]
out = root / "phi-agent-embed/tests/wordpiece_ids.json"
out.write_text(json.dumps(cases, ensure_ascii=False, indent=0) + "\n")
print(f"{len(cases)} texts -> {out}")

# ---- the numpy forward pass ----------------------------------------------------------------
raw = (model / "model.safetensors").read_bytes()
(header_len,) = struct.unpack("<Q", raw[:8])
header = json.loads(raw[8 : 8 + header_len])
body = raw[8 + header_len :]


def tensor(name):
    meta = header[name]
    assert meta["dtype"] == "F32", meta
    start, end = meta["data_offsets"]
    return np.frombuffer(body[start:end], dtype="<f4").reshape(meta["shape"]).astype(np.float64)


config = json.loads((model / "config.json").read_text())
heads = config["num_attention_heads"]
eps = config["layer_norm_eps"]
erf = np.vectorize(math.erf)


def layer_norm(x, prefix):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * tensor(prefix + ".weight") + tensor(prefix + ".bias")


def dense(x, prefix):
    return x @ tensor(prefix + ".weight").T + tensor(prefix + ".bias")


def embed(ids):
    n = len(ids)
    x = (
        tensor("embeddings.word_embeddings.weight")[ids]
        + tensor("embeddings.position_embeddings.weight")[:n]
        + tensor("embeddings.token_type_embeddings.weight")[0]
    )
    x = layer_norm(x, "embeddings.LayerNorm")
    for i in range(config["num_hidden_layers"]):
        at = f"encoder.layer.{i}"
        q, k, v = (dense(x, f"{at}.attention.self.{w}") for w in ("query", "key", "value"))
        d = x.shape[1] // heads
        split = lambda m: m.reshape(n, heads, d).transpose(1, 0, 2)  # noqa: E731
        scores = split(q) @ split(k).transpose(0, 2, 1) / math.sqrt(d)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ split(v)).transpose(1, 0, 2).reshape(n, -1)
        x = layer_norm(x + dense(context, f"{at}.attention.output.dense"), f"{at}.attention.output.LayerNorm")
        up = dense(x, f"{at}.intermediate.dense")
        up = 0.5 * up * (1 + erf(up / math.sqrt(2)))
        x = layer_norm(x + dense(up, f"{at}.output.dense"), f"{at}.output.LayerNorm")
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


vector_texts = [
    "",
    "will it rain in Paris tomorrow",
    "get the weather forecast for a city",
    "transfer money to a bank account",
    "naïve café, Zürich – 今日の天気を教えて 😀",
    texts[-3],  # a BFCL/AgentDojo tool text
    "word " * 400,  # cut at 256 tokens
]
vectors = [[t, [round(float(v), 7) for v in embed(tokenizer.encode(t).ids)]] for t in vector_texts]
out = root / "phi-agent-embed/tests/sentence_vectors.json"
out.write_text(json.dumps(vectors, ensure_ascii=False) + "\n")
print(f"{len(vectors)} vectors -> {out}")
