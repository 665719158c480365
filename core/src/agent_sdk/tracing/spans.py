"""Span helpers used by the executor and the hierarchy (opentelemetry-api only)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from opentelemetry import context, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from agent_sdk._version import __version__
from agent_sdk.context import CallContext
from agent_sdk.errors import ToolError
from agent_sdk.tracing import semconv as sc

if TYPE_CHECKING:
    from agent_sdk.response import Usage

_state: dict[str, Any] = {
    "tracer": trace.get_tracer("agent_sdk", __version__),
    "content": None,  # None: follow OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
    "explicit": False,  # use_tracer_provider() was given a provider
    "global": False,  # a global tracer provider has been set (it stays set)
}


NO_SPAN_VALUE: Span = trace.INVALID_SPAN
NO_SPAN: AbstractContextManager[Span] = nullcontext(NO_SPAN_VALUE)
"""What ``span`` gives while tracing is off: one shared, reusable no-op block (giving
``NO_SPAN_VALUE``, OpenTelemetry's invalid span, never recording)."""


def tracer() -> trace.Tracer:
    """The tracer agent-sdk's spans use (follows ``use_tracer_provider``); integrations that
    bridge a framework's own tracing use it so their spans land in the same tree."""
    return _state["tracer"]  # type: ignore[no-any-return]


def use_tracer_provider(provider: trace.TracerProvider | None) -> None:
    """Send this SDK's spans to ``provider`` without touching the global provider.

    ``None`` goes back to the global provider (the default).
    """
    _state["tracer"] = (
        provider.get_tracer("agent_sdk", __version__)
        if provider is not None
        else trace.get_tracer("agent_sdk", __version__)
    )
    _state["explicit"] = provider is not None


_ABSENT = object()
# A provider named by the environment is loaded by the first get_tracer_provider() call.
_PROVIDER_FROM_ENV = "OTEL_PYTHON_TRACER_PROVIDER" in os.environ


def tracing_enabled() -> bool:
    """False while nothing would record our spans: no provider given to us and the global
    one still the API's default proxy (no SDK configured). Then spans are skipped entirely,
    which is most of the executor's cost when tracing is off."""
    if _state["explicit"] or _state["global"]:
        return True
    # get_tracer_provider() looks the environment up on every call (a KeyError raised and
    # caught inside os.environ while it is unset): read OpenTelemetry's global first, and
    # ask it only once something may have been set.
    if getattr(trace, "_TRACER_PROVIDER", _ABSENT) is None and not _PROVIDER_FROM_ENV:
        return False
    # Once set, OpenTelemetry's global provider can never be replaced or unset.
    _state["global"] = not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    return bool(_state["global"])


def capture_content(enabled: bool | None) -> None:
    """Opt in (or out) of putting tool arguments and results on spans. Off by default;
    ``None`` follows the standard ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``.

    On, an error's span also carries its message, which may quote the arguments or a
    reviewer's reason; off, only the error's kind, its value-free detail and its cause's
    type."""
    _state["content"] = None if enabled is None else bool(enabled)


def content_captured() -> bool:
    """Whether tool arguments, results and messages go on spans (``capture_content``, else
    ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``)."""
    if _state["content"] is None:
        value = os.environ.get(sc.CAPTURE_CONTENT_ENV, "")
        return value.strip().lower() in ("true", "1", "yes")
    return bool(_state["content"])


def base_attributes(ctx: CallContext, path: tuple[str, ...]) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        sc.RUN_ID: ctx.run_id,
        sc.PATH: "/".join(path) or sc.ROOT_PATH,
        sc.DEPTH: len(ctx.path),
    }
    if ctx.thread_id:
        attrs[sc.GEN_AI_CONVERSATION_ID] = ctx.thread_id
    return attrs


def span(
    name: str,
    *,
    kind: SpanKind = SpanKind.INTERNAL,
    attributes: dict[str, Any] | Callable[[], dict[str, Any]],
) -> AbstractContextManager[Span]:
    """A span that records cancellation and unexpected exceptions itself (with error.type).

    While nothing would record it (``tracing_enabled()`` is False) this is a non-recording
    span on which every call is a no-op, and ``attributes``, when a function, is not even
    called.
    """
    if not tracing_enabled():
        return NO_SPAN
    return _RecordingSpan(name, kind, attributes() if callable(attributes) else attributes)


