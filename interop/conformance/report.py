#!/usr/bin/env python3
"""Reads the results of the MCP conformance suite (@modelcontextprotocol/conformance) for
interop/conformance/run and run-client: what a requirement set names, and the verdict of a run.

  report.py scenarios REQUIREMENTS.yaml SIDE [scored|not-scored|outside ALL...]
      prints the scenarios of SIDE (server or client) the set scores, those it runs without
      scoring, or, of ALL (every scenario the suite lists), those it names neither way.
  report.py --self-test
      checks the verdict against made-up results (run by .ci/run).
  report.py verdict --results DIR --side SIDE --title TITLE [--requirements REQUIREMENTS.yaml]
                    [--baseline BASELINE.yml] [--scored NAME... | --outside NAME...]
      prints a table of every scenario under DIR (each check counted SUCCESS, FAILURE, WARNING),
      the required pass count, the not-scored results, and exits 1 when a scored scenario fails
      (a warning counts as a failure) other than as its baseline says, or when a baseline entry
      passes (stale). With --outside, the scenarios named are listed as not scored.

The requirement set is the suite's own requirements/<revision>.yaml; a baseline has the suite's
--expected-failures format: `server:` or `client:`, then `- scenario` (the whole scenario may
fail) or `- scenario:check-id` (only that check may fail), each with a comment saying why. Both
files are read by a small reader of exactly that shape, so that no YAML library is needed.

The results are the suite's `-o DIR` output: one folder per scenario holding checks.json. A
folder run-client made for one scenario also holds `scenario` (its name) and `exit` (the
suite's exit status, which counts the client program's own exit status).
"""

import json
import re
import sys
from pathlib import Path


def read_lists(path):
    """The lists of a requirement set or baseline: {'server': [...], 'client': [...],
    'not_scored': [{'scenario':, 'leg':, 'reason':}, ...]}."""
    lists = {}
    section = None
    for raw in Path(path).read_text().splitlines():
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        if not line.startswith(" "):
            section = line.rstrip(":").strip()
            lists.setdefault(section, [])
            continue
        stripped = line.strip()
        if section == "not_scored":
            if stripped.startswith("- "):
                lists[section].append({})
                stripped = stripped[2:]
            key, _, value = stripped.partition(":")
            if lists[section] and value.strip() and key in ("scenario", "leg", "reason"):
                lists[section][-1][key] = value.strip()
        elif stripped.startswith("- "):
            lists[section].append(stripped[2:].strip())
    return lists


def scored_and_not(requirements, side):
    lists = read_lists(requirements)
    scored = lists.get(side, [])
    not_scored = {
        entry["scenario"]: entry.get("reason", "not scored")
        for entry in lists.get("not_scored", [])
        if entry.get("leg") == side and "scenario" in entry
    }
    return scored, not_scored


def scenario_of(folder, side):
    """The scenario a results folder is of: named in the file `scenario` of the folder or one
    above it (run-client), else read from the suite's folder name `server-<name>-<timestamp>`."""
    for candidate in [folder, *folder.parents]:
        named = candidate / "scenario"
        if named.is_file():
            return named.read_text().strip(), candidate
    match = re.match(r"^(?:server-)?(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$", folder.name)
    return (match.group(1) if match else folder.name), folder


def read_results(results, side):
    """{scenario: [(check id, status, message)]} for every checks.json under `results`."""
    found = {}
    for checks_file in sorted(Path(results).rglob("checks.json")):
        scenario, home = scenario_of(checks_file.parent, side)
        try:
            checks = json.loads(checks_file.read_text())
        except (OSError, ValueError) as error:
            checks = [{"id": "checks-json", "status": "FAILURE", "errorMessage": str(error)}]
        rows = found.setdefault(scenario, [])
        rows.extend((c.get("id", "?"), c.get("status", "?"), c.get("errorMessage") or "") for c in checks)
        exit_file = home / "exit"
        if exit_file.is_file():
            status = exit_file.read_text().strip()
            if status != "0" and not any(s in ("FAILURE", "WARNING") for _, s, _ in rows):
                # The suite failed the scenario with no failing check: the client program exited
                # with an error (its stderr is in the folder).
                rows.append(("client-exit-status", "FAILURE", f"the suite exited {status}"))
    return found


