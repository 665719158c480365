"""CallContext binding from AG2's ids: the call id is the ``ToolCallEvent``'s id, the
conversation id is the id of the ``MemoryStream`` the call is on (the run id at the root,
and the thread id); ``bind_call`` still gives an active ``run_scope`` or a parent call
precedence.
"""

from __future__ import annotations

from typing import Any

from ag2.events import ToolCallEvent

from agent_sdk import IntegrationError
from agent_sdk.integration import CallContext, bind_call


def bind_stream_call(call_id: str | None, context: Any) -> CallContext:
    """The CallContext of call ``call_id`` on the stream of ``context`` (an AG2
    ``ConversationContext``, or None): the stream id is the conversation id."""
    stream = getattr(context, "stream", None)
    stream_id = str(stream.id) if stream is not None else None
    return bind_call(call_id=call_id, conversation_id=stream_id)


def bind_event(event: Any) -> CallContext:
    """The CallContext of an AG2 tool call: ``event`` is a ``ToolCallEvent``, a
    ``(ToolCallEvent, ConversationContext)`` pair, or the ``ConversationContext`` a tool
    function receives (it carries ``tool_call_id``)."""
    context: Any = None
    if isinstance(event, tuple) and len(event) == 2:
        event, context = event
    if isinstance(event, ToolCallEvent):
        return bind_stream_call(event.id, context)
    if event is not None and hasattr(event, "stream") and hasattr(event, "tool_call_id"):
        return bind_stream_call(event.tool_call_id, event)
    raise IntegrationError(
        f"ag2 cannot bind a context from {type(event).__name__}: pass a ToolCallEvent, "
        "(ToolCallEvent, context) or a tool's ConversationContext"
    )


__all__ = ["bind_event", "bind_stream_call"]
