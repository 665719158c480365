"""A run: one hierarchy's id, limits, counters, cost report and root span."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal

from agent_sdk.context import NO_EXTRA, CallContext, current_context, new_id, use_context
from agent_sdk.context import _current as _CURRENT_CONTEXT
from agent_sdk.errors import ConfigurationError
from agent_sdk.response import Usage
from agent_sdk.tracing import semconv as sc
from agent_sdk.tracing import spans as _spans


@dataclass(frozen=True)
class HierarchyLimits:
    """Guards for one run. ``max_depth`` counts sub-agents in the path (the orchestrator's
    children are at depth 1); ``max_model_calls`` is the run's model-call budget."""

    max_depth: int = 2
    max_model_calls: int | None = None
    child_timeout: float | None = None
    max_parallel: int | None = None
    detached: Literal["new-run", "refuse"] = "new-run"
    """What a sub-agent called with no run in its context does while this run is open: a
    thread that did not copy the context (``loop.run_in_executor``, ``threading.Thread``)
    looks exactly like a new root run. ``"new-run"`` (default) starts one with default
    limits; ``"refuse"`` refuses it with ``depth-exceeded`` naming the fix, for processes
    in which every sub-agent belongs to a ``run_scope``."""

    def __post_init__(self) -> None:
        if self.detached not in ("new-run", "refuse"):
            raise ConfigurationError(
                f"detached must be 'new-run' or 'refuse', not {self.detached!r}"
            )
        if self.max_depth < 1:
            raise ConfigurationError("max_depth must be at least 1")
        if self.max_model_calls is not None and self.max_model_calls < 0:
            raise ConfigurationError("max_model_calls must be >= 0")
        if self.child_timeout is not None and not self.child_timeout > 0:
            raise ConfigurationError("child_timeout must be > 0 seconds")
        if self.max_parallel is not None and self.max_parallel < 1:
            raise ConfigurationError("max_parallel must be at least 1")


@dataclass
class PathCost:
    calls: int = 0
    usage: Usage = field(default_factory=Usage)


@dataclass
class RunReport:
    """What a run cost, per path ("legal/tax") and in total."""

    run_id: str
    per_path: dict[str, PathCost] = field(default_factory=dict)

    @property
    def total(self) -> Usage:
        total = Usage()
        for cost in self.per_path.values():
            total.add(cost.usage)
        return total

    @property
    def model_calls(self) -> int:
        return self.total.model_calls

    def add(self, path: str, usage: Usage, *, calls: int = 1) -> None:
        cost = self.per_path.get(path)
        if cost is None:
            cost = self.per_path[path] = PathCost()
        cost.calls += calls
        cost.usage.add(usage)

    def as_dict(self) -> dict[str, Any]:
        total = self.total
        return {
            "run_id": self.run_id,
            "total": vars(total).copy(),
            "per_path": {p: {"calls": c.calls, **vars(c.usage)} for p, c in self.per_path.items()},
        }

    def format(self) -> str:
        rows = [
            f"{'path':<28} {'calls':>5} {'model':>5} {'in tok':>7} {'out tok':>7} {'in chars':>9}"
        ]
        for path, cost in sorted(self.per_path.items()):
            u = cost.usage
            rows.append(
                f"{path or '(root)':<28} {cost.calls:>5} {u.model_calls:>5} {u.input_tokens:>7}"
                f" {u.output_tokens:>7} {u.input_chars:>9}"
            )
        t = self.total
        rows.append(
            f"{'total':<28} {sum(c.calls for c in self.per_path.values()):>5} {t.model_calls:>5}"
            f" {t.input_tokens:>7} {t.output_tokens:>7} {t.input_chars:>9}"
        )
        return "\n".join(rows)


