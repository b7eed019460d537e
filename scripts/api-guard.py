#!/usr/bin/env python3
"""The public API of phi-agent (and phi-agent-restate, phi-agent-embed, phi-agent-code,
phi-agent-eval) as a text
listing, and a guard that every change to it since the last release is named in CHANGELOG.md.

The listing is read from `cargo doc` HTML (stable rustdoc: its JSON output needs nightly, and so
do cargo-public-api and, through it, most API diff tools; cargo-semver-checks would be a large
build from crates.io in every CI run). One line per public item, field, variant, method,
associated item and trait implementation, in a stable order:

    phi_agent::AgentConfig | method with_max_turns | pub fn with_max_turns(self, turns: usize) -> Self

`api/phi-agent.txt` is that listing, committed, so that a change to the public API shows in
review. The guard (`--check`, run by .ci/run after `cargo doc --all-features`) fails when

- the listing generated from the code differs from the committed one (regenerate it with
  `python3 scripts/api-guard.py --write`), or
- an item whose line differs between the generated listing and the last released one is not
  named in the `## [Unreleased]` section of CHANGELOG.md: one entry (a bullet) must name the
  item in backticks, and for a member also its owner (`` `AgentConfig::with_max_turns` ``, or
  `` `AgentConfig` `` and `` `with_max_turns` `` in the same bullet). Users only ever see
  releases, so a change made and changed again between two releases is named once, as it ends
  up, and a name that was never released needs no entry when it goes.

The last released listing is the newest `api/released/phi-agent-<version>.txt` (by version, so
0.10.0 is newer than 0.9.0). There is none until the first release: until then the baseline is
the committed listing itself, so the second rule has nothing to compare and CHANGELOG.md is a
summary of what the first release offers, not an entry per change. Releasing a version adds
its listing, `cp api/phi-agent.txt api/released/phi-agent-<version>.txt`, beside renaming
`## [Unreleased]` to `## [<version>] - <date>` and opening an empty `## [Unreleased]` above it;
from then on every item that differs from that listing needs its entry. A crate the released
listing does not hold at all is new as a whole, and its items need no entry each.

`--self-test` proves the guard can fail: with a temporary released listing it renames a method
and checks that the guard refuses it without a CHANGELOG entry (or with one in the wrong bullet
or section) and accepts it with one; that the newest release is the baseline; that without a
release only the first rule applies; and that a listing out of date fails.
"""

import argparse
import difflib
import html.parser
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = ["phi_agent", "phi_agent_restate", "phi_agent_embed", "phi_agent_code", "phi_agent_eval"]
LISTING = os.path.join(ROOT, "api", "phi-agent.txt")
# One listing per release, `phi-agent-<version>.txt`; the newest is what users have.
RELEASED = os.path.join(ROOT, "api", "released")
CHANGELOG = os.path.join(ROOT, "CHANGELOG.md")

ITEM_KINDS = {
    "struct", "enum", "trait", "fn", "macro", "type", "constant", "static", "attr",
    "derive", "union", "traitalias",
}
# Sections of an item page whose headers are part of the API; the others (auto traits and
# blanket impls, which follow from the rest) are left out.
SKIPPED_LISTS = {"synthetic-implementations-list", "blanket-implementations-list", "implementors-list"}
MEMBER_PREFIXES = {
    "structfield": "field",
    "variant": "variant",
    "method": "method",
    "tymethod": "method",
    "associatedconstant": "const",
    "associatedtype": "type",
    "impl": "impl",
}


