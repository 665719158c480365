"""Context binding: minifw's ``ToolEvent`` names the call and its session, which is the
conversation (and, without a ``run_scope``, the run) the call belongs to."""

from __future__ import annotations

from agent_sdk.integration import CallContext, bind_call
from agent_sdk_minifw.framework import ToolEvent


def bind_event(event: ToolEvent) -> CallContext:
    """minifw's ToolEvent -> CallContext: call id, and the session as conversation."""
    return bind_call(call_id=event.call_id, conversation_id=event.session_id)
