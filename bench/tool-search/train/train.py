"""Trains a static token-embedding table for tool retrieval, on this CPU, from wordllama's table.

The model is what phi-agent-embed's `StaticEmbedder` runs: a text's vector is the normalized mean
of its tokens' rows (LLaMA 2's tokenizer, no special tokens). Training changes the rows so that a
query's vector lands near the vectors of the tools it asks for: a contrastive loss with in-batch
negatives (InfoNCE, both directions, temperature TAU), each batch drawn from one catalogue so the
negatives are tools the query must be told apart from. A tool in the batch that the query also
asks for (another of its tools, or another query's copy of the same one) is masked, not a
negative: a task that needs three tools must not be taught that two of them are wrong.

Data: the TUNING parts of the held-out sets in bench/tool-search/data (never a test part). The
tuning part is split once more by a hash of the expected tools into a training slice and a
validation slice; each epoch is scored on the validation slice (plain vector recall@5 inside the
set's catalogue) and the best epoch's table is kept, so the number of epochs is chosen on data the
step never saw. Then the table is cut to DIMS dimensions (wordllama's are nested: its first 64 or
128 are a model of their own) and written as f16 safetensors beside a copy of the tokenizer.

Written by hand on numpy (the gradients of mean pooling, normalization and the loss are a few
lines), so the only packages are numpy, tokenizers and safetensors from PyPI: PyTorch's CPU wheels
are not on PyPI, and its default wheel brings gigabytes of CUDA libraries this does not need.

    python3 bench/tool-search/train/train.py --out DIR [--dims 128] [--epochs 8]

Deterministic for a given seed on one machine (one thread of numpy arithmetic on the same wheels).
"""

import argparse
import hashlib
import json
import os
import shutil
import sys
import time

import numpy as np
from safetensors.numpy import load_file, save_file
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
SETS = ["bfcl", "agentdojo", "nestful", "complexfuncbench"]


def tool_text(tool):
    """What phi-agent embeds for a tool (`tool_text` in phi-agent's search): the name with its
    words apart, the description, then each parameter's name and doc, one a line."""
    text = tool["name"].replace("_", " ").replace("-", " ").replace(".", " ") + "\n"
    text += tool["description"]
    for name, doc in sorted(tool["params"]):
        text += "\n" + name + (": " + doc if doc else "")
    return text


def slice_of(expected):
    """'val' for about one query in five, by the expected tools' hash: every query aimed at the
    same tools falls on the same side, as the parts are split."""
    key = "\n".join(sorted(expected)).encode()
    return "val" if hashlib.sha256(b"train50/" + key).digest()[0] < 52 else "train"


def load_sets(tokenizer):
    """Each set's tools (token ids) and its tuning queries (token ids, expected tool indices, slice)."""
    sets = []
    for name in SETS:
        with open(os.path.join(DATA, name + ".json"), encoding="utf-8") as f:
            data = json.load(f)
        index = {t["name"]: i for i, t in enumerate(data["tools"])}
        tools = [tokenizer.encode(tool_text(t), add_special_tokens=False).ids for t in data["tools"]]
        queries = []
        for q in data["queries"]:
            if q["part"] != "tune":
                continue  # the test parts are what BENCHMARKS.md reports: never trained on
            ids = tokenizer.encode(q["text"], add_special_tokens=False).ids
            expected = [index[e] for e in q["expected"] if e in index]
            if ids and expected:
                queries.append((ids, expected, slice_of(q["expected"]), q["text"]))
        sets.append({"name": name, "tools": tools, "queries": queries})
    return sets


def flatten(texts):
    """Token ids, the row each belongs to, and its weight (1 / the text's length: a mean)."""
    ids = np.concatenate([np.asarray(t, dtype=np.int64) for t in texts])
    rows = np.concatenate([np.full(len(t), r, dtype=np.int64) for r, t in enumerate(texts)])
    weights = np.concatenate([np.full(len(t), 1.0 / len(t), dtype=np.float32) for t in texts])
    return ids, rows, weights