class ItemPage(html.parser.HTMLParser):
    """Collects an item page's declaration and the headers of its members."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, attrs) of open elements
        self.capture = None  # [kind, id, text parts, depth at start]
        self.decl = None
        self.members = []  # (kind, id, text)
        self.section_id = None
        self.skip_depth = None
        self.in_trait_impl_items = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("br", "img", "meta", "link", "input", "wbr", "hr"):
            return
        self.stack.append((tag, attrs))
        depth = len(self.stack)
        classes = set((attrs.get("class") or "").split())
        ident = attrs.get("id") or ""
        if self.skip_depth is None and ident in SKIPPED_LISTS:
            self.skip_depth = depth
        if self.skip_depth is not None or self.capture is not None:
            if self.capture is not None and ("src" in classes or "anchor" in classes):
                # "Source" links and the "§" anchors are not part of a signature.
                self.capture[4] = depth
            return
        if tag == "pre" and "item-decl" in classes:
            self.capture = ["decl", "", [], depth, None]
        elif tag in ("section", "span") and ident:
            self.section_id = ident
            if ident.startswith("structfield.") and "structfield" in classes:
                self.capture = ["member", ident, [], depth, None]
        elif tag in ("h3", "h4") and "code-header" in classes and self.section_id:
            if self.inside_trait_impl():
                return
            self.capture = ["member", self.section_id, [], depth, None]

    def inside_trait_impl(self):
        # Methods inside `impl Trait for Type` blocks are the trait's; the impl header says it all.
        for tag, attrs in self.stack:
            if tag == "div" and attrs.get("id") == "trait-implementations-list":
                return self.section_id is not None and not self.section_id.startswith("impl-")
        return False

    def handle_endtag(self, tag):
        if not self.stack:
            return
        # Tolerate unclosed elements: pop back to the matching tag.
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                break
        else:
            return
        depth = index + 1
        if self.capture is not None and self.capture[4] is not None and depth <= self.capture[4]:
            self.capture[4] = None
        if self.capture is not None and depth <= self.capture[3]:
            kind, ident, parts, _, _ = self.capture
            text = " ".join("".join(parts).split())
            if kind == "decl":
                self.decl = text
            else:
                self.members.append((ident, text))
            self.capture = None
        if self.skip_depth is not None and depth <= self.skip_depth:
            self.skip_depth = None
        del self.stack[index:]

    def handle_data(self, data):
        if self.capture is not None and self.capture[4] is None:
            self.capture[2].append(data)


def spaced(text):
    """`#[non_exhaustive]pub struct` (rustdoc puts the attribute in an element of its own) as
    `#[non_exhaustive] pub struct`."""
    return re.sub(r"(#\[[^\]]*\])(?=[A-Za-z])", r"\1 ", text)


def item_path(crate_dir, crate, path):
    relative = os.path.relpath(path, crate_dir)
    parts = relative.split(os.sep)
    kind, _, name = parts[-1][: -len(".html")].partition(".")
    return kind, "::".join([crate] + parts[:-1] + [name])


def listing(doc_dir):
    lines = []
    for crate in CRATES:
        crate_dir = os.path.join(doc_dir, crate)
        if not os.path.isdir(crate_dir):
            sys.exit(f"error: no rustdoc output at {crate_dir}; run `cargo doc --all-features` first")
        for folder, _, files in os.walk(crate_dir):
            for file in sorted(files):
                if not file.endswith(".html") or file in ("index.html", "all.html"):
                    continue
                kind, path = item_path(crate_dir, crate, os.path.join(folder, file))
                if kind not in ITEM_KINDS:
                    continue
                with open(os.path.join(folder, file), encoding="utf-8") as handle:
                    page = handle.read()
                if 'http-equiv="refresh"' in page[:2000]:
                    continue  # a redirect left for an old path
                parser = ItemPage()
                parser.feed(page)
                lines.append(f"{path} | {kind} | {spaced(parser.decl or '')}")
                seen = set()
                for ident, text in parser.members:
                    if re.search(r"-\d+$", ident):
                        # `method.model-1`: the same member again, in an implementation of a
                        # trait for a foreign type (listed on the trait's page) or a second impl.
                        continue
                    text = spaced(text)
                    prefix, _, name = ident.partition(".")
                    member = MEMBER_PREFIXES.get(prefix)
                    if member is None:
                        if ident.startswith("impl-"):
                            member, name = "impl", ""
                        else:
                            continue
                    line = f"{path} | {member} {name}".rstrip() + f" | {text}"
                    if line not in seen:
                        seen.add(line)
                        lines.append(line)
    return sorted(set(lines))


def unreleased_entries(changelog_text):
    """The bullets of `## [Unreleased]`, each as the list of its code spans' identifiers."""
    match = re.search(r"^## \[Unreleased\][^\n]*\n(.*?)(?=^## \[|\Z)", changelog_text, re.M | re.S)
    if not match:
        return []
    entries, current = [], None
    for line in match.group(1).splitlines():
        if re.match(r"^\s*[-*] ", line):
            current = [line]
            entries.append(current)
        elif line.strip() and not line.startswith("#") and current is not None:
            current.append(line)
        else:
            current = None
    result = []
    for entry in entries:
        text = " ".join(entry)
        idents = set()
        for span in re.findall(r"`([^`]+)`", text):
            idents.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span))
        result.append(idents)
    return result


