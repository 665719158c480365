"""The benchmark command works end to end: ``python -m benchmarks --quick`` runs every
section through every installed framework and reports every row (timings are not checked)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = {
    "ag2": "agent_sdk_ag2",
    "autogen": "agent_sdk_autogen",
    "openai-agents": "agent_sdk_openai_agents",
    "fast-agent": "agent_sdk_fast_agent",
    "agent-framework": "agent_sdk_agent_framework",
    "pydantic-ai": "agent_sdk_pydantic_ai",
}


def rows(report: str, first_cell: str) -> list[list[str]]:
    """The table rows of ``report`` whose first cell is ``first_cell``."""
    out = []
    for line in report.splitlines():
        if line.startswith("| "):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] == first_cell:
                out.append(cells)
    return out


def test_quick_benchmark_reports_every_row(tmp_path):
    md, raw = tmp_path / "performance.md", tmp_path / "results.json"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--md", str(md), "--json", str(raw)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = md.read_text()
    assert proc.stdout.strip() == report.strip(), "the table printed is the report written"
    for plot in ("calls", "fanout", "memory", "imports"):  # drawn beside the page, linked
        assert (tmp_path / "performance" / f"{plot}.png").stat().st_size > 10_000, plot
        assert f"](performance/{plot}.png)" in report, plot
    installed = [name for name, module in PLUGINS.items() if importlib.util.find_spec(module)]
    assert installed, "the dev environment has every plugin installed"
    results = json.loads(raw.read_text())
    assert sorted(results["frameworks"]) == sorted(installed)

    for name in installed:
        # openai-agents' per-call rows are measured in both tracing modes of its plugin
        labels = [f"{name} (mirror)", f"{name} (lean)"] if name == "openai-agents" else [name]
        per_call = [
            r
            for label in labels
            for r in rows(report, label)
            if (r[1] in ("1", "10") and "—" in r[3] and "(" in r[3]) or r[1] in ("S0", "S1", "S10")
        ]
        # the interpreter's work per tool call (Python calls), beside the timings
        counted = [
            r
            for label in labels
            for r in rows(report, label)
            if r[1] in ("1", "10") and "—" in r[3] and "(" not in r[3]
        ]
        assert len(counted) == 2 * len(labels), counted
        assert all(len(r) == 8 and r[-1].endswith("×") for r in counted), counted
        assert len(per_call) == (2 + 3) * len(labels), per_call
        # per-call (1 and 10 calls): native, three tracing modes, the floor, ours and the
        # skeleton against the floor
        assert all(len(r) == 9 for r in per_call if r[1] in ("1", "10")), per_call
        others = [r for r in rows(report, name) if r not in per_call + counted]
        # fan-out (2 sizes), memory (1), input multiplier (all, last, json)
        second = [r[1] for r in per_call + others]
        for expected in ("1", "10", "S0", "S1", "S10", "5", "10", "all", "last", "json"):
            assert expected in second, f"{name}: no row {expected!r} in {second}"
        assert len(others) == 2 + 1 + 3, others
        assert all(len(r) >= 4 for r in per_call + others)
        # the input scenario went through the hierarchy, with every reviewer charged
        for mode in ("all", "last", "json"):
            paths = results["frameworks"][name]["input"]["modes"][mode]["per_path"]
            for reviewer in ("legal", "tax", "technical"):
                assert paths[f"orchestrator/{reviewer}"]["calls"] == 1, paths
            # over HTTP: the endpoint billed at least what the plugin charged the run
            run = results["frameworks"][name]["input"]["modes"][mode]
            assert run["endpoint"]["input_tokens"] >= run["total"]["input_tokens"] > 0, run
        sizes = results["frameworks"][name]["input"]["tool_definition_bytes"]
        assert sizes["ours"] > 50 and sizes["native"] > 50, sizes
        assert f"{name}: one tool's definition on the wire ours {sizes['ours']} bytes" in report
        per_call_results = results["frameworks"][name]["calls"]["per_call"]
        assert per_call_results["ours|batch|10"]["us"]["n"] >= 1
        # the floor (native tool + one SDK span per call) ran beside ours, and is reported
        assert per_call_results["floor|batch|10"]["us"]["n"] >= 1
        assert per_call_results["ours|batch|10"]["vs_floor"]["n"] >= 1
        assert per_call_results["ours|batch|10"]["vs_skeleton"]["n"] >= 1
        assert results["frameworks"][name]["calls"]["per_call_wall"]["ours|batch|10"]["us"]["n"]
        # the fan-out ran the framework's native sub-agent tool beside ours at every size,
        # timed by the wall clock and by CPU time
        for size in results["frameworks"][name]["fanout"]["sizes"].values():
            assert size["native"]["wall_s"]["n"] >= 1 and size["ours_vs_native"]["n"] >= 1
            assert size["ours_vs_native_cpu"]["n"] >= 1
        assert f"fan-out, {name}: ours / " in report, "the fan-out target is in the verdicts"

    assert "input tokens, hierarchy, last: largest" in report
    assert len(rows(report, "fan_out")) == 2 + 1  # two fan-out sizes, one memory row
    assert "fan_out per child above asyncio.gather" in report
    assert results["fan_out"]["fanout"]["per_child_above_gather_us"]["n"] >= 1
    for stage in (
        "bare await add(a, b)",
        "stage: validate (dict)",
        "stage: approval with token (decide + mint + consume)",
        "stage: invoke handler (context, kwargs)",
        "run_spec, no confirm [noop]",
        "run_spec, no confirm [batch]",
        "run_spec, confirm + gate token [noop]",
        "call_agent (sub-agent guards) [noop]",
        "span [noop]",
        "span [sampled-off]",
        "span [batch]",
    ):
        assert len(rows(report, stage)) == 1, stage
    for section in (
        "## 1.",
        "## 2.",
        "## 3.",
        "## 4.",
        "## 5.",
        "## 7. Import time",
        "## Targets",
        "## Machine and versions",
    ):
        assert section in report
    assert "executor alone, no tracing" in report
    for case in ("`import agent_sdk`", "`from agent_sdk import Registry, Executor`"):
        assert len(rows(report, case)) == 1, case
    assert "`import agent_sdk`: " in report, "the import-time target is in the verdicts"
    lean = "openai-agents" in installed  # measured in two tracing modes
    assert sum(
        "calls)/turn" in line or "call(s)/turn" in line for line in report.splitlines()
    ) == 2 * (len(installed) + lean)
