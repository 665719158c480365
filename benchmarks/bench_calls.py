"""(1) Per-call overhead through each framework's real agent loop: native tool vs ours.

Worker: ``python -m benchmarks.bench_calls --framework ag2 [--quick] [--out f.json]``.

Scenarios (as in research/native_baselines.md): S0 the model answers with text, S1 one tool
call then the answer, S10 ten calls in one turn then the answer. Every agent has the tool
registered in every scenario, so S_N - S0 is the cost of the calls alone:
per call = S1 - S0, and (S10 - S0) / 10.

Variants, interleaved round-robin in blocks (order rotating every round): the native tool
on the framework's agent as it comes, and our tool on an agent set up as a user of
agent-sdk does for its spans (``Driver.runner(instrumented=True)``: the top agent's
``invoke_agent`` and a ``chat`` span per model call, all counted), in each tracing mode
(noop = no SDK, sampled-off, batch). A third, ``floor``, is the native tool whose handler
opens one SDK span (batch mode, the attributes of our ``execute_tool`` span) and nothing
else: what any instrumentation that records a span per tool call pays in that loop, the
lower bound of ours with SDK + batch. A fourth, ``skeleton``, is that floor tool on the top
agent instrumented as ours is (batch): the floor plus the skeleton's own ``invoke_agent``
and ``chat`` spans, so ours / skeleton is what the executor and the plugin cost above
them. The per-call figures and the ratios ours/native and
ours/floor are computed per block (from block medians), then reported as the median over
blocks with the min-max of blocks as spread.

Clock: each run is timed twice, by the process's CPU time (``time.process_time_ns``: every
thread of the process, the batch processor's included, and none of the time other
processes on a shared machine take from it; nothing in these runs waits on I/O or sleeps)
and by the wall clock. ``per_call`` is by CPU time, ``per_call_wall`` by the wall clock.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import pstats
import statistics
import time
from typing import Any

from pydantic import BaseModel

from agent_sdk.tracing import semconv as sc
from benchmarks.common import (
    Tracing,
    emit,
    now_us,
    quiet_frameworks,
    short_name,
    summary,
    versions,
)

SCENARIOS = {"S0": 0, "S1": 1, "S10": 10}
VARIANTS = (
    ("native", "noop"),
    ("floor", "batch"),
    ("skeleton", "batch"),
    ("ours", "noop"),
    ("ours", "sampled-off"),
    ("ours", "batch"),
)
# The attributes of our execute_tool span (agent_sdk.executor), set the same way: at the
# start, and the outcome at the end.
FLOOR_ATTRIBUTES = {
    sc.RUN_ID: "run_0123456789abcdef0123456789abcdef",
    sc.PATH: "add",
    sc.DEPTH: 0,
    sc.GEN_AI_CONVERSATION_ID: "run_0123456789abcdef0123456789abcdef",
    sc.GEN_AI_OPERATION_NAME: sc.OP_EXECUTE_TOOL,
    sc.GEN_AI_TOOL_NAME: "add",
    sc.GEN_AI_TOOL_TYPE: "function",
    sc.GEN_AI_TOOL_CALL_ID: "call_0",
}


class AddArgs(BaseModel):
    a: int
    b: int


class Counter:
    """Counts handler calls. ``add`` is a plain function (a closure), not a bound method:
    AG2 deep-copies tools on registration, and would copy a bound method's instance."""

    def __init__(self, *, span: bool = False) -> None:
        from agent_sdk.tracing import get_tracer

        self.calls = 0
        counter = self

        async def add(a: int, b: int) -> int:
            """Add two integers."""
            counter.calls += 1
            return a + b

        async def add_in_span(a: int, b: int) -> int:
            """Add two integers."""
            with get_tracer().start_as_current_span(
                "execute_tool add", attributes=FLOOR_ATTRIBUTES
            ) as span:
                counter.calls += 1
                span.set_attribute(sc.OUTCOME, "ok")
                return a + b

        self.add = add_in_span if span else add


def turns_for(n: int) -> list[Any]:
    from agent_sdk.scripted import ToolCall, Turn

    if n == 0:
        return [Turn.say("done")]
    calls = [ToolCall("add", {"a": i, "b": 2}, id=f"call_{i}") for i in range(n)]
    return [Turn.call(*calls), Turn.say("done")]