def named(line, entries):
    path, member, _ = (part.strip() for part in line.split(" | ", 2))
    owner = path.rsplit("::", 1)[-1]
    kind, _, name = member.partition(" ")
    if kind in ITEM_KINDS or kind == "impl" or not name:
        wanted = {owner}
    else:
        wanted = {owner, name}
    return any(wanted <= entry for entry in entries)


def key(line):
    path, member, _ = (part.strip() for part in line.split(" | ", 2))
    return f"{path} | {member}"


def unnamed_changes(old, new, changelog_text):
    entries = unreleased_entries(changelog_text)
    old_set, new_set = set(old), set(new)
    # A crate the released listing does not hold is new as a whole, not changed item by item.
    listed = {line.split("::", 1)[0] for line in old}
    changed = sorted(
        (line for line in old_set ^ new_set if line.split("::", 1)[0] in listed), key=key
    )
    return [line for line in changed if not named(line, entries)], changed


def version_of(file):
    """`(0, 10, 0)` for `phi-agent-0.10.0.txt`; None for a file of another name."""
    match = re.fullmatch(r"phi-agent-(\d+)\.(\d+)\.(\d+)\.txt", file)
    return tuple(int(part) for part in match.groups()) if match else None


def released_listing(folder):
    """The newest released listing in `folder` as (its file name, its lines), or None before
    the first release."""
    files = sorted(
        (version_of(file), file) for file in (os.listdir(folder) if os.path.isdir(folder) else [])
        if version_of(file) is not None
    )
    if not files:
        return None
    name = files[-1][1]
    with open(os.path.join(folder, name), encoding="utf-8") as handle:
        return name, handle.read().splitlines()


def guard(fresh, committed, changelog, released_folder, out):
    """Both rules of the module docs over listings already read; says why on `out` and
    returns whether the guard passes."""
    ok = True
    if fresh != committed:
        ok = False
        print("error: api/phi-agent.txt is not the API the code has; regenerate it with "
              "`python3 scripts/api-guard.py --write` (once a release exists, name each change "
              "in CHANGELOG.md too):", file=out)
        out.writelines(
            line + "\n" for line in difflib.unified_diff(committed, fresh, "api/phi-agent.txt", "generated", lineterm="", n=0)
        )
    released = released_listing(released_folder)
    if released is None:
        # No release yet: the baseline is the committed listing, which the first rule has just
        # compared; no change has reached a user, so none needs its own entry.
        print(f"api guard: {len(fresh)} lines; no release in api/released/ yet, so no change "
              "needs a CHANGELOG.md entry", file=out)
        return ok
    name, old = released
    unnamed, changed = unnamed_changes(old, fresh, changelog)
    print(f"api guard: {len(fresh)} lines, {len(changed)} changed since {name}, "
          f"{len(unnamed)} not named in CHANGELOG.md", file=out)
    if unnamed:
        ok = False
        print(f"error: these public API lines changed since the release listed in "
              f"api/released/{name} but CHANGELOG.md's `## [Unreleased]` names no such item "
              "(a bullet with the item, and for a member its owner, in backticks):", file=out)
        old_set = set(old)
        for line in unnamed:
            print(("  - " if line in old_set else "  + ") + line, file=out)
    return ok


