"""Approval of MAF's own tools (``@tool``, ``Agent.as_tool``, MCP functions) by the core's
gate: a ``FunctionMiddleware``, ``INTEGRATION.bind_approval(port)``.

Our own tools need none of this (their gate decides inside the tool). For MAF's tools the
middleware asks the gate (policies, then the port; an approval that changes the arguments,
a failing port and a port answering nonsense all deny) before the call runs. A pending
answer stops a run that has a session with MAF's own function-approval request; when the
host answers it in MAF the call is decided again, the port being the authority. A tool with
``approval_mode="always_require"`` is paused by MAF first; the host's approval there only
resumes it, and the gate then decides.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from agent_framework import FunctionInvocationContext, FunctionMiddleware, MiddlewareTermination

from agent_sdk import ConfigurationError, Executor, ToolError
from agent_sdk.integration import ApprovalGate
from agent_sdk_agent_framework._context import bind_invocation, session_of
from agent_sdk_agent_framework._tools import ExecutorTool, approval_request, result_contents


class ApprovalMiddleware(FunctionMiddleware):
    """Decides calls of MAF's own tools through ``gate``: those named in ``tools``, or (by
    default) those with ``approval_mode="always_require"``. Add it to the agent:
    ``Agent(..., middleware=[INTEGRATION.bind_approval(port)])``."""

    def __init__(self, gate: ApprovalGate | Any, *, tools: Iterable[str] | None = None) -> None:
        if not isinstance(gate, ApprovalGate):
            if not callable(getattr(gate, "request", None)):
                raise ConfigurationError("bind_approval needs an ApprovalPort (with .request)")
            gate = Executor().gate(gate)
        self.gate = gate
        self.tools = frozenset(tools) if tools is not None else None

    def gates(self, tool: Any) -> bool:
        if isinstance(tool, ExecutorTool):
            return False  # decided inside the tool, by its own gate
        if self.tools is not None:
            return getattr(tool, "name", None) in self.tools
        return getattr(tool, "approval_mode", None) == "always_require"

    async def process(
        self, context: FunctionInvocationContext, call_next: Callable[[], Awaitable[None]]
    ) -> None:
        tool = context.function
        if not self.gates(tool):
            await call_next()
            return
        call_id = context.metadata.get("call_id")
        ctx = bind_invocation(context, call_id if isinstance(call_id, str) else None)
        arguments = dict(context.arguments or {})
        refusal = await self.gate.decide_native(tool.name, arguments, ctx)
        if refusal is None:
            await call_next()
            return
        resumed = "approval_response" in context.metadata
        if refusal.approval_id is not None and not resumed and session_of(context) is not None:
            self._pause(context, tool.name, arguments, refusal)
        context.result = result_contents(refusal.to_model_text(), refusal)

    @staticmethod
    def _pause(
        context: FunctionInvocationContext, name: str, arguments: Any, refusal: ToolError
    ) -> None:
        call_id = str(context.metadata.get("call_id"))
        own = {"call_id": call_id, "tool": name, "arguments": arguments}
        data = {"approval_id": refusal.approval_id, "reason": refusal.message, "calls": [own]}
        context.result = approval_request(name, call_id, arguments, data)
        raise MiddlewareTermination("approval pending", result=context.result)
