"""The bridge to AG2 tools: a FunctionTool that runs a spec through the executor (whose
approval gate decides each call once, after every tool middleware, so the port sees the
arguments that run), and the budget stop.

AG2 behaviours this module is written around (ag2 1.2):

* ``Agent(tools=[t])`` deep-copies ``t``. Our tool's ``__deepcopy__`` shares the spec, the
  executor and the gate (so copies share one port and one set of tokens); user middleware
  is copied as AG2 copies it for any tool.
* ``FunctionDefinition`` pops the top-level ``"title"`` from the schema dict it is given,
  in place: we hand it a fresh copy of the neutral schema.
* A tool's exception becomes a ``ToolErrorEvent`` whose text is AG2's formatted traceback.
  We build the event ourselves: its text is the executor's ``{"error": ...}`` JSON and its
  ``error`` the original exception.
* AG2 catches every ``Exception`` a tool or its middleware raises, so raising cannot stop
  a run. Budget exhaustion is returned as a ``ToolErrorEvent`` carrying the
  ``HierarchyLimitError``; an interrupter on the turn's ``ToolResultsEvent`` re-raises it
  before the model is called again, so ``ask()`` raises it.
* AG2 replays a stored call's arguments on every later model call, and its Chat
  Completions mapper re-parses them (``json.dumps(call.serialized_arguments)``,
  ``ag2/config/openai/mappers.py``, ``_assistant_message``): arguments that are not JSON
  make the next request raise ``JSONDecodeError`` out of ``ask()``, after our tool has
  answered. An interrupter on the model's response (``keep_arguments_valid``) stores a call
  to our tool whose arguments are not a JSON object with ``{}`` instead, before any
  subscriber (history storage included) sees it, and hands the model's text to the tool
  on the event: the model still gets our ``tool-args-invalid``, and the run goes on.
* ``TelemetryMiddleware`` wraps every tool in an ``execute_tool`` span. For our tools the
  executor's ``execute_tool`` span is the tool span (it carries run id, path, depth and
  outcome), so we leave AG2's telemetry out of our tools' middleware chain: one span per
  call, nested under AG2's ``invoke_agent`` span of the agent making the call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from contextlib import AsyncExitStack, ExitStack
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from ag2.events import (
    ModelResponse,
    ToolCallEvent,
    ToolErrorEvent,
    ToolResultEvent,
    ToolResultsEvent,
)
from ag2.middleware import BaseMiddleware
from ag2.tools import ToolResult
from ag2.tools.types import FunctionTool
from ag2.utils import build_model

from agent_sdk import Executor, HierarchyLimitError, ToolSpec
from agent_sdk.integration import ApprovalGate
from agent_sdk_ag2._context import bind_stream_call


# -- the arguments to run ---------------------------------------------------------------
def call_arguments(event: ToolCallEvent) -> Any:
    """The arguments to run: a dict a middleware set, else the model's raw JSON text (the
    executor parses it strictly and reports anything that is not a JSON object), also when
    ``keep_arguments_valid`` stored ``{}`` in its place."""
    cached = getattr(event, "_serialized_arguments", None)
    raw = getattr(event, _RAW, None)
    if isinstance(raw, _RawArguments) and cached is raw.stored and not cached:
        return raw.text  # no middleware set arguments since ``{}`` was stored
    return cached if cached is not None else event.arguments


# -- arguments AG2 can replay --------------------------------------------------------------
_RAW = "_agent_sdk_raw_arguments"  # AG2 serialises no "_" attribute of an event


@dataclass(frozen=True)
class _RawArguments:
    """The model's text of a call whose stored arguments ``keep_arguments_valid`` replaced;
    ``stored`` is the dict the stored call parses to (told apart from a middleware's)."""

    text: str
    stored: dict[str, Any]


def keep_arguments_valid(name: str) -> Any:
    """An AG2 stream interrupter on ``ModelResponse``: calls to tool ``name`` whose
    arguments are not a JSON object get ``{}`` as their stored arguments (what AG2 replays
    to the model and keeps in history); the model's text rides on the event for the tool."""

    async def interrupter(event: ModelResponse) -> ModelResponse:
        for call in event.tool_calls.calls if event.tool_calls else ():
            if call.name != name or isinstance(getattr(call, _RAW, None), _RawArguments):
                continue
            if not _json_object(call.arguments):
                stored: dict[str, Any] = {}
                setattr(call, _RAW, _RawArguments(call.arguments, stored))
                call.arguments = "{}"
                call.serialized_arguments = stored
        return event

    return interrupter


def _json_object(text: str) -> bool:
    """``text`` is a JSON object (strict: no NaN or Infinity, which JSON cannot carry)."""
    try:
        return isinstance(json.loads(text, parse_constant=_no_constant), dict)
    except (ValueError, TypeError, RecursionError):
        return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# -- the tool ------------------------------------------------------------------------------
async def _runs_through_the_executor(**_: Any) -> None:  # pragma: no cover - never called
    raise RuntimeError("agent-sdk tools run through their executor")


class AgentSDKTool(FunctionTool):
    """An AG2 FunctionTool that runs a ToolSpec through an agent-sdk Executor."""

    __slots__ = ("_gate", "executor", "spec")

    def __init__(
        self,
        spec: ToolSpec,
        *,
        executor: Executor,
        gate: ApprovalGate | None,
        middleware: Sequence[Any] = (),
    ) -> None:
        super().__init__(
            build_model(_runs_through_the_executor, serialize_result=False),
            name=spec.name,
            description=spec.description,
            schema=spec.json_schema(),  # a fresh copy: AG2 pops its "title" in place
            middleware=tuple(middleware),
        )
        self.spec = spec
        self.executor = executor
        self._gate = gate

    @property
    def source(self) -> str:
        handler = self.spec.handler
        module = getattr(handler, "__module__", None) or type(handler).__module__
        qualname = getattr(handler, "__qualname__", None) or type(handler).__qualname__
        return f"function:{module}:{qualname}:{self.name}"

    def __deepcopy__(self, memo: dict[int, Any]) -> AgentSDKTool:
        # AG2 deep-copies tools on registration; the copies must share the spec, the
        # executor and the gate (its port and tokens), as the original would.
        for shared in (self.spec, self.executor, self._gate, self.model):
            memo[id(shared)] = shared
        clone = object.__new__(type(self))
        memo[id(self)] = clone
        for cls in type(self).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if slot.startswith("__") or not hasattr(self, slot):
                    continue
                object.__setattr__(clone, slot, deepcopy(getattr(self, slot), memo))
        if hasattr(self, "__dict__"):  # ag2's Tool base has no __slots__
            clone.__dict__.update(deepcopy(self.__dict__, memo))
        return clone

    def register(
        self,
        stack: ExitStack | AsyncExitStack,
        context: Any,
        *,
        middleware: Iterable[BaseMiddleware] = (),
    ) -> None:
        # The executor's span is this tool's execute_tool span: AG2's telemetry would add a
        # second one for the same call.
        kept = [mw for mw in middleware if not _is_ag2_telemetry(mw)]
        stack.enter_context(
            context.stream.where(ModelResponse).sub_scope(
                keep_arguments_valid(self.schema.function.name), interrupt=True
            )
        )
        super().register(stack, context, middleware=kept)
        stack.enter_context(
            context.stream.where(ToolResultsEvent).sub_scope(
                _stop_when_budget_spent, interrupt=True
            )
        )

    async def __call__(self, event: ToolCallEvent, context: Any) -> ToolResultEvent:
        ctx = bind_stream_call(event.id, context)
        try:
            outcome = await self.executor.run_spec(
                self.spec, call_arguments(event), ctx, gate=self._gate
            )
        except HierarchyLimitError as exc:
            # Raising here would only become a tool result: AG2 catches it. The interrupter
            # registered above raises it once the turn's results are in.
            return _error_event(event, exc.to_model_text(), exc)
        if outcome.error is None:
            return ToolResultEvent.from_call(event, outcome.text)
        cause = outcome.error.cause
        return _error_event(
            event, outcome.text, cause if isinstance(cause, Exception) else outcome.error
        )


def _error_event(event: ToolCallEvent, text: str, error: Exception) -> ToolErrorEvent:
    # Not ToolErrorEvent.from_call: its text is the formatted traceback.
    return ToolErrorEvent(parent_id=event.id, name=event.name, error=error, result=ToolResult(text))


async def _stop_when_budget_spent(event: ToolResultsEvent) -> ToolResultsEvent:
    """Interrupter: end the turn (``ask()`` raises) when a call hit the run's budget."""
    for result in event.results:
        if isinstance(result, ToolErrorEvent) and isinstance(result.error, HierarchyLimitError):
            raise result.error
    return event


def _is_ag2_telemetry(middleware: Any) -> bool:
    try:
        from ag2.middleware.builtin.telemetry import _TelemetryMiddlewareInstance
    except ImportError:  # OpenTelemetry SDK missing: AG2's telemetry cannot be in use
        return False
    return isinstance(middleware, _TelemetryMiddlewareInstance)


def build_tool(
    spec: ToolSpec,
    *,
    executor: Executor,
    gate: ApprovalGate | None,
    middleware: Sequence[Any] = (),
) -> AgentSDKTool:
    """The AG2 tool for ``spec``; ``gate`` (if any) decides its calls after every
    middleware, else the executor's own gate does."""
    return AgentSDKTool(spec, executor=executor, gate=gate, middleware=middleware)


__all__ = ["AgentSDKTool", "build_tool"]
