"""(3) Fan-out scaling and (4) memory per sub-agent.

Worker: ``python -m benchmarks.bench_fanout --target ag2|autogen|openai-agents|
fast-agent|fan_out [--sizes 10,100,1000] [--cap 50] [--memory N [--native]] [--quick]
[--out f.json]``.

Scaling: an orchestrator's scripted model calls a sub-agent tool N times in one turn; each
child is a fresh child per call (the plugin's agent tool) whose scripted model sleeps 50 ms
and answers. Wall time of the whole orchestrator run / the same run with N = 1 (ideal 1.0
without a cap, ceil(N / cap) with ``max_parallel=cap`` from the run_scope's limits).
``fan_out`` is the core's ``agent_sdk.fan_out`` over ``call_agent`` children (no framework),
capped with its own ``max_parallel``.

Native baseline, in the same process and interleaved with ours: the framework's own
sub-agent tool (``Driver.native_agent_tool``: AG2 ``child.ask`` in a tool, AutoGen a
FunctionTool running a fresh child, openai-agents ``Agent.as_tool``, fast-agent's
Agents-as-Tools) and, for ``fan_out``, plain ``asyncio.gather`` over the same children. Its
ratio is against its own single-child time; ``ours_vs_native`` is ours / native at equal N
(wall time), ``ours_vs_native_cpu`` the same by the process's CPU time, and
``cpu_ms_per_child`` the CPU time of a whole run per child (the orchestrator's share
included).

Memory (``--memory N [--native]``, one fresh process per N): after a warm-up run, the peak
RSS growth (sampled every 2 ms) during one uncapped run of N concurrent children.

Per child (``fan_out`` only; ``--per-child`` runs it alone): what ``fan_out`` over
``call_agent`` children inside a ``run_scope`` costs above ``asyncio.gather`` over the same
bare invokes, with a child that answers at once (no sleep) and tracing off. CPU time
(``time.process_time_ns``: other processes' turns on the CPU are not counted, though their
load still slows the caches), the two interleaved in blocks; ``per_child_above_gather_us``
is (ours - gather) / N between the fastest of k runs of each per block, median and min-max.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import gc
import pstats
import time
from collections.abc import Awaitable, Callable
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
from agent_sdk.scripted import ScriptedAgent, ToolCall, Turn
from agent_sdk.tracing import use_tracer_provider
from benchmarks.common import PeakRSS, emit, quiet_frameworks, summary, top_costs, versions

CHILD_DELAY = 0.05
# Variant order per repetition. A run tends to be slower after another one (frameworks keep
# per-call state, e.g. fast-agent merges every clone's usage into the template), so ours
# and native take turns going first, and each of the three goes first in some repetition.
ORDERS = (
    ("native", "uncapped", "capped"),
    ("capped", "uncapped", "native"),
    ("uncapped", "native", "capped"),
    ("capped", "native", "uncapped"),
)


class FrameworkFanOut:
    def __init__(self, framework: str, sizes: list[int]) -> None:
        from benchmarks.frameworks import DRIVERS

        self.driver = DRIVERS[framework]()
        child = ScriptedAgent(
            "child", [Turn.say("ok", delay=CHILD_DELAY)], description="A scripted sub-agent."
        )
        tool = self.driver.agent_tool(child)
        native = self.driver.native_agent_tool(child)
        self.runners, self.native_runners = {}, {}
        for n in sorted({1, 2, *sizes}):
            calls = [ToolCall("child", {"request": f"item {i}"}, id=f"call_{i}") for i in range(n)]
            turns = [Turn.call(*calls), Turn.say("done")]
            self.runners[n] = self.driver.runner([tool], turns, instrumented=True)
            native_calls = [native.call(f"item {i}", f"call_{i}") for i in range(n)]
            self.native_runners[n] = self.driver.runner(
                [native.tool], [Turn.call(*native_calls), Turn.say("done")]
            )
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

    async def once_native(self, n: int) -> float:
        runner = self.native_runners[n]
        await runner.reset()
        t0 = time.perf_counter()
        final = await runner.run()
        wall = time.perf_counter() - t0
        if final != "done":
            raise AssertionError(f"native fan-out of {n}: final={final!r}")
        return wall


class CoreFanOut:
    """``agent_sdk.fan_out`` over ``call_agent`` children with a sleeping scripted invoke."""

    def __init__(self, framework: str, sizes: list[int]) -> None:
        self.versions = versions("agent-sdk")

    def session(self) -> Any:
        import contextlib

        return contextlib.AsyncExitStack()

    @staticmethod
    async def invoke(request: Any, ctx: Any) -> AgentResponse:
        await asyncio.sleep(CHILD_DELAY)
        return AgentResponse(
            messages=[Message("assistant", f"ok {request}")], usage=Usage(model_calls=1)
        )

    async def once_native(self, n: int) -> float:
        """The same children with plain ``asyncio.gather``: no guards, spans or report."""
        t0 = time.perf_counter()
        responses = await asyncio.gather(*(self.invoke(f"item {i}", None) for i in range(n)))
        wall = time.perf_counter() - t0
        if len(responses) != n:
            raise AssertionError(f"gather of {n} returned {len(responses)}")
        return wall

    async def once(self, n: int, cap: int | None) -> float:
        invoke = self.invoke
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


async def _instant(request: Any, ctx: Any) -> AgentResponse:
    """A child that answers at once: what is left of a fan-out is its own cost."""
    return AgentResponse(messages=[Message("assistant", "ok")], usage=Usage(model_calls=1))


async def per_child_above_gather(
    n: int = 1000, *, blocks: int = 15, k: int = 5
) -> dict[str, float]:
    """µs of CPU per child that ``fan_out`` over ``call_agent`` children (in a run_scope,
    tracing off) costs above ``asyncio.gather`` over the same bare invokes: per block, k
    runs of each, interleaved (which goes first alternates); (ours - gather) / n between the
    fastest run of each."""
    use_tracer_provider(None)  # tracing off, as the fan-out benchmark runs
    requests = [f"item {i}" for i in range(n)]
    calls = {
        f"c{i}": functools.partial(call_agent, _instant, request, None, name="child")
        for i, request in enumerate(requests)
    }

    async def ours() -> int:
        async with run_scope() as run:
            gc.collect()
            t0 = time.process_time_ns()
            result = await fan_out(calls)
            cpu = time.process_time_ns() - t0
        if not result.complete or run.report.per_path["child"].calls != n:
            raise AssertionError(f"fan_out of {n} incomplete: {result.missing}")
        return cpu

    async def gather() -> int:
        gc.collect()
        t0 = time.process_time_ns()
        responses = await asyncio.gather(*(_instant(r, None) for r in requests))
        cpu = time.process_time_ns() - t0
        if len(responses) != n:
            raise AssertionError(f"gather of {n} returned {len(responses)}")
        return cpu

    for _ in range(2):  # warm-up
        await ours()
        await gather()
    per_block = []
    for block in range(blocks):
        first, second = (ours, gather) if block % 2 == 0 else (gather, ours)
        runs: dict[Callable[[], Awaitable[int]], list[int]] = {ours: [], gather: []}
        for _ in range(k):
            runs[first].append(await first())
            runs[second].append(await second())
        # The fastest of each: a neighbour's load only ever adds (shared caches).
        per_block.append((min(runs[ours]) - min(runs[gather])) / n / 1000)
    return summary(per_block)


def target_for(name: str, sizes: list[int]) -> Any:
    return CoreFanOut(name, sizes) if name == "fan_out" else FrameworkFanOut(name, sizes)


async def scaling(name: str, sizes: list[int], cap: int, reps: dict[int, int]) -> dict[str, Any]:
    target = target_for(name, sizes)
    out: dict[str, Any] = {"target": name, "versions": target.versions, "cap": cap, "sizes": {}}
    variants: dict[str, Callable[[int], Awaitable[float]]] = {
        "native": target.once_native,
        "uncapped": lambda n: target.once(n, None),
        "capped": lambda n: target.once(n, cap),
    }
    async with target.session():
        for n in (1, 2):  # warm-up (lazy imports, first-run costs)
            await target.once(n, None)
            await target.once_native(n)
        singles: dict[str, list[float]] = {"native": [], "ours": []}
        for _ in range(reps[1]):
            singles["native"].append(await target.once_native(1))
            singles["ours"].append(await target.once(1, None))
        single = {k: summary(v)["median"] for k, v in singles.items()}
        if single["native"] < CHILD_DELAY:  # the child's scripted model sleeps that long
            raise AssertionError(f"native child of {name} did not run: {single['native']:.3f}s")
        out["single_s"] = summary(singles["ours"])
        out["native_single_s"] = summary(singles["native"])
        for n in sizes:
            walls: dict[str, list[float]] = {k: [] for k in variants}
            cpus: dict[str, list[float]] = {k: [] for k in variants}
            growths: dict[str, list[float]] = {k: [] for k in variants}
            for rep in range(reps.get(n, 1)):
                order = ORDERS[rep % len(ORDERS)]
                for label in order:
                    gc.collect()
                    with PeakRSS() as rss:
                        c0 = time.process_time_ns()
                        walls[label].append(await variants[label](n))
                        cpus[label].append((time.process_time_ns() - c0) / 1e6 / n)
                    growths[label].append(rss.growth)
            row: dict[str, Any] = {}
            for label in variants:
                base = single["native" if label == "native" else "ours"]
                row[label] = {
                    "wall_s": summary(walls[label]),
                    "cpu_ms_per_child": summary(cpus[label]),
                    "ratio": summary(w / base for w in walls[label]),
                    "ideal": -(-n // cap) if label == "capped" else 1.0,
                    "peak_rss_growth_mib": summary(g / 2**20 for g in growths[label]),
                }
            row["ours_vs_native_cpu"] = summary(
                o / nat for o, nat in zip(cpus["uncapped"], cpus["native"], strict=True)
            )
            row["ours_vs_native"] = summary(
                o / nat for o, nat in zip(walls["uncapped"], walls["native"], strict=True)
            )
            out["sizes"][str(n)] = row
        if isinstance(target, CoreFanOut):
            out["per_child_above_gather_us"] = await per_child_above_gather()
    return out


async def memory(name: str, n: int, *, native: bool = False) -> dict[str, Any]:
    target = target_for(name, [n])

    async def once(k: int) -> float:
        return await (target.once_native(k) if native else target.once(k, None))

    async with target.session():
        await once(2)
        await once(2)
        gc.collect()
        with PeakRSS() as rss:
            wall = await once(n)
    return {
        "target": name,
        "native": native,
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
    parser.add_argument("--native", action="store_true", help="with --memory: the native tool")
    parser.add_argument("--profile", type=int, help="cProfile one uncapped run of this size")
    parser.add_argument(
        "--per-child",
        action="store_true",
        help="fan_out only: µs per child above asyncio.gather (CPU time), alone",
    )
    parser.add_argument("--blocks", type=int, default=15, help="with --per-child")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    quiet_frameworks()
    if args.per_child:
        if args.target != "fan_out":
            parser.error("--per-child measures the core's fan_out (--target fan_out)")
        result = {
            "target": args.target,
            "per_child_above_gather_us": asyncio.run(per_child_above_gather(blocks=args.blocks)),
        }
    elif args.memory:
        result = asyncio.run(memory(args.target, args.memory, native=args.native))
    else:
        sizes = [int(s) for s in args.sizes.split(",") if s]
        reps = {1: 3, 10: 2, 100: 2} if args.quick else {1: 7, 10: 4, 100: 4, 1000: 4}
        result = asyncio.run(scaling(args.target, sizes, args.cap, reps))
        if args.profile:
            result["profile"] = asyncio.run(profile(args.target, args.profile))
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
