"""The threads an approval store runs on, so that async callers never block the event loop.

A call is one put on a ``queue.SimpleQueue`` and one future of the caller's event loop; the
result goes back with ``call_soon_threadsafe``. ``loop.run_in_executor`` on a
``ThreadPoolExecutor`` costs the loop several times that per call (a lock, a semaphore and
a ``Condition`` in ``submit``, two futures chained by ``wrap_future``), which 2,000 concurrent
deferred approvals pay in one turn of the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from agent_sdk.errors import ApprovalError

_T = TypeVar("_T")
_Job = tuple[Callable[..., Any], tuple[Any, ...], asyncio.AbstractEventLoop, "asyncio.Future[Any]"]


class StoreWorkers:
    """``count`` threads, started on first use, that run a store's blocking operations.

    A call whose caller was cancelled before its turn is never run (as a queued
    ``ThreadPoolExecutor`` job is not): an approval is not consumed for a call that no one
    will run. One already running finishes; its result is dropped.
    """

    def __init__(self, count: int, name: str) -> None:
        self.count = max(1, count)
        self.name = name
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False

    async def call(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` on a worker thread; its result or exception here."""
        if self._closed:
            raise ApprovalError(f"the approval store ({self.name}) is closed")
        if len(self._threads) < self.count:
            self._start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[_T] = loop.create_future()
        self._queue.put((fn, args, loop, future))
        return await future

    def shutdown(self) -> None:
        """Let every worker end after the calls queued before this one."""
        with self._lock:
            self._closed = True
            for _ in self._threads:
                self._queue.put(None)

    def _start(self) -> None:
        with self._lock:
            while not self._closed and len(self._threads) < self.count:
                thread = threading.Thread(
                    target=self._serve, name=f"{self.name}-{len(self._threads)}", daemon=True
                )
                thread.start()
                self._threads.append(thread)

    def _serve(self) -> None:
        while (job := self._queue.get()) is not None:
            fn, args, loop, future = job
            if future.cancelled():
                continue
            try:
                result, error = fn(*args), False
            except BaseException as exc:  # handed to the caller, whatever it is
                result, error = exc, True
            with contextlib.suppress(RuntimeError):  # the caller's loop is closed: no one waits
                loop.call_soon_threadsafe(_settle, future, result, error)


def _settle(future: asyncio.Future[Any], value: Any, error: bool) -> None:
    if future.cancelled():
        return
    if error:
        future.set_exception(value)
    else:
        future.set_result(value)
