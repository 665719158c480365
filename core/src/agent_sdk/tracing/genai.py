"""The GenAI spans a plugin emits for what its framework does not trace itself: the top
agent's ``invoke_agent`` (``agent_span``) and one ``chat {model}`` span per model call, with
tokens, finish reasons and duration.

Plugins see every model call of the agents they run (they count them for the budget); where
the framework has no correct model-call span of its own, they emit one here, either around
the call (``model_call``) or afterwards from what the framework reported, with the call's
own start and end times (``record_model_call``). Sub-agents run through ``agent_tool`` get
their ``invoke_agent`` span from agent-sdk already. Run id and path come from the context.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer, set_span_in_context

from agent_sdk.context import current_context
from agent_sdk.response import Usage
from agent_sdk.tracing import semconv as sc
from agent_sdk.tracing import spans as _spans


@dataclass
class ModelCall:
    """What one model call answered; fill it in before the ``model_call`` block ends.
    ``error_type``: the call failed without raising (a framework that turns a cancelled
    or failed call into a reply); the span ends as an error of that type."""

    usage: Usage | None = None
    response_model: str | None = None
    response_id: str | None = None
    finish_reasons: Sequence[str] = field(default_factory=tuple)
    error_type: str | None = None


def _in_context(operation: str, provider: str, **named: str) -> dict[str, Any]:
    """The operation's attributes, with run id and path from the current call context."""
    attrs: dict[str, Any] = {sc.GEN_AI_OPERATION_NAME: operation, sc.GEN_AI_PROVIDER_NAME: provider}
    attrs.update(named)
    ctx = current_context()
    if ctx is not None:
        attrs.update(_spans.base_attributes(ctx, ctx.path))
    return attrs


