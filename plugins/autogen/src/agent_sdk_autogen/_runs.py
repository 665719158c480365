"""Run identity and run control for AutoGen 0.7.

AutoGen's agentchat has no run or conversation id: the one object shared by everything in
one ``run()`` (the model calls and every tool call of that run) is its CancellationToken.
So the conversation id of a call is derived from its token.

AutoGen 0.7.5 also has two traps around ending a run while tools execute: cancelling the
token during a tool call makes ``agent.run`` wait forever (the tool task dies before it
signals the end of its event stream), and an exception cannot leave a tool without ending
in the same hang (the workbench turns every ``Exception`` into a result). ``run_linked``
closes both: the run executes in its own task, the token cancels that task, and a tool can
stop the run with an error that then reaches the caller.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import weakref
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from autogen_core import CancellationToken

from agent_sdk.integration import CallContext, ToolError, bind_call, new_id

if TYPE_CHECKING:
    from autogen_agentchat.base import TaskResult
    from autogen_agentchat.messages import BaseChatMessage

T = TypeVar("T")

_conversations: weakref.WeakKeyDictionary[CancellationToken, str] = weakref.WeakKeyDictionary()
_conversations_lock = threading.Lock()


def conversation_id(token: CancellationToken | None) -> str | None:
    """The conversation id of the AutoGen run that owns ``token`` (stable for the token)."""
    if token is None:
        return None
    with _conversations_lock:
        found = _conversations.get(token)
        if found is None:
            found = new_id("autogen")
            _conversations[token] = found
        return found


def bind_tool_call(call_id: str | None, token: CancellationToken | None) -> CallContext:
    """The CallContext of a tool call AutoGen is making now (call id + the run's token)."""
    conversation = conversation_id(token)
    return bind_call(call_id=call_id, conversation_id=conversation, thread_id=conversation)


class AutogenToolError(Exception):
    """A failed tool call, as raised into AutoGen so that it sets ``is_error=True``.

    ``str(exc)`` is the JSON error the model sees; ``error`` is the ToolError and
    ``exception`` the original exception (also ``__cause__``). AutoGen keeps only the text:
    ``agent_sdk.tool_error(call_id)`` gives the ToolError of a call the host saw, and
    :func:`collect_tool_errors` these objects for every failed call of a block.
    """

    def __init__(
        self, text: str, *, error: ToolError, call_id: str | None, path: tuple[str, ...] = ()
    ) -> None:
        super().__init__(text)
        self.text = text
        self.error = error
        self.call_id = call_id
        self.path = path

    @property
    def tool(self) -> str | None:
        return self.error.tool

    @property
    def exception(self) -> BaseException:
        """The original exception where there is one, else the ToolError."""
        return self.error.cause or self.error


_errors: contextvars.ContextVar[list[AutogenToolError] | None] = contextvars.ContextVar(
    "agent_sdk_autogen_tool_errors", default=None
)


@contextmanager
def collect_tool_errors() -> Iterator[list[AutogenToolError]]:
    """Collect the failed tool calls of the runs started in this block, sub-agents and team
    members included (``path`` says where: AutoGen does not stream a child's events, so the
    host never sees those call ids; for a call it saw, ``agent_sdk.tool_error(call_id)``).

    AutoGen turns a tool's exception into ``FunctionExecutionResult(content=str(exc),
    is_error=True)`` and drops the exception; this list keeps it for the host.
    """
    errors: list[AutogenToolError] = []
    token = _errors.set(errors)
    try:
        yield errors
    finally:
        _errors.reset(token)


def record_tool_error(error: AutogenToolError) -> None:
    sink = _errors.get()
    if sink is not None:
        sink.append(error)


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


async def autogen_run(
    runnable: Any,
    *,
    task: str | BaseChatMessage | Sequence[BaseChatMessage] | None = None,
    cancellation_token: CancellationToken | None = None,
    output_task_messages: bool = True,
) -> TaskResult:
    """``runnable.run(task=...)`` for an AutoGen agent or team, safe to cancel.

    Use it instead of ``run()`` when the run may be cancelled, or may exhaust a run_scope's
    budget: cancelling ``cancellation_token`` while a tool runs then raises CancelledError
    promptly (plain ``run()`` waits forever in AutoGen 0.7.5), cancelling the calling task
    stops the tool calls too, and budget exhaustion in a tool ends the run by raising
    HierarchyLimitError. The agent (or the team's agents) is first given this plugin's loop
    (``autogen_instrument``): malformed arguments reach its tools, streamed calls ask for usage.
    """
    from agent_sdk_autogen._agent_loop import adapt

    adapt(runnable)
    return await run_linked(
        lambda token: runnable.run(
            task=task, cancellation_token=token, output_task_messages=output_task_messages
        ),
        cancellation_token,
    )
