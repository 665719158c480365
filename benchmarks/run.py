"""Run every benchmark, print the tables and write docs/performance.md.

    .venv/bin/python -m benchmarks            # full run (about 10 min on 2 idle vCPUs)
    .venv/bin/python -m benchmarks --quick    # seconds; proves the code works, not timings

Options: ``--md PATH`` (default docs/performance.md for a full run, nothing for --quick),
``--json PATH`` (all raw results), ``--frameworks ag2,autogen`` (default: every installed
plugin). Each framework runs in its own process, one after the other, with
``AGENT_SDK_PLUGINS`` naming only its plugin.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import machine, versions

ROOT = Path(__file__).resolve().parents[1]
FRAMEWORKS = {
    "ag2": "agent_sdk_ag2",
    "autogen": "agent_sdk_autogen",
    "openai-agents": "agent_sdk_openai_agents",
    "fast-agent": "agent_sdk_fast_agent",
}
MEMORY_SIZES = (100, 400)
# What each fan-out target's native baseline is (bench_fanout, Driver.native_agent_tool).
NATIVE_FANOUT = {
    "fan_out": "asyncio.gather",
    "ag2": "native tool calling child.ask",
    "autogen": "native FunctionTool running a fresh child",
    "openai-agents": "native Agent.as_tool",
    "fast-agent": "native Agents-as-Tools",
}
TARGETS = {"per_call_notrace": 1.15, "per_call_batch": 1.3, "executor_us": 25.0, "fanout_1000": 1.3}


def installed() -> list[str]:
    return [name for name, module in FRAMEWORKS.items() if importlib.util.find_spec(module)]


def worker(module: str, args: list[str], *, plugin: str | None, timeout: float) -> dict[str, Any]:
    env = dict(os.environ)
    env.pop("OTEL_SDK_DISABLED", None)  # the batch mode needs a working SDK
    if plugin is None:
        env["AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    else:
        env["AGENT_SDK_PLUGINS"] = plugin
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        proc = subprocess.run(
            [sys.executable, "-m", module, *args, "--out", str(out)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(
                f"{module} {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
            )
        return json.loads(out.read_text())  # type: ignore[no-any-return]


def collect(frameworks: list[str], quick: bool, log: Any) -> dict[str, Any]:
    timeout = 300 if quick else 1800
    flag = ["--quick"] if quick else []
    results: dict[str, Any] = {"machine": machine(), "quick": quick, "frameworks": {}, "memory": {}}
    results["versions"] = versions(
        "agent-sdk",
        "pydantic",
        "opentelemetry-api",
        "opentelemetry-sdk",
        "ag2",
        "autogen-agentchat",
        "openai-agents",
        "fast-agent-mcp",
    )
    started = time.perf_counter()
    log("executor and spans (core only)")
    results["core"] = worker(
        "benchmarks.worker",
        ["--target", "core", "--sections", "executor", *flag],
        plugin=None,
        timeout=timeout,
    )
    log("deferred approvals and trace files (core only)")
    results["reliability"] = worker(
        "benchmarks.worker",
        ["--target", "core", "--sections", "reliability", *flag],
        plugin=None,
        timeout=timeout,
    )["reliability"]
    log("fan_out (core only)")
    results["fan_out"] = worker(
        "benchmarks.worker",
        ["--target", "fan_out", "--sections", "fanout", *flag],
        plugin=None,
        timeout=timeout,
    )
    for name in frameworks:
        log(f"{name}: per-call overhead, fan-out, input multiplier")
        results["frameworks"][name] = worker(
            "benchmarks.worker",
            ["--target", name, "--sections", "calls,fanout,input", *flag],
            plugin=name,
            timeout=timeout,
        )
    if not quick:
        for name in ["fan_out", *frameworks]:
            for n in MEMORY_SIZES:
                log(f"{name}: memory, {n} concurrent children, native and ours (fresh processes)")
                for variant in ("native", "ours"):
                    native = ["--native"] if variant == "native" else []
                    by_variant = results["memory"].setdefault(name, {})
                    by_variant.setdefault(variant, {})[str(n)] = worker(
                        "benchmarks.bench_fanout",
                        ["--target", name, "--memory", str(n), *native],
                        plugin=None if name == "fan_out" else name,
                        timeout=timeout,
                    )
    results["machine_end"] = machine()
    results["wall_s"] = round(time.perf_counter() - started, 1)
    return results


# -- formatting ---------------------------------------------------------------------------
def _n(x: float, digits: int = 0) -> str:
    if x != x:  # NaN
        return "n/a"
    return f"{x:,.{digits}f}"


def _ratio(s: dict[str, float]) -> str:
    return f"{s['median']:.2f}× ({s['min']:.2f}–{s['max']:.2f})"


def _mark(ok: bool) -> str:
    return "met" if ok else "**missed**"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def per_call_rows(results: dict[str, Any], verdicts: list[str]) -> list[str]:
    rows = []
    for name, res in results["frameworks"].items():
        pc = res["calls"]["per_call"]
        for n in ("1", "10"):
            native = pc[f"native|noop|{n}"]["us"]
            cells = [name, n, _n(native["median"])]
            for mode in ("noop", "sampled-off", "batch"):
                x = pc[f"ours|{mode}|{n}"]
                cells.append(f"{_n(x['us']['median'])} — {_ratio(x['ratio'])}")
            rows.append(cells)
            off = pc[f"ours|noop|{n}"]["ratio"]["median"]
            batch = pc[f"ours|batch|{n}"]["ratio"]["median"]
            verdicts.append(
                f"{name}, {n} call(s)/turn: tracing off {off:.2f}× (target ≤ "
                f"{TARGETS['per_call_notrace']}×: {_mark(off <= TARGETS['per_call_notrace'])}); "
                f"batch tracing {batch:.2f}× (target ≤ {TARGETS['per_call_batch']}×: "
                f"{_mark(batch <= TARGETS['per_call_batch'])})"
            )
    return table(
        [
            "framework",
            "calls/turn",
            "native µs/call",
            "ours, no SDK (tracing off) µs — ratio",
            "ours, SDK sampled off µs — ratio",
            "ours, SDK + batch µs — ratio",
        ],
        rows,
    )


def run_rows(results: dict[str, Any]) -> list[str]:
    rows = []
    for name, res in results["frameworks"].items():
        runs = res["calls"]["runs"]
        for scen in ("S0", "S1", "S10"):
            cells = [name, scen]
            for v, m in (
                ("native", "noop"),
                ("ours", "noop"),
                ("ours", "sampled-off"),
                ("ours", "batch"),
            ):
                s = runs[f"{v}|{m}|{scen}"]
                cells.append(f"{_n(s['median'])} ({_n(s['p25'])}–{_n(s['p75'])})")
            rows.append(cells)
    return table(
        [
            "framework",
            "scenario",
            "native µs",
            "ours no SDK µs",
            "ours sampled off µs",
            "ours batch µs",
        ],
        rows,
    )


def executor_rows(results: dict[str, Any], verdicts: list[str]) -> tuple[list[str], list[str]]:
    stages = results["core"]["executor"]["stages"]
    stage_rows, span_rows = [], []
    for name, s in stages.items():
        row = [name, _n(s["median"], 2), _n(s["min"], 2), _n(s["max"], 2)]
        (span_rows if name.startswith("span [") else stage_rows).append(row)
    total = stages["run_spec, no confirm [noop]"]
    verdicts.append(
        f"executor alone, no tracing: {total['median']:.1f} µs median, {total['min']:.1f} µs best "
        f"block (target ≤ {TARGETS['executor_us']:.0f} µs: median {_mark(total['median'] <= 25)}, "
        f"best block {_mark(total['min'] <= 25)})"
    )
    head = ["operation", "median µs", "best block µs", "worst block µs"]
    return table(head, stage_rows), table(["spans to", *head[1:]], span_rows)


def fanout_rows(results: dict[str, Any], verdicts: list[str]) -> list[str]:
    rows = []
    targets = {"fan_out": results["fan_out"], **results["frameworks"]}
    for name, res in targets.items():
        f = res["fanout"]
        single = f["single_s"]["median"]
        native_single = f["native_single_s"]["median"]
        for n, row in f["sizes"].items():
            un, cap, nat = row["uncapped"], row["capped"], row["native"]
            rows.append(
                [
                    name,
                    n,
                    f"{native_single * 1000:,.0f} / {single * 1000:,.0f}",
                    f"{nat['wall_s']['median'] * 1000:,.0f} / {un['wall_s']['median'] * 1000:,.0f}",
                    f"{nat['ratio']['median']:.2f}×",
                    f"{un['ratio']['median']:.2f}× (n={un['ratio']['n']})",
                    _ratio(row["ours_vs_native"]),
                    f"{cap['ratio']['median']:.2f}× (ideal {cap['ideal']:.0f}×, cap {f['cap']})",
                ]
            )
        biggest = max(f["sizes"], key=int)
        big = f["sizes"][biggest]
        r = big["uncapped"]["ratio"]["median"]
        if biggest == "1000":
            verdicts.append(
                f"fan-out of 1,000 uncapped, {name}: {r:.2f}× the single-child time "
                f"(target ≤ {TARGETS['fanout_1000']}×: {_mark(r <= TARGETS['fanout_1000'])}); "
                f"{NATIVE_FANOUT[name]} alone: {big['native']['ratio']['median']:.2f}×, "
                f"ours / native at N = 1,000: {big['ours_vs_native']['median']:.2f}×"
            )
    return table(
        [
            "target",
            "N",
            "single child ms native / ours",
            "N uncapped ms native / ours",
            "native N / single",
            "ours N / single",
            "ours / native at N",
            "ours capped / single",
        ],
        rows,
    )


def memory_rows(results: dict[str, Any]) -> list[str]:
    rows = []
    if results["memory"]:
        for name, by_variant in results["memory"].items():
            for variant in ("native", "ours"):
                by_n = by_variant[variant]
                sizes = sorted(by_n, key=int)
                label = f"{name}, {NATIVE_FANOUT[name] if variant == 'native' else 'ours'}"
                cells = [label]
                for n in sizes:
                    m = by_n[n]
                    cells.append(
                        f"{n}: {m['peak_rss_growth_mib']:.1f} MiB "
                        f"({m['per_child_kib']:.0f} KiB/child)"
                    )
                lo, hi = by_n[sizes[0]], by_n[sizes[-1]]
                slope = (
                    (hi["peak_rss_growth_mib"] - lo["peak_rss_growth_mib"])
                    * 1024
                    / (int(sizes[-1]) - int(sizes[0]))
                )
                cells.append(f"{slope:.0f}")
                rows.append(cells)
        head = ["target", *(f"N={n}" for n in MEMORY_SIZES), "slope KiB/child"]
    else:  # --quick: from the fan-out runs of the same process
        targets = {"fan_out": results["fan_out"], **results["frameworks"]}
        for name, res in targets.items():
            sizes = res["fanout"]["sizes"]
            cells = [name]
            for n, row in sizes.items():
                g = row["uncapped"]["peak_rss_growth_mib"]["median"]
                cells.append(f"{n}: {g:.1f} MiB ({g * 1024 / int(n):.0f} KiB/child)")
            rows.append([*cells, "n/a (quick)"])
        head = ["target", "first size", "second size", "slope KiB/child"]
    return table(head, rows)


def input_rows(results: dict[str, Any], verdicts: list[str]) -> list[str]:
    rows = []
    for name, res in results["frameworks"].items():
        inp = res["input"]
        gen = inp["generalist"]["total"]
        all_orch = inp["modes"]["all"]["per_path"]["orchestrator"]["input_chars"]
        cuts = {}
        for mode, r in inp["modes"].items():
            orch = r["per_path"]["orchestrator"]
            total = r["total"]
            cut = 1 - orch["input_chars"] / all_orch if all_orch else float("nan")
            cuts[mode] = cut
            rows.append(
                [
                    name,
                    mode,
                    _n(orch["input_chars"]),
                    _n(total["input_chars"]),
                    _n(total["input_tokens"]),
                    str(total["model_calls"]),
                    _n(gen["input_chars"]),
                    _n(gen["input_tokens"]),
                    f"{total['input_chars'] / gen['input_chars']:.2f}×"
                    if gen["input_chars"]
                    else "n/a",
                    ("0%" if abs(cut) < 0.005 else f"{-cut:+.0%}") if mode != "all" else "—",
                ]
            )
        verdicts.append(
            f"{name}: orchestrator input with last {cuts['last']:.0%} smaller than all, json "
            f"{cuts['json']:.0%} (target: last/json cut it: {_mark(cuts['last'] > 0 and cuts['json'] > 0)})"
        )
    return table(
        [
            "framework",
            "return_mode",
            "orchestrator input chars",
            "hierarchy input chars",
            "hierarchy input tokens",
            "model calls",
            "generalist input chars",
            "generalist input tokens",
            "multiplier (chars)",
            "orchestrator input change vs all",
        ],
        rows,
    )


def profile_lines(results: dict[str, Any]) -> list[str]:
    lines = []
    ex = results["core"]["executor"].get("profile") or []
    if ex:
        lines.append("**Executor alone (`run_spec`, no SDK), top self time per call:**")
        lines.append("")
        lines += [
            f"- `{r['function']}`: {r['self_us']} µs self, {r['cum_us']} µs cumulative, {r['calls']} calls"
            for r in ex[:5]
        ]
        lines.append("")
    for name, res in results["frameworks"].items():
        prof = res["calls"].get("profile")
        if not prof:
            continue
        lines.append(f"**{name}, S10 (ten calls per turn), ours minus native, self time per run:**")
        lines.append("")
        lines += [f"- `{r['function']}`: +{r['us']} µs" for r in prof["extra_self_us_per_run"][:5]]
        lines.append("")
        lines.append(
            f"{name}, our functions by cumulative time per S10 run: "
            + "; ".join(
                f"`{r['function']}` {r['us']} µs" for r in prof["our_cumulative_us_per_run"][:4]
            )
        )
        lines.append("")
    for name, res in {"fan_out": results["fan_out"], **results["frameworks"]}.items():
        prof = res["fanout"].get("profile")
        if not prof:
            continue
        lines.append(
            f"**Fan-out of {prof['n']} via {name}, top self time per child:** "
            + "; ".join(
                f"`{r['function']}` {r['self_us']} µs" for r in prof["self_us_per_child"][:5]
            )
        )
        lines.append("")
        lines.append(
            "Our functions by cumulative time per child: "
            + "; ".join(
                f"`{r['function']}` {r['cum_us']} µs"
                for r in prof["our_cumulative_us_per_child"][:4]
            )
        )
        lines.append("")
    return lines


def reliability_rows(results: dict[str, Any], verdicts: list[str]) -> list[str]:
    rel = results.get("reliability")
    if not rel:
        return ["(not measured)"]
    rows = [
        "| concurrent deferred requests | per s | per s, one at a time | max loop lag | "
        "lag of N no-op calls to one thread |",
        "|---:|---:|---:|---:|---:|",
    ]
    for d in rel["deferred"]:
        rows.append(
            f"| {d['n']:,} | {_n(d['per_s'])} | {_n(d['serial_per_s'])} | "
            f"{d['max_lag_ms']:.1f} ms | {d['baseline_lag_ms']:.1f} ms |"
        )
    biggest = rel["deferred"][-1]
    if biggest["n"] >= 2000:
        ok = biggest["max_lag_ms"] <= 50
        verdicts.append(
            f"loop lag with {biggest['n']:,} concurrent deferred approvals <= 50 ms: "
            f"{biggest['max_lag_ms']:.1f} ms ({biggest['baseline_lag_ms']:.1f} ms for no-op "
            f"calls to one thread) {_mark(ok)}"
        )
    rows += [
        "",
        "| spans in the trace file | µs per span, thread that ends it | µs per span, all "
        "(with the file written) |",
        "|---:|---:|---:|",
    ]
    for t in rel["trace_file"]:
        rows.append(
            f"| {t['n']:,} | {t['caller_us_per_span']:.1f} | {t['total_us_per_span']:.1f} |"
        )
    first, last = rel["trace_file"][0], rel["trace_file"][-1]
    growth = last["total_us_per_span"] / first["total_us_per_span"]
    verdicts.append(
        f"trace file cost per span flat from {first['n']:,} to {last['n']:,} spans: "
        f"{growth:.2f}× {_mark(growth <= 2)}"
    )
    return rows


def render(results: dict[str, Any]) -> str:
    m, m_end = results["machine"], results["machine_end"]
    verdicts: list[str] = []
    out = [
        "# Performance",
        "",
        "Generated by `.venv/bin/python -m benchmarks` (see `benchmarks/README.md`;",
        "`--quick` checks that the code works in seconds and gives no usable timings). All figures",
        "come from one run; compare ratios, not absolute numbers, across runs.",
        "",
        "## Machine and versions",
        "",
        f"- {m['platform']}, {m['cpus']} CPUs ({m['cpu']}), {m['memory_gib']} GiB, "
        f"{m['implementation']} {m['python']}",
        f"- load average at start {m['load']}, at end {m_end['load']} (other developers share "
        "this machine: absolute figures are inflated by that load; ratios are measured interleaved)",
        "- " + ", ".join(f"{k} {v}" for k, v in results["versions"].items()),
        f"- mode: {'quick' if results['quick'] else 'full'}; total wall {results['wall_s']} s",
        "",
        "## 1. Per-call overhead through each framework's real agent loop",
        "",
        "Same `async def add(a, b)` handler, same scripted model and agent loop; native tool vs",
        "ours (exported through the plugin, run by the executor). µs per call = S1 − S0 and",
        "(S10 − S0) / 10 per block of interleaved runs; median over blocks, ratio ours/native",
        "with the min–max over blocks. Tracing modes switch only agent-sdk's spans (no SDK =",
        "opentelemetry-api alone, what a user who never calls `configure_tracing` gets).",
        "",
    ]
    out += per_call_rows(results, verdicts)
    out += ["", "Whole runs (median, p25–p75 µs):", ""]
    out += run_rows(results)
    stage_tab, span_tab = executor_rows(results, verdicts)
    out += ["", "### Executor alone, by stage (µs per operation)", ""]
    out += stage_tab
    out += ["", "## 2. Tracing cost: µs per span (`execute_tool` span with its attributes)", ""]
    out += span_tab
    ex = results["core"]["executor"]
    out += [
        "",
        f"Batch mode: {ex['batch_spans_made']} spans made in the timed loops, "
        f"{ex['batch_spans_exported']} reached the exporter (warm-up included).",
        "",
        "## 3. Fan-out scaling (children's scripted model sleeps 50 ms)",
        "",
        "N sub-agent calls in one turn, each a fresh child. Native = the framework's own way",
        "to run a sub-agent from a tool, without agent-sdk (for `fan_out`: plain",
        "`asyncio.gather` over the same children), run interleaved with ours in the same",
        "process; each ratio N / single is against its own single-child time. Memory is in",
        "section 4 (fresh processes: peak RSS in a shared process depends on which variant",
        "ran first).",
        "",
    ]
    out += fanout_rows(results, verdicts)
    out += ["", "## 4. Memory per sub-agent (peak RSS growth, all children concurrent)", ""]
    out += memory_rows(results)
    out += [
        "",
        "## 5. Input multiplier: three reviewers vs one generalist (1,000-character clause)",
        "",
    ]
    out += input_rows(results, verdicts)
    out += ["", "## 6. Deferred approvals and trace files under load (core only)", ""]
    out += reliability_rows(results, verdicts)
    out += ["", "## Targets", ""]
    out += [f"- {v}" for v in verdicts]
    out += ["", "## Profiles (cProfile)", ""]
    out += profile_lines(results)
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes: checks the code, not timings"
    )
    parser.add_argument(
        "--md", help="write the report here (full run default: docs/performance.md)"
    )
    parser.add_argument("--json", help="write all raw results here")
    parser.add_argument("--frameworks", help="comma-separated (default: every installed plugin)")
    args = parser.parse_args(argv)
    frameworks = args.frameworks.split(",") if args.frameworks else installed()
    unknown = [f for f in frameworks if f not in FRAMEWORKS]
    if unknown:
        parser.error(f"unknown framework(s) {unknown}; known: {', '.join(FRAMEWORKS)}")

    def log(text: str) -> None:
        print(f"[bench] {text}", file=sys.stderr, flush=True)

    results = collect(frameworks, args.quick, log)
    report = render(results)
    print(report)
    md = args.md or (None if args.quick else str(ROOT / "docs" / "performance.md"))
    if md:
        Path(md).write_text(report)
        log(f"wrote {md}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    return 0
