"""CallContext binding from Agent Framework's invocation context.

MAF has no run id. A run's conversation is its ``AgentSession`` (``session_id`` survives
``session.to_dict()``, so a run resumed after a restart is the same run); the call id is the
model's, which MAF hands every ``FunctionTool.invoke`` as ``tool_call_id`` (its context
metadata has it only when a function middleware runs). ``bind_call`` still gives an active
``run_scope`` or a parent call precedence.
"""

from __future__ import annotations

import contextvars
from typing import Any

from agent_framework import FunctionInvocationContext

from agent_sdk.integration import CallContext, bind_call

# A conversation id for runs without a session, set per run by agent_framework_instrument.
run_conversation: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "agent_sdk_agent_framework_run", default=None
)

_EXTRA = {"framework": "agent-framework"}


def session_of(context: FunctionInvocationContext | None) -> Any:
    """The run's ``AgentSession``, or None for a run without one."""
    return getattr(context, "session", None) if context is not None else None


def bind_invocation(
    context: FunctionInvocationContext | None, tool_call_id: str | None
) -> CallContext:
    """The CallContext of the tool call MAF is making now."""
    call_id = tool_call_id
    if call_id is None and context is not None:
        found = context.metadata.get("call_id")
        call_id = found if isinstance(found, str) else None
    session = session_of(context)
    conversation = getattr(session, "session_id", None) if session is not None else None
    if not isinstance(conversation, str) or not conversation:
        conversation = run_conversation.get()
    return bind_call(call_id=call_id, conversation_id=conversation, extra=_EXTRA)
