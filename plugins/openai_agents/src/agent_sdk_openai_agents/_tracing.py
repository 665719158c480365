"""A TracingProcessor that turns the Agents SDK's own traces into OpenTelemetry spans.

The SDK traces into its own model (traces and spans with ``trace_``/``span_`` ids, 128 and
96 bits) and exports to OpenAI. ``instrument()`` adds a processor that mirrors it into
OpenTelemetry, in the same tree as agent-sdk's spans:

- a trace becomes ``invoke_workflow {workflow}``, a child of the OTel span active when the
  run started (the application's span); inside an agent-sdk ``run_scope`` it adds no span
  (the scope's ``invoke_workflow`` stands for the run) and its spans nest under the span
  current when the run started;
- agent spans become ``invoke_agent {agent}`` (with ``gen_ai.provider.name`` and the tokens
  of the agent's own model calls, rolled up), generation and response spans
  ``chat {model}`` (client spans with the request and response model, response id and the
  call's tokens), function spans ``execute_tool {tool}``, handoff, guardrail, custom and MCP
  spans ``{type} {name}``; turn spans ``turn {n}`` only with ``turn_spans=True``;
- dropped: task spans (the workflow span stands for the run); turn spans unless asked for
  (a framework extra between an agent and its model and tool calls: without them the tree
  is the same as on every integration); the function span of a tool
  exported by this plugin (agent-sdk's own ``execute_tool`` span takes its place, with
  validation, approval and outcome); the agent span of a sub-agent run by
  ``openai_agents_agent_tool`` (agent-sdk's ``invoke_agent`` span takes its place).
  Children of a dropped span attach to the span that replaced it.

Every bridged span carries the run id, path and depth of the code that started it
(``agent_sdk.run_id``, ``agent_sdk.path``, ``agent_sdk.depth``, named as ``bind_call`` names
a tool call's: the ``run_scope``'s id, else the calling tool's, else the SDK trace id), so
filtering a trace by run id keeps the top agent, its turns and its model calls.

OTel span ids are fresh (the SDK's ids are kept as ``openai_agents.span_id`` /
``openai_agents.trace_id`` attributes). Spans of a resumed run, whose trace already ended
(the SDK re-attaches the old trace without a new start event), get a fresh
``invoke_workflow {workflow} (resumed)`` root.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import threading
import time
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, overload

from agents import Agent, RunConfig, RunResult, RunResultStreaming
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.run import AgentRunner, get_default_agent_runner, set_default_agent_runner
from agents.run_internal import run_loop as _run_loop
from agents.tracing import (
    Span,
    Trace,
    TracingProcessor,
    add_trace_processor,
    gen_trace_id,
    get_trace_provider,
    set_trace_processors,
)
from opentelemetry import context as otel_context
from opentelemetry import trace as otel_trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from agent_sdk import IntegrationError, Usage, current_run
from agent_sdk.integration import current_context, get_tracer, record_model_call, tracing_enabled
from agent_sdk.integration import semconv as sc

PROVIDER_NAME = "openai"
OP_CHAT = sc.OP_CHAT
_MODEL_CALLS = ("generation", "response")

ATTR_SDK_TRACE_ID = "openai_agents.trace_id"
ATTR_SDK_SPAN_ID = "openai_agents.span_id"
ATTR_SDK_SPAN_TYPE = "openai_agents.span_type"


def _ns(iso: str | None) -> int | None:
    if not iso:
        return None
    try:
        return int(datetime.fromisoformat(iso).timestamp() * 1_000_000_000)
    except ValueError:
        return None


def _path_text(path: tuple[str, ...]) -> str:
    return "/".join(path) or sc.ROOT_PATH


def _run_attributes(trace_id: str, tool: str | None = None) -> dict[str, Any]:
    """Run id, path and depth for a span the SDK starts now, named as ``bind_call`` names
    a tool call made here (a function span's path ends with its tool, as ours do)."""
    ctx = current_context()
    run = current_run()
    if run is not None:
        run_id = run.run_id
    elif ctx is not None:
        run_id = ctx.run_id
    else:
        run_id = trace_id  # the SDK's id of the run, as our tools bind it
    path = ctx.path if ctx is not None else ()
    return {
        sc.RUN_ID: run_id,
        sc.PATH: _path_text((*path, tool) if tool else path),
        sc.DEPTH: len(path),
    }


@dataclass
class _Root:
    span: otel_trace.Span  # the workflow span, or ``base`` inside an agent-sdk run
    base: otel_trace.Span  # the OTel span current when the run (trace) started
    synthetic: bool = False
    open_children: int = 0
    owned: bool = True  # False: ``span`` is agent-sdk's (or the application's), not ended here


@dataclass
class _Record:
    sdk: Span[Any]
    trace_id: str
    parent: otel_trace.Span | None  # chosen at start; None = use the trace root
    current: otel_trace.Span  # the OTel span current when the SDK span started
    dropped: bool = False
    otel: otel_trace.Span | None = None
    claimed_by_tool: bool = False
    attributes: dict[str, Any] = field(default_factory=dict)
    started: dict[str, Any] = field(default_factory=dict)  # what the OTel span started with
    tokens: list[int] = field(default_factory=lambda: [0, 0])  # an agent's model calls'


def _current_otel_span() -> otel_trace.Span:
    return otel_trace.get_current_span()


def _same(a: otel_trace.Span | None, b: otel_trace.Span | None) -> bool:
    if a is None or b is None:
        return a is b
    ca, cb = a.get_span_context(), b.get_span_context()
    return ca.trace_id == cb.trace_id and ca.span_id == cb.span_id


class OpenTelemetryBridge(TracingProcessor):
    """Mirrors the SDK's traces into OpenTelemetry spans (see the module docstring)."""

    def __init__(
        self, tracer_provider: otel_trace.TracerProvider | None = None, *, turn_spans: bool = False
    ) -> None:
        self._provider = tracer_provider
        self._turn_spans = turn_spans
        self._lock = threading.RLock()
        self._roots: dict[str, _Root] = {}
        self._records: dict[str, _Record] = {}
        self._ours: set[int] = set()  # ids of OTel spans this bridge created (still open)
        self._previous: tuple[TracingProcessor, ...] | None = None

    # -- OTel helpers ------------------------------------------------------------------
    def _tracer(self) -> otel_trace.Tracer:
        if self._provider is not None:
            return self._provider.get_tracer("agent_sdk_openai_agents")
        return get_tracer()  # the provider agent-sdk's own spans use

    def _start(
        self,
        name: str,
        parent: otel_trace.Span | None,
        start_ns: int | None,
        attributes: dict[str, Any],
        kind: SpanKind = SpanKind.INTERNAL,
    ) -> otel_trace.Span:
        ctx = (
            otel_trace.set_span_in_context(parent) if parent is not None else otel_context.Context()
        )
        span = self._tracer().start_span(
            name, context=ctx, kind=kind, attributes=attributes, start_time=start_ns
        )
        self._ours.add(id(span))
        return span

    def _end(self, span: otel_trace.Span, end_ns: int | None) -> None:
        self._ours.discard(id(span))
        span.end(end_time=end_ns)

    def _is_ours(self, span: otel_trace.Span) -> bool:
        return id(span) in self._ours

    # -- traces --------------------------------------------------------------------------
    def _inside_run(self, base: otel_trace.Span) -> bool:
        """An agent-sdk run is current and its span (not one of ours) is the OTel parent:
        that ``invoke_workflow`` span already stands for the run, the SDK trace adds none."""
        return (
            current_run() is not None
            and base.get_span_context().is_valid
            and not self._is_ours(base)
        )

    def on_trace_start(self, trace: Trace) -> None:
        with self._lock:
            base = _current_otel_span()
            if self._inside_run(base):
                self._roots[trace.trace_id] = _Root(base, base, owned=False)
                return
            attrs = {
                sc.GEN_AI_OPERATION_NAME: sc.OP_INVOKE_WORKFLOW,
                sc.GEN_AI_WORKFLOW_NAME: trace.name,
                ATTR_SDK_TRACE_ID: trace.trace_id,
                **_run_attributes(trace.trace_id),
            }
            group = getattr(trace, "group_id", None)
            if group:
                attrs[sc.GEN_AI_CONVERSATION_ID] = group
            span = self._start(
                f"{sc.OP_INVOKE_WORKFLOW} {trace.name}",
                base if base.get_span_context().is_valid else None,
                None,
                attrs,
            )
            self._roots[trace.trace_id] = _Root(span, base)

    def on_trace_end(self, trace: Trace) -> None:
        with self._lock:
            root = self._roots.pop(trace.trace_id, None)
            if root is not None and root.owned:
                root.span.set_status(Status(StatusCode.OK))
                self._end(root.span, None)

    def _root_for(self, span: Span[Any]) -> _Root:
        root = self._roots.get(span.trace_id)
        if root is None:
            # A resumed run re-attaches its old trace without a start event.
            base = _current_otel_span()
            if self._inside_run(base):
                root = _Root(base, base, synthetic=True, owned=False)
                self._roots[span.trace_id] = root
                return root
            name = getattr(getattr(span, "span_data", None), "name", None) or "run"
            otel = self._start(
                f"{sc.OP_INVOKE_WORKFLOW} {name} (resumed)",
                base if base.get_span_context().is_valid else None,
                _ns(span.started_at),
                {
                    sc.GEN_AI_OPERATION_NAME: sc.OP_INVOKE_WORKFLOW,
                    ATTR_SDK_TRACE_ID: span.trace_id,
                    "openai_agents.resumed": True,
                    **_run_attributes(span.trace_id),
                },
            )
            root = _Root(otel, base, synthetic=True)
            self._roots[span.trace_id] = root
        return root

    # -- spans ---------------------------------------------------------------------------
    def _resolve(self, sdk_span_id: str | None, trace_id: str) -> otel_trace.Span:
        """The OTel span standing for SDK span ``sdk_span_id`` (created on demand)."""
        record = self._records.get(sdk_span_id or "")
        if record is None:
            return self._root_for_id(trace_id)
        if record.dropped:
            if record.parent is not None:
                return record.parent
            return self._resolve(record.sdk.parent_id, trace_id)
        if record.otel is None:
            self._materialise(record)
        assert record.otel is not None
        return record.otel

    def _root_for_id(self, trace_id: str) -> otel_trace.Span:
        root = self._roots.get(trace_id)
        if root is not None:
            return root.span
        return otel_trace.INVALID_SPAN

    def _parent_of(self, record: _Record) -> otel_trace.Span | None:
        if record.parent is not None:
            return record.parent
        resolved = self._resolve(record.sdk.parent_id, record.trace_id)
        return resolved if resolved.get_span_context().is_valid else None

    def _materialise(self, record: _Record) -> None:
        name, attrs = _describe(record.sdk)
        attrs.update(record.attributes)
        kind = SpanKind.CLIENT if record.sdk.span_data.type in _MODEL_CALLS else SpanKind.INTERNAL
        record.otel = self._start(
            name, self._parent_of(record), _ns(record.sdk.started_at), attrs, kind
        )
        record.started = attrs

    def on_span_start(self, span: Span[Any]) -> None:
        with self._lock:
            root = self._root_for(span)
            root.open_children += 1
            current = _current_otel_span()
            parent_record = self._records.get(span.parent_id or "")
            parent_current = parent_record.current if parent_record is not None else root.base
            record = _Record(span, span.trace_id, None, current)
            kind = span.span_data.type
            # Read now, in the context of the code starting the span (it may end elsewhere).
            tool = getattr(span.span_data, "name", None) if kind == "function" else None
            record.attributes.update(_run_attributes(span.trace_id, tool))
            if (
                current.get_span_context().is_valid
                and not self._is_ours(current)
                and not _same(current, parent_current)
            ):
                # Something opened an OTel span between the SDK parent and this span (an
                # agent-sdk execute_tool / invoke_agent): nest under it, not the SDK parent.
                record.parent = current
            if kind == "task" or (kind == "turn" and not self._turn_spans):
                record.dropped = True
            elif kind == "agent":
                # A sub-agent run by openai_agents_agent_tool: agent-sdk's invoke_agent span
                # (not one of the bridge's) already stands for it.
                parent = self._parent_of(record)
                name = str(getattr(parent, "name", "") or "")
                if (
                    parent is not None
                    and not self._is_ours(parent)
                    and name.startswith(f"{sc.OP_INVOKE_AGENT} ")
                ):
                    record.dropped = True
                    record.parent = parent
            if record.dropped and record.parent is None:
                record.parent = self._parent_of(record)
            self._records[span.span_id] = record
            if not record.dropped and kind != "function":
                # Function spans start lazily: the tool may be one of ours (dropped then).
                self._materialise(record)

    def on_span_end(self, span: Span[Any]) -> None:
        with self._lock:
            record = self._records.pop(span.span_id, None)
            root = self._roots.get(span.trace_id)
            if record is not None and not record.dropped:
                if record.otel is None:
                    self._materialise(record)
                otel = record.otel
                assert otel is not None
                name, attrs = _describe(span)
                if span.span_data.type in _MODEL_CALLS:
                    self._roll_up(span, attrs)
                elif span.span_data.type == "agent" and any(record.tokens):
                    attrs[sc.GEN_AI_USAGE_INPUT_TOKENS] = record.tokens[0]
                    attrs[sc.GEN_AI_USAGE_OUTPUT_TOKENS] = record.tokens[1]
                if name != getattr(otel, "name", name):
                    otel.update_name(name)  # a response span names its model at the end
                started = record.started
                for key, value in attrs.items():
                    if key not in started or started[key] != value:  # new or changed only
                        otel.set_attribute(key, value)
                error = span.error
                if error:
                    message = str(error.get("message") or "error")
                    otel.set_attribute(sc.ERROR_TYPE, message)
                    otel.set_status(Status(StatusCode.ERROR, message[:200]))
                self._end(otel, _ns(span.ended_at))
            if root is not None:
                root.open_children -= 1
                if root.synthetic and root.open_children <= 0:
                    self._roots.pop(span.trace_id, None)
                    if root.owned:
                        self._end(root.span, _ns(span.ended_at))

    def _roll_up(self, span: Span[Any], attrs: dict[str, Any]) -> None:
        """Add a model call's tokens to its agent's (the nearest agent span above it)."""
        record = self._records.get(span.parent_id or "")
        while record is not None and record.sdk.span_data.type != "agent":
            record = self._records.get(record.sdk.parent_id or "")
        if record is not None and not record.dropped:
            record.tokens[0] += int(attrs.get(sc.GEN_AI_USAGE_INPUT_TOKENS) or 0)
            record.tokens[1] += int(attrs.get(sc.GEN_AI_USAGE_OUTPUT_TOKENS) or 0)

    # -- the link with agent-sdk's own spans --------------------------------------------
    def claim_tool_span(self, sdk_span: Span[Any] | None) -> otel_trace.Span | None:
        """Called by our tools inside the SDK's function span: drop that span (ours stands
        for it) and return the OTel span our execute_tool span must nest under."""
        if sdk_span is None:
            return None
        with self._lock:
            record = self._records.get(getattr(sdk_span, "span_id", "") or "")
            if record is None:
                return None
            if record.otel is not None:
                return record.otel
            record.dropped = True
            record.parent = self._parent_of(record)
            return record.parent

    def shutdown(self) -> None:
        with self._lock:
            for record in list(self._records.values()):
                if record.otel is not None:
                    self._end(record.otel, None)
            for root in list(self._roots.values()):
                if root.owned:
                    self._end(root.span, None)
            self._records.clear()
            self._roots.clear()

    def force_flush(self) -> None:
        provider = self._provider
        flush = getattr(provider, "force_flush", None)
        if callable(flush):
            flush()

    # -- installation --------------------------------------------------------------------
    def uninstrument(self) -> None:
        """Remove this processor (and put back the processors ``exclusive=True`` replaced)."""
        with _installed_lock:
            if self in _installed:
                _installed.remove(self)
        current = _current_processors()
        if self._previous is not None:
            set_trace_processors([p for p in self._previous if p is not self])
            self._previous = None
        elif current is not None:
            set_trace_processors([p for p in current if p is not self])
        self.shutdown()


def _describe(span: Span[Any]) -> tuple[str, dict[str, Any]]:
    data = span.span_data
    kind = data.type
    attrs: dict[str, Any] = {
        ATTR_SDK_TRACE_ID: span.trace_id,
        ATTR_SDK_SPAN_ID: span.span_id,
        ATTR_SDK_SPAN_TYPE: kind,
    }
    name = getattr(data, "name", None)
    if kind == "agent":
        attrs[sc.GEN_AI_OPERATION_NAME] = sc.OP_INVOKE_AGENT
        attrs[sc.GEN_AI_AGENT_NAME] = name or "agent"
        attrs[sc.GEN_AI_PROVIDER_NAME] = PROVIDER_NAME
        return f"{sc.OP_INVOKE_AGENT} {name}", attrs
    if kind == "turn":
        turn = getattr(data, "turn", None)
        if getattr(data, "agent_name", None):
            attrs[sc.GEN_AI_AGENT_NAME] = data.agent_name
        _usage(attrs, getattr(data, "usage", None))
        return f"turn {turn}", attrs
    if kind in _MODEL_CALLS:
        model = getattr(data, "model", None)
        response = getattr(data, "response", None)
        if response is not None:
            if model is None:
                model = getattr(response, "model", None)
            _usage(attrs, getattr(response, "usage", None))
            _response(attrs, response)
        attrs[sc.GEN_AI_OPERATION_NAME] = OP_CHAT
        attrs[sc.GEN_AI_PROVIDER_NAME] = PROVIDER_NAME
        if model:
            attrs[sc.GEN_AI_REQUEST_MODEL] = str(model)
        _usage(attrs, getattr(data, "usage", None))
        return f"{OP_CHAT} {model}" if model else OP_CHAT, attrs
    if kind == "function":
        attrs[sc.GEN_AI_OPERATION_NAME] = sc.OP_EXECUTE_TOOL
        attrs[sc.GEN_AI_TOOL_NAME] = name or "tool"
        attrs[sc.GEN_AI_TOOL_TYPE] = "function"
        return f"{sc.OP_EXECUTE_TOOL} {name}", attrs
    if kind == "handoff":
        return f"handoff {getattr(data, 'to_agent', '')}".rstrip(), attrs
    return f"{kind} {name}" if name else kind, attrs


def _response(attrs: dict[str, Any], response: Any) -> None:
    """Response model and id of a Responses API response (the SDK keeps it when it traces
    model data)."""
    model, response_id = getattr(response, "model", None), getattr(response, "id", None)
    if model:
        attrs[sc.GEN_AI_RESPONSE_MODEL] = str(model)
    if response_id:
        attrs[sc.GEN_AI_RESPONSE_ID] = str(response_id)


def _usage(attrs: dict[str, Any], usage: Any) -> None:
    if usage is None:
        return
    get = usage.get if isinstance(usage, dict) else lambda k, d=None: getattr(usage, k, d)
    inp, out = get("input_tokens"), get("output_tokens")
    if isinstance(inp, int):
        attrs[sc.GEN_AI_USAGE_INPUT_TOKENS] = inp
    if isinstance(out, int):
        attrs[sc.GEN_AI_USAGE_OUTPUT_TOKENS] = out


# -- installation ------------------------------------------------------------------------
_installed: list[OpenTelemetryBridge] = []
_installed_lock = threading.Lock()


def _current_processors() -> tuple[TracingProcessor, ...] | None:
    # The SDK has no public getter for its processor list (0.24).
    multi = getattr(get_trace_provider(), "_multi_processor", None)
    processors = getattr(multi, "_processors", None)
    return tuple(processors) if processors is not None else None


Mode = Literal["mirror", "lean"]


@overload
def instrument(
    *,
    tracer_provider: otel_trace.TracerProvider | None = None,
    exclusive: bool = False,
    turn_spans: bool = False,
    mode: Literal["mirror"] = "mirror",
) -> OpenTelemetryBridge: ...


@overload
def instrument(
    *,
    tracer_provider: otel_trace.TracerProvider | None = None,
    exclusive: bool = False,
    turn_spans: bool = False,
    mode: Literal["lean"],
) -> LeanTracing: ...


def instrument(
    *,
    tracer_provider: otel_trace.TracerProvider | None = None,
    exclusive: bool = False,
    turn_spans: bool = False,
    mode: Mode = "mirror",
) -> OpenTelemetryBridge | LeanTracing:
    """Mirror the Agents SDK's traces into OpenTelemetry; returns the processor.

    The processor is added next to the SDK's other processors (its default OpenAI exporter
    included); ``exclusive=True`` replaces them all (nothing is sent to OpenAI) until
    ``uninstrument()``. Spans go to ``tracer_provider``, else to the provider agent-sdk's
    own spans use (``agent_sdk.tracing.use_tracer_provider`` or the global one).
    ``turn_spans=True`` keeps the SDK's ``turn {n}`` spans (with each turn's usage) between
    an agent and its model and tool calls.

    ``mode="lean"``: no processor; the SDK traces nothing of the runs and agent-sdk's spans
    stand for them (see "the lean mode" above); returns the ``LeanTracing`` installed.
    ``exclusive`` has nothing to replace there (the runs export nothing to OpenAI) and
    ``turn_spans`` is refused (the lean mode has no turns).
    """
    if mode == "lean":
        if turn_spans:
            raise ValueError("openai-agents: the lean mode has no turn spans (mode='mirror')")
        lean = LeanTracing(tracer_provider)
        _install_lean(lean)
        return lean
    if mode != "mirror":
        raise ValueError(f"openai-agents: unknown tracing mode {mode!r} ('mirror' or 'lean')")
    bridge = OpenTelemetryBridge(tracer_provider, turn_spans=turn_spans)
    if exclusive:
        bridge._previous = _current_processors() or ()
        set_trace_processors([bridge])
    else:
        add_trace_processor(bridge)
    with _installed_lock:
        _installed.append(bridge)
    return bridge


def enter_tool_call(sdk_span: Span[Any] | None) -> object | None:
    """Inside one of our tools: make the bridged parent span current for agent-sdk's spans."""
    with _installed_lock:
        bridges = list(_installed)
    for bridge in bridges:
        parent = bridge.claim_tool_span(sdk_span)
        if parent is not None:
            return otel_context.attach(otel_trace.set_span_in_context(parent))
    return None


def exit_tool_call(token: object | None) -> None:
    if token is not None:
        otel_context.detach(token)  # type: ignore[arg-type]


# -- the lean mode: the skeleton's spans without the SDK's trace --------------------------
# ``instrument(mode="lean")``. The SDK traces nothing of the runs (``tracing_disabled`` on
# each run's own RunConfig: the user's global setting and processors are left alone);
# agent-sdk's spans stand for them: ``invoke_agent {agent}`` around each run the SDK's
# default runner starts (``Runner.run``, ``run_sync``, ``run_streamed``) and ``chat {model}``
# per model request from a Model wrapper the run's model is resolved into. What it leaves
# out (the mirror has them): the ``invoke_workflow`` root of a run outside a ``run_scope``,
# one agent span per agent after a handoff (the run's agent span stands for the whole run),
# handoff, guardrail, custom and MCP spans, turn spans, and spans of the SDK's own function
# tools (export them with ``openai_agents_tool`` to trace them).

_lean_run: contextvars.ContextVar[_LeanRun | None] = contextvars.ContextVar(
    "agent_sdk_openai_agents_lean_run", default=None
)


@dataclass(slots=True)
class _LeanRun:
    """One traced run: where its chat spans go and what they carry."""

    tracer: otel_trace.Tracer
    attributes: dict[str, Any]  # run id, path and depth of the code that started the run
    span: otel_trace.Span | None  # its invoke_agent span (None: agent-sdk's stands for it)
    tokens: list[int] = field(default_factory=lambda: [0, 0])  # its own model calls'


def _model_name(model: Model) -> str:
    """The name a model calls itself (``OpenAIResponsesModel.model``, a test double's
    ``name``), else its class name."""
    for attribute in ("model", "name"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def _error_type(exc: BaseException) -> str:
    # GeneratorExit: a stream closed before its end (its run cancelled).
    cancelled = isinstance(exc, asyncio.CancelledError | GeneratorExit)
    return "cancelled" if cancelled else type(exc).__qualname__


def _failed(span: otel_trace.Span, exc: BaseException) -> None:
    error = _error_type(exc)
    span.set_attribute(sc.OUTCOME, "cancelled" if error == "cancelled" else "error")
    span.set_attribute(sc.ERROR_TYPE, error)
    span.set_status(Status(StatusCode.ERROR, error))


class ChatSpans(Model):
    """A model whose requests inside a lean-traced run each get a ``chat {model}`` span
    (provider, request model, tokens, response id and model; no content), timed on the
    request itself (one per attempt when the SDK retries), a child of the run's
    ``invoke_agent`` span. Everything else is the wrapped model's."""

    def __init__(self, wrapped: Model) -> None:
        self.wrapped = wrapped
        self.model_name = _model_name(wrapped)

    def __getattr__(self, name: str) -> Any:
        # Provider-specific hooks the SDK looks up by name (``_supports_default_...``).
        if name == "wrapped":  # not set yet (a copy being built): no recursion
            raise AttributeError(name)
        return getattr(self.wrapped, name)

    async def _cleanup_on_run_end(self, owner: object) -> None:
        await self.wrapped._cleanup_on_run_end(owner)

    async def close(self) -> None:
        await self.wrapped.close()

    def get_retry_advice(self, request: Any) -> Any:
        return self.wrapped.get_retry_advice(request)

    def _record(
        self,
        run: _LeanRun,
        start_ns: int,
        usage: Any = None,
        response_id: str | None = None,
        response_model: str | None = None,
        error: BaseException | None = None,
    ) -> None:
        tokens = None
        if usage is not None:
            tokens = Usage(
                input_tokens=int(getattr(usage, "input_tokens", 0) or 0),
                output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
            )
            run.tokens[0] += tokens.input_tokens
            run.tokens[1] += tokens.output_tokens
        record_model_call(
            self.model_name,
            provider=PROVIDER_NAME,
            start_ns=start_ns,
            usage=tokens,
            response_model=response_model,
            response_id=response_id,
            error_type=None if error is None else _error_type(error),
            tracer=run.tracer,
            parent=run.span,
            attributes=run.attributes,
        )

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        run = _lean_run.get()
        if run is None:
            return await self.wrapped.get_response(*args, **kwargs)
        start = time.time_ns()
        try:
            response = await self.wrapped.get_response(*args, **kwargs)
        except BaseException as exc:
            self._record(run, start, error=exc)
            raise
        self._record(run, start, response.usage, response.response_id)
        return response

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        run = _lean_run.get()
        stream: AsyncIterator[Any] = self.wrapped.stream_response(*args, **kwargs)
        if run is None:
            async for event in stream:
                yield event
            return
        start = time.time_ns()
        response: Any = None
        try:
            async for event in stream:
                if getattr(event, "type", None) == "response.completed":
                    response = event.response
                yield event
        except BaseException as exc:
            self._record(run, start, error=exc)
            raise
        if response is None:
            self._record(run, start)
        else:
            self._record(run, start, response.usage, response.id, getattr(response, "model", None))


# One wrapper per model (the SDK notes every model a run resolves, by identity, to clean
# it up at the end): dropped with the wrapper, which holds its model (so the id stays).
_wrappers: weakref.WeakValueDictionary[int, ChatSpans] = weakref.WeakValueDictionary()


def _chat_spans(model: Model) -> Model:
    if isinstance(model, ChatSpans):
        return model
    wrapper = _wrappers.get(id(model))
    if wrapper is None or wrapper.wrapped is not model:
        wrapper = _wrappers[id(model)] = ChatSpans(model)
    return wrapper


def _untraced(kwargs: dict[str, Any]) -> None:
    """The run's own RunConfig with the SDK's tracing off (a copy; a dict stays a dict, so
    the runner still owns the model provider it makes for it)."""
    config = kwargs.get("run_config")
    if config is None:
        kwargs["run_config"] = {"tracing_disabled": True}
    elif isinstance(config, dict):
        if not config.get("tracing_disabled"):
            kwargs["run_config"] = {**config, "tracing_disabled": True}
    elif not config.tracing_disabled:
        kwargs["run_config"] = dataclasses.replace(config, tracing_disabled=True)


class LeanTracing:
    """The lean mode, installed (``instrument(mode="lean")``); ``uninstrument()`` removes
    it. Installations share one runner: the first one's ``tracer_provider`` is used."""

    def __init__(self, tracer_provider: otel_trace.TracerProvider | None = None) -> None:
        self._provider = tracer_provider
        self._runner: _LeanRunner | None = None

    def _tracer(self) -> otel_trace.Tracer | None:
        """Where this run's spans go, or None while nothing would record them."""
        if self._provider is not None:
            return self._provider.get_tracer("agent_sdk_openai_agents")
        return get_tracer() if tracing_enabled() else None

    def _open(self, agent: Any, kwargs: dict[str, Any]) -> _LeanRun | None:
        tracer = self._tracer()
        if tracer is None:
            return None
        config = kwargs.get("run_config")
        trace_id: str | None = (
            config.get("trace_id")
            if isinstance(config, dict)
            else getattr(config, "trace_id", None)
        )
        current = otel_trace.get_current_span()
        outer = _lean_run.get()
        attributes = _run_attributes(trace_id or gen_trace_id())
        name = str(getattr(current, "name", "") or "")
        if (outer is None or current is not outer.span) and name.startswith(
            f"{sc.OP_INVOKE_AGENT} "
        ):
            # A sub-agent run by openai_agents_agent_tool: agent-sdk's invoke_agent span
            # (not one of ours) already stands for it.
            return _LeanRun(tracer, attributes, None)
        agent_name = str(getattr(agent, "name", "") or "agent")
        span = tracer.start_span(
            f"{sc.OP_INVOKE_AGENT} {agent_name}",
            attributes={
                **attributes,
                sc.GEN_AI_OPERATION_NAME: sc.OP_INVOKE_AGENT,
                sc.GEN_AI_AGENT_NAME: agent_name,
                sc.GEN_AI_PROVIDER_NAME: PROVIDER_NAME,
            },
        )
        return _LeanRun(tracer, attributes, span)

    def uninstrument(self) -> None:
        """Remove the lean mode (with the last installation still on)."""
        global _lean_users
        with _lean_lock:
            if self._runner is None:
                return
            self._runner = None
            _lean_users -= 1
            if _lean_users == 0:
                _remove_lean()


def _close(run: _LeanRun, error: BaseException | None) -> None:
    span = run.span
    if span is None:
        return
    span.set_attribute(sc.GEN_AI_USAGE_INPUT_TOKENS, run.tokens[0])
    span.set_attribute(sc.GEN_AI_USAGE_OUTPUT_TOKENS, run.tokens[1])
    if error is None:
        span.set_attribute(sc.OUTCOME, "ok")
    else:
        _failed(span, error)
    span.end()


@contextmanager
def _current(run: _LeanRun) -> Iterator[None]:
    """``run`` and its span current while the SDK starts it."""
    token = _lean_run.set(run)
    entered = (
        otel_context.attach(otel_trace.set_span_in_context(run.span))
        if run.span is not None
        else None
    )
    try:
        yield
    finally:
        if entered is not None:
            otel_context.detach(entered)
        _lean_run.reset(token)


class _LeanRunner(AgentRunner):
    """The SDK's default runner with the lean mode's spans and its tracing off per run;
    ``run_sync`` goes through ``run``."""

    def __init__(self, inner: AgentRunner, lean: LeanTracing) -> None:
        self.inner = inner
        self.lean = lean

    async def run(self, starting_agent: Agent[Any], input: Any, **kwargs: Any) -> RunResult:
        _untraced(kwargs)
        run = self.lean._open(starting_agent, kwargs)
        if run is None:
            return await self.inner.run(starting_agent, input, **kwargs)
        try:
            with _current(run):
                result = await self.inner.run(starting_agent, input, **kwargs)
        except BaseException as exc:
            _close(run, exc)
            raise
        _close(run, None)
        return result

    def run_streamed(
        self, starting_agent: Agent[Any], input: Any, **kwargs: Any
    ) -> RunResultStreaming:
        _untraced(kwargs)
        run = self.lean._open(starting_agent, kwargs)
        if run is None:
            return self.inner.run_streamed(starting_agent, input, **kwargs)
        try:
            # The run loop is a task made now: it takes this context (the span, the run) along.
            with _current(run):
                result = self.inner.run_streamed(starting_agent, input, **kwargs)
        except BaseException as exc:
            _close(run, exc)
            raise
        task = result.run_loop_task
        if task is None:
            _close(run, None)
            return result

        def done(task: asyncio.Task[Any]) -> None:
            if task.cancelled():
                _close(run, asyncio.CancelledError())
                return
            error = task.exception() or getattr(result, "_stored_exception", None)
            _close(run, error)

        task.add_done_callback(done)
        return result


def _lean_get_model(agent: Agent[Any], run_config: RunConfig) -> Model:
    model = _original_get_model(agent, run_config)
    return model if _lean_run.get() is None else _chat_spans(model)


_lean_lock = threading.Lock()
_lean_users = 0
_lean_installed: _LeanRunner | None = None
_original_get_model = _run_loop.get_model


def _install_lean(lean: LeanTracing) -> None:
    """The SDK's default runner becomes ours (around the one in place) and the run loop's
    model resolution wraps the model of a traced run (``ChatSpans``). Both are the SDK's
    internals (0.24: ``set_default_agent_runner``, ``run_internal.run_loop.get_model``)."""
    global _lean_users, _lean_installed, _original_get_model
    with _lean_lock:
        if _lean_installed is None:
            if not callable(getattr(_run_loop, "get_model", None)):
                raise IntegrationError(
                    "openai-agents: the lean mode needs agents.run_internal.run_loop.get_model"
                )
            _original_get_model = _run_loop.get_model
            _lean_installed = _LeanRunner(get_default_agent_runner(), lean)
            set_default_agent_runner(_lean_installed)
            _run_loop.get_model = _lean_get_model
        _lean_users += 1
        lean._runner = _lean_installed


def _remove_lean() -> None:
    """(Under ``_lean_lock``, with the last installation gone.)"""
    global _lean_installed
    installed = _lean_installed
    _lean_installed = None
    if installed is None:
        return
    if get_default_agent_runner() is installed:
        set_default_agent_runner(installed.inner)
    if _run_loop.get_model is _lean_get_model:
        _run_loop.get_model = _original_get_model
