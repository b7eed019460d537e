#!/usr/bin/env python3
"""Checks that the modules of the workspace's crates depend on each other one way only.

Every `crate::` and `super::` path in the code of `phi-agent/src` (comments and string literals
left out; doc links are not dependencies) is resolved to the top-level module it names, and that
module must be on the allowlist of the file's own layer. Paths through the crate root's
re-exports (`crate::Content`) count as the module the root re-exports them from.

    scripts/check-layers.py           check phi-agent's layers, and every crate for circles
    scripts/check-layers.py SRC       check one crate's src (a copy of phi-agent/src: its layers too)
    scripts/check-layers.py --self-test
                                      plant forbidden imports and circles in copies of the trees,
                                      and fail unless the check refuses each of them and passes
                                      the rest

The layers, lowest first (a layer may name its own modules and everything below it):

    limits, repair -> content -> budget, message -> error
                                                 the vocabulary every layer speaks
    schema                                       pure Value -> Value; names content, error, limits
    config, state, context                       settings and what a tool sees at run time
    tool, typed, decode, output, toolset         what a tool is, and groups of tools
    registry                                     names, exposure, activation, dispatch
    search                                       tool search: an index over the registry's tools
    skill                                        skills: instructions, the tools they name, files
    llm                                          models, their requests and adapters
    agent, mcp                                   the loop; the MCP bridge (neither names the other;
                                                 mcp names llm to answer a server's sampling)
    __private                                    what generated code reaches (anything but the top)

In every crate of the workspace (`CRATES`), the files name each other without a circle, in
each folder and across folders: each file is a node (a folder's `mod.rs`, an `x.rs` beside its
folder `x/`, and `lib.rs` are the folder's node), every path to another file is an edge (a name
re-exported by a folder's node counts as the file it comes from; the node's own `pub use` lines
are its facade, no edge; test modules count like any other code), and the graph must have no
cycle.
"""

import re
import shutil
import sys
import tempfile
from pathlib import Path

BASE = {"limits": set(), "repair": set()}
BASE["content"] = {"limits"}
BASE["budget"] = {"limits", "content"}
BASE["message"] = BASE["content"] | {"content", "repair"}
BASE["error"] = BASE["message"] | {"message"}
VOCABULARY = {"limits", "repair", "content", "budget", "message", "error"}

ALLOWED = dict(BASE)
ALLOWED["schema"] = {"content", "error", "limits"}
ALLOWED["config"] = set()
ALLOWED["state"] = {"error"}
ALLOWED["context"] = {"error", "state", "content"}
TOOL_LAYER = {"tool", "typed", "decode", "output", "toolset"}
BELOW_TOOL = VOCABULARY | {"schema", "config", "state", "context"}
for module in TOOL_LAYER:
    ALLOWED[module] = BELOW_TOOL | TOOL_LAYER
ALLOWED["registry"] = BELOW_TOOL | TOOL_LAYER
ALLOWED["search"] = ALLOWED["registry"] | {"registry"}
# Skills are tools' neighbours: data and two plain tools; the agent and MCP offer them.
ALLOWED["skill"] = ALLOWED["registry"] | {"registry", "search"}
ALLOWED["llm"] = ALLOWED["registry"] | {"registry", "search"}
ALLOWED["agent"] = ALLOWED["llm"] | {"llm", "skill"}
# The MCP client answers a server's sampling requests with a model: mcp names llm (never agent).
ALLOWED["mcp"] = ALLOWED["llm"] | {"llm", "skill"}
ALLOWED["__private"] = ALLOWED["registry"] | {"registry"}

