"""Agent-as-tool, framework-neutral: the child's guards, its span, fan-out, history modes."""

from __future__ import annotations

import asyncio
import logging
import time
import warnings
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Literal, cast

from opentelemetry.trace import Span
from pydantic import BaseModel, ConfigDict, Field, create_model

from agent_sdk._compat import wait_for
from agent_sdk.context import CallContext
from agent_sdk.context import _current as _CURRENT_CONTEXT
from agent_sdk.errors import ConfigurationError, ErrorKind, HierarchyLimitError, ToolError
from agent_sdk.extraction import ReturnMode, check_return_mode, extract
from agent_sdk.names import model_name
from agent_sdk.response import AgentResponse, Usage
from agent_sdk.run import (
    CHILD_VAR,
    RUN_VAR,
    ChildFrame,
    HierarchyLimits,
    RunState,
    refusing_detached,
)
from agent_sdk.spec import ToolSpec
from agent_sdk.tracing import semconv as sc
from agent_sdk.tracing import spans as _spans
from agent_sdk.tracing.spans import NO_SPAN_VALUE, tracing_enabled

log = logging.getLogger("agent_sdk.hierarchy")


class AgentRequest(BaseModel):
    """Default input of an agent tool: the child sees only this text."""

    model_config = ConfigDict(extra="forbid")
    request: str = Field(
        description=(
            "Pass the full text the sub-agent needs: it sees only this, never your conversation."
        )
    )


Invoke = Callable[[Any, CallContext], Awaitable[AgentResponse]]


