"""ToolSpec -> fast-agent function tool, run through the agent-sdk executor."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from fast_agent.tools.invocation_context import get_local_tool_invocation_context
from fastmcp.tools import FunctionTool, ToolResult
from mcp_types import TextContent

from agent_sdk import (
    ApprovalGate,
    ApprovalPort,
    Executor,
    HierarchyLimitError,
    Registry,
    ToolSpec,
)

from ._context import bind_tool_call, current_conversation

# The original exception of failed calls, by tool_use_id, for the host (fast-agent has no
# error event; the model only ever sees the structured error text). Bounded.
_EXCEPTIONS: OrderedDict[str, BaseException] = OrderedDict()
_EXCEPTIONS_MAX = 512


def _remember(tool_use_id: str | None, exc: BaseException) -> None:
    if not tool_use_id:
        return
    _EXCEPTIONS[tool_use_id] = exc
    _EXCEPTIONS.move_to_end(tool_use_id)
    while len(_EXCEPTIONS) > _EXCEPTIONS_MAX:
        _EXCEPTIONS.popitem(last=False)


def tool_exception(tool_use_id: str) -> BaseException | None:
    """The original exception behind a failed agent-sdk tool call (by fast-agent's
    ``tool_use_id``): the handler's exception for ``tool-failed``, else the ToolError.

    The model sees only ``{"error": {"kind", "message"}}`` with ``is_error`` set; this keeps
    the rest for the host. The last 512 failures are kept.
    """
    return _EXCEPTIONS.get(tool_use_id)


def text_result(text: str, *, is_error: bool = False) -> ToolResult:
    return ToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


class ToolBinding:
    """What a native tool runs: the spec, the executor and the approval gate.

    Shared, never copied: copies of the native tool (``copy.deepcopy``) keep the same spec,
    executor and gate, so tokens minted by the gate stay valid for the executor.
    """

    def __init__(self, spec: ToolSpec, executor: Executor, approval: ApprovalPort | None) -> None:
        self.spec = spec
        self.executor = executor
        self.approval = approval
        self.gate = ApprovalGate(approval, authority=executor.authority) if approval else None

    def __deepcopy__(self, memo: dict[int, Any]) -> ToolBinding:
        return self

    def __copy__(self) -> ToolBinding:
        return self

    async def __call__(self, arguments: Any) -> ToolResult:
        invocation = get_local_tool_invocation_context()
        return await self.run(arguments, invocation.tool_use_id if invocation else None)

    async def run(self, arguments: Any, tool_use_id: str | None) -> ToolResult:
        """Run one call; ``arguments`` is whatever the model sent (validated here)."""
        ctx = bind_tool_call(tool_use_id)
        try:
            outcome = await self.executor.run_spec(self.spec, arguments, ctx, gate=self.gate)
        except HierarchyLimitError as exc:
            # fast-agent turns every tool exception into an is_error result and carries on;
            # the budget error must stop the run instead. Record it on the run: the next
            # model call of every agent in the run raises it (see _runs.stop_check).
            conv = current_conversation()
            if conv is not None:
                conv.control.record_stop(exc)
            _remember(tool_use_id, exc)
            return text_result(exc.to_model_text(), is_error=True)
        if outcome.error is not None:
            _remember(tool_use_id, outcome.error.cause or outcome.error)
        return text_result(outcome.text, is_error=not outcome.ok)


class AgentSDKTool(FunctionTool):
    """A fast-agent function tool whose calls run through the agent-sdk executor.

    The model sees the spec's neutral JSON schema (``parameters``); the arguments reach the
    executor unvalidated by fastmcp, so the spec's validation is the one that counts (a plain
    fastmcp tool with a replaced ``parameters`` would still validate against the Python
    signature). Add it to an agent with ``agent.add_tool(tool)`` or ``instrument(agent,
    tools=[...])``.
    """

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        binding: ToolBinding = self.fn  # type: ignore[assignment]
        return await binding(arguments)

    @property
    def binding(self) -> ToolBinding:
        return self.fn  # type: ignore[return-value]

    @property
    def spec(self) -> ToolSpec:
        return self.binding.spec

    @property
    def executor(self) -> Executor:
        return self.binding.executor


def build_tool(
    spec: ToolSpec, *, executor: Executor | None = None, approval: ApprovalPort | None = None
) -> AgentSDKTool:
    binding = ToolBinding(spec, executor or Executor(), approval)
    return AgentSDKTool(
        name=spec.name,
        description=spec.description,
        parameters=spec.json_schema(),
        fn=binding,
        output_schema=None,
    )


def _check_framework() -> None:
    from . import _integration

    _integration.INTEGRATION.check()


def fast_agent_tool(
    spec: ToolSpec, *, executor: Executor | None = None, approval: ApprovalPort | None = None
) -> AgentSDKTool:
    """``spec`` as a fast-agent function tool (a fastmcp ``FunctionTool``).

    Every call runs through ``executor.run_spec`` (validation, approval, timeout, span,
    structured errors). With ``approval=port`` the port is asked once per confirm call and
    the call gets a one-use token; with ``approval=None`` the executor's own port decides.
    Raises IntegrationError when the installed fast-agent-mcp is outside the supported range.
    """
    _check_framework()
    return build_tool(spec, executor=executor, approval=approval)


def fast_agent_tools(
    registry: Registry | Iterable[ToolSpec],
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
) -> list[AgentSDKTool]:
    """Every spec of ``registry`` as a fast-agent function tool (one shared executor)."""
    _check_framework()
    if executor is None:
        executor = Executor(registry) if isinstance(registry, Registry) else Executor()
    return [build_tool(spec, executor=executor, approval=approval) for spec in registry]
