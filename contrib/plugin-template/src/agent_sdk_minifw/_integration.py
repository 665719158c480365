"""The integration object and the hooks: the entry point.

The entry point imports this module whenever plugins are listed, so it stays light: the
framework is imported by the methods, when an integration is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agent_sdk import AgentResponse, ApprovalRequest, Executor, ToolSpec
from agent_sdk.integration import (
    AgentToolSettings,
    ApprovalGate,
    CallContext,
    Integration,
    Requirement,
    hookimpl,
)

if TYPE_CHECKING:  # the native types the Integration base names (as strings)
    from agent_sdk_minifw.framework import Agent, Tool  # noqa: F401


class MiniIntegration(Integration["Tool", "Agent"]):
    name = "minifw"
    distribution = "agent-sdk-minifw"
    # The framework ships inside this template; yours is a separate distribution.
    requires = Requirement(
        "agent-sdk-minifw", ">=0.1,<1", symbols=("agent_sdk_minifw.framework:Agent.run",)
    )
    harness = "agent_sdk_minifw.testing:MiniHarness"
    history_modes = ("fresh",)

    def export_tool(
        self,
        spec: ToolSpec,
        *,
        executor: Executor | None = None,
        gate: ApprovalGate | None = None,
        **options: Any,
    ) -> Any:
        from agent_sdk_minifw._tools import export_tool

        return export_tool(self, spec, executor or Executor(), gate, **options)

    def agent_spec(self, agent: Any, settings: AgentToolSettings, **options: Any) -> ToolSpec:
        from agent_sdk_minifw._agents import agent_spec

        return agent_spec(agent, settings)

    def bind_context(self, event: Any) -> CallContext:
        """minifw's ToolEvent -> CallContext: call id, and the session as conversation."""
        from agent_sdk_minifw._context import bind_event

        return bind_event(event)


INTEGRATION = MiniIntegration()


@hookimpl
def agent_sdk_integrations() -> Sequence[Integration]:
    """Registration: declare the integration."""
    return [INTEGRATION]


READ_ONLY_TOOLS: set[str] = set()
"""Tool names the host declares read-only. Empty by default, so installing this plugin
changes no approval anywhere; a host opts in: ``READ_ONLY_TOOLS.add("lookup_price")``."""


@hookimpl
def agent_sdk_approval_policy(request: ApprovalRequest) -> bool | None:
    """Approval gating: tools the host declared read-only need no person. A policy applies to
    every integration in the process, so it only ever speaks about names the host gave it."""
    return True if request.tool in READ_ONLY_TOOLS else None


def bullets(response: AgentResponse) -> str:
    return "\n".join(f"- {text}" for text in response.assistant_texts())


@hookimpl
def agent_sdk_output_modes() -> Mapping[str, Callable[[AgentResponse], str]]:
    """Output extraction: a new mode, usable as return_mode="bullets" in every integration."""
    return {"bullets": bullets}
