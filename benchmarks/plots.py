"""The performance page's plots, drawn from one benchmark run's results (``run.py`` calls
``write`` after a run; ``python -m benchmarks.plots RESULTS.json [--out DIR]`` redraws them
from a ``--json`` file).

Four PNGs: the per-call overhead ratio per framework and tracing mode (median, min–max
bars), fan-out wall time against N for ours and each framework's native way, memory per
child, import time. matplotlib (the Agg backend, chosen here only) is needed only to draw.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

PLOTS = {
    "calls": "Per-call overhead, ours / native, per framework and tracing mode (median, min–max)",
    "fanout": "Fan-out: wall time against N children, ours and each framework's native way",
    "memory": "Memory per child: peak RSS growth per concurrent child",
    "imports": "Import time of the core (median, min–max)",
}
MODES = {
    "ours|noop": "tracing off",
    "ours|sampled-off": "SDK, sampled off",
    "ours|batch": "SDK + batch",
    "floor|batch": "floor: native + one span",
}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=False)  # no display; the benchmarks own this process
    import matplotlib.pyplot as plt

    return plt


def _save(plt: Any, figure: Any, path: Path) -> None:
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def plot_calls(results: dict[str, Any], path: Path, calls_per_turn: str = "1") -> None:
    plt = _pyplot()
    names = list(results["frameworks"])
    figure, axes = plt.subplots(figsize=(9, 4.2))
    width = 0.8 / len(MODES)
    for i, (mode, label) in enumerate(MODES.items()):
        xs, medians, low, high = [], [], [], []
        for j, name in enumerate(names):
            ratio = results["frameworks"][name]["calls"]["per_call"][f"{mode}|{calls_per_turn}"]
            ratio = ratio["ratio"]
            xs.append(j + (i - (len(MODES) - 1) / 2) * width)
            medians.append(ratio["median"])
            low.append(ratio["median"] - ratio["min"])
            high.append(ratio["max"] - ratio["median"])
        axes.bar(xs, medians, width, label=label, yerr=[low, high], capsize=2)
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_xticks(range(len(names)), names)
    axes.set_ylabel("ours / native (1 = no overhead)")
    axes.set_title(f"Per-call ratio, {calls_per_turn} tool call per turn")
    axes.legend(fontsize=8, ncols=2)
    _save(plt, figure, path)


def plot_fanout(results: dict[str, Any], path: Path) -> None:
    plt = _pyplot()
    targets = {"fan_out": results["fan_out"], **results["frameworks"]}
    figure, axes = plt.subplots(figsize=(9, 4.2))
    for k, (name, res) in enumerate(targets.items()):
        sizes = sorted(res["fanout"]["sizes"], key=int)
        ns = [int(n) for n in sizes]
        colour = f"C{k % 10}"
        ours = [res["fanout"]["sizes"][n]["uncapped"]["wall_s"]["median"] * 1000 for n in sizes]
        native = [res["fanout"]["sizes"][n]["native"]["wall_s"]["median"] * 1000 for n in sizes]
        axes.plot(ns, ours, "o-", color=colour, label=f"{name}, ours")
        axes.plot(ns, native, "s--", color=colour, alpha=0.7, label=f"{name}, native")
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    axes.set_xscale("log")
    axes.set_yscale("log")
    every_n = sorted({int(n) for res in targets.values() for n in res["fanout"]["sizes"]})
    axes.set_xticks(every_n, [f"{n:,}" for n in every_n])
    axes.xaxis.set_minor_formatter(NullFormatter())
    axes.yaxis.set_major_formatter(ScalarFormatter())
    axes.yaxis.set_minor_formatter(NullFormatter())
    axes.set_xlabel("N children (uncapped)")
    axes.set_ylabel("wall time, ms (median)")
    axes.set_title("Fan-out wall time (solid: ours, dashed: native)")
    axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    _save(plt, figure, path)


def _per_child_kib(results: dict[str, Any]) -> dict[str, dict[str, float]]:
    """KiB of peak RSS per child, ours and native, at the largest N measured."""
    out: dict[str, dict[str, float]] = {}
    if results["memory"]:  # the full run's own memory benchmark
        for name, by_variant in results["memory"].items():
            out[name] = {}
            for variant in ("native", "ours"):
                by_n = by_variant[variant]
                out[name][variant] = by_n[max(by_n, key=int)]["per_child_kib"]
        return out
    targets = {"fan_out": results["fan_out"], **results["frameworks"]}
    for name, res in targets.items():  # --quick: the fan-out runs' growth
        sizes = res["fanout"]["sizes"]
        n = max(sizes, key=int)
        row = sizes[n]
        out[name] = {
            variant: row[key]["peak_rss_growth_mib"]["median"] * 1024 / int(n)
            for variant, key in (("native", "native"), ("ours", "uncapped"))
            if "peak_rss_growth_mib" in row[key]
        }
    return out


def plot_memory(results: dict[str, Any], path: Path) -> None:
    plt = _pyplot()
    per_child = _per_child_kib(results)
    names = list(per_child)
    figure, axes = plt.subplots(figsize=(9, 4))
    for i, variant in enumerate(("native", "ours")):
        values = [per_child[n].get(variant, float("nan")) for n in names]
        axes.bar([j + (i - 0.5) * 0.38 for j in range(len(names))], values, 0.38, label=variant)
    axes.set_xticks(range(len(names)), names)
    axes.set_ylabel("KiB per child (peak RSS growth)")
    axes.set_title("Memory per concurrent child at the largest N")
    axes.legend(fontsize=8)
    _save(plt, figure, path)


def plot_imports(results: dict[str, Any], path: Path) -> None:
    plt = _pyplot()
    cases = results["import"]["cases"]
    labels = list(cases)
    medians = [cases[c]["median_ms"] for c in labels]
    low = [cases[c]["median_ms"] - cases[c]["min_ms"] for c in labels]
    high = [cases[c]["max_ms"] - cases[c]["median_ms"] for c in labels]
    figure, axes = plt.subplots(figsize=(9, 3.2))
    axes.barh(range(len(labels)), medians, xerr=[low, high], capsize=3, color="C2")
    axes.set_yticks(range(len(labels)), [c if len(c) < 48 else c[:45] + "…" for c in labels])
    axes.invert_yaxis()
    axes.set_xlabel("ms, fresh interpreter (median, min–max)")
    axes.set_title("Import time")
    _save(plt, figure, path)


def write(results: dict[str, Any], out: Path) -> list[Path]:
    """Draw every plot into ``out`` (created); the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    drawers = {
        "calls": plot_calls,
        "fanout": plot_fanout,
        "memory": plot_memory,
        "imports": plot_imports,
    }
    paths = []
    for name, draw in drawers.items():
        path = out / f"{name}.png"
        draw(results, path)
        paths.append(path)
    return paths


def markdown(folder: str, quick: bool = False) -> list[str]:
    """The page's plot section, the pictures in ``folder`` (relative to the page)."""
    lines = ["## At a glance", ""]
    if quick:
        lines += ["Drawn from a `--quick` run: they show the shape, not usable timings.", ""]
    for name, title in PLOTS.items():
        lines += [f"![{title}]({folder}/{name}.png)", "", f"*{title}.*", ""]
    lines += ["The tables below hold every figure the plots draw.", ""]
    return lines


def with_section(report: str, folder: str, quick: bool = False) -> str:
    """``report`` with the plot section before its first section."""
    head, sep, rest = report.partition("\n## ")
    section = "\n".join(markdown(folder, quick))
    return head.rstrip("\n") + "\n\n" + section + "\n" + sep.lstrip("\n") + rest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="the JSON of python -m benchmarks --json")
    default = Path(__file__).resolve().parents[1] / "docs" / "performance"
    parser.add_argument("--out", default=str(default), help="default: docs/performance/")
    args = parser.parse_args(argv)
    for path in write(json.loads(Path(args.results).read_text()), Path(args.out)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