def verdict(args):
    results, side, title = args["--results"], args["--side"], args["--title"]
    found = read_results(results, side)
    if "--outside" in args:
        scored, not_scored = [], {name: "in neither requirement set" for name in args["--outside"]}
    elif "--requirements" in args:
        scored, not_scored = scored_and_not(args["--requirements"], side)
    else:
        scored, not_scored = args.get("--scored", sorted(found)), {}
    baseline = read_lists(args["--baseline"]).get(side, []) if "--baseline" in args else []
    whole = {entry for entry in baseline if ":" not in entry}
    single = {}
    for entry in baseline:
        if ":" in entry:
            scenario, check = entry.split(":", 1)
            single.setdefault(scenario, set()).add(check)

    problems = []
    passed = clean = 0
    print(f"\n=== {title}" + (": required scenarios (~ a failure the baseline expects) ===" if scored else " ==="))
    for scenario in scored:
        rows = found.get(scenario)
        if rows is None:
            rows = [("ran", "FAILURE", "no result: the scenario did not run or did not finish")]
        ok = sum(1 for _, s, _ in rows if s == "SUCCESS")
        bad = [(c, s, m) for c, s, m in rows if s == "FAILURE"]
        warned = [(c, s, m) for c, s, m in rows if s == "WARNING"]
        failing = bad + warned
        passed += not bad
        clean += not failing
        excused = scenario in whole or (failing and all(c in single.get(scenario, ()) for c, _, _ in failing))
        mark = "✓" if not failing else ("~" if excused else "✗")
        print(f"{mark} {scenario}: {ok} passed, {len(bad)} failed, {len(warned)} warnings")
        for check, status, message in failing:
            print(f"    {status.lower()} {check}: {message[:300]}")
        if failing and not excused:
            problems.append(f"{scenario} fails ({', '.join(c for c, _, _ in failing)}) and no baseline entry says why")
        if scenario in whole and not failing:
            problems.append(f"stale baseline entry: {scenario} passes now; remove it")
        for check in single.get(scenario, ()):
            if any(c == check and s == "SUCCESS" for c, s, _ in rows) and not any(
                c == check and s != "SUCCESS" for c, s, _ in rows
            ):
                problems.append(f"stale baseline entry: {scenario}:{check} passes now; remove it")
    for entry in sorted(whole | set(single)):
        if entry not in scored:
            problems.append(f"baseline entry {entry} names no required scenario of this run")
    total = len(scored)
    if scored:
        print(f"\nTotal: {passed}/{total} required passed ({clean}/{total} with a warning counted as a failure)")
    if not_scored:
        failing = [
            s for s in not_scored
            if any(st in ("FAILURE", "WARNING") for _, st, _ in found.get(s, [("", "FAILURE", "")]))
        ]
        passing = len(not_scored) - len(failing)
        print(f"Not scored (run and listed, never failing the run): {passing}/{len(not_scored)} pass")
        for scenario, reason in not_scored.items():
            rows = found.get(scenario)
            if rows is None:
                print(f"  ✗ {scenario} ({reason}): no result")
                continue
            ok = sum(1 for _, s, _ in rows if s == "SUCCESS")
            bad = sum(1 for _, s, _ in rows if s == "FAILURE")
            warned = sum(1 for _, s, _ in rows if s == "WARNING")
            mark = "✗" if bad or warned else ("✓" if ok else "-")
            counts = f"{ok} passed, {bad} failed, {warned} warnings" if rows else "no checks (skipped)"
            print(f"  {mark} {scenario} ({reason}): {counts}")
    for problem in problems:
        print(f"error: {title}: {problem}", file=sys.stderr)
    return 1 if problems else 0


