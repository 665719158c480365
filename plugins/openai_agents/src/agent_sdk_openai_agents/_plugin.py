"""The Integration and the pluggy hooks: the entry point.

Nothing here imports the OpenAI Agents SDK when the module loads (listing plugins must not
pay for importing every framework); the hooks import it when they are used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_sdk import ApprovalPort, CallContext, Executor, Integration, ToolSpec, hookimpl

NAME = "openai-agents"
SUPPORTED = ">=0.24,<0.25"


def _native_approval(port: ApprovalPort) -> Any:
    from agent_sdk_openai_agents._approval import NativeApproval

    return NativeApproval(port)


INTEGRATION = Integration(
    name=NAME,
    distribution="agent-sdk-openai-agents",
    framework="openai-agents",
    supported=SUPPORTED,
    aliases=("openai_agents", "agents"),
    native_approval=_native_approval,
    harness="agent_sdk_openai_agents.testing:OpenAIAgentsHarness",
)


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
    from agent_sdk_openai_agents._tools import build_tool, check_middleware

    check_middleware(middleware)
    return build_tool(spec, executor=executor, approval=approval)


@hookimpl
def agent_sdk_bind_context(integration: str, event: Any) -> CallContext | None:
    if integration not in INTEGRATION.names:
        return None
    from agents import RunContextWrapper

    from agent_sdk_openai_agents._context import bind_tool_context

    if isinstance(event, RunContextWrapper):
        return bind_tool_context(event)
    return None
