"""One process per framework: runs the chosen sections and writes one JSON result.

``python -m benchmarks.worker --target ag2 --sections calls,fanout,input [--quick]
--out f.json``; ``--target core`` runs the executor/span section. The runner
(``python -m benchmarks``) starts one of these per framework, one after the other, with
``AGENT_SDK_PLUGINS`` set so that only that framework's plugin loads.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from benchmarks import bench_calls, bench_executor, bench_fanout, bench_input, bench_reliability
from benchmarks.common import emit, machine, quiet_frameworks

QUICK = {
    "calls": {"blocks": 1, "reps": {"S0": 2, "S1": 2, "S10": 1}, "warmup": 0, "profile": False},
    "fanout": {"sizes": [5, 10], "cap": 4, "reps": {1: 1, 5: 1, 10: 1}},
    "executor": {"blocks": 2, "k": 50, "profile": False},
}
FULL = {
    "calls": {"blocks": 24, "reps": {"S0": 12, "S1": 12, "S10": 6}, "warmup": 6, "profile": True},
    "fanout": {"sizes": [10, 100, 1000], "cap": 50, "reps": {1: 5, 10: 8, 100: 8, 1000: 4}},
    # fan_out's children are plain coroutines (70 ms a run at 1,000): enough pairs for a
    # stable ratio against asyncio.gather
    "fanout_core": {"sizes": [10, 100, 1000], "cap": 50, "reps": {1: 15, 10: 8, 100: 8, 1000: 16}},
    "executor": {"blocks": 12, "k": 1000, "profile": True},
}


async def run_sections(target: str, sections: list[str], quick: bool) -> dict[str, Any]:
    cfg = QUICK if quick else FULL
    out: dict[str, Any] = {"target": target, "machine_start": machine(), "timings_s": {}}
    for section in sections:
        started = time.perf_counter()
        if section == "calls":
            c = cfg["calls"]
            out["calls"] = await bench_calls.measure(
                target, blocks=c["blocks"], reps=c["reps"], warmup=c["warmup"], profile=c["profile"]
            )
        elif section == "fanout":
            f = cfg["fanout_core" if target == "fan_out" and "fanout_core" in cfg else "fanout"]
            out["fanout"] = await bench_fanout.scaling(target, f["sizes"], f["cap"], f["reps"])
            if not quick and target == "fan_out":
                out["fanout"]["profile"] = await bench_fanout.profile(target, 1000)
            elif not quick:
                out["fanout"]["profile"] = await bench_fanout.profile(target, 100)
        elif section == "input":
            out["input"] = await bench_input.measure(target)
        elif section == "executor":
            e = cfg["executor"]
            out["executor"] = await bench_executor.measure(
                blocks=e["blocks"], k=e["k"], profile=e["profile"]
            )
        elif section == "reliability":
            out["reliability"] = await bench_reliability.measure(quick)
        else:
            raise SystemExit(f"unknown section {section!r}")
        out["timings_s"][section] = round(time.perf_counter() - started, 1)
    out["machine_end"] = machine()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", required=True)
    parser.add_argument("--sections", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    quiet_frameworks()
    result = asyncio.run(run_sections(args.target, args.sections.split(","), args.quick))
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