def check(doc_dir):
    fresh = listing(doc_dir)
    with open(LISTING, encoding="utf-8") as handle:
        committed = handle.read().splitlines()
    with open(CHANGELOG, encoding="utf-8") as handle:
        changelog = handle.read()
    return guard(fresh, committed, changelog, RELEASED, sys.stderr)


def self_test():
    import io
    import tempfile

    old = [
        "phi_agent::AgentConfig | struct | pub struct AgentConfig { pub max_turns: usize }",
        "phi_agent::AgentConfig | method with_max_turns | pub fn with_max_turns(self, turns: usize) -> Self",
    ]
    new = [old[0], old[1].replace("with_max_turns", "with_turn_limit")]
    quiet = "# Changelog\n\n## [Unreleased]\n\n### Agent\n\n- `AgentConfig` has docs.\n"
    told = quiet + "- `AgentConfig::with_max_turns` is now `with_turn_limit`.\n"
    elsewhere = quiet + "- `with_max_turns` and `with_turn_limit` of `ToolConfig`.\n\n## [0.1.0]\n\n- `AgentConfig`\n"

    def passes(fresh, committed, changelog, releases):
        with tempfile.TemporaryDirectory() as folder:
            for file, lines in releases.items():
                with open(os.path.join(folder, file), "w", encoding="utf-8") as handle:
                    handle.writelines(line + "\n" for line in lines)
            out = io.StringIO()
            return guard(fresh, committed, changelog, folder, out), out.getvalue()

    ok, said = passes(new, new, quiet, {})
    assert ok, f"before a release, the committed listing is the baseline and no entry is needed: {said}"
    ok, said = passes(new, old, told, {})
    assert not ok and "is not the API the code has" in said, f"a stale listing must fail: {said}"
    released = {"phi-agent-0.1.0.txt": old}
    ok, said = passes(new, new, quiet, released)
    assert (not ok and "  - phi_agent::AgentConfig | method with_max_turns |" in said
            and "  + phi_agent::AgentConfig | method with_turn_limit |" in said), (
        f"after a release, a rename without a CHANGELOG entry must fail, naming both lines: {said}"
    )
    ok, said = passes(new, new, told, released)
    assert ok, f"a named rename must pass: {said}"
    ok, said = passes(new, new, elsewhere, released)
    assert not ok, f"the owner must be named, and only Unreleased counts: {said}"
    ok, said = passes(new, new, quiet, {**released, "phi-agent-0.9.0.txt": old, "phi-agent-0.10.0.txt": new, "notes.txt": old})
    assert ok and "phi-agent-0.10.0.txt" in said, f"the newest release (0.10.0, not 0.9.0) is the baseline: {said}"
    print("api guard self-test: before a release only a stale listing fails; after one, a renamed "
          "method without a CHANGELOG entry fails, with one passes, against the newest release")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--doc-dir", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "doc"))
    parser.add_argument("--write", action="store_true", help="regenerate api/phi-agent.txt")
    parser.add_argument("--check", action="store_true", help="the CI guard")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        self_test()
    if args.write:
        os.makedirs(os.path.dirname(LISTING), exist_ok=True)
        with open(LISTING, "w", encoding="utf-8") as handle:
            handle.writelines(line + "\n" for line in listing(args.doc_dir))
        print(f"wrote {os.path.relpath(LISTING, ROOT)}")
    if args.check:
        if not check(args.doc_dir):
            sys.exit(1)
    if not (args.self_test or args.write or args.check):
        sys.stdout.writelines(line + "\n" for line in listing(args.doc_dir))


if __name__ == "__main__":
    main()
