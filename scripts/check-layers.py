#!/usr/bin/env python3
"""Checks that the modules of the runtime crate depend on each other one way only.

Every `crate::` and `super::` path in the code of `phi-agent/src` (comments and string literals
left out; doc links are not dependencies) is resolved to the top-level module it names, and that
module must be on the allowlist of the file's own layer. Paths through the crate root's
re-exports (`crate::Content`) count as the module the root re-exports them from.

    scripts/check-layers.py [SRC]     check SRC (default: phi-agent/src); exit 1 on a violation
    scripts/check-layers.py --self-test
                                      plant forbidden imports in a copy of the tree, and fail
                                      unless the check refuses each of them and passes the rest

The layers, lowest first (a layer may name its own modules and everything below it):

    limits, repair -> content -> budget, message -> error
                                                 the vocabulary every layer speaks
    schema                                       pure Value -> Value; names content, error, limits
    config, state, context                       settings and what a tool sees at run time
    tool, typed, decode, output, toolset         what a tool is, and groups of tools
    registry                                     names, exposure, activation, dispatch
    search                                       tool search: an index over the registry's tools
    llm                                          models, their requests and adapters
    agent, mcp                                   the loop; the MCP bridge (neither names the other;
                                                 mcp names llm to answer a server's sampling)
    __private                                    what generated code reaches (anything but the top)

Inside `agent/` and inside `mcp/`, the files name each other without a circle: each file is a node
(a `mod.rs` is its folder's), every path to another file of the same folder is an edge (a name re-exported by a
`mod.rs` counts as the file it comes from; a `mod.rs`'s own `pub use` lines are its facade, no
edge), and the graph must have no cycle.
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
ALLOWED["llm"] = ALLOWED["registry"] | {"registry", "search"}
ALLOWED["agent"] = ALLOWED["llm"] | {"llm"}
# The MCP client answers a server's sampling requests with a model: mcp names llm (never agent).
ALLOWED["mcp"] = ALLOWED["llm"] | {"llm"}
ALLOWED["__private"] = ALLOWED["registry"] | {"registry"}

STRING = re.compile(r'b?"(?:[^"\\]|\\.)*"')
CHAR = re.compile(r"'(?:[^'\\]|\\.)'")
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
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    lines = []
    for line in text.split("\n"):
        line = STRING.sub('""', line)
        line = CHAR.sub("' '", line)
        lines.append(line.split("//", 1)[0])
    return "\n".join(lines)


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
CIRCLE_ROOTS = ("agent", "mcp")
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


def folder_graph(src: Path, folder: str) -> dict:
    """The edges between the files of `folder`: module path -> set of module paths it names."""
    root = src / folder
    files = sorted(root.rglob("*.rs"))
    modules = {tuple(module_of(src, file)) for file in files}
    reexports = {}
    for file in files:
        if file.name != "mod.rs":
            continue
        module = tuple(module_of(src, file))
        for match in USE.finditer(strip(file.read_text())):
            if not match.group(1):
                continue
            for path in expand(match.group(2)):
                segments = [seg for seg in path.split("::") if seg]
                if segments and segments[0] not in ("crate", "super", "self"):
                    name = re.sub(r"^.*\bas", "", segments[-1])
                    reexports[(module, name)] = module + tuple(segments[:-1])

    def resolve(segments: list):
        path = tuple(segments)
        for length in range(len(path), 0, -1):
            prefix = path[:length]
            if prefix in modules:
                if length < len(path) and (prefix, path[length]) in reexports:
                    return resolve(list(reexports[(prefix, path[length])]) + list(path[length + 1 :]))
                return prefix
        return None

    graph = {module: set() for module in modules}
    for file in files:
        module = tuple(module_of(src, file))
        text = strip(file.read_text())
        # Visibility paths (`pub(in crate::agent)`) name no item.
        text = re.sub(r"\bpub\(in\s+[^)]*\)", "pub", text)
        if file.name == "mod.rs":
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
            if not segments or segments[0] != folder:
                continue
            target = resolve(segments)
            if target and target != module:
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


def circles(src: Path) -> list:
    """One message per import circle among the files of each of `CIRCLE_ROOTS`."""
    found = []
    for folder in CIRCLE_ROOTS:
        found += folder_circles(src, folder)
    return found


def folder_circles(src: Path, folder: str) -> list:
    """One message per import circle among the files of `folder`."""
    graph = folder_graph(src, folder)
    found, state, stack = [], {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                cycle = stack[stack.index(target) :] + [target]
                found.append(f"import circle in {folder}/: " + " -> ".join("::".join(n) for n in cycle))
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def self_test(src: Path) -> int:
    plants = [
        ("schema/walk.rs", "use crate::registry::ToolRegistry;\n", "schema names registry"),
        ("schema/walk.rs", "use crate::PhiAgent;\n", "schema names agent through a root re-export"),
        ("limits.rs", "use crate::{content::Content, error::AgentError};\n", "limits names content in a group"),
        ("registry/dispatch.rs", "use super::super::llm::Message;\n", "registry names llm through super::super"),
        ("mcp/server/settings.rs", "fn planted() { let _ = crate::agent::AgentConfig::default(); }\n", "mcp names agent in an expression"),
    ]
    circle_plants = [
        ("agent/answer.rs", "use super::run::RunState;\n", "answer names run, which names answer"),
        ("agent/paused.rs", "fn planted() { let _ = crate::agent::RunOutcome::done; }\n", "paused names output through the facade"),
        ("agent/run/early.rs", "use super::Run;\n", "a file of run/ names its folder's mod.rs, which names it"),
        ("mcp/client/connection.rs", "use super::imports::Imports;\n", "mcp's connection names the tool set, which names it"),
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        clean = Path(scratch) / "clean"
        shutil.copytree(src, clean)
        if violations(clean):
            print("self-test: the unchanged tree must pass, but it fails:", *violations(clean), sep="\n  ")
            failures += 1
        for number, (file, line, what) in enumerate(plants):
            planted = Path(scratch) / f"planted{number}"
            shutil.copytree(src, planted)
            target = planted / file
            target.write_text(line + target.read_text())
            if violations(planted):
                print(f"self-test: refused as it must: {what}")
            else:
                print(f"self-test: NOT refused: {what} ({file}: {line.strip()})")
                failures += 1
        for number, (file, line, what) in enumerate(circle_plants):
            planted = Path(scratch) / f"circle{number}"
            shutil.copytree(src, planted)
            target = planted / file
            target.write_text(line + target.read_text())
            if circles(planted):
                print(f"self-test: refused as it must: {what}")
            else:
                print(f"self-test: NOT refused: {what} ({file}: {line.strip()})")
                failures += 1
        if circles(clean):
            print("self-test: the unchanged tree must have no circle, but has:", *circles(clean), sep="\n  ")
            failures += 1
        allowed_plant = Path(scratch) / "allowed"
        shutil.copytree(src, allowed_plant)
        walk = allowed_plant / "schema/walk.rs"
        walk.write_text("// use crate::registry::ToolRegistry; a comment is no dependency\n" + walk.read_text())
        if violations(allowed_plant):
            print("self-test: a comment naming an upper layer was refused; comments must be ignored")
            failures += 1
    print(f"self-test: {len(plants) + len(circle_plants) + 3 - failures} passed, {failures} failed")
    return 1 if failures else 0


def main() -> int:
    args = sys.argv[1:]
    repo = Path(__file__).resolve().parent.parent
    if args == ["--self-test"]:
        return self_test(repo / "phi-agent" / "src")
    src = Path(args[0]) if args else repo / "phi-agent" / "src"
    found = violations(src) + circles(src)
    for line in found:
        print(line)
    files = len(list(src.rglob("*.rs")))
    print(f"layers: {files} files checked, {len(found)} violation(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
