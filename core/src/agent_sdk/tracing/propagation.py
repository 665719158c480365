"""Carrying a hierarchy across processes: W3C traceparent plus baggage (run id, path, depth,
budget left, max depth).

What arrives is a claim by the caller, who is not trusted: the receiving side keeps the
stricter of its own limits and the caller's, validates the run id and the path (charset and
length; anything else is replaced), and never loosens anything. Missing or malformed
baggage means "no claim", never "no limit", and never raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Protocol
from urllib.parse import quote, unquote

from opentelemetry import baggage, propagate
from opentelemetry import context as otel_context

from agent_sdk.context import CallContext, current_context, new_id
from agent_sdk.names import TOOL_NAME
from agent_sdk.run import HierarchyLimits, current_run, run_scope
from agent_sdk.tracing import semconv as sc

RUN_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
MAX_PATH = 32
"""Path segments accepted from a caller (a deeper claim is cut, keeping its depth)."""


def inject(carrier: MutableMapping[str, str] | None = None) -> MutableMapping[str, str]:
    """Write the W3C traceparent and baggage (run id, path, depth, budget left, max depth)
    of the current call into ``carrier`` (e.g. HTTP headers) and return it."""
    carrier = {} if carrier is None else carrier
    ctx = current_context()
    run = current_run()
    otel_ctx = otel_context.get_current()
    if ctx is not None:
        otel_ctx = baggage.set_baggage(sc.BAGGAGE_RUN_ID, ctx.run_id, otel_ctx)
        path = "/".join(quote(p, safe="") for p in ctx.path)
        otel_ctx = baggage.set_baggage(sc.BAGGAGE_PATH, path, otel_ctx)
        otel_ctx = baggage.set_baggage(sc.BAGGAGE_DEPTH, str(ctx.depth), otel_ctx)
    if run is not None:
        otel_ctx = baggage.set_baggage(sc.BAGGAGE_MAX_DEPTH, str(run.limits.max_depth), otel_ctx)
        if run.remaining is not None:
            otel_ctx = baggage.set_baggage(sc.BAGGAGE_BUDGET, str(run.remaining), otel_ctx)
    propagate.inject(carrier, context=otel_ctx)
    return carrier


class Carrier(Protocol):
    """Headers as any server holds them: a dict, any Mapping, http.server's
    ``email.message.Message``, werkzeug's or starlette's ``Headers``."""

    def items(self) -> Iterable[tuple[Any, Any]]: ...


@contextmanager
def continue_run(
    carrier: Carrier, *, limits: HierarchyLimits | None = None
) -> Iterator[CallContext | None]:
    """Continue a hierarchy from another process: the same trace (the caller's span becomes
    the parent), the caller's run id, path and depth, so the guards (recursion included) hold
    across the process boundary. Use as ``with continue_run(headers):``; header names are
    read in any case (``self.headers`` of ``http.server``, a dict, any Mapping). The
    continued run is a ``run_scope`` (root span, report, ``detached="refuse"``).

    The limits are this side's own (``limits``, else the active ``run_scope``'s, else the
    defaults), tightened by the caller's claims: the smaller max depth and the smaller
    remaining budget win; every other limit (timeouts, parallelism, ``detached``) stays this
    side's. Yields the call's context, or None when the caller sent no run (then this
    side's run, if any, applies).
    """
    try:
        otel_ctx = propagate.extract(_lower_case(carrier))
        values = baggage.get_all(otel_ctx)
    except Exception:  # a carrier that is not a mapping of strings: no claim at all
        otel_ctx, values = otel_context.get_current(), {}
    own = current_run()
    base = limits or (own.limits if own is not None else HierarchyLimits())
    token = otel_context.attach(otel_ctx)
    try:
        raw_run = values.get(sc.BAGGAGE_RUN_ID)
        if raw_run is None:
            yield None
            return
        run_id = str(raw_run) if RUN_ID.match(str(raw_run)) else new_id("run")
        path = _path(values.get(sc.BAGGAGE_PATH), _number(values.get(sc.BAGGAGE_DEPTH)))
        own_remaining = own.remaining if own is not None and limits is None else None
        if own_remaining is None:
            own_remaining = base.max_model_calls
        budget = _stricter(own_remaining, _number(values.get(sc.BAGGAGE_BUDGET)))
        max_depth = _stricter(base.max_depth, _number(values.get(sc.BAGGAGE_MAX_DEPTH)))
        # Only the two claims change; every other limit (detached included) is this side's.
        tightened = replace(
            base,
            max_depth=max(max_depth or 1, 1),
            max_model_calls=None if budget is None else max(budget, 0),
        )
        ctx = CallContext(run_id=run_id, path=path)
        with run_scope.continuing(ctx, tightened):
            yield ctx
    finally:
        otel_context.detach(token)


def _lower_case(carrier: Carrier) -> dict[str, str]:
    """The carrier's headers under lower-case names: HTTP header names are case-insensitive
    (RFC 9110) and OpenTelemetry's getter is exact, while urllib, werkzeug and Go clients
    title-case them. Repeated names are joined with commas (RFC 9110's own combination: a
    repeated ``traceparent`` then fails to parse, so it is no claim). Entries that are not
    text are no claim."""
    headers: dict[str, str] = {}
    for name, value in carrier.items():
        if isinstance(name, str) and isinstance(value, str):
            key = name.lower()
            headers[key] = f"{headers[key]},{value}" if key in headers else value
    return headers


def _number(value: object) -> int | None:
    """A claimed whole number, or None when absent or malformed (no claim)."""
    text = str(value).strip() if value is not None else ""
    if not re.fullmatch(r"-?[0-9]{1,9}", text):
        return None
    return int(text)


def _stricter(own: int | None, claim: int | None) -> int | None:
    if claim is None:
        return own
    return claim if own is None else min(own, claim)


def _path(raw: object, depth: int | None) -> tuple[str, ...]:
    """The caller's path with each segment validated ('?' for one that is not a tool name);
    a claimed depth deeper than the path is kept, with '?' segments."""
    segments = [unquote(p) for p in str(raw or "").split("/") if p][:MAX_PATH]
    path = [p if TOOL_NAME.match(p) else "?" for p in segments]
    if depth is not None and depth > len(path):
        path += ["?"] * (min(depth, MAX_PATH) - len(path))
    return tuple(path)
