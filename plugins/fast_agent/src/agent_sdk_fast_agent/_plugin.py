"""The agent_sdk hook implementations of this plugin: the entry point.

fast-agent is imported inside the hooks, not when this module loads: listing plugins (or
loading another integration) must not pay for importing fast-agent (seconds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_sdk import (
    ApprovalPort,
    CallContext,
    ConfigurationError,
    Executor,
    Integration,
    ToolSpec,
    hookimpl,
)
from agent_sdk_fast_agent._context import bind_tool_call
from agent_sdk_fast_agent._integration import INTEGRATION


def bind_context(event: Any = None) -> CallContext:
    """The CallContext of a fast-agent tool call.

    ``event`` is fast-agent's ``LocalToolInvocationContext`` (None: the current one) or
    ``AgentToolInvocationContext``, or a ``tool_use_id`` string. The call id is the
    ``tool_use_id``; the conversation id is the one an instrumented agent minted for the
    running top-level generate (see ``conversation``).
    """
    from fast_agent.tools.invocation_context import (
        AgentToolInvocationContext,
        LocalToolInvocationContext,
        get_local_tool_invocation_context,
    )

    if event is None:
        event = get_local_tool_invocation_context()
    if isinstance(event, (LocalToolInvocationContext, AgentToolInvocationContext)):
        return bind_tool_call(event.tool_use_id)
    if isinstance(event, str) or event is None:
        return bind_tool_call(event)
    raise TypeError(f"cannot bind a fast-agent context from {type(event).__name__}")


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
    if integration not in INTEGRATION.names:
        return None
    if middleware:
        raise ConfigurationError(
            "fast-agent tools take no middleware; gate calls with instrument(agent, gate=...) "
            "or the agent's tool_runner_hooks"
        )
    from agent_sdk_fast_agent._tools import build_tool

    return build_tool(spec, executor=executor, approval=approval)


@hookimpl
def agent_sdk_bind_context(integration: str, event: Any) -> CallContext | None:
    if integration not in INTEGRATION.names:
        return None
    try:
        return bind_context(event)
    except TypeError:
        return None
