"""Load (issue 9, part 5): many concurrent runs, every call approval-gated.

Nothing is lost or duplicated, no token is used by another run or call, and internal tables
(outstanding tokens, pending approvals) go back to where they started. Memory is measured
with tracemalloc and RSS; a second identical round must not grow it.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
import tracemalloc
from collections import Counter
from typing import Any

import pytest
from reliability_helpers import only_plugin, plugin_names

from agent_sdk import (
    ApprovalGate,
    CallContext,
    Decision,
    DeferredApproval,
    Executor,
    SQLiteApprovalStore,
    ToolSpec,
    current_context,
    run_scope,
)
from agent_sdk.approval import AUTHORITY, TokenAuthority
from agent_sdk.testing import ToolCall, Turn

CALLS_PER_RUN = 10
SCHEMA = {
    "type": "object",
    "properties": {"amount": {"type": "integer"}, "to": {"type": "string"}},
    "required": ["amount", "to"],
}


class SpyAuthority(TokenAuthority):
    """Records every token that verified, with the call it verified for."""

    def __init__(self) -> None:
        super().__init__()
        self.used: list[tuple[str, str | None, str, str | None]] = []

    def consume(self, token: Any, **binding: Any) -> bool:
        ok = super().consume(token, **binding)
        if ok:
            self.used.append((token.run_id, token.call_id, binding["run_id"], binding["call_id"]))
        return ok


class Port:
    def __init__(self) -> None:
        self.asked: Counter[tuple[str, str | None]] = Counter()

    async def request(
        self, tool: str, arguments: dict, *, call_id: str | None, run_id: str, **_: Any
    ) -> Decision:
        self.asked[(run_id, call_id)] += 1
        await asyncio.sleep(0)
        return Decision(True, reviewer="load")


def transfer_spec(ran: Counter[tuple[str, str | None, int]]) -> ToolSpec:
    async def transfer(amount: int, to: str, ctx: CallContext) -> str:
        ran[(ctx.run_id, ctx.call_id, amount)] += 1
        await asyncio.sleep(0)
        return f"{ctx.run_id}/{ctx.call_id}/{amount}/{to}"

    return ToolSpec(
        name="transfer", description="t", handler=transfer, input_schema=SCHEMA, confirm=True
    )


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


async def executor_round(runs: int) -> dict[str, Any]:
    authority = SpyAuthority()
    port = Port()
    ran: Counter[tuple[str, str | None, int]] = Counter()
    spec = transfer_spec(ran)
    executor = Executor(authority=authority)  # no port of its own: only gate tokens work
    gate = ApprovalGate(port, authority=authority)

    async def one_run(r: int) -> list[Any]:
        async with run_scope(f"run-{r}"):
            base = current_context()
            assert base is not None
            return await asyncio.gather(
                *(
                    executor.run_spec(
                        spec,
                        {"amount": i, "to": f"r{r}"},
                        base.evolve(call_id=f"call-{r}-{i}", thread_id=f"t-{r}"),
                        gate=gate,
                    )
                    for i in range(CALLS_PER_RUN)
                )
            )

    t0 = time.perf_counter()
    results = await asyncio.gather(*(one_run(r) for r in range(runs)))
    wall = time.perf_counter() - t0
    expected = {(f"run-{r}", f"call-{r}-{i}", i) for r in range(runs) for i in range(CALLS_PER_RUN)}
    for r, outcomes in enumerate(results):
        for i, outcome in enumerate(outcomes):
            assert outcome.ok, outcome.text
            assert outcome.text == f"run-{r}/call-{r}-{i}/{i}/r{r}", "a result reached another call"
    assert set(ran) == expected and set(ran.values()) == {1}, "lost or duplicated calls"
    assert len(port.asked) == len(expected) and set(port.asked.values()) == {1}
    assert len(authority.used) == len(expected)
    assert all(t_run == run and t_call == call for t_run, t_call, run, call in authority.used), (
        "a token verified for another run or call"
    )
    assert authority.outstanding() == 0 and len(authority._outstanding) == 0
    return {"calls": len(expected), "wall_s": wall}


def test_concurrent_runs_through_the_executor(long_run: bool) -> None:
    runs = 3_000 if long_run else 1_000
    baseline = AUTHORITY.outstanding()
    gc.collect()
    rss0 = rss_mib()
    full = asyncio.run(executor_round(runs))
    gc.collect()
    rss1 = rss_mib()
    # tracemalloc slows everything down: two identical smaller rounds under it, compared.
    small = runs // 4
    tracemalloc.start()
    asyncio.run(executor_round(small))
    gc.collect()
    after_first, _ = tracemalloc.get_traced_memory()
    asyncio.run(executor_round(small))
    gc.collect()
    after_second, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    growth = after_second - after_first
    print(
        f"\nexecutor load: {runs} runs x {CALLS_PER_RUN} approved calls = {full['calls']} calls in"
        f" {full['wall_s']:.2f}s; RSS {rss0:.0f} -> {rss1:.0f} MiB; traced ({small} runs):"
        f" {after_first / 2**20:.2f} MiB after round 1, {after_second / 2**20:.2f} MiB after"
        f" round 2, peak {peak / 2**20:.1f} MiB"
    )
    assert growth < 1 * 2**20, (
        f"memory grew by {growth / 2**20:.2f} MiB in an identical second round"
    )
    assert AUTHORITY.outstanding() == baseline


def test_deferred_approvals_under_load_are_cleaned_up(long_run: bool) -> None:
    """Every call pends, is resolved, retried once and spent; nothing pending remains and
    purge empties the store."""
    runs = 1_000 if long_run else 200
    store = SQLiteApprovalStore()
    port = DeferredApproval(store)
    ran: Counter[tuple[str, str | None, int]] = Counter()
    spec = transfer_spec(ran)
    executor = Executor(approval=port)

    def ctx(r: int, i: int) -> CallContext:
        return CallContext(run_id=f"run-{r}", thread_id=f"t-{r}", call_id=f"call-{r}-{i}")

    async def everyone() -> list[Any]:
        return await asyncio.gather(
            *(
                executor.run_spec(spec, {"amount": i, "to": "x"}, ctx(r, i))
                for r in range(runs)
                for i in range(CALLS_PER_RUN)
            )
        )

    t0 = time.perf_counter()
    first = asyncio.run(everyone())
    assert all(o.error is not None and o.error.approval_id for o in first)
    ids = [o.error.approval_id for o in first]
    assert len(set(ids)) == len(ids) == runs * CALLS_PER_RUN
    assert len(port.pending()) == len(ids)
    for apr in ids:
        port.resolve(apr, approved=True)
    second = asyncio.run(everyone())
    assert all(o.ok for o in second)
    third = asyncio.run(everyone())
    assert not any(o.ok for o in third), "an approval ran twice"
    wall = time.perf_counter() - t0
    assert set(ran.values()) == {1} and len(ran) == len(ids)
    assert port.pending() == [] and {e.status for e in store.list(None)} == {"used"}
    assert store.purge(older_than=-1) == len(ids) and store.list(None) == []
    print(
        f"\ndeferred load: {len(ids)} calls pended, resolved, ran once, replay refused: {wall:.2f}s"
    )


# -- through a real framework loop -----------------------------------------------------------
LOAD_PLUGIN = "autogen"  # the cheapest loop per call (shared/research/native_baselines.md)


@pytest.mark.parametrize(
    "plugin",
    [p if p == LOAD_PLUGIN else pytest.param(p, marks=pytest.mark.long) for p in plugin_names()],
)
def test_concurrent_runs_through_a_plugin(plugin: str, long_run: bool) -> None:
    """CI: the load plugin; --run-long: every installed plugin, with more runs."""
    _plugin_load(plugin, 100 if long_run else 40)


def _plugin_load(plugin: str, runs: int) -> None:
    authority_before = AUTHORITY.outstanding()
    with only_plugin(plugin) as harness:
        port = Port()
        ran: Counter[tuple[str, str | None, int]] = Counter()
        tool = harness.export_tool(transfer_spec(ran), executor=Executor(), approval=port)

        async def one_run(r: int) -> Any:
            calls = [
                ToolCall("transfer", {"amount": i, "to": f"r{r}"}, id=f"c{r}x{i}")
                for i in range(CALLS_PER_RUN)
            ]
            turns = (
                [Turn.call(*calls), Turn.say("done")]
                if harness.parallel
                else [*(Turn.call(c) for c in calls), Turn.say("done")]
            )
            async with run_scope(f"run-{r}"):
                return await harness.run([tool], turns)

        async def main() -> list[Any]:
            return await asyncio.gather(*(one_run(r) for r in range(runs)))

        t0 = time.perf_counter()
        results = asyncio.run(main())
        wall = time.perf_counter() - t0
    for r, result in enumerate(results):
        texts = {s.call_id: s.text for s in result.results}
        for i in range(CALLS_PER_RUN):
            assert texts[f"c{r}x{i}"] == f"run-{r}/c{r}x{i}/{i}/r{r}", texts.get(f"c{r}x{i}")
    expected = {(f"run-{r}", f"c{r}x{i}", i) for r in range(runs) for i in range(CALLS_PER_RUN)}
    assert set(ran) == expected and set(ran.values()) == {1}
    assert set(port.asked.values()) == {1} and len(port.asked) == len(expected)
    assert AUTHORITY.outstanding() == authority_before
    print(f"\n{plugin} load: {runs} concurrent runs x {CALLS_PER_RUN} approved calls: {wall:.2f}s")
