"""The pydantic-ai Integration and its one hook: the entry point.

Listing plugins imports this module, so it does not import pydantic-ai: the methods import
``_tools``, ``_agents``, ``_approval`` and ``_context`` when they are used.
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
    from pydantic_ai import Agent, Tool  # noqa: F401


class PydanticAIIntegration(Integration["Tool[Any]", "Agent[Any, Any]"]):
    """pydantic-ai: specs as ``pydantic_ai.Tool``s whose calls all go through the executor
    (pydantic-ai validates nothing of theirs: the executor does), agents as tools (a fresh
    child run per call; options ``deps=``, ``usage_limits=``, ``event_stream_handler=``),
    contexts from a ``RunContext``, pending approvals as pydantic-ai's own deferred tool
    calls, and ``bind_approval(port)`` as a ``HandleDeferredToolCalls`` capability for
    pydantic-ai's own ``requires_approval`` tools."""

    name = "pydantic-ai"
    distribution = "agent-sdk-pydantic-ai"
    requires = Requirement(
        "pydantic-ai-slim",
        ">=2.68,<2.69",
        symbols=(
            "pydantic_ai:Agent.run",
            "pydantic_ai:Agent.output_type",
            "pydantic_ai:ApprovalRequired",
            "pydantic_ai:DeferredToolRequests",
            "pydantic_ai:DeferredToolResults",
            "pydantic_ai:ModelMessagesTypeAdapter",
            "pydantic_ai:RunContext.tool_call_id",
            "pydantic_ai:RunContext.tool_call_approved",
            "pydantic_ai:RunContext.tool_call_metadata",
            "pydantic_ai:RunContext.run_id",
            "pydantic_ai:RunContext.conversation_id",
            "pydantic_ai:Tool.from_schema",
            "pydantic_ai:Tool.function_schema",
            "pydantic_ai:ToolApproved",
            "pydantic_ai:ToolDenied",
            "pydantic_ai:ToolReturn.metadata",
            "pydantic_ai:RunUsage.incr",
            "pydantic_ai.capabilities:AbstractCapability.after_model_request",
            "pydantic_ai.capabilities:HandleDeferredToolCalls",
            "pydantic_ai.capabilities:Instrumentation.wrap_run",
            "pydantic_ai.capabilities:Instrumentation.wrap_model_request",
            "pydantic_ai.capabilities:Instrumentation.wrap_tool_execute",
            "pydantic_ai.models.instrumented:InstrumentationSettings",
            "pydantic_ai.toolsets:FunctionToolset",
        ),
    )
    aliases = ("pydantic_ai", "pydantic-ai-slim")
    harness = "agent_sdk_pydantic_ai.testing:PydanticAIHarness"
    history_modes = ("fresh",)
    provider = "pydantic_ai"
    agent_tool_options = ("deps", "usage_limits", "event_stream_handler")
    option_hints: ClassVar[Mapping[str, str]] = {
        "requires_approval": "pass approval=port: the gate decides, and a pending approval "
        "pauses the run as pydantic-ai's own deferred tool call",
        "middleware": "pydantic-ai has no tool middleware; use a capability "
        "(wrap_tool_execute) on the agent instead",
    }

    def export_tool(
        self,
        spec: ToolSpec,
        *,
        executor: Executor | None = None,
        gate: ApprovalGate | None = None,
        **options: Any,
    ) -> Any:
        """``spec`` as a ``pydantic_ai.Tool`` advertising the spec's own schema."""
        from agent_sdk_pydantic_ai._tools import build_tool

        return build_tool(spec, executor=executor or Executor(), gate=gate)

    def agent_name(self, agent: Any) -> str:
        _check_agent(agent)
        return super().agent_name(agent)

    def agent_spec(
        self,
        agent: Any,
        settings: AgentToolSettings,
        *,
        deps: Any = None,
        usage_limits: Any = None,
        event_stream_handler: Any = None,
        **options: Any,
    ) -> ToolSpec:
        """A fresh run of ``agent`` per call (history "fresh"), its usage merged into the
        parent run's ``RunUsage``. ``deps``: the child's deps, or a function of the parent's
        ``RunContext`` giving them; ``usage_limits``: the child run's own;
        ``event_stream_handler``: stream the child run and hand its events to it."""
        _check_agent(agent)
        if event_stream_handler is not None and not callable(event_stream_handler):
            raise ConfigurationError(
                "event_stream_handler must be a function (ctx, events) as pydantic-ai takes it, "
                f"not {type(event_stream_handler).__name__}"
            )
        from agent_sdk_pydantic_ai._agents import agent_spec

        return agent_spec(
            agent,
            settings,
            deps=deps,
            usage_limits=usage_limits,
            event_stream_handler=event_stream_handler,
            provider=self.provider,
        )

    def bind_context(self, event: Any) -> CallContext:
        """The CallContext of the tool call a pydantic-ai ``RunContext`` describes."""
        from pydantic_ai import RunContext

        from agent_sdk_pydantic_ai._context import bind_run_context

        if not isinstance(event, RunContext):
            raise IntegrationError(
                f"pydantic-ai binds a context from a RunContext, not {type(event).__name__}"
            )
        return bind_run_context(event)

    def native_approval(self, gate: ApprovalGate) -> Any:
        """A ``HandleDeferredToolCalls`` capability deciding pydantic-ai's own
        ``requires_approval`` calls through ``gate``."""
        from agent_sdk_pydantic_ai._approval import native_approval

        return native_approval(gate)


def _check_agent(agent: Any) -> None:
    from pydantic_ai.agent import AbstractAgent

    if not isinstance(agent, AbstractAgent):
        raise ConfigurationError(
            f"pydantic_ai_agent_tool needs a pydantic_ai.Agent, got {type(agent).__name__}"
        )


INTEGRATION = PydanticAIIntegration()


@hookimpl
def agent_sdk_integrations() -> Sequence[Integration]:
    return [INTEGRATION]