class RunState:
    """Counters and limits shared by every call of one hierarchy (in one process)."""

    def __init__(self, run_id: str, limits: HierarchyLimits, *, spent: int = 0) -> None:
        self.run_id = run_id
        self.limits = limits
        self.report = RunReport(run_id)
        self.spent = spent  # model calls counted against the budget, incl. a remote parent's
        self.reserved = 0  # one call held by every sub-agent running now, until it settles
        self.active = 0  # sub-agents running now
        # One bound per parent: siblings share it, a child never waits for its parent's slot.
        self._semaphores: dict[tuple[str, ...], asyncio.Semaphore] = {}
        self._contexts: dict[tuple[str, ...], CallContext] = {}

    def child_context(self, run_id: str, path: tuple[str, ...]) -> CallContext:
        """The CallContext a sub-agent at ``path`` runs with (no thread, call id, token or
        extra of its own). Made once per path: a CallContext is immutable, so siblings of
        one name (a fan-out of N) share one instead of making N equal ones."""
        ctx = self._contexts.get(path)
        if ctx is None or ctx.run_id != run_id:
            ctx = self._contexts[path] = CallContext(run_id, None, None, path)
        return ctx

    def semaphore(self, parent_path: tuple[str, ...]) -> asyncio.Semaphore | None:
        if not self.limits.max_parallel:
            return None
        return self._semaphores.setdefault(parent_path, asyncio.Semaphore(self.limits.max_parallel))

    @property
    def remaining(self) -> int | None:
        """Model calls left: the budget less what was spent and what running sub-agents
        hold; None without a budget."""
        if self.limits.max_model_calls is None:
            return None
        return max(self.limits.max_model_calls - self.spent - self.reserved, 0)

    def reserve(self) -> bool:
        """Hold one model call for a sub-agent about to start; False when none is left."""
        if self.limits.max_model_calls is None:
            return True
        if self.remaining == 0:
            return False
        self.reserved += 1
        return True

    def release(self, *, reserved: bool) -> None:
        """Drop a sub-agent's hold without charging it (it never started)."""
        if reserved and self.limits.max_model_calls is not None:
            self.reserved -= 1

    def settle(self, path: str, usage: Usage, *, reserved: bool) -> None:
        """A sub-agent ended (whatever the outcome): release its hold, charge its usage."""
        self.release(reserved=reserved)
        self.charge(path, usage)

    def charge(self, path: str, usage: Usage) -> None:
        self.spent += usage.model_calls
        self.report.add(path, usage)

    def record_usage(self, path: tuple[str, ...] | str, usage: Usage) -> None:
        """Add usage that did not come through an agent tool (the orchestrator's own calls)."""
        key = path if isinstance(path, str) else "/".join(path)
        self.spent += usage.model_calls
        self.report.add(key, usage, calls=0)


RUN_VAR: contextvars.ContextVar[RunState | None] = contextvars.ContextVar(
    "agent_sdk_run", default=None
)

# Runs open in this process with ``detached="refuse"`` (run id -> open scopes).
_REFUSING: dict[str, int] = {}
_REFUSING_LOCK = threading.Lock()


def refusing_detached() -> str | None:
    """The id of an open run that refuses detached sub-agents, if any."""
    with _REFUSING_LOCK:
        return next(iter(_REFUSING), None)


def _refuse_detached(run_id: str, delta: int) -> None:
    with _REFUSING_LOCK:
        count = _REFUSING.get(run_id, 0) + delta
        if count > 0:
            _REFUSING[run_id] = count
        else:
            _REFUSING.pop(run_id, None)


def current_run() -> RunState | None:
    return RUN_VAR.get()


