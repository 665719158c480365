"""Agent-as-tool, framework-neutral: guards, run scope, cost report, fan-out."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from opentelemetry.trace import Span
from pydantic import BaseModel, ConfigDict, Field, create_model

from agent_sdk import _spans
from agent_sdk import semconv as sc
from agent_sdk.context import CallContext, current_context, new_id, use_context
from agent_sdk.errors import ConfigurationError, ErrorKind, HierarchyLimitError, ToolError
from agent_sdk.extraction import AgentResponse, ReturnMode, Usage, check_return_mode, extract
from agent_sdk.spec import ToolSpec

log = logging.getLogger("agent_sdk.hierarchy")


@dataclass(frozen=True)
class HierarchyLimits:
    """Guards for one run. ``max_depth`` counts sub-agents in the path (the orchestrator's
    children are at depth 1); ``max_model_calls`` is the run's model-call budget."""

    max_depth: int = 2
    max_model_calls: int | None = None
    child_timeout: float | None = None
    max_parallel: int | None = None

    def __post_init__(self) -> None:
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
        self.active = 0  # sub-agents running now
        # One bound per parent: siblings share it, a child never waits for its parent's slot.
        self._semaphores: dict[tuple[str, ...], asyncio.Semaphore] = {}

    def semaphore(self, parent_path: tuple[str, ...]) -> asyncio.Semaphore | None:
        if not self.limits.max_parallel:
            return None
        return self._semaphores.setdefault(parent_path, asyncio.Semaphore(self.limits.max_parallel))

    @property
    def remaining(self) -> int | None:
        if self.limits.max_model_calls is None:
            return None
        return max(self.limits.max_model_calls - self.spent, 0)

    def charge(self, path: str, usage: Usage) -> None:
        self.spent += usage.model_calls
        self.report.add(path, usage)

    def record_usage(self, path: tuple[str, ...] | str, usage: Usage) -> None:
        """Add usage that did not come through an agent tool (the orchestrator's own calls)."""
        key = path if isinstance(path, str) else "/".join(path)
        self.spent += usage.model_calls
        self.report.add(key, usage, calls=0)


_run: contextvars.ContextVar[RunState | None] = contextvars.ContextVar(
    "agent_sdk_run", default=None
)


def current_run() -> RunState | None:
    return _run.get()


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
    parent = current_context()
    run = current_run()
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
        extra=dict(extra or {}),
    )


# Approvals a sub-agent's tools are waiting on, collected while the sub-agent runs so that
# extraction can surface them whatever the framework does with the tool's result.
_pending_sink: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "agent_sdk_pending_approvals", default=None
)


def note_pending_approval(approval_id: str) -> None:
    """Record that a tool in the running sub-agent is waiting for ``approval_id``."""
    sink = _pending_sink.get()
    if sink is not None and approval_id not in sink:
        sink.append(approval_id)


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
        self._stack: list[Any] = []

    @property
    def run_id(self) -> str:
        return self.state.run_id

    @property
    def report(self) -> RunReport:
        return self.state.report

    def __enter__(self) -> RunState:
        span_cm = _spans.span(
            f"{sc.OP_INVOKE_WORKFLOW} {self.name}",
            attributes={
                sc.GEN_AI_OPERATION_NAME: sc.OP_INVOKE_WORKFLOW,
                sc.GEN_AI_WORKFLOW_NAME: self.name,
                sc.RUN_ID: self.state.run_id,
                sc.PATH: "",
                sc.DEPTH: 0,
            },
        )
        span = span_cm.__enter__()
        run_token = _run.set(self.state)
        parent = current_context()
        ctx_cm = use_context(
            CallContext(run_id=self.state.run_id, thread_id=parent.thread_id if parent else None)
        )
        ctx_cm.__enter__()
        self._stack.append((span_cm, span, run_token, ctx_cm))
        return self.state

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        span_cm, span, run_token, ctx_cm = self._stack.pop()
        ctx_cm.__exit__(exc_type, exc, tb)
        _run.reset(run_token)
        _set_usage(span, self.state.report.total)
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


class AgentRequest(BaseModel):
    """Default input of an agent tool: the child sees only this text."""

    model_config = ConfigDict(extra="forbid")
    request: str = Field(
        description=(
            "Pass the full text the sub-agent needs: it sees only this, never your conversation."
        )
    )


Invoke = Callable[[Any, CallContext], Awaitable[AgentResponse]]


