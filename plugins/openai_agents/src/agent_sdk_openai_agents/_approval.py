"""An agent-sdk approval port as the SDK's native ``needs_approval`` policy."""

from __future__ import annotations

from typing import Any

from agents import RunContextWrapper
from agents.tracing import get_current_span

from agent_sdk import ApprovalPort, ConfigurationError, Decision
from agent_sdk_openai_agents._context import bind_tool_context


class NativeApproval:
    """``needs_approval`` for any FunctionTool (``@function_tool``, ``Agent.as_tool`` ...),
    decided by an agent-sdk port: ``INTEGRATION.bind_approval(port)``.

    An approved call runs at once. A denied or pending call pauses the run with an SDK
    interruption (a policy cannot reject on its own); the host then calls
    ``state.approve(item)`` or ``state.reject(item)`` as usual, and ``decisions`` keeps what
    the port said per call id. Tools exported with ``openai_agents_tool(spec,
    approval=port)`` need none of this: a denial there reaches the model as an
    ``approval-denied`` error and only pending calls pause.
    """

    def __init__(self, port: ApprovalPort, *, tool: str | None = None) -> None:
        if not callable(getattr(port, "request", None)):
            raise ConfigurationError("bind_approval needs an ApprovalPort (with .request)")
        self.port = port
        self.tool = tool
        self.decisions: dict[str, Decision] = {}

    async def __call__(
        self, run_ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        tool = self.tool or _tool_name()
        ctx = bind_tool_context(run_ctx, call_id)
        decision = await self.port.request(
            tool,
            dict(params),
            call_id=call_id,
            run_id=ctx.run_id,
            thread_id=ctx.thread_id,
            path=ctx.path,
        )
        self.decisions[call_id] = decision
        return not (
            decision.approved and decision.pending_id is None and decision.arguments is None
        )


def _tool_name() -> str:
    # The SDK evaluates the policy inside the call's function span (a no-op span when
    # tracing is off still carries the name).
    span = get_current_span()
    data = getattr(span, "span_data", None)
    name = getattr(data, "name", None) if getattr(data, "type", None) == "function" else None
    return str(name) if name else "tool"