def parse(argv):
    args, key = {}, None
    for word in argv:
        if word.startswith("--"):
            key = word
            args.setdefault(key, [])
        elif key is None:
            raise SystemExit(f"unexpected argument {word!r}")
        else:
            args[key].append(word)
    lists = ("--scored", "--outside")
    return {k: (v if k in lists else (v[0] if v else "")) for k, v in args.items()}


def self_test():
    """The verdict on made-up results: a new failure, a stale entry (whole and single check), an
    excused check beside a failing one, a warning, a missing result, a client's exit status."""
    import contextlib
    import io
    import tempfile

    def run(results, baseline, scored):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for i, (scenario, checks, exit_status) in enumerate(results):
                folder = root / "r" / str(i)
                (folder / "inner").mkdir(parents=True)
                (folder / "scenario").write_text(scenario)
                if exit_status is not None:
                    (folder / "exit").write_text(str(exit_status))
                rows = [{"id": c, "status": s} for c, s in checks]
                (folder / "inner" / "checks.json").write_text(json.dumps(rows))
            (root / "base.yml").write_text("client:\n" + "".join(f"  - {b}  # why\n" for b in baseline))
            args = {"--results": str(root / "r"), "--side": "client", "--title": "t",
                    "--baseline": str(root / "base.yml"), "--scored": scored}
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                return verdict(args)

    ok = ("a", [("x", "SUCCESS")], 0)
    cases = [
        ("all pass", [ok], [], ["a"], 0),
        ("new failure", [ok, ("b", [("x", "FAILURE")], 1)], [], ["a", "b"], 1),
        ("a warning counts", [("b", [("x", "WARNING")], 0)], [], ["b"], 1),
        ("baselined scenario", [("b", [("x", "FAILURE")], 1)], ["b"], ["b"], 0),
        ("stale scenario entry", [ok], ["a"], ["a"], 1),
        ("baselined check", [("b", [("x", "FAILURE"), ("y", "SUCCESS")], 1)], ["b:x"], ["b"], 0),
        ("another check fails", [("b", [("x", "FAILURE"), ("y", "FAILURE")], 1)], ["b:x"], ["b"], 1),
        ("stale check entry", [("b", [("x", "SUCCESS")], 0)], ["b:x"], ["b"], 1),
        ("absent check tolerated", [("b", [("y", "FAILURE")], 1)], ["b:x", "b:y"], ["b"], 0),
        ("no result", [ok], [], ["a", "c"], 1),
        ("client exit status", [("a", [("x", "SUCCESS")], 1)], [], ["a"], 1),
        ("entry for no scenario", [ok], ["z"], ["a"], 1),
    ]
    failed = [name for name, results, baseline, scored, want in cases
              if run(results, baseline, scored) != want]
    for name in failed:
        print(f"report.py self-test: {name}: wrong verdict", file=sys.stderr)
    print(f"report.py self-test: {len(cases) - len(failed)}/{len(cases)} cases pass")
    return 1 if failed else 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) >= 3 and argv[0] == "scenarios":
        scored, not_scored = scored_and_not(argv[1], argv[2])
        which = argv[3] if len(argv) > 3 else "scored"
        if which == "scored":
            names = scored
        elif which == "not-scored":
            names = list(not_scored)
        elif which == "outside":
            named = set(scored) | set(not_scored)
            names = [name for name in argv[4:] if name not in named]
        else:
            raise SystemExit(f"unknown list {which!r}")
        print("\n".join(names))
        return 0
    if argv and argv[0] == "verdict":
        args = parse(argv[1:])
        for needed in ("--results", "--side", "--title"):
            if needed not in args:
                raise SystemExit(f"verdict needs {needed}")
        return verdict(args)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