def agent_tool(
    invoke: Invoke,
    *,
    name: str,
    description: str,
    input_schema: type[BaseModel] | Mapping[str, Any] | None = None,
    return_mode: ReturnMode = "last",
    timeout: float | None = None,
    provider: str = "agent_sdk",
    confirm: bool | Callable[[BaseModel], bool] = False,
) -> ToolSpec:
    """A ToolSpec that runs a sub-agent through ``invoke(request, ctx) -> AgentResponse``.

    ``request`` is the ``request`` string with the default input, else the validated
    arguments as a dict. ``ctx`` is the child's context (path and depth already include the
    child). The run's guards apply before the child runs; its usage is charged to the run.
    """
    mode = check_return_mode(return_mode)
    if timeout is not None and not timeout > 0:
        raise ConfigurationError(f"agent tool {name!r}: timeout must be > 0 seconds")
    default_input = input_schema is None
    model: type[BaseModel] | None = None
    schema: Mapping[str, Any] | None = None
    if input_schema is None:
        model = create_model(_model_name(name), __base__=AgentRequest)
    elif isinstance(input_schema, type) and issubclass(input_schema, BaseModel):
        model = input_schema
    elif isinstance(input_schema, Mapping):
        schema = input_schema
    else:
        raise ConfigurationError(
            f"agent tool {name!r}: input_schema must be a pydantic model or a JSON schema"
        )

    async def run_child(ctx: CallContext, **arguments: Any) -> str:
        request: Any = arguments["request"] if default_input else arguments
        return await call_agent(
            invoke, request, ctx, name=name, mode=mode, timeout=timeout, provider=provider
        )

    return ToolSpec(
        name=name,
        description=description,
        handler=run_child,
        input_model=model,
        input_schema=schema,
        confirm=confirm,
        tags=frozenset({"agent"}),
    )


def _model_name(name: str) -> str:
    return "".join(p.capitalize() for p in name.replace("-", "_").split("_") if p) + "Request"


async def call_agent(
    invoke: Invoke,
    request: Any,
    parent: CallContext | None,
    *,
    name: str,
    mode: ReturnMode = "last",
    timeout: float | None = None,
    provider: str = "agent_sdk",
) -> str:
    """Run one sub-agent under the run's guards; the text for the parent, or ToolError."""
    parent = parent or current_context() or CallContext.new()
    run = _run.get()
    if run is None:  # a call made outside any run_scope: guards still apply, per call tree
        token = _run.set(RunState(parent.run_id, HierarchyLimits()))
        try:
            return await call_agent(
                invoke, request, parent, name=name, mode=mode, timeout=timeout, provider=provider
            )
        finally:
            _run.reset(token)
    path = (*parent.path, name)
    depth = len(path)
    limits = run.limits
    if depth > limits.max_depth:
        raise ToolError(
            ErrorKind.DEPTH_EXCEEDED,
            f"cannot call sub-agent '{name}': the hierarchy is limited to depth "
            f"{limits.max_depth} (path {'/'.join(path)}). Answer with the data you have "
            "and say what is missing.",
            tool=name,
        )
    if name in parent.path:
        raise ToolError(
            ErrorKind.RECURSION,
            f"cannot call sub-agent '{name}': it is already in the call path "
            f"{'/'.join(path)}. Answer with the data you have.",
            tool=name,
        )
    if run.remaining == 0:
        raise HierarchyLimitError(
            f"the run's budget of {limits.max_model_calls} model calls is spent; "
            f"sub-agent '{name}' was not started",
            tool=name,
        )
    path_text = "/".join(path)
    child = CallContext(run_id=parent.run_id, path=path)
    wait = timeout or limits.child_timeout
    logging_on = log.isEnabledFor(logging.INFO)
    started = 0.0
    if logging_on:
        started = time.monotonic()
        log.info(
            "sub-agent start",
            extra={"run_id": run.run_id, "depth": depth, "path": path_text, "agent": name},
        )
    outcome = "error"
    usage: Usage | None = None
    semaphore = run.semaphore(parent.path)
    try:
        if semaphore is not None:
            await semaphore.acquire()
        try:
            with _agent_span(parent, path, name, provider) as span:
                run.active += 1
                try:
                    response = await _invoke_child(invoke, request, child, wait, name)
                finally:
                    run.active -= 1
                usage = response.usage
                if not usage.input_chars:
                    usage.input_chars = len(request if isinstance(request, str) else str(request))
                run.charge(path_text, usage)
                text = extract(response, mode, agent=name)
                if span.is_recording():
                    _set_usage(span, usage)
                    _spans.mark_ok(span)
                outcome = "ok"
                return text
        finally:
            if semaphore is not None:
                semaphore.release()
    except ToolError as exc:
        outcome = exc.kind.value
        raise
    except asyncio.CancelledError:
        outcome = "cancelled"
        raise
    finally:
        if logging_on:
            log.info(
                "sub-agent end",
                extra={
                    "run_id": run.run_id,
                    "depth": depth,
                    "path": path_text,
                    "agent": name,
                    "outcome": outcome,
                    "model_calls": usage.model_calls if usage is not None else 0,
                    "duration_s": round(time.monotonic() - started, 6),
                },
            )


