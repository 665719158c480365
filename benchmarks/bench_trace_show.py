"""Section 6, trace files read back: how long ``agent-sdk trace show`` takes.

    .venv/bin/python -m benchmarks.bench_trace_show                 # print the rows
    .venv/bin/python -m benchmarks.bench_trace_show --quick         # small files, seconds
    .venv/bin/python -m benchmarks.bench_trace_show --src OLD/core/src   # another checkout

Two kinds of file, each at two sizes: a tree as the exporter writes it (100,000 spans, ten
children per span, with path and outcome tags) and parent cycles (20,000 two-span cycles,
the file of issue 27 that took 22 s before). The command runs in a fresh interpreter, its
output to /dev/null (start-up included, as a user sees it; median of the runs); the reading
and the tree alone are timed in a fresh interpreter too (``load_trace_file`` then
``format_tree``), and their cost per span at the two sizes says whether it stays linear.
``--src DIR`` puts ``DIR`` first on ``PYTHONPATH``, to measure another version of the core::

    git archive 96615ef core/src | tar -x -C OLD
    .venv/bin/python -m benchmarks.bench_trace_show --src OLD/core/src
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FULL = {"tree": (10_000, 100_000), "cycles": (2_000, 20_000)}
QUICK = {"tree": (1_000, 10_000), "cycles": (200, 2_000)}
GROWTH_TARGET = 2.0  # per-span cost at the large size / at the small size
PHASES = """
import json, sys, time
from agent_sdk.tracing import format_tree, load_trace_file
started = time.perf_counter()
traces = load_trace_file(sys.argv[1])
loaded = time.perf_counter()
text = format_tree(traces)
done = time.perf_counter()
print(json.dumps({"load_s": loaded - started, "tree_s": done - loaded, "lines": text.count("\\n") + 1}))
"""


def _span(sid: str, parent: str | None, name: str, start: int) -> dict[str, Any]:
    return {
        "traceID": "t" * 32,
        "spanID": sid,
        "operationName": name,
        "references": [{"refType": "CHILD_OF", "traceID": "t" * 32, "spanID": parent}]
        if parent
        else [],
        "startTime": start,
        "duration": 1500,
        "tags": [
            {"key": "agent_sdk.path", "type": "string", "value": f"orchestrator/{name}"},
            {"key": "agent_sdk.outcome", "type": "string", "value": "ok"},
        ],
        "logs": [],
        "processID": "p1",
        "warnings": None,
    }


def tree_file(n: int) -> dict[str, Any]:
    """``n`` spans, span i the child of span (i - 1) // 10: five levels of ten children."""
    spans = [
        _span(f"{i:016x}", None if i == 0 else f"{(i - 1) // 10:016x}", f"tool {i % 50}", i)
        for i in range(n)
    ]
    return {"data": [{"traceID": "t" * 32, "spans": spans, "processes": {}, "warnings": None}]}


def cycles_file(n: int) -> dict[str, Any]:
    """One root and ``n`` cycles of two spans, each the other's parent: spans reduced to
    what the tree needs, as in the hostile file of issue 27."""

    def span(sid: str, parent: str | None) -> dict[str, Any]:
        refs = [{"refType": "CHILD_OF", "spanID": parent}] if parent else []
        return {"spanID": sid, "operationName": "op", "references": refs}

    spans = [span("root", None)]
    for i in range(n):
        spans += [span(f"a{i}", f"b{i}"), span(f"b{i}", f"a{i}")]
    return {"data": [{"traceID": "t1", "spans": spans}]}


def _env(src: str | None) -> dict[str, str]:
    env = dict(os.environ, AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD="1")
    if src:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def _command_s(path: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "agent_sdk", "trace", "show", str(path)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=True,
        timeout=1800,
    )
    return time.perf_counter() - started


def _phases(path: Path, env: dict[str, str]) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", PHASES, str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def measure(
    quick: bool = False, *, runs: int | None = None, src: str | None = None
) -> dict[str, Any]:
    sizes = QUICK if quick else FULL
    runs = runs or (1 if quick else 3)
    env = _env(src)
    rows = []
    with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-trace-") as tmp:
        for kind, make in (("tree", tree_file), ("cycles", cycles_file)):
            for n in sizes[kind]:
                path = Path(tmp) / f"{kind}-{n}.json"
                # the tree as the exporter writes it (indented), the cycles as an attacker would
                path.write_text(json.dumps(make(n), indent=1 if kind == "tree" else None))
                spans = sum(len(t["spans"]) for t in json.loads(path.read_text())["data"])
                command = [_command_s(path, env) for _ in range(runs)]
                phases = [_phases(path, env) for _ in range(runs)]
                rows.append(
                    {
                        "kind": kind,
                        "n": n,
                        "spans": spans,
                        "mb": path.stat().st_size / 1e6,
                        "command_s": statistics.median(command),
                        "load_s": statistics.median(p["load_s"] for p in phases),
                        "tree_s": statistics.median(p["tree_s"] for p in phases),
                        "lines": phases[0]["lines"],
                        "runs": runs,
                    }
                )
    return {"rows": rows, "source": "--src" if src else "installed", "load": list(os.getloadavg())}


def render(results: dict[str, Any], verdicts: list[str] | None = None) -> list[str]:
    out = [
        "| file shown by `agent-sdk trace show` | spans | MB | command s (start-up included) "
        "| reading s | tree s | µs per span (reading + tree) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    what = {"tree": "a tree of {n:,} spans", "cycles": "{n:,} two-span parent cycles"}
    per_span: dict[str, list[tuple[int, float]]] = {}
    for r in results["rows"]:
        us = (r["load_s"] + r["tree_s"]) / r["spans"] * 1e6
        per_span.setdefault(r["kind"], []).append((r["spans"], us))
        out.append(
            f"| {what[r['kind']].format(n=r['n'])} | {r['spans']:,} | {r['mb']:.1f} | "
            f"{r['command_s']:.2f} | {r['load_s']:.2f} | {r['tree_s']:.2f} | {us:.1f} |"
        )
    out += [
        "",
        f"Median of {results['rows'][0]['runs']} run(s), each in a fresh interpreter "
        f"({results['source']} core; load average {[round(x, 2) for x in results['load']]}; "
        "`python -m benchmarks.bench_trace_show` measures these rows alone). Before issue 27 "
        "the 20,000-cycle file took 22 s: each cycle rebuilt the list of unreached spans.",
    ]
    if verdicts is not None:
        for kind, costs in per_span.items():
            (small, first), (large, last) = costs[0], costs[-1]
            growth = last / first
            verdicts.append(
                f"trace show ({'a tree' if kind == 'tree' else 'parent cycles'}) cost per span "
                f"flat from {small:,} to {large:,} spans: {growth:.2f}× (target ≤ "
                f"{GROWTH_TARGET:.0f}×: {'met' if growth <= GROWTH_TARGET else '**missed**'})"
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small files: checks the code")
    parser.add_argument("--runs", type=int, help="runs per file (default 3, --quick 1)")
    parser.add_argument("--src", help="measure the core in this folder (PYTHONPATH)")
    parser.add_argument("--json", help="write the raw results here")
    args = parser.parse_args(argv)
    results = measure(args.quick, runs=args.runs, src=args.src)
    verdicts: list[str] = []
    print("\n".join(render(results, verdicts)))
    print("\n".join(f"- {v}" for v in verdicts))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
