"""A learned reranker over the trained model's hybrid candidates, tried and not shipped.

Reads what `tool-search-lab candidates tune` prints (one JSON line per question of the trained
model's validation slice: its first 20 fused candidates, with each ranking's rank and score) and
fits a logistic regression over eleven features of a candidate (its fused, unlinked, lexical and
vector ranks, lexical score, cosine, whether links or breadth lifted it, the request's words it
answers first, meets at all, and shares with the candidates above it), scored by 5-fold
cross-validation over the questions (mean recall@5 of the four sets), against the fused order.

    cargo run --release -p tool-search-lab -- candidates tune > candidates.jsonl
    python3 bench/tool-search/train/rerank.py candidates.jsonl

Needs numpy only (the training venv of scripts/install-tool-search-model.sh has it).
"""

import json
import math
import re
import sys

import numpy as np


def words(text):
    """Lowercased words of three letters or more, identifiers split, a plural `s` cut."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    out = set()
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if len(w) >= 3:
            out.add(w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def features(question):
    """One row per candidate, in fused order."""
    asked = words(question["query"])
    rows, answered, above = [], set(), []
    for c in question["candidates"]:
        tool = words(c["text"])
        met = asked & tool
        first = len(met - answered) / max(len(asked), 1)
        shared = max((len(tool & s) / max(len(tool | s), 1) for s in above), default=0.0)

        def rr(rank):
            return 1.0 / (1 + rank) if rank < 99 else 0.0

        rows.append([
            rr(c["fused"]), rr(c["plain"]), rr(c["lex"]), c["lex_score"], c["cos"],
            1.0 / (1 + c["vrank"]), float(c["plain"] == 99 or c["plain"] > c["fused"]),
            first, shared, len(met) / max(len(asked), 1), math.log(1 + len(asked)) * first,
        ])
        answered |= met
        above.append(tool)
    return np.array(rows, dtype=np.float64)


def fit(questions, l2):
    """Logistic regression (standardized features, L2), by gradient descent."""
    xs, ys = [], []
    for q in questions:
        xs.append(features(q))
        ys.extend(float(any(c["tool"] in e for e in q["expected"])) for c in q["candidates"])
    x, y = np.vstack(xs), np.array(ys)
    mean, scale = x.mean(0), x.std(0) + 1e-9
    z = (x - mean) / scale
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(400):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        w -= 0.5 * (z.T @ (p - y) / len(y) + l2 * w / len(y))
        b -= 0.5 * float(np.mean(p - y))
    return lambda f: ((f - mean) / scale) @ w + b


def recall_at_5(question, order):
    top = [question["candidates"][i]["tool"] for i in order[:5]]
    expected = question["expected"]
    # Each expected tool as its alternatives (positions); the first found counts.
    return sum(any(t in top for t in e) for e in expected) / min(len(expected), 5)


def table(per_set):
    means = {s: round(float(np.mean(v)), 3) for s, v in per_set.items()}
    return means, round(float(np.mean(list(means.values()))), 4)


def main():
    questions = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
    fused = {}
    for q in questions:
        fused.setdefault(q["set"], []).append(recall_at_5(q, list(range(len(q["candidates"])))))
    print("fused order:", *table(fused))
    folds = np.random.default_rng(0).integers(0, 5, len(questions))
    for l2 in [0.1, 1.0, 10.0, 100.0]:
        reranked = {}
        for fold in range(5):
            score = fit([q for q, k in zip(questions, folds) if k != fold], l2)
            for q, k in zip(questions, folds):
                if k == fold:
                    order = list(np.argsort(-score(features(q)), kind="stable"))
                    reranked.setdefault(q["set"], []).append(recall_at_5(q, order))
        print(f"reranked, L2 {l2}:", *table(reranked))


if __name__ == "__main__":
    main()
