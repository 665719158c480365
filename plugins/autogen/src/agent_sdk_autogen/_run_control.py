"""Run control for AutoGen 0.7: a run linked both ways to its CancellationToken, which a
tool can stop. AutoGen-specific (no canonical module covers it): the run identity is
``_context``'s, tool errors are ``_tools``'.

AutoGen 0.7.5 has two traps around ending a run while tools execute: cancelling the token
during a tool call makes ``agent.run`` wait forever (the tool task dies before it signals
the end of its event stream), and an exception cannot leave a tool without ending in the
same hang (the workbench turns every ``Exception`` into a result). ``run_linked`` closes
both: the run executes in its own task, the token cancels that task, and a tool can stop
the run with an error that then reaches the caller.
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from autogen_core import CancellationToken

T = TypeVar("T")


@dataclass
class _RunLink:
    token: CancellationToken
    stop_error: BaseException | None = None

    def stop(self, error: BaseException) -> None:
        """End the run with ``error``: cancelling the token cancels the run's task and every
        tool call AutoGen linked to the token."""
        if self.stop_error is None:
            self.stop_error = error
        self.token.cancel()


_active_run: contextvars.ContextVar[_RunLink | None] = contextvars.ContextVar(
    "agent_sdk_autogen_run", default=None
)


def stop_active_run(error: BaseException) -> bool:
    """Stop the innermost linked run with ``error``; False when there is none."""
    link = _active_run.get()
    if link is None:
        return False
    link.stop(error)
    return True


def _canceller(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> Callable[[], None]:
    ref = weakref.ref(task)

    def cancel() -> None:
        target = ref()
        if target is None or target.done():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            target.cancel()
        else:  # CancellationToken.cancel() may be called from another thread
            loop.call_soon_threadsafe(target.cancel)

    return cancel


def _cancelling() -> bool:
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)  # Python >= 3.11
    return bool(cancelling()) if cancelling is not None else False


async def run_linked(
    body: Callable[[CancellationToken], Awaitable[T]], token: CancellationToken | None = None
) -> T:
    """Run ``body(token)`` in its own task linked both ways to ``token``.

    Cancelling the token cancels the task (so a run cancelled during a tool call raises
    CancelledError instead of hanging); cancelling the caller cancels the token (so tool
    calls AutoGen left running stop too); a tool that stops the run makes this raise the
    tool's error.
    """
    token = token if token is not None else CancellationToken()
    link = _RunLink(token)

    async def linked() -> T:
        _active_run.set(link)  # only in this task's copy of the context
        return await body(token)

    loop = asyncio.get_running_loop()
    task = loop.create_task(linked())
    token.add_callback(_canceller(loop, task))
    try:
        # Shielded: when the caller is cancelled, the token is cancelled first (so the tool
        # calls AutoGen would leave running stop with the run), then the run is awaited.
        result = await asyncio.shield(task)
    except BaseException as exc:
        token.cancel()
        if not task.done():
            await asyncio.wait({task})
        if link.stop_error is not None and not _cancelling() and exc is not link.stop_error:
            raise link.stop_error from (None if isinstance(exc, asyncio.CancelledError) else exc)
        raise
    if link.stop_error is not None:
        raise link.stop_error
    return result
