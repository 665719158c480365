"""The hooks. The entry point names this module: it must import fast and must not import
the framework's heavy parts (``agent-sdk plugins`` loads every plugin)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agent_sdk import (
    AgentResponse,
    ApprovalPort,
    CallContext,
    Executor,
    Integration,
    ToolSpec,
    hookimpl,
)
from agent_sdk.approval import ApprovalRequest

INTEGRATION = Integration(
    name="minifw",
    distribution="agent-sdk-minifw",
    framework="agent-sdk-minifw",  # the framework ships inside this template; yours is separate
    supported=">=0.1,<1",
    harness="agent_sdk_minifw.testing:MiniHarness",
)


@hookimpl
def agent_sdk_integrations() -> Sequence[Integration]:
    """Registration: declare the integration."""
    return [INTEGRATION]


@hookimpl
def agent_sdk_export_tool(
    integration: str,
    spec: ToolSpec,
    executor: Executor,
    approval: ApprovalPort | None,
    middleware: Sequence[Any],
) -> Any:
    """Tool export: answer only for our own integration."""
    if integration != INTEGRATION.name:
        return None
    from agent_sdk_minifw._integration import export_tool

    return export_tool(spec, executor, approval)


@hookimpl
def agent_sdk_bind_context(integration: str, event: Any) -> CallContext | None:
    """Context binding: a minifw ToolEvent -> CallContext."""
    if integration != INTEGRATION.name:
        return None
    from agent_sdk_minifw._integration import bind_event

    return bind_event(event)


@hookimpl
def agent_sdk_approval_policy(request: ApprovalRequest) -> bool | None:
    """Approval gating: read-only lookups need no person; deleting anything is never allowed.

    (A real policy would look at the tool's tags or a config; names keep the example short.)
    """
    if request.tool.startswith("lookup_"):
        return True
    if request.tool.startswith("delete_"):
        return False
    return None


def bullets(response: AgentResponse) -> str:
    return "\n".join(f"- {text}" for text in response.assistant_texts())


@hookimpl
def agent_sdk_output_modes() -> Mapping[str, Callable[[AgentResponse], str]]:
    """Output extraction: a new mode, usable as return_mode="bullets" in every integration."""
    return {"bullets": bullets}
