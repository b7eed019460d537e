"""Texts sampled from the held-out tool-search sets, for the embedding fixtures.

Shared by `embed-tokenizer-fixture.py` and `sentence-model-fixtures.py`, which import it from
beside themselves: every `query_step`-th question and every `tool_step`-th tool of BFCL's and
AgentDojo's sets, each tool as the text the embedders read (its name with spaces, its
description, one line per parameter).
"""

import json


def heldout_texts(root, query_step, tool_step):
    texts = []
    for name in ["bfcl", "agentdojo"]:
        path = root / f"bench/tool-search/data/{name}.json"
        data = json.loads(path.read_text())
        texts += [q["text"] for q in data["queries"][::query_step]]
        for tool in data["tools"][::tool_step]:
            text = tool["name"].replace("_", " ") + "\n" + tool["description"]
            for param, doc in tool["params"]:
                text += "\n" + param + (": " + doc if doc else "")
            texts.append(text)
    return texts
