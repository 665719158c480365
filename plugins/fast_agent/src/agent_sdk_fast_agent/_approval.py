"""fast-agent-native approval: the turn-level gate for tools agent-sdk does not run, and
where it sits (an orchestrated agent's ``run_tools``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any

from mcp_types import CallToolResult, TextContent

from agent_sdk import ApprovalPort, ConfigurationError, Executor
from agent_sdk.integration import ApprovalGate, record_failure

from ._context import bind_tool_call
from ._loop import answering_run_tools, own_binding, refuse_unparsed

ConfirmNative = bool | Collection[str] | Callable[[str, Mapping[str, Any]], bool]


class ToolGate:
    """fast-agent-native approval (``INTEGRATION.bind_approval(port)``): decides calls to
    tools agent-sdk does not run itself (MCP server tools, ``agent__child`` tools of
    fast-agent's Agents-as-Tools, plain function tools) before a turn's tools run, through
    the core's approval gate (policy plugins, then the port).

    Pass it as ``fast_agent_instrument(agent, gate=...)``. It sits in the agent's ``run_tools``, the
    one place every call of a turn passes (child agent calls bypass ``call_tool``); a denied
    or pending call becomes an ``is_error`` tool result and the turn goes on. agent-sdk
    tools are gated by their own ``approval=``. ``confirm`` is fast-agent's own rule for
    which calls need approval: True (all), a set of tool names, or a predicate
    ``(name, arguments) -> bool``. ``ToolGate(port, confirm=...)`` builds one directly.
    """

    def __init__(self, gate: ApprovalGate | ApprovalPort, *, confirm: ConfirmNative = True) -> None:
        if not isinstance(gate, ApprovalGate):
            if not hasattr(gate, "request"):
                raise ConfigurationError(
                    "ToolGate needs an ApprovalPort (an object with request()) or an ApprovalGate"
                )
            # No token is minted for these calls (nothing of ours runs them afterwards), so
            # any executor's gate decides them the same way.
            gate = Executor().gate(gate)
        if not (isinstance(confirm, (bool, Collection)) or callable(confirm)):
            raise ConfigurationError("confirm must be a bool, a set of tool names or a predicate")
        self.gate = gate
        self.confirm = confirm

    @property
    def port(self) -> ApprovalPort | None:
        return self.gate.port

    def needs_approval(self, name: str, arguments: Mapping[str, Any]) -> bool:
        if isinstance(self.confirm, bool):
            return self.confirm
        if callable(self.confirm):
            try:
                return bool(self.confirm(name, arguments))
            except Exception:
                return True  # a failing rule must not let the call through
        return name in self.confirm

    async def check(
        self, name: str, arguments: Mapping[str, Any], tool_use_id: str | None
    ) -> CallToolResult | None:
        """None when the call may run, else the is_error result the model sees (its
        ToolError is kept for ``tool_error(tool_use_id)``)."""
        if not self.needs_approval(name, arguments):
            return None
        error = await self.gate.decide_native(name, arguments, bind_tool_call(tool_use_id))
        if error is None:
            return None
        record_failure(tool_use_id, error)
        text = error.to_model_text()
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def gated_run_tools(
    agent: Any, original: Callable[..., Awaitable[Any]], gate: Callable[[], ToolGate | None]
) -> Any:
    """``agent``'s ``run_tools`` (``original``) with the turn-level gate: a call whose
    arguments were not a JSON object is refused, a call to one of fast-agent's own tools is
    decided by ``gate()`` (the ``ToolGate`` given to ``fast_agent_instrument``, read per
    turn), and agent-sdk tools are left to their own gate, which decides when they run."""

    def decide(tool_use_id: str, params: Any) -> Awaitable[CallToolResult | None] | None:
        refusal = refuse_unparsed(agent, tool_use_id, params)
        if refusal is not None:
            return refusal
        tool_gate = gate()
        if tool_gate is None or own_binding(agent, params.name) is not None:
            return None  # agent-sdk tools are approved by their own gate, when they run
        return tool_gate.check(params.name, params.arguments or {}, tool_use_id)

    return answering_run_tools(original, decide)
