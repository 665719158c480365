"""The approval stores' worker threads (``agent_sdk.approval.workers``): results and errors
reach the caller, a call cancelled before its turn never runs (no approval is consumed for
a call no one will run), a closed store refuses new calls; proved with events and counters."""

from __future__ import annotations

import asyncio
import threading

import pytest

from agent_sdk import ApprovalError
from agent_sdk.approval.workers import StoreWorkers


def test_results_and_errors_come_back_from_a_worker_thread() -> None:
    workers = StoreWorkers(2, "test-store")

    def where(x: int) -> tuple[int, str]:
        return x * 2, threading.current_thread().name

    def fails() -> None:
        raise ValueError("the store says no")

    async def main() -> None:
        results = await asyncio.gather(*(workers.call(where, i) for i in range(50)))
        assert [r[0] for r in results] == [i * 2 for i in range(50)]
        assert {r[1] for r in results} <= {"test-store-0", "test-store-1"}
        with pytest.raises(ValueError, match="the store says no"):
            await workers.call(fails)

    asyncio.run(main())
    workers.shutdown()


def test_a_call_cancelled_before_its_turn_never_runs() -> None:
    workers = StoreWorkers(1, "test-store")
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def blocking() -> None:
        started.set()
        release.wait(30)
        ran.append("first")

    def consume() -> None:
        ran.append("consumed")

    async def main() -> None:
        first = asyncio.ensure_future(workers.call(blocking))
        await asyncio.to_thread(started.wait, 30)  # the only worker is busy now
        queued = asyncio.ensure_future(workers.call(consume))
        await asyncio.sleep(0)  # queued behind the first
        queued.cancel()
        release.set()
        await first
        assert await workers.call(lambda: "after") == "after"  # FIFO: the worker went past it
        with pytest.raises(asyncio.CancelledError):
            await queued

    asyncio.run(main())
    assert ran == ["first"]
    workers.shutdown()


def test_a_closed_store_refuses_new_calls_and_finishes_queued_ones() -> None:
    workers = StoreWorkers(1, "test-store")
    gate = threading.Event()
    done: list[int] = []

    async def main() -> None:
        calls = [asyncio.ensure_future(workers.call(gate.wait, 30))] + [
            asyncio.ensure_future(workers.call(done.append, i)) for i in range(3)
        ]
        await asyncio.sleep(0)
        workers.shutdown()
        with pytest.raises(ApprovalError, match="closed"):
            await workers.call(done.append, 99)
        gate.set()
        await asyncio.gather(*calls)

    asyncio.run(main())
    assert done == [0, 1, 2]
