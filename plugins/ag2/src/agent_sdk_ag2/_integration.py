"""The AG2 Integration and its one hook: the entry point.

Listing plugins imports this module, so it does not import AG2 (and the entry point loads,
and ``get_integration("ag2")`` explains what is wrong, even when the installed ``ag2`` is
outside the supported range or is the old 0.x package): the methods import ``_tools`` and
``_agents`` (and ``_context``) when they are used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_sdk import ConfigurationError, Executor, ToolSpec
from agent_sdk.integration import (
    AgentToolSettings,
    ApprovalGate,
    CallContext,
    Integration,
    Requirement,
    hookimpl,
)

if TYPE_CHECKING:  # the native types the Integration base names (as strings)
    from ag2 import Agent  # noqa: F401

    from agent_sdk_ag2._tools import AgentSDKTool  # noqa: F401


class AG2Integration(Integration["AgentSDKTool", "Agent"]):
    """AG2 1.x: specs as ``FunctionTool``s (option ``middleware=``, extra AG2 tool
    middleware), ``Agent``s as tools (a fresh ``MemoryStream`` per call, or one shared
    conversation), contexts from a ``ToolCallEvent`` or a tool's ``ConversationContext``.
    AG2 has no approval object to hand a port to: approvals go through ``approval=``."""

    name = "ag2"
    distribution = "agent-sdk-ag2"
    # What the bridge reads from AG2: a release inside the range that moved one of these is
    # refused with a message instead of failing later.
    requires = Requirement(
        "ag2",
        ">=1.2,<2",
        symbols=(
            "ag2:Agent",
            "ag2:MemoryStream",
            "ag2:MemoryStream.subscribe",
            "ag2:MemoryStream._subscribers",
            "ag2:MemoryStream._interrupters",
            "ag2.annotations:ContextField.use",
            "ag2.tools.types:FunctionTool.register",
            "ag2.tools.types:FunctionTool.source",
            "ag2.tools:ToolResult",
            "ag2.middleware:BaseMiddleware",
            "ag2.events:ToolCallEvent._serialized_arguments",
            "ag2.events:ToolResultEvent",
            "ag2.events:ToolErrorEvent",
            "ag2.events:ToolResultsEvent",
            "ag2.events:ModelRequest",
            "ag2.events:ModelResponse",
            "ag2.events:UsageEvent",
            "ag2.events:TextInput",
            "ag2.events:DataInput",
            "ag2.utils:build_model",
        ),
    )
    aliases = ("ag2-1",)
    harness = "agent_sdk_ag2.testing:AG2Harness"
    history_modes = ("fresh", "shared")
    provider = "ag2"
    tool_options = ("middleware",)

    def export_tool(
        self,
        spec: ToolSpec,
        *,
        executor: Executor | None = None,
        gate: ApprovalGate | None = None,
        middleware: Sequence[Any] = (),
        **options: Any,
    ) -> Any:
        """An ``AgentSDKTool`` (an AG2 ``FunctionTool``) whose calls ``gate`` decides after
        every tool middleware; ``middleware`` is extra AG2 tool middleware, outermost first."""
        from agent_sdk_ag2._tools import build_tool

        return build_tool(
            spec, executor=executor or Executor(), gate=gate, middleware=tuple(middleware)
        )

    def agent_name(self, agent: Any) -> str:
        _check_agent(agent)
        return str(agent.name)

    def agent_description(self, agent: Any, name: str) -> str:
        return (
            f"Ask the {agent.name} agent. It sees only the request you pass, never this "
            "conversation."
        )

    def agent_spec(
        self,
        agent: Any,
        settings: AgentToolSettings,
        **options: Any,
    ) -> ToolSpec:
        """Each call asks ``agent`` on a fresh ``MemoryStream`` (history "fresh"), or
        continues the agent's one conversation, a call at a time (history "shared")."""
        _check_agent(agent)
        from agent_sdk_ag2._agents import agent_spec

        return agent_spec(
            agent,
            settings,
            provider=self.provider,
        )

    def bind_context(self, event: Any) -> CallContext:
        """The CallContext of an AG2 tool call.

        ``event`` is a ``ToolCallEvent``, a ``(ToolCallEvent, ConversationContext)`` pair,
        or the ``ConversationContext`` a tool function receives (it carries
        ``tool_call_id``). The call id is the event's id; the stream id is the conversation
        (the run id at the root, and the thread id).
        """
        from agent_sdk_ag2._context import bind_event

        return bind_event(event)


def _check_agent(agent: Any) -> None:
    from ag2 import Agent

    if not isinstance(agent, Agent):
        raise ConfigurationError(f"ag2_agent_tool needs an ag2.Agent, got {type(agent).__name__}")


INTEGRATION = AG2Integration()


@hookimpl
def agent_sdk_integrations() -> Sequence[Integration]:
    return [INTEGRATION]
