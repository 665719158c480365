"""The Microsoft Agent Framework Integration and its one hook: the entry point.

Listing plugins imports this module, so it does not import Agent Framework: the methods
import ``_tools``, ``_agents``, ``_approval`` and ``_context`` when they are used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agent_sdk import ConfigurationError, Executor, IntegrationError, ToolSpec
from agent_sdk.integration import (
    AgentToolSettings,
    ApprovalGate,
    CallContext,
    Integration,
    Requirement,
    hookimpl,
)

if TYPE_CHECKING:  # the native types the Integration base names (as strings)
    from agent_framework import Agent, FunctionTool  # noqa: F401

_AF = "agent_framework"


class AgentFrameworkIntegration(Integration["FunctionTool", "Agent[Any]"]):
    """Specs as MAF ``FunctionTool``s (option ``pause=``), agents as tools (option
    ``on_stream=``), contexts from a ``FunctionInvocationContext``, and native approvals as
    a function middleware for MAF's own tools."""

    name = "agent-framework"
    distribution = "agent-sdk-agent-framework"
    requires = Requirement(
        "agent-framework-core",
        ">=1.23,<1.24",
        symbols=(
            f"{_AF}:Agent.run",
            f"{_AF}:AgentSession.from_dict",
            f"{_AF}:AgentSession.to_dict",
            f"{_AF}:ChatMiddleware",
            f"{_AF}:Content.from_function_approval_request",
            f"{_AF}:Content.from_function_approval_response",
            f"{_AF}:FunctionInvocationContext",
            f"{_AF}:FunctionMiddleware",
            f"{_AF}:FunctionTool.invoke",
            f"{_AF}:FunctionTool.parameters",
            f"{_AF}:Message",
            f"{_AF}:MiddlewareFailure",
            f"{_AF}:MiddlewareTermination",
            f"{_AF}:UserInputRequiredException",
            # The one private member read: a child's own invoke_agent span is replaced by ours
            # (while MAF's instrumentation is on: otherwise it opens none).
            f"{_AF}.observability:AgentTelemetryLayer._trace_agent_invocation",
            f"{_AF}.observability:OBSERVABILITY_SETTINGS.ENABLED",
        ),
    )
    aliases = ("maf", "agent_framework")
    harness = "agent_sdk_agent_framework.testing:AgentFrameworkHarness"
    history_modes = ("fresh",)
    provider = "microsoft.agent_framework"
    tool_options = ("pause",)
    agent_tool_options = ("on_stream",)
    option_hints: ClassVar[Mapping[str, str]] = {
        "approval_mode": "the approval gate decides: pass approval=port (a pending answer "
        "pauses the run with MAF's own function-approval request)",
        "middleware": "add MAF middleware to the Agent (Agent(middleware=[...])); for MAF's "
        "own tools use INTEGRATION.bind_approval(port)",
    }

    def export_tool(
        self,
        spec: ToolSpec,
        *,
        executor: Executor | None = None,
        gate: ApprovalGate | None = None,
        pause: bool = True,
        **options: Any,
    ) -> Any:
        """``spec`` as an ``ExecutorTool`` (a MAF ``FunctionTool``). ``pause=True``: a
        pending approval stops a run that has an ``AgentSession`` with MAF's own
        function-approval request (``response.user_input_requests``); ``pause=False`` (or a
        run without a session): the model sees ``approval required: apr_…``."""
        if not isinstance(pause, bool):
            raise ConfigurationError(f"pause must be True or False, not {pause!r}")
        from agent_sdk_agent_framework._tools import ExecutorTool

        return ExecutorTool(spec, executor=executor or Executor(), gate=gate, pause=pause)

    def agent_name(self, agent: Any) -> str:
        _check_agent(agent)
        return super().agent_name(agent)

    def agent_spec(
        self,
        agent: Any,
        settings: AgentToolSettings,
        *,
        on_stream: Any = None,
        **options: Any,
    ) -> ToolSpec:
        """A fresh child per call (a new ``AgentSession``, MAF's own span of it replaced by
        ours), run streamed as ``Agent.as_tool`` runs it; ``on_stream`` gets every
        ``AgentResponseUpdate``."""
        _check_agent(agent)
        if on_stream is not None and not callable(on_stream):
            raise ConfigurationError(
                f"on_stream must be a callable taking each update of the child run, not "
                f"{type(on_stream).__name__}"
            )
        from agent_sdk_agent_framework._agents import agent_spec

        return agent_spec(agent, settings, on_stream=on_stream, provider=self.provider)

    def bind_context(self, event: Any) -> CallContext:
        """The CallContext of a MAF ``FunctionInvocationContext`` (the call id from its
        metadata, present when a function middleware runs; the conversation from its
        session)."""
        from agent_framework import FunctionInvocationContext

        from agent_sdk_agent_framework._context import bind_invocation

        if not isinstance(event, FunctionInvocationContext):
            raise IntegrationError(
                "agent-framework binds a context from a FunctionInvocationContext, not "
                f"{type(event).__name__}"
            )
        return bind_invocation(event, None)

    def native_approval(self, gate: ApprovalGate) -> Any:
        """A MAF ``FunctionMiddleware`` deciding MAF's own tools through ``gate``."""
        from agent_sdk_agent_framework._approval import ApprovalMiddleware

        return ApprovalMiddleware(gate)


def _check_agent(agent: Any) -> None:
    from agent_framework import Agent

    if not isinstance(agent, Agent):
        raise ConfigurationError(
            f"agent_framework_agent_tool needs an agent_framework.Agent, got {type(agent).__name__}"
        )


INTEGRATION = AgentFrameworkIntegration()


@hookimpl
def agent_sdk_integrations() -> Sequence[Integration]:
    return [INTEGRATION]
