"""Fine-tunes all-MiniLM-L6-v2 for tool retrieval on this CPU: a measured lead, not a shipped model.

The same data, slices and loss as train.py (its `load_sets`): the held-out sets' TUNING parts,
a fifth of them kept aside by the expected tools' hash to choose the epoch on, in-batch InfoNCE
both ways with every tool the row's query asks for masked. What differs is the model: MiniLM's
six layers are trained instead of a static table, so a query costs MiniLM's forward pass (about
15 ms of CPU) instead of a table lookup. BENCHMARKS.md gives what it reached and why it is not
a preset.

The forward pass is written out here (BERT as phi-agent-embed's `SentenceEmbedder` runs it: mean
of the last layer over the tokens, normalized), so the only packages are torch, tokenizers,
safetensors and numpy from PyPI. The output is the model's directory with `model.safetensors`
replaced, which `SentenceEmbedder::load` and the lab read as they read the original:

    python3 -m venv v && v/bin/pip install torch==2.15.0 tokenizers==0.23.3 safetensors==0.8.0 numpy==2.4.6
    v/bin/python bench/tool-search/train/finetune_minilm.py --model "$(scripts/install-sentence-model.sh)" --out DIR
    PHI_AGENT_SENTENCE_MODEL=DIR PHI_AGENT_TOOL_MODEL="$(scripts/install-tool-search-model.sh)" \\
        cargo run --release -p tool-search-lab -- three-rankings --trained [--test]

About 23-24 minutes on two cores (two epochs of 94 batches at ~5 s, three validations at ~3 min).
Seeded, but PyTorch's CPU kernels are not promised to round alike on another machine.
"""

import argparse
import math
import os
import shutil
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from tokenizers import Tokenizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train import batches, load_sets  # noqa: E402  (the static model's data, slices and batches)

CLS, SEP = 101, 102
HIDDEN, HEADS, LAYERS = 384, 12, 6
LIMIT = 256  # MiniLM's max_seq_length, what SentenceEmbedder reads at most


class WordPieces:
    """MiniLM's tokenizer behind the interface `load_sets` calls: `[CLS]`, the text, `[SEP]`."""

    def __init__(self, path):
        self.tokenizer = Tokenizer.from_file(path)
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()

    def encode(self, text, add_special_tokens=False):
        body = self.tokenizer.encode(text, add_special_tokens=False).ids[: LIMIT - 2]
        return argparse.Namespace(ids=[CLS] + body + [SEP])


def cut(ids, limit):
    """A text's ids cut to `limit`, its `[SEP]` kept."""
    return ids if len(ids) <= limit else ids[: limit - 1] + [SEP]