def bind_call(
    *,
    call_id: str | None,
    conversation_id: str | None,
    thread_id: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> CallContext:
    """The CallContext of a tool call a framework is making now.

    Integrations call this from their context binding. The run id is the active
    run_scope's, else the parent call's (so a whole hierarchy shares it), else the
    framework's own conversation id. ``thread_id`` defaults to the conversation id; the
    path is the parent's (the sub-agents this call runs inside).
    """
    parent = _CURRENT_CONTEXT.get()  # current_context(), current_run(): one call each less
    run = RUN_VAR.get()
    if run is not None:
        run_id = run.run_id
    elif parent is not None:
        run_id = parent.run_id
    else:
        run_id = conversation_id or new_id("run")
    return CallContext(
        run_id=run_id,
        thread_id=thread_id or conversation_id,
        call_id=call_id,
        path=parent.path if parent is not None else (),
        extra=dict(extra) if extra else NO_EXTRA,
    )


class ChildFrame:
    """What one running sub-agent collects for its caller, in one contextvar (``CHILD_VAR``):
    the usage its plugin has seen so far (``note_usage``; charged if the child fails or
    times out before it can return an AgentResponse), and the approvals its tools are
    waiting on (``note_pending_approval``; extraction surfaces them whatever the framework
    does with the tool's result)."""

    __slots__ = ("meter", "pending")

    def __init__(self) -> None:
        # Made by the first note: most children have none.
        self.meter: Usage | None = None
        self.pending: list[str] | None = None


CHILD_VAR: contextvars.ContextVar[ChildFrame | None] = contextvars.ContextVar(
    "agent_sdk_child", default=None
)


def note_usage(usage: Usage) -> None:
    """Tell the run what the running sub-agent has used (call it as model calls happen).

    On success the child's ``AgentResponse.usage`` is charged; if it fails, times out or is
    cancelled, what was noted here is (at least one call: it started)."""
    frame = CHILD_VAR.get()
    if frame is not None:
        if frame.meter is None:
            frame.meter = Usage()
        frame.meter.add(usage)


def note_pending_approval(approval_id: str) -> None:
    """Record that a tool in the running sub-agent is waiting for ``approval_id``."""
    frame = CHILD_VAR.get()
    if frame is None:
        return
    if frame.pending is None:
        frame.pending = [approval_id]
    elif approval_id not in frame.pending:
        frame.pending.append(approval_id)


class run_scope:
    """Open a run: one run id, one set of limits and counters, one root span.

    Works as a sync or async context manager. Everything started inside (tool calls,
    sub-agents, tasks) shares the run id and the guards.
    """

    def __init__(
        self,
        run_id: str | None = None,
        *,
        limits: HierarchyLimits | None = None,
        name: str = "run",
    ) -> None:
        self.state = RunState(run_id or new_id("run"), limits or HierarchyLimits())
        self.name = name
        self._at: CallContext | None = None
        self._stack: list[Any] = []

    @classmethod
    def continuing(
        cls, ctx: CallContext, limits: HierarchyLimits, *, name: str = "run"
    ) -> run_scope:
        """The run_scope of a run another process started (``continue_run``): its run id,
        and the caller's path and depth in the context, on the root span and in the report."""
        scope = cls(ctx.run_id, limits=limits, name=name)
        scope._at = ctx
        return scope

    @property
    def run_id(self) -> str:
        return self.state.run_id

    @property
    def report(self) -> RunReport:
        return self.state.report

    def __enter__(self) -> RunState:
        path = self._at.path if self._at is not None else ()
        span_cm = _spans.span(
            f"{sc.OP_INVOKE_WORKFLOW} {self.name}",
            attributes={
                sc.GEN_AI_OPERATION_NAME: sc.OP_INVOKE_WORKFLOW,
                sc.GEN_AI_AGENT_NAME: self.name,
                sc.GEN_AI_WORKFLOW_NAME: self.name,
                sc.GEN_AI_PROVIDER_NAME: sc.PROVIDER,
                sc.RUN_ID: self.state.run_id,
                sc.PATH: "/".join(path) or sc.ROOT_PATH,
                sc.DEPTH: len(path),
            },
        )
        span = span_cm.__enter__()
        run_token = RUN_VAR.set(self.state)
        parent = current_context()
        ctx_cm = use_context(
            self._at
            or CallContext(run_id=self.state.run_id, thread_id=parent.thread_id if parent else None)
        )
        ctx_cm.__enter__()
        self._stack.append((span_cm, span, run_token, ctx_cm))
        if self.state.limits.detached == "refuse":
            _refuse_detached(self.state.run_id, 1)
        return self.state

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        span_cm, span, run_token, ctx_cm = self._stack.pop()
        if self.state.limits.detached == "refuse":
            _refuse_detached(self.state.run_id, -1)
        ctx_cm.__exit__(exc_type, exc, tb)
        RUN_VAR.reset(run_token)
        _spans.set_usage(span, self.state.report.total)
        if exc is None:
            _spans.mark_ok(span)
        return span_cm.__exit__(exc_type, exc, tb)  # type: ignore[no-any-return]

    async def __aenter__(self) -> RunState:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        return self.__exit__(exc_type, exc, tb)
