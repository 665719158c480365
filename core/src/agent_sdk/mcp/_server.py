"""``mcp_server``: tools and agent tools served over MCP, every call through the executor and
the run's guards, continuing the caller's run and trace from the request's ``_meta``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext
from opentelemetry import context as otel_context
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from agent_sdk.context import CallContext
from agent_sdk.errors import ConfigurationError, ErrorKind, HierarchyLimitError, ToolError
from agent_sdk.executor import Executor, ToolOutcome
from agent_sdk.mcp._meta import (
    AGENT_KEY,
    ERROR_KEY,
    RUN_KEY,
    USAGE_KEY,
    ClaimError,
    error_meta,
    read_claim,
    usage_meta,
)
from agent_sdk.redaction import safe_message
from agent_sdk.response import Usage
from agent_sdk.run import HierarchyLimits, run_scope
from agent_sdk.spec import Registry, ToolSpec

_TRACE_CONTEXT = TraceContextTextMapPropagator()

Tools = Registry | ToolSpec | Iterable[ToolSpec]


def mcp_server(
    tools: Tools,
    *,
    name: str = "agent-sdk",
    executor: Executor | None = None,
    limits: HierarchyLimits | None = None,
) -> Server[Any]:
    """The MCP SDK's low-level ``Server`` serving ``tools`` (a ``Registry``, a ``ToolSpec``
    or several; agent tools are marked ``"agent-sdk/agent": true`` in the listing).

    Every call runs through ``executor`` (default: a new one with no approval port, so a
    confirm call is denied): validation, this server's own approvals (a caller never sends
    an approval; a pending one answers ``approval-pending`` with its id), timeouts. It runs
    in a ``run_scope`` continuing the caller's run from the request's ``"agent-sdk/run"``
    (run id, path, depth, budget), whose limits are ``limits`` (default
    ``HierarchyLimits()``) tightened, never loosened, by the caller's claim. A failure is an
    ``is_error`` result holding agent-sdk's error JSON, never a protocol error; every result
    carries the call's usage in its ``_meta``.

    Spans: our ``execute_tool`` span is the server's span of the call, a child of the
    caller's (from ``traceparent``), under the continued run's root span; the MCP SDK's own
    server spans are switched off on this server (its ``tools/call`` span would be a second
    ``execute_tool`` span for the same call).
    """
    specs = _specs(tools)
    executor = executor if executor is not None else Executor(Registry(list(specs.values())))
    own = limits if limits is not None else HierarchyLimits()
    listing = types.ListToolsResult(tools=[_tool(spec) for spec in specs.values()])
    schemas = {n: spec.json_schema() for n, spec in specs.items()}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        meta: Mapping[str, Any] = ctx.meta or {}
        token = otel_context.attach(_trace_parent(meta))
        try:
            return await _call(specs, executor, own, name, params, meta)
        finally:
            otel_context.detach(token)

    server: Server[Any] = Server(
        name,
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    server.middleware[:] = [m for m in server.middleware if not _is_sdk_tracing(m)]
    return server


async def _call(
    specs: Mapping[str, ToolSpec],
    executor: Executor,
    own: HierarchyLimits,
    name: str,
    params: types.CallToolRequestParams,
    meta: Mapping[str, Any],
) -> types.CallToolResult:
    spec = specs.get(params.name)
    if spec is None:
        known = ", ".join(sorted(specs)) or "none"
        return _result(
            ToolError(ErrorKind.TOOL_NOT_FOUND, f"no tool named '{params.name}' (known: {known})"),
            Usage(),
        )
    try:
        claim = read_claim(meta)
    except ClaimError as exc:
        return _result(
            ToolError(
                ErrorKind.TOOL_FAILED,
                f"tool '{spec.name}' was not run: the call's '{RUN_KEY}' metadata was refused "
                f"({exc})",
                tool=spec.name,
            ),
            Usage(),
        )
    if claim is None:
        scope = run_scope(limits=own, name=name)
    else:
        budget = claim.budget
        if own.max_model_calls is not None:
            budget = own.max_model_calls if budget is None else min(budget, own.max_model_calls)
        tightened = replace(
            own, max_depth=min(own.max_depth, claim.max_depth), max_model_calls=budget
        )
        at = CallContext(run_id=claim.run_id, call_id=claim.call_id, path=claim.path)
        scope = run_scope.continuing(at, tightened, name=name)
    async with scope as state:
        try:
            outcome = await executor.run_spec(spec, params.arguments or {})
        except HierarchyLimitError as exc:
            outcome = ToolOutcome(spec.name, exc.to_model_text(), error=exc)
        except Exception as exc:  # a bug below the executor: still a result, not a protocol error
            error = ToolError(
                ErrorKind.TOOL_FAILED,
                f"tool '{spec.name}' failed on the server: {safe_message(exc)}",
                tool=spec.name,
                cause=exc,
            )
            outcome = ToolOutcome(spec.name, error.to_model_text(), error=error)
    if outcome.error is not None:
        return _result(outcome.error, state.report.total)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=outcome.text)],
        _meta={USAGE_KEY: usage_meta(state.report.total)},
    )


def _result(error: ToolError, usage: Usage) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=error.to_model_text())],
        is_error=True,
        _meta={USAGE_KEY: usage_meta(usage), ERROR_KEY: error_meta(error.kind, error.approval_id)},
    )


def _trace_parent(meta: Mapping[str, Any]) -> otel_context.Context:
    """The caller's span as the parent (W3C traceparent and tracestate only: the caller's
    baggage is not made current, so it is neither trusted here nor passed on)."""
    carrier = {k: meta[k] for k in ("traceparent", "tracestate") if isinstance(meta.get(k), str)}
    return _TRACE_CONTEXT.extract(carrier)


def _is_sdk_tracing(middleware: object) -> bool:
    return type(middleware).__name__ == "OpenTelemetryMiddleware"


def _tool(spec: ToolSpec) -> types.Tool:
    meta = {AGENT_KEY: True} if "agent" in spec.tags else None
    return types.Tool(
        name=spec.name, description=spec.description, input_schema=spec.json_schema(), _meta=meta
    )


def _specs(tools: Tools | Callable[..., Any]) -> dict[str, ToolSpec]:
    if isinstance(tools, ToolSpec):
        found: list[ToolSpec] = [tools]
    elif isinstance(tools, Iterable) and not isinstance(tools, (str, bytes, Mapping)):
        found = list(tools)
    else:
        raise ConfigurationError(
            f"mcp_server serves a Registry, a ToolSpec or a list of them, not "
            f"{type(tools).__name__}"
        )
    specs: dict[str, ToolSpec] = {}
    for spec in found:
        if not isinstance(spec, ToolSpec):
            raise ConfigurationError(
                f"mcp_server serves ToolSpecs, not {type(spec).__name__} (ToolSpec.coerce "
                "makes one of a function)"
            )
        if spec.name in specs:
            raise ConfigurationError(f"two tools named {spec.name!r}")
        specs[spec.name] = spec
    if not specs:
        raise ConfigurationError("mcp_server needs at least one tool")
    return specs
