"""CallContext binding from AutoGen's ids.

AutoGen's agentchat has no run or conversation id: the one object shared by everything in
one ``run()`` (the model calls and every tool call of that run) is its CancellationToken.
So the conversation id of a call is derived from its token; the call id is AutoGen's
``FunctionCall`` id.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping
from typing import Any

from autogen_core import CancellationToken, FunctionCall
from autogen_core.models import FunctionExecutionResult

from agent_sdk import ConfigurationError, IntegrationError
from agent_sdk.integration import CallContext, bind_call, new_id

_conversations: weakref.WeakKeyDictionary[CancellationToken, str] = weakref.WeakKeyDictionary()
_conversations_lock = threading.Lock()


def conversation_id(token: CancellationToken | None) -> str | None:
    """The conversation id of the AutoGen run that owns ``token`` (stable for the token)."""
    if token is None:
        return None
    with _conversations_lock:
        found = _conversations.get(token)
        if found is None:
            found = new_id("autogen")
            _conversations[token] = found
        return found


def bind_tool_call(call_id: str | None, token: CancellationToken | None) -> CallContext:
    """The CallContext of a tool call AutoGen is making now (call id + the run's token)."""
    conversation = conversation_id(token)
    return bind_call(call_id=call_id, conversation_id=conversation, thread_id=conversation)


def bind_event(event: Any) -> CallContext:
    """The CallContext of an AutoGen event that identifies a call: a ``FunctionCall`` or
    ``FunctionExecutionResult`` (call id), the run's ``CancellationToken`` (conversation),
    or a mapping with ``call_id`` and ``cancellation_token``."""
    if isinstance(event, FunctionCall):
        return bind_call(call_id=event.id, conversation_id=None)
    if isinstance(event, FunctionExecutionResult):
        return bind_call(call_id=event.call_id, conversation_id=None)
    if isinstance(event, CancellationToken):
        return bind_call(call_id=None, conversation_id=conversation_id(event))
    if isinstance(event, Mapping) and ("call_id" in event or "cancellation_token" in event):
        token = event.get("cancellation_token")
        if token is not None and not isinstance(token, CancellationToken):
            raise ConfigurationError("cancellation_token must be an autogen_core CancellationToken")
        return bind_tool_call(event.get("call_id"), token)
    raise IntegrationError(
        f"integration 'autogen' cannot bind a context from {type(event).__name__}"
    )


__all__ = ["bind_event", "bind_tool_call", "conversation_id"]