def build(framework: str) -> tuple[Any, dict[tuple[str, str], Any], dict[str, Counter]]:
    from agent_sdk import ToolSpec
    from benchmarks.frameworks import DRIVERS

    driver = DRIVERS[framework]()
    counters = {
        "native": Counter(),
        "floor": Counter(span=True),
        "skeleton": Counter(span=True),
        "ours": Counter(),
    }
    native = driver.native_tool(counters["native"].add, name="add", description="Add two integers.")
    floor = driver.native_tool(counters["floor"].add, name="add", description="Add two integers.")
    skeleton = driver.native_tool(
        counters["skeleton"].add, name="add", description="Add two integers."
    )
    spec = ToolSpec(
        name="add",
        description="Add two integers.",
        handler=counters["ours"].add,
        input_model=AddArgs,
    )
    ours = driver.our_tool(spec)
    runners = {}
    tools = (("native", native), ("floor", floor), ("skeleton", skeleton), ("ours", ours))
    for kind, tool in tools:
        for scenario, n in SCENARIOS.items():
            runners[(kind, scenario)] = driver.runner(
                [tool], turns_for(n), instrumented=kind in ("ours", "skeleton")
            )
    return driver, runners, counters


async def one(
    runner: Any, counter: Counter, n: int, tracing: Tracing, mode: str
) -> tuple[float, float]:
    """One run: (CPU µs, wall µs)."""
    tracing.use(mode)
    await runner.reset()
    before = counter.calls
    c0, t0 = time.process_time_ns(), now_us()
    final = await runner.run()
    elapsed, cpu = now_us() - t0, (time.process_time_ns() - c0) / 1000.0
    if counter.calls - before != n:
        raise AssertionError(f"expected {n} tool calls, the handler ran {counter.calls - before}")
    if final != "done":
        raise AssertionError(f"the run did not end with 'done': {final!r}")
    return cpu, elapsed


async def measure(
    framework: str, *, blocks: int, reps: dict[str, int], warmup: int, profile: bool = True
) -> dict[str, Any]:
    driver, runners, counters = build(framework)
    tracing = Tracing()
    combos = [(v, m, s) for (v, m) in VARIANTS for s in SCENARIOS]
    times: dict[tuple[str, str, str], list[list[float]]] = {c: [] for c in combos}
    walls: dict[tuple[str, str, str], list[list[float]]] = {c: [] for c in combos}
    setup_started = time.perf_counter()
    async with driver.session():
        setup_s = time.perf_counter() - setup_started
        for v, m, s in combos:  # first run cold, then warm-up
            for _ in range(warmup):
                await one(runners[(v, s)], counters[v], SCENARIOS[s], tracing, m)
        rotation = 0
        for _block in range(blocks):
            gc.collect()
            block: dict[tuple[str, str, str], list[float]] = {c: [] for c in combos}
            block_wall: dict[tuple[str, str, str], list[float]] = {c: [] for c in combos}
            rounds = max(reps.values())
            for r in range(rounds):
                rotation += 1
                order = combos[rotation % len(combos) :] + combos[: rotation % len(combos)]
                for v, m, s in order:
                    if r < reps[s]:
                        cpu, wall = await one(
                            runners[(v, s)], counters[v], SCENARIOS[s], tracing, m
                        )
                        block[(v, m, s)].append(cpu)
                        block_wall[(v, m, s)].append(wall)
            for c in combos:
                times[c].append(block[c])
                walls[c].append(block_wall[c])
        profiled = (
            await profile_s10(runners, counters, tracing, runs=max(5, reps["S10"] * 2))
            if profile
            else None
        )
        calls = await interpreter_calls(runners, counters, tracing, runs=max(2, reps["S10"]))
    exported = tracing.close()
    return {
        "framework": framework,
        "versions": versions(*driver.distributions, "agent-sdk"),
        "setup_s": setup_s,
        "spans_exported": exported,
        "clock": "cpu",
        "runs": {
            f"{v}|{m}|{s}": summary(x for b in times[(v, m, s)] for x in b) for v, m, s in combos
        },
        "runs_wall": {
            f"{v}|{m}|{s}": summary(x for b in walls[(v, m, s)] for x in b) for v, m, s in combos
        },
        "per_call": per_call(times),
        "per_call_wall": per_call(walls),
        "profile": profiled,
        "interpreter_calls": calls,
    }