class MiniLm:
    """BERT's encoder over a dict of trainable tensors named as the safetensors file names them."""

    def __init__(self, path):
        self.weights = load_file(path)
        self.params = {
            k: torch.nn.Parameter(v.float().clone())
            for k, v in self.weights.items()
            if k != "embeddings.position_ids"
        }

    def _norm(self, x, name):
        p = self.params
        return F.layer_norm(x, (HIDDEN,), p[name + ".weight"], p[name + ".bias"], 1e-12)

    def _linear(self, x, name):
        return F.linear(x, self.params[name + ".weight"], self.params[name + ".bias"])

    def embed(self, texts):
        """Unit vectors of token-id lists (each with its `[CLS]` and `[SEP]`)."""
        p, n, width = self.params, len(texts), max(len(t) for t in texts)
        ids = torch.zeros((n, width), dtype=torch.long)
        mask = torch.zeros((n, width))
        for row, text in enumerate(texts):
            ids[row, : len(text)] = torch.tensor(text)
            mask[row, : len(text)] = 1
        x = p["embeddings.word_embeddings.weight"][ids]
        x = x + p["embeddings.position_embeddings.weight"][:width][None]
        x = x + p["embeddings.token_type_embeddings.weight"][0][None, None]
        x = self._norm(x, "embeddings.LayerNorm")
        padding = (1.0 - mask)[:, None, None, :] * -1e4

        def heads(y):
            return y.view(n, width, HEADS, -1).transpose(1, 2)

        for layer in range(LAYERS):
            at = f"encoder.layer.{layer}."
            q = heads(self._linear(x, at + "attention.self.query"))
            k = heads(self._linear(x, at + "attention.self.key"))
            v = heads(self._linear(x, at + "attention.self.value"))
            scores = q @ k.transpose(-1, -2) / math.sqrt(HIDDEN // HEADS) + padding
            attended = (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(n, width, HIDDEN)
            x = self._norm(
                x + self._linear(attended, at + "attention.output.dense"),
                at + "attention.output.LayerNorm",
            )
            inner = F.gelu(self._linear(x, at + "intermediate.dense"))
            x = self._norm(x + self._linear(inner, at + "output.dense"), at + "output.LayerNorm")
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        return F.normalize(pooled, dim=-1)

    def state(self):
        state = {k: v.detach().clone().contiguous() for k, v in self.params.items()}
        state["embeddings.position_ids"] = self.weights["embeddings.position_ids"]
        return state


@torch.no_grad()
def recall_at_5(model, sets):
    """Mean over the sets of vector-only recall@5 of the validation slice inside each catalogue."""
    per_set = {}
    for s in sets:
        queries = [q for q in s["queries"] if q[2] == "val"]
        if not queries:
            continue
        tools = torch.cat([model.embed(s["tools"][i : i + 64]) for i in range(0, len(s["tools"]), 64)])
        top = torch.topk(model.embed([q[0] for q in queries]) @ tools.T, 5, dim=1).indices.tolist()
        recalls = [len(set(top[i]) & set(q[1])) / min(len(q[1]), 5) for i, q in enumerate(queries)]
        per_set[s["name"]] = float(np.mean(recalls))
    return float(np.mean(list(per_set.values()))), per_set


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="the all-MiniLM-L6-v2 directory")
    parser.add_argument("--out", required=True, help="directory to write the fine-tuned model to")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--tau", type=float, default=0.05)
    parser.add_argument("--train-tokens", type=int, default=128, help="a text's tokens in training")
    parser.add_argument("--seed", type=int, default=50)
    args = parser.parse_args()
    started = time.time()
    torch.manual_seed(args.seed)
    torch.set_num_threads(min(2, os.cpu_count() or 1))

    model = MiniLm(os.path.join(args.model, "model.safetensors"))
    sets = load_sets(WordPieces(os.path.join(args.model, "tokenizer.json")))
    best, per_set = recall_at_5(model, sets)
    print(f"epoch 0: validation R@5 {best:.3f} {per_set}", file=sys.stderr, flush=True)
    best_state, best_epoch = model.state(), 0
    optimizer = torch.optim.AdamW(model.params.values(), lr=args.lr, weight_decay=0.01)
    rng = np.random.default_rng(args.seed)
    for epoch in range(1, args.epochs + 1):
        losses = []
        for s, chunk in batches(sets, ("train",), args.batch, rng):
            queries = model.embed([cut(p[0], args.train_tokens) for p in chunk])
            tools = model.embed([cut(s["tools"][p[1]], args.train_tokens) for p in chunk])
            logits = queries @ tools.T / args.tau
            # Not negatives: a tool the row's query asks for too (see train.py's step_loss).
            same = torch.tensor([[p[1] in wanted[2] for p in chunk] for wanted in chunk])
            same.fill_diagonal_(False)
            logits = logits.masked_fill(same, -1e4)
            target = torch.arange(len(chunk))
            loss = (F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target)) / 2
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        score, per_set = recall_at_5(model, sets)
        print(
            f"epoch {epoch}: loss {np.mean(losses):.3f}, validation R@5 {score:.3f} {per_set} "
            f"({time.time() - started:.0f} s)",
            file=sys.stderr,
            flush=True,
        )
        if score > best:
            best, best_state, best_epoch = score, model.state(), epoch

    shutil.copytree(args.model, args.out, dirs_exist_ok=True)
    save_file(best_state, os.path.join(args.out, "model.safetensors"))
    print(
        f"kept epoch {best_epoch} (validation R@5 {best:.3f}); wrote {args.out} in "
        f"{time.time() - started:.0f} s",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