@dataclass(frozen=True)
class AgentToolSettings:
    """What every agent tool is configured with, already checked by the core (a valid tool
    name, a known return mode and a history mode the integration supports). An integration's
    ``agent_spec`` gets it and builds the spec with ``settings.spec(invoke, provider=...)``."""

    name: str
    description: str
    return_mode: ReturnMode = "last"
    history: HistoryMode = "fresh"
    timeout: float | None = None
    input_schema: type[BaseModel] | Mapping[str, Any] | None = None

    def spec(
        self,
        invoke: Invoke,
        *,
        provider: str = "agent_sdk",
        confirm: bool | Callable[[BaseModel], bool] = False,
    ) -> ToolSpec:
        """The ToolSpec running ``invoke`` as this agent tool (see ``agent_tool``)."""
        return agent_tool(
            invoke,
            name=self.name,
            description=self.description,
            input_schema=self.input_schema,
            return_mode=self.return_mode,
            timeout=self.timeout,
            provider=provider,
            confirm=confirm,
        )


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
        model = create_model(model_name(name), __base__=AgentRequest)
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
    parent = parent or _CURRENT_CONTEXT.get() or CallContext.new()
    run = RUN_VAR.get()
    if run is None and (refusing := refusing_detached()) is not None:
        raise ToolError(
            ErrorKind.DEPTH_EXCEEDED,
            f"cannot call sub-agent '{name}': it was called with no run in its context while "
            f"run {refusing} (detached='refuse') is open; code that starts sub-agents in "
            "another thread must copy the context (asyncio.to_thread, or "
            "contextvars.copy_context().run)",
            tool=name,
            detail="started with no run in its context while a detached='refuse' run is open",
        )
    if run is None:  # a call made outside any run_scope: guards still apply, per call tree
        token = RUN_VAR.set(RunState(parent.run_id, HierarchyLimits()))
        try:
            return await call_agent(
                invoke, request, parent, name=name, mode=mode, timeout=timeout, provider=provider
            )
        finally:
            RUN_VAR.reset(token)
    parent_path = parent.path
    path = (*parent_path, name)
    depth = len(path)
    limits = run.limits
    if depth > limits.max_depth:
        raise ToolError(
            ErrorKind.DEPTH_EXCEEDED,
            f"cannot call sub-agent '{name}': the hierarchy is limited to depth "
            f"{limits.max_depth} (path {'/'.join(path)}). Answer with the data you have "
            "and say what is missing.",
            tool=name,
            detail=f"depth limit {limits.max_depth} at {'/'.join(path)}",
        )
    if name in parent_path:
        raise ToolError(
            ErrorKind.RECURSION,
            f"cannot call sub-agent '{name}': it is already in the call path "
            f"{'/'.join(path)}. Answer with the data you have.",
            tool=name,
            detail=f"'{name}' already in the path {'/'.join(path)}",
        )
    reserved = limits.max_model_calls is not None  # the budget holds one call for it
    if reserved and not run.reserve():
        held = f", {run.reserved} held by running sub-agents" if run.reserved else ""
        raise HierarchyLimitError(
            f"the run's budget of {limits.max_model_calls} model calls is spent "
            f"({run.spent} used{held}); sub-agent '{name}' was not started",
            tool=name,
            detail=f"budget of {limits.max_model_calls} model calls spent ({run.spent} used)",
        )
    path_text = "/".join(path)
    child = run.child_context(parent.run_id, path)
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
    ran = False  # got its max_parallel slot: from here on it may be making model calls
    frame = ChildFrame()
    semaphore = run.semaphore(parent_path) if limits.max_parallel else None
    try:
        if semaphore is not None:
            await semaphore.acquire()
        try:
            ran = True
            # The span's block, entered and left by hand: while tracing is off there is no
            # span, not even a no-op block (most of a child's own cost, with the context).
            recording = _agent_span(parent, path, name, provider) if tracing_enabled() else None
            span = NO_SPAN_VALUE if recording is None else recording.__enter__()
            try:
                run.active += 1
                frame_token = CHILD_VAR.set(frame)
                context_token = _CURRENT_CONTEXT.set(child)  # use_context(child), no object
                try:
                    if wait is None:
                        response = await invoke(request, child)
                    else:
                        response = await _with_timeout(invoke(request, child), wait, name)
                finally:
                    _CURRENT_CONTEXT.reset(context_token)
                    CHILD_VAR.reset(frame_token)
                    run.active -= 1
                if not isinstance(response, AgentResponse):
                    raise ToolError(
                        ErrorKind.TOOL_FAILED,
                        f"sub-agent '{name}' returned {type(response).__name__}, "
                        "not an AgentResponse",
                        tool=name,
                    )
                if frame.pending:
                    _surface_pending(response, frame.pending)
                usage = response.usage
                if not usage.input_chars:
                    usage.input_chars = len(request if isinstance(request, str) else str(request))
                run.settle(path_text, usage, reserved=reserved)
                reserved = False
                text = extract(response, mode, agent=name)
                if recording is not None and span.is_recording():
                    _spans.set_usage(span, usage)
                    _spans.mark_ok(span)
            except BaseException as exc:
                if recording is not None:
                    recording.__exit__(type(exc), exc, exc.__traceback__)
                raise
            if recording is not None:
                recording.__exit__(None, None, None)
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
        if not ran:  # cancelled while waiting for its slot: no model call, no charge
            run.release(reserved=reserved)
        elif usage is None:  # failed, timed out or cancelled: charge what it was seen using
            meter = frame.meter or Usage()
            usage = Usage(
                input_tokens=meter.input_tokens,
                output_tokens=meter.output_tokens,
                model_calls=max(meter.model_calls, 1),
                input_chars=meter.input_chars,
            )
            run.settle(path_text, usage, reserved=reserved)
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


async def _with_timeout(call: Awaitable[AgentResponse], wait: float, name: str) -> AgentResponse:
    """The child in its own task, so a timeout cancels it cleanly and the parent gets an
    explicit error instead of a hang or a stray CancelledError."""
    task = asyncio.ensure_future(call)
    try:
        return await wait_for(task, wait)
    except TimeoutError:
        if not task.done() or task.cancelled():
            raise ToolError(
                ErrorKind.TOOL_TIMEOUT,
                f"sub-agent '{name}' did not answer within {wait:g}s; answer "
                "without it and say what is missing",
                tool=name,
                detail=f"no answer within {wait:g}s",
            ) from None
        raise