def pool(table, texts):
    """The mean of each text's rows, and the normalized vectors."""
    ids, rows, weights = flatten(texts)
    sums = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
    np.add.at(sums, rows, table[ids] * weights[:, None])
    norms = np.linalg.norm(sums, axis=1, keepdims=True) + 1e-9
    return (ids, rows, weights), sums, norms, sums / norms


def backward(grad_unit, unit, norms, flat, grad_table):
    """Adds to grad_table what grad_unit (on the normalized vectors) asks of the rows."""
    grad_sum = (grad_unit - unit * np.sum(unit * grad_unit, axis=1, keepdims=True)) / norms
    ids, rows, weights = flat
    np.add.at(grad_table, ids, grad_sum[rows] * weights[:, None])


def step_loss(table, queries, tools, positives, expected, tau):
    """InfoNCE both ways over a batch; returns the loss and the table's gradient (sparse rows).
    Row i pairs queries[i] with tools[i] (`positives[i]`, its index in the catalogue);
    `expected[i]` is every tool queries[i] asks for."""
    q_flat, _, q_norms, q = pool(table, queries)
    t_flat, _, t_norms, t = pool(table, tools)
    logits = q @ t.T / tau
    # Not negatives: a tool the row's query asks for too (another of its tools, or another pair's
    # copy of the same tool). Masking them lifted the trained hybrid's validation mean at its best
    # fusion from 0.845-0.856 to 0.870-0.876 (three seeds), ComplexFuncBench's many-tool tasks most.
    same = np.array([[tool in wanted for tool in positives] for wanted in expected])
    np.fill_diagonal(same, False)
    logits[same] = -1e4
    n = len(queries)
    eye = np.eye(n, dtype=np.float32)

    def softmax(x, axis):
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)

    p_rows, p_cols = softmax(logits, 1), softmax(logits, 0)
    loss = -np.mean(np.log(np.diag(p_rows) + 1e-12)) - np.mean(np.log(np.diag(p_cols) + 1e-12))
    grad_logits = ((p_rows - eye) + (p_cols - eye)) / n / tau
    grad = np.zeros_like(table)
    backward(grad_logits @ t, q, q_norms, q_flat, grad)
    backward(grad_logits.T @ q, t, t_norms, t_flat, grad)
    return loss / 2, grad


def recall_at_5(table, sets, which):
    """Mean over the sets of vector-only recall@5 of the queries in slice `which`."""
    per_set = {}
    for s in sets:
        queries = [q for q in s["queries"] if q[2] == which]
        if not queries:
            continue
        _, _, _, t = pool(table, s["tools"])
        _, _, _, q = pool(table, [q[0] for q in queries])
        top = np.argsort(-(q @ t.T), axis=1)[:, :5]
        recalls = [len(set(top[i]) & set(q[1])) / min(len(q[1]), 5) for i, q in enumerate(queries)]
        per_set[s["name"]] = float(np.mean(recalls))
    return float(np.mean(list(per_set.values()))), per_set


