"""The agent_sdk hook implementations of this plugin: the entry point.

AutoGen is imported inside the hooks, not when this module loads: listing plugins (or
loading another integration) must not pay for importing every framework.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_sdk import (
    ApprovalPort,
    CallContext,
    ConfigurationError,
    Executor,
    Integration,
    ToolSpec,
    bind_call,
    hookimpl,
)
from agent_sdk_autogen._integration import INTEGRATION


@hookimpl
def agent_sdk_integrations() -> Sequence[Integration]:
    return [INTEGRATION]


@hookimpl
def agent_sdk_export_tool(
    integration: str,
    spec: ToolSpec,
    executor: Executor,
    approval: ApprovalPort | None,
    middleware: Sequence[Any],
) -> Any:
    if integration != INTEGRATION.name:
        return None
    from agent_sdk_autogen._tools import build_tool

    return build_tool(spec, executor=executor, approval=approval, middleware=middleware)


@hookimpl
def agent_sdk_bind_context(integration: str, event: Any) -> CallContext | None:
    """AutoGen events that identify a call: a FunctionCall or FunctionExecutionResult (call
    id), the run's CancellationToken (conversation), or a mapping with ``call_id`` and
    ``cancellation_token``."""
    if integration != INTEGRATION.name:
        return None
    from autogen_core import CancellationToken, FunctionCall
    from autogen_core.models import FunctionExecutionResult

    from agent_sdk_autogen._runs import conversation_id
    from agent_sdk_autogen._tools import bind_tool_call

    if isinstance(event, FunctionCall):
        return bind_call(call_id=event.id, conversation_id=None)
    if isinstance(event, FunctionExecutionResult):
        return bind_call(call_id=event.call_id, conversation_id=None)
    if isinstance(event, CancellationToken):
        conversation = conversation_id(event)
        return bind_call(call_id=None, conversation_id=conversation)
    if isinstance(event, Mapping) and ("call_id" in event or "cancellation_token" in event):
        token = event.get("cancellation_token")
        if token is not None and not isinstance(token, CancellationToken):
            raise ConfigurationError("cancellation_token must be an autogen_core CancellationToken")
        return bind_tool_call(event.get("call_id"), token)
    return None