def _agent_span(
    parent: CallContext, path: tuple[str, ...], name: str, provider: str
) -> AbstractContextManager[Span]:
    def attributes() -> dict[str, Any]:
        attrs = _spans.base_attributes(parent, path)
        attrs[sc.GEN_AI_OPERATION_NAME] = sc.OP_INVOKE_AGENT
        attrs[sc.GEN_AI_AGENT_NAME] = name
        attrs[sc.GEN_AI_PROVIDER_NAME] = provider
        attrs[sc.DEPTH] = len(path)
        return attrs

    return _spans.span(f"{sc.OP_INVOKE_AGENT} {name}", attributes=attributes)


async def _invoke_child(
    invoke: Invoke, request: Any, child: CallContext, wait: float | None, name: str
) -> AgentResponse:
    sink: list[str] = []
    sink_token = _pending_sink.set(sink)
    try:
        with use_context(child):
            if wait is None:
                response = await invoke(request, child)
            else:
                # The child runs in its own task so a timeout cancels it cleanly and the
                # parent gets an explicit error instead of a hang or a stray CancelledError.
                task = asyncio.ensure_future(invoke(request, child))
                try:
                    response = await asyncio.wait_for(task, wait)
                except TimeoutError:
                    if not task.done() or task.cancelled():
                        raise ToolError(
                            ErrorKind.TOOL_TIMEOUT,
                            f"sub-agent '{name}' did not answer within {wait:g}s; answer "
                            "without it and say what is missing",
                            tool=name,
                        ) from None
                    raise
    finally:
        _pending_sink.reset(sink_token)
    if not isinstance(response, AgentResponse):
        raise ToolError(
            ErrorKind.TOOL_FAILED,
            f"sub-agent '{name}' returned {type(response).__name__}, not an AgentResponse",
            tool=name,
        )
    for approval_id in sink:
        if approval_id not in response.pending_approvals:
            response.pending_approvals.append(approval_id)
    return response


def _set_usage(span: Span, usage: Usage) -> None:
    span.set_attribute(sc.GEN_AI_USAGE_INPUT_TOKENS, usage.input_tokens)
    span.set_attribute(sc.GEN_AI_USAGE_OUTPUT_TOKENS, usage.output_tokens)
    span.set_attribute(sc.MODEL_CALLS, usage.model_calls)
    span.set_attribute(sc.INPUT_CHARS, usage.input_chars)


# -- orchestration in code -----------------------------------------------------------------
@dataclass
class FanOutResult:
    """Results by name, plus the names that timed out and the errors: nothing is silent."""

    results: dict[str, Any]
    timed_out: list[str]
    errors: dict[str, BaseException]

    @property
    def complete(self) -> bool:
        return not self.timed_out and not self.errors

    @property
    def missing(self) -> list[str]:
        return [*self.timed_out, *self.errors]


async def fan_out(
    calls: Mapping[str, Callable[[], Awaitable[Any]]],
    *,
    timeout: float | None = None,
    max_parallel: int | None = None,
) -> FanOutResult:
    """Run every ``name: coroutine_factory`` in parallel; report timeouts and errors by name.

    ``timeout`` applies to each call; ``max_parallel`` bounds how many run at once (the rest
    wait their turn, none is dropped). Cancelling fan_out cancels every call.
    """
    if max_parallel is not None and max_parallel < 1:
        raise ConfigurationError("max_parallel must be at least 1")
    semaphore = asyncio.Semaphore(max_parallel) if max_parallel else None
    results: dict[str, Any] = {}
    timed_out: list[str] = []
    errors: dict[str, BaseException] = {}

    async def one(name: str, factory: Callable[[], Awaitable[Any]]) -> None:
        if semaphore is not None:
            await semaphore.acquire()
        try:
            if timeout is None:
                results[name] = await factory()
            else:
                results[name] = await asyncio.wait_for(factory(), timeout)
        except TimeoutError:
            timed_out.append(name)
        except Exception as exc:
            errors[name] = exc
        finally:
            if semaphore is not None:
                semaphore.release()

    await asyncio.gather(*(one(n, f) for n, f in calls.items()))
    position = {name: i for i, name in enumerate(calls)}
    timed_out.sort(key=position.__getitem__)
    return FanOutResult({n: results[n] for n in calls if n in results}, timed_out, errors)


DEFAULT_SEVERITY = ("approve", "approve_with_changes", "request_changes", "reject")


def harshest(
    verdicts: Sequence[str] | Mapping[str, str], order: Sequence[str] = DEFAULT_SEVERITY
) -> str:
    """The harshest verdict by ``order`` (mildest first). Unknown verdicts are an error."""
    values = list(verdicts.values()) if isinstance(verdicts, Mapping) else list(verdicts)
    if not values:
        raise ValueError("no verdicts to aggregate")
    unknown = [v for v in values if v not in order]
    if unknown:
        raise ValueError(f"unknown verdicts {unknown}; known: {list(order)}")
    return max(values, key=order.index)