def batches(sets, which, size, rng):
    """Every (query, one expected tool, all its expected tools) of slice `which`, shuffled, in
    batches from one set."""
    out = []
    for s in sets:
        pairs = [(q[0], tool, set(q[1])) for q in s["queries"] if q[2] in which for tool in q[1]]
        order = rng.permutation(len(pairs))
        for start in range(0, len(order), size):
            chunk = [pairs[i] for i in order[start : start + size]]
            if len(chunk) >= 4:
                out.append((s, chunk))
    rng.shuffle(out)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="the wordllama package directory")
    parser.add_argument("--out", required=True, help="directory to write the trained model to")
    parser.add_argument("--dims", type=int, default=128, help="dimensions kept (64, 128 or 256)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--tau", type=float, default=0.05)
    parser.add_argument("--decay", type=float, default=0.0, help="pull toward the starting table")
    parser.add_argument("--final", action="store_true", help="train on the validation slice too")
    parser.add_argument("--seed", type=int, default=50)
    args = parser.parse_args()
    started = time.time()

    weights = os.path.join(args.model, "weights", "l2_supercat_256.safetensors")
    tokenizer_file = os.path.join(args.model, "tokenizers", "l2_supercat_tokenizer_config.json")
    (start,) = load_file(weights).values()
    table = start[:, : args.dims].astype(np.float32)
    origin = table.copy()
    tokenizer = Tokenizer.from_file(tokenizer_file)
    sets = load_sets(tokenizer)
    for s in sets:
        counts = {w: sum(q[2] == w for q in s["queries"]) for w in ("train", "val")}
        print(f"{s['name']}: {len(s['tools'])} tools, tuning queries {counts}", file=sys.stderr)

    rng = np.random.default_rng(args.seed)
    first, per_set = recall_at_5(table, sets, "val")
    print(f"epoch 0: validation R@5 {first:.3f} {per_set}", file=sys.stderr)
    best, best_table, best_epoch = first, table.copy(), 0
    m, v, t_step = np.zeros_like(table), np.zeros_like(table), 0
    which = ("train", "val") if args.final else ("train",)
    for epoch in range(1, args.epochs + 1):
        losses = []
        for s, chunk in batches(sets, which, args.batch, rng):
            queries = [p[0] for p in chunk]
            tools = [s["tools"][p[1]] for p in chunk]
            positives = [p[1] for p in chunk]
            expected = [p[2] for p in chunk]
            loss, grad = step_loss(table, queries, tools, positives, expected, args.tau)
            losses.append(loss)
            # Adam on the rows this batch touched only (lazy moments): an untouched token keeps
            # its row, so words no tuning text holds stay as wordllama trained them.
            rows = np.unique(np.concatenate([np.concatenate(queries), np.concatenate(tools)]))
            g = grad[rows] + args.decay * (table[rows] - origin[rows])
            t_step += 1
            m[rows] = 0.9 * m[rows] + 0.1 * g
            v[rows] = 0.999 * v[rows] + 0.001 * g * g
            m_hat = m[rows] / (1 - 0.9**t_step)
            v_hat = v[rows] / (1 - 0.999**t_step)
            table[rows] -= args.lr * m_hat / (np.sqrt(v_hat) + 1e-8)
        score, per_set = recall_at_5(table, sets, "val")
        print(
            f"epoch {epoch}: loss {np.mean(losses):.3f}, validation R@5 {score:.3f} "
            + " ".join(f"{k} {x:.3f}" for k, x in per_set.items()),
            file=sys.stderr,
        )
        if args.final or score > best:
            best, best_table, best_epoch = score, table.copy(), epoch

    os.makedirs(args.out, exist_ok=True)
    name = f"tool_search_{args.dims}"
    # The metadata names the fusion chosen for this model (`HybridConfig::tool_search_model`, by
    # `tool-search-lab fusion-grid --trained`), which phi-agent-embed's StaticEmbedder then uses.
    save_file(
        {"embedding": best_table.astype(np.float16)},
        os.path.join(args.out, name + ".safetensors"),
        metadata={"phi_agent.fusion": "tool_search_model"},
    )
    shutil.copyfile(tokenizer_file, os.path.join(args.out, "tokenizer.json"))
    # The validation slice's questions, so that a fusion for this model can be chosen on questions
    # it was not trained on (`tool-search-lab fusion-grid --trained`).
    held = {s["name"]: [q[3] for q in s["queries"] if q[2] == "val"] for s in sets}
    with open(os.path.join(args.out, "validation.json"), "w", encoding="utf-8") as f:
        json.dump({} if args.final else held, f, ensure_ascii=False, indent=0)
    print(
        f"kept epoch {best_epoch} (validation R@5 {best:.3f}, untrained {first:.3f}); "
        f"wrote {args.out}/{name}.safetensors in {time.time() - started:.0f} s",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
