"""Worker threads of our own for sync code: one bounded pool for tool handlers, one for
approval reviewers, so neither can starve the other (nor the application's default pool).

Python cannot stop a thread: a sync handler that ignores its timeout keeps its worker until
it returns. The pools count busy workers; once every worker of a pool is busy, a call waits
for one, a warning is logged once, and a tool that times out meanwhile says why.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

log = logging.getLogger("agent_sdk.threads")

_T = TypeVar("_T")


class WorkerPool:
    """A bounded thread pool with a count of busy workers; the caller's context is copied
    into the worker (CallContext, run, span), as ``asyncio.to_thread`` does."""

    def __init__(self, name: str, max_workers: int) -> None:
        self.name = name
        self.max_workers = max_workers
        self._pool = ThreadPoolExecutor(max_workers, thread_name_prefix=name)
        self._lock = threading.Lock()
        self._busy = 0
        self._warned = False

    @property
    def busy(self) -> int:
        """Workers running a call now (a call that timed out still counts until it returns)."""
        return self._busy

    @property
    def saturated(self) -> bool:
        return self._busy >= self.max_workers

    async def run(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> _T:
        context = contextvars.copy_context()
        call = functools.partial(context.run, fn, *args, **kwargs)
        with self._lock:
            self._busy += 1
            full = self._busy > self.max_workers and not self._warned
            self._warned = self._warned or full
        if full:
            log.warning(
                "all %d %s threads are busy; calls wait for one (sync code that ignores "
                "its timeout keeps its thread until it returns)",
                self.max_workers,
                self.name,
            )
        return await asyncio.get_running_loop().run_in_executor(
            self._pool, functools.partial(self._counted, call)
        )

    def _counted(self, call: Callable[[], _T]) -> _T:
        try:
            return call()
        finally:
            with self._lock:
                self._busy -= 1


TOOL_THREADS = WorkerPool("agent-sdk-tool", 32)
"""Where sync tool handlers run."""

REVIEWER_THREADS = WorkerPool("agent-sdk-reviewer", 8)
"""Where sync approval reviewers (``CallbackApproval``) run."""