def tool_span(ctx: CallContext, tool: str) -> AbstractContextManager[Span]:
    """The ``execute_tool {tool}`` span of one call (``span`` with the executor's
    attributes: ``base_attributes`` for the path ending in ``tool``, then the operation, the
    tool's name and type, and the call id if any). While tracing is off nothing is built."""
    if not tracing_enabled():
        return NO_SPAN
    attrs = base_attributes(ctx, (*ctx.path, tool))
    attrs[sc.GEN_AI_OPERATION_NAME] = sc.OP_EXECUTE_TOOL
    attrs[sc.GEN_AI_TOOL_NAME] = tool
    attrs[sc.GEN_AI_TOOL_TYPE] = "function"
    if ctx.call_id:
        attrs[sc.GEN_AI_TOOL_CALL_ID] = ctx.call_id
    return _RecordingSpan(f"execute_tool {tool}", SpanKind.INTERNAL, attrs)


class _RecordingSpan:
    """The current span for a ``with`` block, ended when it leaves: what
    ``start_as_current_span`` does (without recording exceptions itself), in one object
    instead of three nested generator context managers (the executor's hot path)."""

    __slots__ = ("_span", "_token")

    def __init__(self, name: str, kind: SpanKind, attributes: dict[str, Any]) -> None:
        self._span = tracer().start_span(
            name,
            kind=kind,
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        )
        self._token: object = None

    def __enter__(self) -> Span:
        self._token = context.attach(trace.set_span_in_context(self._span))
        return self._span

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        current = self._span
        try:
            if exc is not None:
                _record_exit(current, exc)
        finally:
            context.detach(self._token)  # type: ignore[arg-type]
            current.end()


def _record_exit(current: Span, exc: BaseException) -> None:
    if isinstance(exc, asyncio.CancelledError):
        current.set_attribute(sc.OUTCOME, "cancelled")
        current.set_attribute(sc.ERROR_TYPE, "cancelled")
        current.set_status(Status(StatusCode.ERROR, "cancelled"))
    elif isinstance(exc, ToolError):
        mark_error(current, exc)
    else:
        current.set_attribute(sc.OUTCOME, "error")
        current.set_attribute(sc.ERROR_TYPE, type(exc).__qualname__)
        current.set_status(Status(StatusCode.ERROR, type(exc).__name__))


def mark_error(current: Span, error: ToolError) -> None:
    current.set_attribute(sc.OUTCOME, error.kind.value)
    current.set_attribute(sc.ERROR_TYPE, error.kind.value)
    if error.approval_id:
        current.set_attribute(sc.APPROVAL_ID, error.approval_id)
    current.set_status(Status(StatusCode.ERROR, error_description(error)))


def error_description(error: ToolError) -> str:
    """What a span says about ``error``: with content capture on, its message (as the
    arguments themselves are on the span); off, only value-free parts (the kind, the
    error's ``detail`` and its cause's type). A message may quote the arguments (a
    validator's ``f"{v} is not a UK account"``, a handler's ``KeyError(iban)``) or a
    reviewer's reason, which may name them."""
    if content_captured():
        return error.message[:200]
    parts = [error.kind.value]
    if error.detail:
        parts.append(error.detail)
    if error.cause is not None:
        parts.append(type(error.cause).__name__)
    return ": ".join(parts)[:200]


def mark_ok(current: Span) -> None:
    current.set_attribute(sc.OUTCOME, "ok")


def set_usage(span: Span, usage: Usage) -> None:
    span.set_attribute(sc.GEN_AI_USAGE_INPUT_TOKENS, usage.input_tokens)
    span.set_attribute(sc.GEN_AI_USAGE_OUTPUT_TOKENS, usage.output_tokens)
    span.set_attribute(sc.MODEL_CALLS, usage.model_calls)
    span.set_attribute(sc.INPUT_CHARS, usage.input_chars)