# Comments and literals, read left to right so that a `//` in a string or a quote in a comment
# is no token: line and block comments, raw strings, strings (across lines), characters.
TOKEN = re.compile(
    r"//[^\n]*|/\*.*?\*/"
    r"|(?<!\w)b?r(#*)\".*?\"\1"
    r"|b?\"(?:[^\"\\]|\\.)*\""
    r"|b?'(?:[^'\\\n]|\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.))'",
    re.S,
)
PATH = re.compile(r"(?<![\w$])((?:crate|super|self)(?:::super)*)::(\{|\w+)")
INLINE_MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*\{")


def module_of(src: Path, file: Path) -> list:
    """The module path of `file` below the crate root, e.g. ['schema', 'dialect', 'openai']."""
    parts = list(file.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return parts


def root_reexports(src: Path) -> dict:
    """Names the crate root re-exports, mapped to the module each comes from."""
    names = {}
    text = strip(src.joinpath("lib.rs").read_text())
    for match in re.finditer(r"pub\s+use\s+(\w+)::(\{[^}]*\}|\w+)\s*;", text):
        module, items = match.group(1), match.group(2)
        for item in re.findall(r"\w+", items):
            # A name that is also a module (the `tool` attribute macro and the `tool` module)
            # means the module in a path: macros live in a namespace of their own.
            if item not in ALLOWED:
                names[item] = module
    return names


def strip(text: str) -> str:
    """`text` without comments and string literals, line structure kept."""

    def blank(match):
        token, lines = match.group(0), "\n" * match.group(0).count("\n")
        if token.startswith("/"):
            return lines
        return ("' '" if token.endswith("'") else '""') + lines

    return TOKEN.sub(blank, text)


def group_heads(text: str, start: int) -> list:
    """The first segment of each path in the brace group that opens at `text[start]`."""
    depth, item, heads = 0, "", []
    for char in text[start:]:
        if char == "{":
            depth += 1
            if depth == 1:
                continue
        elif char == "}":
            depth -= 1
            if depth == 0:
                break
        if depth == 1 and char == ",":
            heads.append(item)
            item = ""
        elif depth >= 1:
            item += char
    heads.append(item)
    return [re.match(r"\s*(\w*)", head).group(1) for head in heads if head.strip()]


def violations(src: Path) -> list:
    reexports = root_reexports(src)
    found = []
    for file in sorted(src.rglob("*.rs")):
        if file == src / "lib.rs":
            continue
        file_module = module_of(src, file)
        layer = file_module[0]
        allowed = ALLOWED.get(layer)
        if allowed is None:
            found.append(f"{file}: module `{layer}` has no layer; add it to scripts/check-layers.py")
            continue
        text = strip(file.read_text())
        # Inline modules (`mod tests { .. }`) nest the module path while their braces are open.
        stack, depth = [], 0
        for number, line in enumerate(text.split("\n"), 1):
            inline = INLINE_MOD.match(line)
            if inline:
                stack.append((inline.group(1), depth))
            here = file_module + [name for name, _ in stack]
            for match in PATH.finditer(line):
                anchor, head = match.group(1), match.group(2)
                segments = anchor.split("::")
                if segments[0] == "crate":
                    base = []
                else:
                    ups = segments.count("super")
                    base = here[: len(here) - ups] if ups <= len(here) else None
                    if base is None:
                        found.append(f"{file}:{number}: `{anchor}::` goes above the crate root")
                        continue
                if head == "{":
                    heads = group_heads(line, match.start(2))
                else:
                    heads = [head]
                for name in heads:
                    target = base[0] if base else reexports.get(name, name)
                    if target in ("self", "super", "crate", "") or target == layer:
                        continue
                    if not base and name not in reexports and name not in ALLOWED:
                        continue  # an item of the root itself, such as a macro
                    if target not in allowed:
                        via = f" (re-exported at the root as `{name}`)" if not base and name in reexports else ""
                        found.append(
                            f"{file}:{number}: layer `{layer}` names `{target}`{via}; "
                            f"it may name only {', '.join(sorted(allowed)) or 'nothing'}"
                        )
            depth += line.count("{") - line.count("}")
            while stack and depth <= stack[-1][1]:
                stack.pop()
    return found


FULL_PATH = re.compile(r"(?<![\w$])((?:crate|super|self)(?:::super)*)((?:::\w+)+)")
USE = re.compile(r"\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]*);", re.S)
CHILD_PATH = re.compile(r"(?<![\w:$])[a-z_]\w*(?:::\w+)+")


def expand(tree: str) -> list:
    """The paths of a `use` tree: `a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [re.sub(r"\bas\w+$", "", tree)] if tree else []
    prefix, inner = tree[:brace], tree[brace + 1 : tree.rindex("}")]
    parts, depth, item = [], 0, ""
    for char in inner:
        if char == "," and depth == 0:
            parts.append(item)
            item = ""
            continue
        depth += (char == "{") - (char == "}")
        item += char
    parts.append(item)
    paths = []
    for part in parts:
        for tail in expand(part):
            paths.append(prefix + tail if tail != "self" else prefix.rstrip(":"))
    return [path for path in paths if path]


def absolute(anchor_and_rest: str, here: list):
    """The segments of a `crate::`/`super::`/`self::` path from the crate root, or None."""
    segments = anchor_and_rest.split("::")
    if segments[0] == "crate":
        return segments[1:]
    base = list(here)
    while segments and segments[0] in ("super", "self"):
        if segments.pop(0) == "super":
            if not base:
                return None
            base.pop()
    return base + segments


def is_facade(src: Path, file: Path) -> bool:
    """Whether `file` is the node of a folder: `lib.rs`, a `mod.rs`, or `x.rs` beside a folder `x/`."""
    return file == src / "lib.rs" or file.name == "mod.rs" or file.with_suffix("").is_dir()


MOD_DECLARATION = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)


def module_files(src: Path) -> list:
    """The files that are modules of the crate: `lib.rs` and every file a `mod x;` reaches.

    Other `.rs` files (a macro crate's expansion snapshots) are data, not modules."""
    found, pending = [], [src / "lib.rs"]
    while pending:
        file = pending.pop()
        if not file.is_file() or file in found:
            continue
        found.append(file)
        # `mod x;` in `lib.rs` or `a/mod.rs` is a sibling file; in `a.rs`, a file of `a/`.
        folder = file.parent if file == src / "lib.rs" or file.name == "mod.rs" else file.with_suffix("")
        for name in MOD_DECLARATION.findall(strip(file.read_text())):
            pending += [folder / f"{name}.rs", folder / name / "mod.rs"]
    return sorted(found)


def import_graph(src: Path) -> dict:
    """The edges between the files of `src`: module path -> set of module paths it names.

    Each file is a node (a folder's `mod.rs`, `x.rs` beside `x/`, or the crate's `lib.rs` is the
    folder's node). A path to a name a facade re-exports counts as the file the name comes from;
    the facade's own `pub use` lines re-export and are not edges.
    """
    files = module_files(src)
    modules = {tuple(module_of(src, file)) for file in files}
    reexports = {}
    for file in files:
        if not is_facade(src, file):
            continue
        module = tuple(module_of(src, file))
        for match in USE.finditer(strip(file.read_text())):
            if not match.group(1):
                continue
            for path in expand(match.group(2)):
                segments = [seg for seg in path.split("::") if seg]
                if not segments or segments[-1] == "*":
                    continue
                name = re.sub(r"^.*\bas", "", segments[-1])
                if segments[0] in ("crate", "super", "self"):
                    target = absolute("::".join(segments[:-1]), list(module))
                elif module + (segments[0],) in modules:
                    target = list(module) + segments[:-1]
                else:
                    continue  # another crate's item (`pub use phi_agent_macros::phi_tool`)
                if target is not None:
                    reexports[(module, name)] = tuple(target)

    def resolve(segments: list, seen=()):
        path = tuple(segments)
        for length in range(len(path), -1, -1):
            prefix = path[:length]
            if prefix in modules:
                step = (prefix, path[length]) if length < len(path) else None
                if step in reexports and step not in seen:
                    return resolve(list(reexports[step]) + list(path[length + 1 :]), seen + (step,))
                return prefix
        return None

    graph = {module: set() for module in modules}
    for file in files:
        module = tuple(module_of(src, file))
        text = strip(file.read_text())
        # Visibility paths (`pub(in crate::agent)`) name no item.
        text = re.sub(r"\bpub\(in\s+[^)]*\)", "pub", text)
        if is_facade(src, file):
            # A facade's `pub use` lines re-export; they are not uses.
            text = re.sub(r"\bpub(?:\([^)]*\))?\s+use\s+[^;]*;", lambda m: "\n" * m.group(0).count("\n"), text)
        here = inline_modules(text, list(module))
        line_of = lambda offset: text.count("\n", 0, offset)
        paths = []
        for match in USE.finditer(text):
            paths += [(path, here[line_of(match.start())]) for path in expand(match.group(2))]
        text_without_uses = USE.sub(lambda m: " " * len(m.group(0).replace("\n", "")) + "\n" * m.group(0).count("\n"), text)
        for match in FULL_PATH.finditer(text_without_uses):
            paths.append((match.group(1) + match.group(2), here[line_of(match.start())]))
        # A path may also begin with a child module's name (`early::Early`).
        for match in CHILD_PATH.finditer(text_without_uses):
            paths.append((match.group(0), here[line_of(match.start())]))
        for path, at in paths:
            first = path.split("::")[0]
            if first not in ("crate", "super", "self"):
                if tuple(at) + (first,) not in modules:
                    continue
                path = "self::" + path
            segments = absolute(path, at)
            if segments is None:
                continue
            target = resolve(segments)
            if target is not None and target != module:
                graph[module].add(target)
    return graph


def inline_modules(text: str, file_module: list) -> list:
    """Per line of `text`, the module path there: the file's, nested by inline `mod x { .. }`."""
    stack, depth, here = [], 0, []
    for line in text.split("\n"):
        inline = INLINE_MOD.match(line)
        if inline:
            stack.append((inline.group(1), depth))
        here.append(file_module + [name for name, _ in stack])
        depth += line.count("{") - line.count("}")
        while stack and depth <= stack[-1][1]:
            stack.pop()
    return here


def tangles(graph: dict) -> list:
    """The strongly connected groups of more than one node (Tarjan), each sorted."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def one_cycle(graph: dict, group: list) -> list:
    """A shortest cycle through the first node of `group`, within the group."""
    start, members = group[0], set(group)
    previous, frontier = {start: None}, [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & members):
                if target == start:
                    chain = [node]
                    while chain[-1] != start:
                        chain.append(previous[chain[-1]])
                    return chain[::-1] + [start]
                if target not in previous:
                    previous[target] = node
                    following.append(target)
        frontier = following
    return group + [start]  # unreachable: a tangle's first node is on a cycle


def circles(src: Path) -> list:
    """One message per import circle among the files of `src` (in a folder, or across folders)."""
    graph = import_graph(src)
    found = []
    for group in tangles(graph):
        # The innermost folder that holds every file of the circle.
        common = list(group[0])
        for node in group[1:]:
            while common != list(node[: len(common)]):
                common.pop()
        folder = "/".join(common) + "/" if common else "the crate root's files"
        cycle = one_cycle(graph, group)
        message = f"{src}: import circle in {folder}: " + " -> ".join("::".join(node) or "(crate root)" for node in cycle)
        if len(group) > len(cycle) - 1:
            message += f" (the circle's files: {', '.join('/'.join(node) or '(crate root)' for node in group)})"
        found.append(message)
    return found


def plant(tree: Path, file: str, line: str) -> bool:
    """Prepend `line` to `file` of `tree`; False when the file is gone (the self-test is stale)."""
    target = tree / file
    if not target.is_file():
        return False
    target.write_text(line + target.read_text())
    return True


def self_test(repo: Path) -> int:
    src = repo / "phi-agent" / "src"
    plants = [
        ("schema/walk.rs", "use crate::registry::ToolRegistry;\n", "schema names registry"),
        ("schema/walk.rs", "use crate::PhiAgent;\n", "schema names agent through a root re-export"),
        ("limits.rs", "use crate::{content::Content, error::AgentError};\n", "limits names content in a group"),
        ("registry/dispatch.rs", "use super::super::llm::Message;\n", "registry names llm through super::super"),
        ("mcp/server/settings.rs", "fn planted() { let _ = crate::agent::AgentConfig::default(); }\n", "mcp names agent in an expression"),
    ]
    # (crate, file, line, what): each must add a circle to those the unchanged crate has.
    circle_plants = [
        ("phi-agent", "agent/answer.rs", "use super::run::RunState;\n", "answer names run, which names answer"),
        ("phi-agent", "agent/paused.rs", "fn planted() { let _ = crate::agent::RunOutcome::done; }\n", "paused names output through the facade"),
        ("phi-agent", "agent/run/early.rs", "use super::Run;\n", "a file of run/ names its folder's mod.rs, which names it"),
        ("phi-agent", "schema/walk.rs", "use crate::schema::canonical_schema_for;\n", "walk names canonical through the schema facade"),
        ("phi-agent", "schema/dialect/gemini.rs", "use super::to_dialect;\n", "gemini names derive through the dialect facade, and derive names gemini"),
        ("phi-agent", "decode/strict/error.rs", "fn planted() { let _ = crate::decode::past_limits; }\n", "strict/error names decode/mod.rs, which names it through the strict facade"),
        ("phi-agent", "limits.rs", "use crate::Content;\n", "two files of the crate root name each other"),
        ("phi-agent-embed", "wordpiece.rs", "use crate::SentenceEmbedder;\n", "another crate: wordpiece names sentence, which names it"),
    ]
    failures, count = 0, 0
    with tempfile.TemporaryDirectory() as scratch:
        clean = Path(scratch) / "clean"
        shutil.copytree(src, clean)
        count += 1
        if violations(clean):
            print("self-test: the unchanged tree must pass, but it fails:", *violations(clean), sep="\n  ")
            failures += 1
        for number, (file, line, what) in enumerate(plants):
            count += 1
            planted = Path(scratch) / f"planted{number}"
            shutil.copytree(src, planted)
            if not plant(planted, file, line):
                print(f"self-test: {file} is gone; plant `{what}` in another file")
                failures += 1
            elif violations(planted):
                print(f"self-test: refused as it must: {what}")
            else:
                print(f"self-test: NOT refused: {what} ({file}: {line.strip()})")
                failures += 1
        for number, (crate, file, line, what) in enumerate(circle_plants):
            count += 1
            # A new circle is one that no circle of the unchanged crate contains: the test proves
            # the check can fail whatever circles the tree has today (the check reports those).
            before = tangles(import_graph(repo / crate / "src"))
            planted = Path(scratch) / f"circle{number}"
            shutil.copytree(repo / crate / "src", planted)
            if not plant(planted, file, line):
                print(f"self-test: {crate}/src/{file} is gone; plant `{what}` in another file")
                failures += 1
            elif any(not any(set(group) <= set(old) for old in before) for group in tangles(import_graph(planted))):
                print(f"self-test: refused as it must: {what}")
            else:
                print(f"self-test: NOT refused: {what} ({crate}/src/{file}: {line.strip()})")
                failures += 1
        count += 1
        allowed_plant = Path(scratch) / "allowed"
        shutil.copytree(src, allowed_plant)
        plant(allowed_plant, "schema/walk.rs", "// use crate::registry::ToolRegistry; a comment is no dependency\n")
        if violations(allowed_plant):
            print("self-test: a comment naming an upper layer was refused; comments must be ignored")
            failures += 1
    print(f"self-test: {count - failures} passed, {failures} failed")
    return 1 if failures else 0


# The workspace's library crates. The layers hold in the runtime crate; every crate's files must
# name each other without a circle.
RUNTIME = "phi-agent"
CRATES = [RUNTIME, "phi-agent-code", "phi-agent-embed", "phi-agent-eval", "phi-agent-macros", "phi-agent-restate"]


def main() -> int:
    args = sys.argv[1:]
    repo = Path(__file__).resolve().parent.parent
    if args == ["--self-test"]:
        return self_test(repo)
    if args:
        # The layers are the runtime crate's; any crate's files are checked for circles.
        sources = [Path(args[0]).resolve()]
        found = violations(sources[0]) if sources[0].parent.name == RUNTIME else []
        found += circles(sources[0])
    else:
        sources = [repo / crate / "src" for crate in CRATES]
        found = violations(sources[0])
        for src in sources:
            found += circles(src)
    for line in found:
        print(line)
    files = sum(len(module_files(src)) for src in sources)
    print(f"layers: {files} files of {len(sources)} crate(s) checked, {len(found)} violation(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
