"""ToolSpec -> agents.FunctionTool, with every call going through the agent-sdk executor."""

from __future__ import annotations

import contextlib
import contextvars
import weakref
from typing import Any

from agents import Agent, FunctionTool, RunContextWrapper
from agents.tool import FunctionToolCustomDataContext
from agents.tool_context import ToolContext
from agents.tracing import SpanError, get_current_span

from agent_sdk import Executor, ToolError, ToolSpec, tool_error
from agent_sdk.integration import ApprovalGate
from agent_sdk_openai_agents import _tracing
from agent_sdk_openai_agents._context import bind_tool_context
from agent_sdk_openai_agents._schema import ExportedSchema, export_schema

ERROR_DATA_KEY = "agent_sdk"
"""Key of the tool output item's ``custom_data`` entry describing a failed call."""

_ERROR_ATTR = "_agent_sdk_error"

# The ToolContext of the tool call running now (agent tools read it to find their nested run).
current_tool_context: contextvars.ContextVar[ToolContext[Any] | None] = contextvars.ContextVar(
    "agent_sdk_openai_agents_tool_context", default=None
)


def pending_error(call_id: str | None) -> ToolError | None:
    """The approval-pending error the gate answered for ``call_id`` (the SDK paused the
    call), if that is what it answered last: the core keeps it (``tool_error``)."""
    error = tool_error(call_id)
    return error if error is not None and error.approval_id is not None else None


# The agent behind each agent-tool spec (by id, dropped with the spec): its FunctionTool is
# marked so the SDK can restore the nested run after a RunState round trip.
_agents_of_specs: dict[int, Agent[Any]] = {}


def mark_agent_spec(spec: ToolSpec, agent: Agent[Any]) -> None:
    """Note that ``spec`` runs ``agent`` (``_agents.agent_spec``)."""
    key = id(spec)
    _agents_of_specs[key] = agent
    weakref.finalize(spec, _agents_of_specs.pop, key, None)


class _ToolRuntime:
    """The state one exported tool shares across copies of its FunctionTool."""

    def __init__(
        self,
        spec: ToolSpec,
        executor: Executor,
        gate: ApprovalGate | None,
        exported: ExportedSchema,
    ) -> None:
        self.spec = spec
        self.executor = executor
        self.gate = gate
        self.exported = exported

    async def needs_approval(
        self, run_ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        """The SDK-native policy: the gate decides now and keeps its decision for the call
        (the executor takes it when the SDK runs the call); only a pending answer pauses the
        run."""
        assert self.gate is not None
        arguments = self.exported.map_back_value(params)
        ctx = bind_tool_context(run_ctx, call_id)
        admission = await self.gate.decide_early(self.spec, arguments, ctx)
        return admission.pending  # the gate keeps the pending error for the host

    async def invoke(self, tool_context: ToolContext[Any], args_json: str) -> str:
        # The gate's decision from needs_approval, if it kept one for this call, is taken by
        # the executor. A resumed call the host approved in the SDK has none: the port is
        # asked (again), as the authority; the SDK approval only resumes the call.
        ctx = bind_tool_context(tool_context)
        arguments = self.exported.map_back(args_json)
        var_token = current_tool_context.set(tool_context)
        otel_token = _tracing.enter_tool_call(get_current_span())
        try:
            outcome = await self.executor.run_spec(self.spec, arguments, ctx, gate=self.gate)
        finally:
            _tracing.exit_tool_call(otel_token)
            current_tool_context.reset(var_token)
        if outcome.error is not None:
            _mark_failed(tool_context, outcome.error)
        return outcome.text


def _mark_failed(tool_context: ToolContext[Any], error: ToolError) -> None:
    """Set the SDK's own error signals: the function span's error and the output item's
    custom data. (The executor keeps the exception for ``tool_error(call_id)``.)"""
    setattr(tool_context, _ERROR_ATTR, error)
    span = get_current_span()
    if span is not None:
        with contextlib.suppress(Exception):  # a span implementation that refuses errors
            span.set_error(
                SpanError(
                    message=f"Error running tool: {error.kind.value}",
                    data={
                        "tool_name": error.tool or "",
                        "kind": error.kind.value,
                        "error": error.message,
                    },
                )
            )


def _error_data(data: FunctionToolCustomDataContext) -> dict[str, Any] | None:
    error: ToolError | None = getattr(data.tool_context, _ERROR_ATTR, None)
    if error is None:
        return None
    # custom_data must be JSON; the exception itself is kept for tool_error(call_id).
    return {ERROR_DATA_KEY: {"is_error": True, "kind": error.kind.value, "message": error.message}}


def build_tool(
    spec: ToolSpec,
    *,
    executor: Executor,
    gate: ApprovalGate | None = None,
    strict: bool | None = None,
) -> FunctionTool:
    """The FunctionTool for ``spec`` (``INTEGRATION.export_tool``)."""
    exported = export_schema(spec.json_schema(), strict=strict)
    runtime = _ToolRuntime(spec, executor, gate, exported)

    # The first parameter must be annotated ToolContext: a RunContextWrapper annotation
    # makes the SDK pass a wrapper without tool_call_id.
    async def on_invoke_tool(ctx: ToolContext[Any], args_json: str) -> str:
        return await runtime.invoke(ctx, args_json)

    # The SDK calls get_type_hints(on_invoke_tool) on every call to find the ToolContext
    # parameter; real types instead of this module's string annotations save compiling
    # three ForwardRefs per call.
    on_invoke_tool.__annotations__ = {"ctx": ToolContext[Any], "args_json": str, "return": str}

    # Closures, not bound methods: deepcopy (which some hosts apply to tools) copies a bound
    # method's object, and the copy would ask a copied port and keep its own decisions.
    async def approval_policy(
        run_ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        return await runtime.needs_approval(run_ctx, params, call_id)

    agent = _agents_of_specs.get(id(spec))
    needs_approval: Any = False
    if gate is not None and spec.confirm is not False:
        needs_approval = approval_policy

    return FunctionTool(
        name=spec.name,
        description=spec.description,
        params_json_schema=exported.params,
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=exported.strict,
        needs_approval=needs_approval,
        custom_data_extractor=_error_data,
        _is_agent_tool=agent is not None,
        _agent_instance=agent,
    )
