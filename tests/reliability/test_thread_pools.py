"""Timed-out sync handlers cannot starve reviewers (issue 15, item 8).

Sync tool handlers run on agent-sdk's own bounded tool threads and sync reviewers on their
own reviewer threads; saturation is counted and named in the timeout error."""

from __future__ import annotations

import asyncio
import threading

from agent_sdk import CallbackApproval, Decision, Executor, Registry
from agent_sdk.threads import TOOL_THREADS


def test_hung_sync_tools_do_not_starve_a_sync_reviewer():
    release = threading.Event()
    started = threading.Semaphore(0)
    registry = Registry()

    @registry.tool(timeout=0.05)
    def hang(n: int) -> str:
        started.release()
        release.wait(60)  # ignores its timeout, as a blocking client call would
        return "late"

    @registry.tool(confirm=True)
    async def pay(amount: int) -> str:  # async: only its sync reviewer needs a thread
        return "paid"

    reviewed: list[int] = []

    def reviewer(request):  # sync: runs on a thread
        reviewed.append(request.arguments["amount"])
        return Decision.approve(reviewer="ops")

    executor = Executor(registry, approval=CallbackApproval(reviewer))
    hung = TOOL_THREADS.max_workers

    async def main():
        outcomes = await asyncio.gather(*(executor.run("hang", {"n": i}) for i in range(hung)))
        for _ in range(hung):  # every tool thread is now held by a hung handler
            await asyncio.to_thread(started.acquire, True, 30)
        assert TOOL_THREADS.saturated
        # A sync reviewer still answers while every tool thread is held.
        paid = await asyncio.wait_for(executor.run("pay", {"amount": 5}), 30)
        # A sync tool that times out now says why.
        queued = await executor.run("hang", {"n": -1})
        return outcomes, paid, queued

    try:
        outcomes, paid, queued = asyncio.run(main())
    finally:
        release.set()
    assert all(o.error.kind.value == "tool-timeout" for o in outcomes)
    assert paid.text == "paid" and reviewed == [5]
    assert "threads for sync tools are busy" in queued.error.message