def _surface_pending(response: AgentResponse, pending: list[str]) -> None:
    """Approvals the child's tools wait on reach the caller whatever the framework did with
    the tools' results."""
    for approval_id in pending:
        if approval_id not in response.pending_approvals:
            response.pending_approvals.append(approval_id)


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
    if timeout is None and not max_parallel:  # no wrapper coroutine per call
        started: list[Awaitable[Any]] = []
        for factory in calls.values():  # a failed future for a factory that raises
            try:
                started.append(factory())
            except Exception as exc:
                started.append(_failed(exc))
        outcomes = await asyncio.gather(*started, return_exceptions=True)
        return _sorted_out(calls, outcomes)
    semaphore = asyncio.Semaphore(max_parallel) if max_parallel else None

    async def one(factory: Callable[[], Awaitable[Any]]) -> Any:
        async with semaphore or nullcontext():
            call = factory()
            return await (call if timeout is None else wait_for(call, timeout))

    outcomes = await asyncio.gather(*(one(f) for f in calls.values()), return_exceptions=True)
    return _sorted_out(calls, outcomes)


def _failed(exc: Exception) -> Awaitable[Any]:
    """A failed future, for a factory that raised: its error is reported by name like any
    other call's."""
    failed = asyncio.get_running_loop().create_future()
    failed.set_exception(exc)
    return failed


def _sorted_out(calls: Mapping[str, Any], outcomes: list[Any]) -> FanOutResult:
    """Results, timeouts and errors by name, in the order of ``calls``, from
    ``gather(..., return_exceptions=True)``. A call cancelled from inside (the others went
    on) cancels fan_out too, once all have ended: nothing is left running."""
    results: dict[str, Any] = {}
    timed_out: list[str] = []
    errors: dict[str, BaseException] = {}
    cancelled: BaseException | None = None
    for name, outcome in zip(calls, outcomes, strict=True):
        if not isinstance(outcome, BaseException):
            results[name] = outcome
        elif isinstance(outcome, TimeoutError):
            timed_out.append(name)
        elif isinstance(outcome, Exception):
            errors[name] = outcome
        elif cancelled is None:
            cancelled = outcome
    if cancelled is not None:
        raise cancelled
    return FanOutResult(results, timed_out, errors)


# -- history --------------------------------------------------------------------------------
HistoryMode = Literal["fresh", "fork", "shared"]
"""What a sub-agent remembers between calls, the same words in every integration:

- ``"fresh"``: every call starts a child with no history (parallel calls never share one);
- ``"fork"``: every call starts from a copy of the agent's own history; what the call adds
  is dropped afterwards;
- ``"shared"``: calls continue the agent's own conversation (what a call adds stays).
"""

HISTORY_MODES: tuple[HistoryMode, ...] = ("fresh", "fork", "shared")
_RENAMED_HISTORY: dict[str, HistoryMode] = {"scratch": "fresh", "fork_and_merge": "shared"}


def check_history(
    mode: object, *, supported: tuple[str, ...] = HISTORY_MODES, integration: str
) -> HistoryMode:
    """``mode`` if it is a history mode ``integration`` supports, else ConfigurationError.

    The names fast-agent's plugin used before 0.2 (``"scratch"``, ``"fork_and_merge"``) are
    accepted with a DeprecationWarning."""
    if isinstance(mode, str) and mode in _RENAMED_HISTORY:
        new = _RENAMED_HISTORY[mode]
        warnings.warn(f"history={mode!r} is now history={new!r}", DeprecationWarning, stacklevel=3)
        mode = new
    if mode not in supported:
        raise ConfigurationError(
            f"{integration}: history={mode!r} is not supported; use one of "
            f"{', '.join(repr(m) for m in supported)}"
        )
    return cast(HistoryMode, mode)
