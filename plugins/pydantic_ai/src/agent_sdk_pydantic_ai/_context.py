"""CallContext binding from pydantic-ai's ``RunContext``, and the tool call running now.

pydantic-ai gives every tool call its ``tool_call_id``, every ``agent.run`` a ``run_id``
and every conversation a ``conversation_id``. A resumed run (``message_history`` +
``deferred_tool_results``) is a new pydantic-ai run with a new ``run_id``, but it inherits
the conversation id from the history, so the conversation id is the run id handed to
``bind_call`` (an active ``run_scope`` or a parent call still takes precedence): a paused
call and its resumption are the same call of the same run, and the approval the host gave
matches it. pydantic-ai's ``run_id`` is kept in ``extra["pydantic_ai_run_id"]``.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

from pydantic_ai import RunContext

from agent_sdk.integration import CallContext, bind_call


def bind_run_context(ctx: RunContext[Any], call_id: str | None = None) -> CallContext:
    """The CallContext of the tool call ``ctx`` (a tool's RunContext) or ``call_id`` (a call
    of the run ``ctx`` belongs to) describes."""
    agent = ctx.agent
    extra = {
        "framework": "pydantic-ai",
        "agent": agent.name if agent is not None else None,
        "pydantic_ai_run_id": ctx.run_id,
    }
    return bind_call(
        call_id=call_id or ctx.tool_call_id, conversation_id=ctx.conversation_id, extra=extra
    )


@dataclass
class ToolCallState:
    """One call of one of our tools, while it runs: its RunContext (an agent tool runs its
    child in that run) and, for an agent tool whose child paused, the child's state and the
    approval ids of its pending calls."""

    ctx: RunContext[Any]
    paused_child: dict[str, Any] | None = None
    native_approvals: dict[str, str] | None = None
    """For an agent tool: the approval ids the gate gave the child's pending calls of
    pydantic-ai's own ``requires_approval`` tools (``bind_approval``), by tool call id."""


current_call: contextvars.ContextVar[ToolCallState | None] = contextvars.ContextVar(
    "agent_sdk_pydantic_ai_call", default=None
)


__all__ = ["ToolCallState", "bind_run_context", "current_call"]
