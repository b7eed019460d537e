#!/usr/bin/env python3
"""Writes phi-agent-embed/tests/tokenizer_ids.json: token ids that the reference `tokenizers`
library gives for texts of the held-out sets and a few edge cases, with the wordllama tokenizer,
for phi-agent-embed's own tokenizer to match exactly. Run with a Python that has `tokenizers`:
    python3 scripts/embed-tokenizer-fixture.py "$(scripts/install-embed-model.sh)"
"""
import json
import pathlib
import sys

from tokenizers import Tokenizer

from heldout_sample import heldout_texts

root = pathlib.Path(__file__).resolve().parent.parent
model = pathlib.Path(sys.argv[1])
tokenizer = Tokenizer.from_file(str(model / "tokenizers" / "l2_supercat_tokenizer_config.json"))
texts = [
    "",
    " ",
    "  two  spaces  ",
    "get_weather_forecast",
    "camelCaseName and dotted.name",
    "Line one\nline two\ttab",
    "naïve café, Zürich – “quoted” — 😀 emoji",
    "今日の天気を教えて",
    "订一张去上海的机票",
    "날씨 알려줘",
    "พยากรณ์อากาศวันนี้",
    "a literal <s> and </s> and <unk> inside",
    "<s>",
    "1234567890 3.14159 -42",
    "x" * 300,
]
texts += heldout_texts(root, query_step=40, tool_step=60)
cases = [[t, tokenizer.encode(t, add_special_tokens=False).ids] for t in texts]
out = root / "phi-agent-embed/tests/tokenizer_ids.json"
out.write_text(json.dumps(cases, ensure_ascii=False, indent=0) + "\n")
print(f"{len(cases)} texts -> {out}")
