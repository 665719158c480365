"""What differs between the Python versions the core supports (3.10 and later)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import TypeVar

_T = TypeVar("_T")


async def wait_for(aw: Awaitable[_T], timeout: float) -> _T:
    """``asyncio.wait_for`` with 3.12's semantics on every version: a cancellation of the
    caller is never swallowed, and a timeout is the builtin ``TimeoutError``.

    Before 3.12, ``wait_for`` returns the result when the caller is cancelled just as the
    awaitable finishes (the cancellation is lost), and raises ``asyncio.TimeoutError``,
    which is not ``TimeoutError`` on 3.10.
    """
    if sys.version_info >= (3, 12):
        return await asyncio.wait_for(aw, timeout)
    task = asyncio.ensure_future(aw)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        await asyncio.wait({task})  # let it finish cancelling; the cancellation wins
        if not task.cancelled():
            task.exception()  # retrieved: no "exception was never retrieved" warning
        raise
    if task not in done:
        task.cancel()
        await asyncio.wait({task})
        if task.cancelled():
            raise TimeoutError
    return task.result()  # finished (maybe while being cancelled, as 3.12 allows)