async def interpreter_calls(
    runners: dict[tuple[str, str], Any],
    counters: dict[str, Counter],
    tracing: Tracing,
    *,
    runs: int,
) -> dict[str, Any]:
    """Python function calls per tool call of each variant (cProfile's count, S1 - S0 and
    (S10 - S0) / 10, the mean over ``runs`` runs): the interpreter's work, which the load
    of other processes does not change, beside the timings it does. C code (pydantic-core,
    the SDK's own C parts) is one call, however long it runs."""
    per_run: dict[str, float] = {}
    for v, m in VARIANTS:
        for s, n in SCENARIOS.items():
            await one(runners[(v, s)], counters[v], n, tracing, m)  # warm
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(runs):
                await one(runners[(v, s)], counters[v], n, tracing, m)
            prof.disable()
            stats = pstats.Stats(prof)
            per_run[f"{v}|{m}|{s}"] = stats.total_calls / runs  # type: ignore[attr-defined]
    out: dict[str, Any] = {"runs": runs, "per_run": per_run}
    for v, m in VARIANTS:
        for label, scen, n in (("1", "S1", 1), ("10", "S10", 10)):
            base = per_run[f"{v}|{m}|S0"]
            out[f"{v}|{m}|{label}"] = (per_run[f"{v}|{m}|{scen}"] - base) / n
    return out


def per_call(times: dict[tuple[str, str, str], list[list[float]]]) -> dict[str, Any]:
    """Per-call µs, ratio ours/native and ratio to the floor, per block, then median and
    min-max over blocks."""
    blocks = len(next(iter(times.values())))
    out: dict[str, Any] = {}

    def cost(v: str, m: str, scen: str, n: int, b: int) -> float:
        med = {s: statistics.median(times[(v, m, s)][b]) for s in ("S0", scen)}
        return (med[scen] - med["S0"]) / n

    def ratio(x: float, y: float) -> float:
        return x / y if y > 0 else float("nan")

    for n_label, n in (("1", 1), ("10", 10)):
        scen = "S1" if n == 1 else "S10"
        for v, m in VARIANTS:
            values, ratios, to_floor, to_skeleton = [], [], [], []
            for b in range(blocks):
                mine = cost(v, m, scen, n, b)
                values.append(mine)
                ratios.append(ratio(mine, cost("native", "noop", scen, n, b)))
                to_floor.append(ratio(mine, cost("floor", "batch", scen, n, b)))
                to_skeleton.append(ratio(mine, cost("skeleton", "batch", scen, n, b)))
            out[f"{v}|{m}|{n_label}"] = {
                "us": summary(values),
                "ratio": summary(ratios),
                "vs_floor": summary(to_floor),
                "vs_skeleton": summary(to_skeleton),
            }
    return out


async def profile_s10(
    runners: dict[tuple[str, str], Any],
    counters: dict[str, Counter],
    tracing: Tracing,
    *,
    runs: int,
) -> dict[str, Any]:
    """cProfile S10 native and ours (noop); the functions that cost ours the most extra time
    per run (self time, ours minus native), and our own functions by cumulative time."""
    stats = {}
    for kind in ("native", "ours"):
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(runs):
            await one(runners[(kind, "S10")], counters[kind], 10, tracing, "noop")
        prof.disable()
        stats[kind] = pstats.Stats(prof).stats  # type: ignore[attr-defined]

    key = short_name

    def self_times(raw: dict[Any, Any]) -> dict[str, float]:
        out: dict[str, float] = {}
        for func, (_cc, _nc, tt, _ct, _callers) in raw.items():
            out[key(func)] = out.get(key(func), 0.0) + tt * 1e6 / runs
        return out

    native, ours = self_times(stats["native"]), self_times(stats["ours"])
    extra = sorted(((ours[k] - native.get(k, 0.0), k) for k in ours), reverse=True)[:8]
    own = sorted(
        (
            (ct * 1e6 / runs, key(func))
            for func, (_cc, _nc, _tt, ct, _callers) in stats["ours"].items()
            if "agent_sdk" in func[0]
        ),
        reverse=True,
    )[:8]
    return {
        "runs": runs,
        "extra_self_us_per_run": [{"us": round(us, 1), "function": k} for us, k in extra],
        "our_cumulative_us_per_run": [{"us": round(us, 1), "function": k} for us, k in own],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--framework", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    quiet_frameworks()
    if args.quick:
        blocks, reps, warmup = 2, {"S0": 3, "S1": 3, "S10": 2}, 1
    else:
        blocks, reps, warmup = 10, {"S0": 16, "S1": 16, "S10": 8}, 8
    result = asyncio.run(measure(args.framework, blocks=blocks, reps=reps, warmup=warmup))
    result["config"] = {"blocks": blocks, "reps": reps, "warmup": warmup}
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
