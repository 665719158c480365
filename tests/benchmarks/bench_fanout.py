"""(3) Fan-out scaling and (4) memory per sub-agent.

Worker: ``python -m tests.benchmarks.bench_fanout --target ag2|autogen|openai-agents|
fast-agent|fan_out [--sizes 10,100,1000] [--cap 50] [--memory N] [--quick] [--out f.json]``.

Scaling: an orchestrator's scripted model calls a sub-agent tool N times in one turn; each
child is a fresh child per call (the plugin's agent tool) whose scripted model sleeps 50 ms
and answers. Wall time of the whole orchestrator run / the same run with N = 1 (ideal 1.0
without a cap, ceil(N / cap) with ``max_parallel=cap`` from the run_scope's limits).
``fan_out`` is the core's ``agent_sdk.fan_out`` over ``call_agent`` children (no framework),
capped with its own ``max_parallel``.

Memory (``--memory N``, one fresh process per N): after a warm-up run, the peak RSS growth
(sampled every 2 ms) during one uncapped run of N concurrent children.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import gc
import pstats
import time
from typing import Any

from agent_sdk import (
    AgentResponse,
    HierarchyLimits,
    Message,
    Usage,
    call_agent,
    fan_out,
    run_scope,
)
from agent_sdk.testing import ScriptedAgent, ToolCall, Turn
from tests.benchmarks.common import PeakRSS, emit, quiet_frameworks, summary, top_costs, versions

CHILD_DELAY = 0.05


class FrameworkFanOut:
    def __init__(self, framework: str, sizes: list[int]) -> None:
        from tests.benchmarks.frameworks import DRIVERS

        self.driver = DRIVERS[framework]()
        child = ScriptedAgent(
            "child", [Turn.say("ok", delay=CHILD_DELAY)], description="A scripted sub-agent."
        )
        tool = self.driver.agent_tool(child)
        self.runners = {}
        for n in sorted({1, 2, *sizes}):
            calls = [ToolCall("child", {"request": f"item {i}"}, id=f"call_{i}") for i in range(n)]
            turns = [Turn.call(*calls), Turn.say("done")]
            if framework == "fast-agent":
                runner = self.driver.runner([tool], turns, instrumented=True)  # type: ignore[call-arg]
            else:
                runner = self.driver.runner([tool], turns)
            self.runners[n] = runner
        self.versions = versions(*self.driver.distributions, "agent-sdk")

    def session(self) -> Any:
        return self.driver.session()

    async def once(self, n: int, cap: int | None) -> float:
        runner = self.runners[n]
        await runner.reset()
        limits = HierarchyLimits(max_parallel=cap)
        async with run_scope(limits=limits) as run:
            t0 = time.perf_counter()
            final = await runner.run()
            wall = time.perf_counter() - t0
        children = run.report.per_path.get("child")
        if final != "done" or children is None or children.calls != n:
            raise AssertionError(f"fan-out of {n}: final={final!r}, children={children}")
        return wall


class CoreFanOut:
    """``agent_sdk.fan_out`` over ``call_agent`` children with a sleeping scripted invoke."""

    def __init__(self, framework: str, sizes: list[int]) -> None:
        self.versions = versions("agent-sdk")

    def session(self) -> Any:
        import contextlib

        return contextlib.AsyncExitStack()

    async def once(self, n: int, cap: int | None) -> float:
        async def invoke(request: Any, ctx: Any) -> AgentResponse:
            await asyncio.sleep(CHILD_DELAY)
            return AgentResponse(
                messages=[Message("assistant", f"ok {request}")], usage=Usage(model_calls=1)
            )

        calls = {
            f"c{i}": functools.partial(call_agent, invoke, f"item {i}", None, name="child")
            for i in range(n)
        }
        async with run_scope() as run:
            t0 = time.perf_counter()
            result = await fan_out(calls, max_parallel=cap)
            wall = time.perf_counter() - t0
        if (
            not result.complete
            or len(result.results) != n
            or run.report.per_path["child"].calls != n
        ):
            raise AssertionError(f"fan_out of {n} incomplete: {result.missing}")
        return wall


def target_for(name: str, sizes: list[int]) -> Any:
    return CoreFanOut(name, sizes) if name == "fan_out" else FrameworkFanOut(name, sizes)


async def scaling(name: str, sizes: list[int], cap: int, reps: dict[int, int]) -> dict[str, Any]:
    target = target_for(name, sizes)
    out: dict[str, Any] = {"target": name, "versions": target.versions, "cap": cap, "sizes": {}}
    async with target.session():
        await target.once(1, None)  # warm-up (lazy imports, first-run costs)
        await target.once(2, None)
        singles = [await target.once(1, None) for _ in range(reps[1])]
        single = summary(singles)["median"]
        out["single_s"] = summary(singles)
        for n in sizes:
            row: dict[str, Any] = {}
            for label, limit in (("uncapped", None), ("capped", cap)):
                walls, growths = [], []
                for _ in range(reps.get(n, 1)):
                    gc.collect()
                    with PeakRSS() as rss:
                        walls.append(await target.once(n, limit))
                    growths.append(rss.growth)
                row[label] = {
                    "wall_s": summary(walls),
                    "ratio": summary(w / single for w in walls),
                    "ideal": 1.0 if limit is None else float(-(-n // limit)),
                    "peak_rss_growth_mib": summary(g / 2**20 for g in growths),
                }
            out["sizes"][str(n)] = row
    return out


async def memory(name: str, n: int) -> dict[str, Any]:
    target = target_for(name, [n])
    async with target.session():
        await target.once(2, None)
        await target.once(2, None)
        gc.collect()
        with PeakRSS() as rss:
            wall = await target.once(n, None)
    return {
        "target": name,
        "n": n,
        "wall_s": wall,
        "rss_start_mib": rss.start / 2**20,
        "peak_rss_growth_mib": rss.growth / 2**20,
        "per_child_kib": rss.growth / 1024 / n,
    }


async def profile(name: str, n: int) -> dict[str, Any]:
    """Where one uncapped fan-out of ``n`` spends its CPU time, per child."""
    target = target_for(name, [n])
    async with target.session():
        await target.once(2, None)
        prof = cProfile.Profile()
        prof.enable()
        await target.once(n, None)
        prof.disable()
    raw = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    return {
        "n": n,
        "self_us_per_child": top_costs(raw, per=n),
        "our_cumulative_us_per_child": top_costs(raw, per=n, own=True),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--target", required=True)
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--cap", type=int, default=50)
    parser.add_argument("--memory", type=int)
    parser.add_argument("--profile", type=int, help="cProfile one uncapped run of this size")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    quiet_frameworks()
    if args.memory:
        result = asyncio.run(memory(args.target, args.memory))
    else:
        sizes = [int(s) for s in args.sizes.split(",") if s]
        reps = {1: 3, 10: 2, 100: 2} if args.quick else {1: 7, 10: 5, 100: 3, 1000: 2}
        result = asyncio.run(scaling(args.target, sizes, args.cap, reps))
        if args.profile:
            result["profile"] = asyncio.run(profile(args.target, args.profile))
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