def _attributes(
    model: str, provider: str, server_url: str | None, base: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A chat span's start attributes; run id, path and depth from ``base`` if given, else
    from the current call context."""
    attrs: dict[str, Any] = {
        sc.GEN_AI_OPERATION_NAME: sc.OP_CHAT,
        sc.GEN_AI_PROVIDER_NAME: provider,
        sc.GEN_AI_REQUEST_MODEL: model,
    }
    if base is not None:
        attrs.update(base)
    elif (ctx := current_context()) is not None:
        attrs.update(_spans.base_attributes(ctx, ctx.path))
    if server_url:
        attrs.update(_server(server_url))
    return attrs


@lru_cache(maxsize=64)
def _server(server_url: str) -> tuple[tuple[str, Any], ...]:
    """``server.address`` and ``server.port`` of ``server_url`` (parsed once per URL: a
    model's URL is the same on every call)."""
    parts = urlsplit(server_url)
    found: list[tuple[str, Any]] = []
    if parts.hostname:
        found.append((sc.SERVER_ADDRESS, parts.hostname))
    if parts.port:
        found.append((sc.SERVER_PORT, parts.port))
    return tuple(found)


def _answered(call: ModelCall) -> dict[str, Any]:
    """The attributes of what the model answered (``call``)."""
    attrs: dict[str, Any] = {}
    if call.usage is not None:
        attrs[sc.GEN_AI_USAGE_INPUT_TOKENS] = call.usage.input_tokens
        attrs[sc.GEN_AI_USAGE_OUTPUT_TOKENS] = call.usage.output_tokens
    if call.response_model:
        attrs[sc.GEN_AI_RESPONSE_MODEL] = call.response_model
    if call.response_id:
        attrs[sc.GEN_AI_RESPONSE_ID] = call.response_id
    if call.finish_reasons:
        attrs[sc.GEN_AI_RESPONSE_FINISH_REASONS] = list(call.finish_reasons)
    return attrs


def _ended(error_type: str | None) -> dict[str, Any]:
    """The outcome attributes of a call that ended (failed as ``error_type``, if given)."""
    if error_type:
        outcome = "cancelled" if error_type == "cancelled" else "error"
        return {sc.ERROR_TYPE: error_type, sc.OUTCOME: outcome}
    return {sc.OUTCOME: "ok"}


@contextmanager
def agent_span(name: str, *, provider: str) -> Iterator[Span]:
    """An ``invoke_agent {name}`` span around a run of a top-level agent (one that is not a
    sub-agent of agent-sdk's; those have theirs)."""

    def attributes() -> dict[str, Any]:
        return _in_context(sc.OP_INVOKE_AGENT, provider, **{sc.GEN_AI_AGENT_NAME: name})

    with _spans.span(f"{sc.OP_INVOKE_AGENT} {name}", attributes=attributes) as span:
        yield span
        _spans.mark_ok(span)


def model_call(
    model: str, *, provider: str, server_url: str | None = None
) -> AbstractContextManager[ModelCall]:
    """A ``chat {model}`` span around one model call. Set the yielded ``ModelCall``'s
    fields from the response; an exception marks the span with ``error.type``."""
    return _ModelCallBlock(model, provider, server_url)


class _ModelCallBlock:
    """``model_call``'s block, in one object instead of a generator around ``span`` (it is
    entered on every model call): the span starts when the block is entered (nothing is
    built while tracing is off), and what the call answered and its outcome go on it in one
    ``set_attributes`` (each call takes the span's lock and revalidates)."""

    __slots__ = ("_call", "_model", "_provider", "_server_url", "_span", "_spanned")

    def __init__(self, model: str, provider: str, server_url: str | None) -> None:
        self._model = model
        self._provider = provider
        self._server_url = server_url
        self._call = ModelCall()
        self._spanned: _spans._RecordingSpan | None = None

    def __enter__(self) -> ModelCall:
        if _spans.tracing_enabled():
            model = self._model
            spanned = self._spanned = _spans._RecordingSpan(
                f"{sc.OP_CHAT} {model}",
                SpanKind.CLIENT,
                _attributes(model, self._provider, self._server_url),
            )
            self._span = spanned.__enter__()
        return self._call

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        spanned = self._spanned
        if spanned is None:
            return
        self._spanned = None
        if exc is None:
            span, call = self._span, self._call
            try:
                attrs = _answered(call)
                attrs.update(_ended(call.error_type))
                span.set_attributes(attrs)
                if call.error_type:
                    span.set_status(Status(StatusCode.ERROR, call.error_type))
            except BaseException as error:  # recorded on the span, as the block's own
                spanned.__exit__(type(error), error, error.__traceback__)
                raise
        spanned.__exit__(exc_type, exc, tb)


def record_model_call(
    model: str,
    *,
    provider: str,
    start_ns: int,
    end_ns: int | None = None,
    usage: Usage | None = None,
    response_model: str | None = None,
    response_id: str | None = None,
    finish_reasons: Sequence[str] = (),
    server_url: str | None = None,
    error_type: str | None = None,
    tracer: Tracer | None = None,
    parent: Span | None = None,
    attributes: Mapping[str, Any] | None = None,
) -> None:
    """A ``chat {model}`` span for a call that already happened (``start_ns`` and ``end_ns``
    from ``time.time_ns()``), as a child of the current span.

    For a plugin that records where agent-sdk's context is not: ``tracer`` records with
    that tracer (whether or not agent-sdk's own tracing is on), ``parent`` makes the span
    its child instead of the current span's, ``attributes`` are the run id, path and depth
    to put on it instead of the current call context's."""
    if tracer is None:
        if not _spans.tracing_enabled():
            return
        tracer = _spans.tracer()
    # Everything is known already: one attribute dict at the start costs less than a
    # set_attribute per attribute (each takes the span's lock and revalidates).
    attrs = _attributes(model, provider, server_url, attributes)
    attrs.update(_answered(ModelCall(usage, response_model, response_id, tuple(finish_reasons))))
    attrs.update(_ended(error_type))
    span = tracer.start_span(
        f"{sc.OP_CHAT} {model}",
        context=None if parent is None else set_span_in_context(parent),
        kind=SpanKind.CLIENT,
        attributes=attrs,
        start_time=start_ns,
    )
    if error_type:
        span.set_status(Status(StatusCode.ERROR, error_type))
    span.end(end_time=end_ns if end_ns is not None else time.time_ns())


__all__ = ["ModelCall", "agent_span", "model_call", "record_model_call"]
