"""The SDK's native ``needs_approval`` policy for any FunctionTool, decided by the core's gate."""

from __future__ import annotations

import warnings
from typing import Any

from agents import RunContextWrapper
from agents.tracing import get_current_span

from agent_sdk import ConfigurationError, Decision, ErrorKind, Executor, ToolError, tool_error
from agent_sdk.integration import ApprovalGate
from agent_sdk_openai_agents._context import bind_tool_context

_MAX_KEPT = 4096
_warned: set[str] = set()


class NativeApproval:
    """``needs_approval`` for any FunctionTool (``@function_tool``, ``Agent.as_tool`` ...),
    decided through an approval gate: ``INTEGRATION.bind_approval(port)``.

    The gate decides as it does for every confirm call (approval policies, then the port; a
    port that fails or answers with other arguments denies). A call it lets through runs at
    once. A call it refuses (denied or pending) pauses the run with an SDK interruption, since
    an SDK policy can only answer "ask"; ``refusal(call_id)`` is the model-visible error, so
    the host rejects with it (``state.reject(item, rejection_message=
    approval.refusal(item.call_id).to_model_text())``) or approves the call in the SDK once
    it is approved elsewhere. Tools exported with ``openai_agents_tool(spec, approval=port)``
    need none of this: a denial there reaches the model as an ``approval-denied`` error and
    only pending calls pause.
    """

    def __init__(self, gate: ApprovalGate | Any, *, tool: str | None = None) -> None:
        if not isinstance(gate, ApprovalGate):
            # 0.1 took the port itself: the same as INTEGRATION.bind_approval(port).
            if not callable(getattr(gate, "request", None)):
                raise ConfigurationError("bind_approval needs an ApprovalPort (with .request)")
            gate = Executor().gate(gate)
        self.gate = gate
        self.tool = tool
        self._seen: dict[str, None] = {}  # call ids, for the deprecated ``decisions`` only

    async def __call__(
        self, run_ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
    ) -> bool:
        tool = self.tool or _tool_name()
        self._seen[call_id] = None
        while len(self._seen) > _MAX_KEPT:
            del self._seen[next(iter(self._seen))]
        ctx = bind_tool_context(run_ctx, call_id)
        # The gate keeps a refusal for the host by call id (``tool_error``): ``refusal``.
        return await self.gate.decide_native(tool, dict(params), ctx) is not None

    def refusal(self, call_id: str) -> ToolError | None:
        """Why the call ``call_id`` was paused (``approval-denied`` or ``approval-pending``),
        None for a call that was let through or never seen."""
        error = tool_error(call_id)
        refused = (ErrorKind.APPROVAL_DENIED, ErrorKind.APPROVAL_PENDING)
        return error if error is not None and error.kind in refused else None

    @property
    def decisions(self) -> dict[str, Decision]:
        """Deprecated (0.1): what was decided per call id, as Decisions; use ``refusal``."""
        if "decisions" not in _warned:
            _warned.add("decisions")
            warnings.warn(
                "NativeApproval.decisions is deprecated; use NativeApproval.refusal(call_id)",
                DeprecationWarning,
                stacklevel=2,
            )
        return {call_id: _as_decision(self.refusal(call_id)) for call_id in self._seen}


def _as_decision(error: ToolError | None) -> Decision:
    if error is None:
        return Decision.approve()
    if error.approval_id is not None:
        return Decision.pending(error.approval_id)
    return Decision.deny(error.message)


def _tool_name() -> str:
    # The SDK evaluates the policy inside the call's function span (a no-op span when
    # tracing is off still carries the name).
    span = get_current_span()
    data = getattr(span, "span_data", None)
    name = getattr(data, "name", None) if getattr(data, "type", None) == "function" else None
    return str(name) if name else "tool"
