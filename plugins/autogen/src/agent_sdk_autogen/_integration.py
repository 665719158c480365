"""The AutoGen 0.7 Integration and the plugin's one hook: the entry point.

Listing plugins imports this module, so it does not import AutoGen: the methods import
``_tools``, ``_agents`` and ``_context`` when they are used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agent_sdk import ConfigurationError, Executor, ToolSpec
from agent_sdk.integration import (
    AgentToolSettings,
    ApprovalGate,
    CallContext,
    Integration,
    Requirement,
    hookimpl,
)

_AGENTCHAT = "autogen_agentchat"


if TYPE_CHECKING:  # the native tool type the Integration base names (as a string)
    from agent_sdk_autogen._tools import AutogenTool  # noqa: F401


class AutogenIntegration(Integration["AutogenTool", Any]):
    """AutoGen 0.7: ToolSpecs as ``BaseTool``s whose calls all go through the executor (the
    approval gate included: AutoGen has no tool-approval hook, so ``bind_approval`` is None),
    agents and teams as tools (a child per call), contexts from AutoGen's call events."""

    name = "autogen"
    distribution = "agent-sdk-autogen"
    requires = Requirement(
        "autogen-agentchat",
        ">=0.7,<0.8",
        symbols=(
            "autogen_core:EVENT_LOGGER_NAME",
            "autogen_core:CancellationToken.add_callback",
            "autogen_core:CancellationToken.link_future",
            "autogen_core:FunctionCall",
            "autogen_core.logging:ToolCallEvent",
            "autogen_core.models:FunctionExecutionResult",
            "autogen_core.model_context:ChatCompletionContext.clear",
            "autogen_core.tools:BaseTool.run_json",
            "autogen_core.tools:StaticWorkbench.call_tool",
            # The class methods the agents this plugin runs override (_agent_loop).
            f"{_AGENTCHAT}.agents:AssistantAgent._execute_tool_call",
            f"{_AGENTCHAT}.agents:AssistantAgent._call_llm",
            f"{_AGENTCHAT}.agents:AssistantAgent._reflect_on_tool_use_flow",
            f"{_AGENTCHAT}.agents:AssistantAgent.save_state",
            f"{_AGENTCHAT}.agents:AssistantAgent.load_state",
            f"{_AGENTCHAT}.base:ChatAgent.on_messages_stream",
            f"{_AGENTCHAT}.base:Team.run_stream",
            f"{_AGENTCHAT}.base:Team.reset",
            f"{_AGENTCHAT}.base:TaskResult",
            f"{_AGENTCHAT}.messages:ModelClientStreamingChunkEvent",
            f"{_AGENTCHAT}.messages:StructuredMessage",
            f"{_AGENTCHAT}.messages:ThoughtEvent",
            f"{_AGENTCHAT}.messages:ToolCallExecutionEvent",
            f"{_AGENTCHAT}.messages:ToolCallRequestEvent",
        ),
    )
    aliases = ("autogen-0.7",)
    harness = "agent_sdk_autogen.testing:AutogenHarness"
    history_modes = ("fresh", "fork", "shared")
    provider = "autogen"
    option_hints: ClassVar[Mapping[str, str]] = {
        "middleware": "AutoGen 0.7 has no tool middleware; use approval= for the approval gate"
    }

    def export_tool(
        self,
        spec: ToolSpec,
        *,
        executor: Executor | None = None,
        gate: ApprovalGate | None = None,
        **options: Any,
    ) -> Any:
        """An ``AutogenTool`` (a ``BaseTool`` for ``AssistantAgent(tools=[...])``)."""
        from agent_sdk_autogen._tools import AutogenTool

        return AutogenTool(spec, executor=executor or Executor(), gate=gate)

    def agent_template(self, agent: Any) -> Any:
        """``agent`` is an AutoGen agent or team, or a factory of one: a sync factory is built
        once here to read the name and description; an async one cannot be (None)."""
        from agent_sdk_autogen._agents import sample

        return sample(agent)

    def agent_name(self, agent: Any) -> str:
        if agent is None:
            raise ConfigurationError("give name= for an async agent or team factory")
        return super().agent_name(agent)

    def agent_description(self, agent: Any, name: str) -> str:
        text = getattr(agent, "description", None)
        return text if isinstance(text, str) and text.strip() else f"Ask {name}."

    def agent_spec(
        self,
        agent: Any,
        settings: AgentToolSettings,
        **options: Any,
    ) -> ToolSpec:
        """A child per call: a copy of an ``AssistantAgent`` template (``"fresh"``: with no
        history, ``"fork"``: with the template's), the template itself one call at a time
        (``"shared"``), a team one call at a time (after ``reset()`` unless ``"shared"``), or
        a new agent or team from a factory (``"fresh"`` only)."""
        from agent_sdk_autogen._agents import agent_spec

        return agent_spec(
            agent,
            settings,
            provider=self.provider,
        )

    def bind_context(self, event: Any) -> CallContext:
        """The CallContext of an AutoGen event that identifies a call: a ``FunctionCall`` or
        ``FunctionExecutionResult`` (call id), the run's ``CancellationToken`` (conversation),
        or a mapping with ``call_id`` and ``cancellation_token``."""
        from agent_sdk_autogen._context import bind_event

        return bind_event(event)


INTEGRATION = AutogenIntegration()


@hookimpl
def agent_sdk_integrations() -> Sequence[Integration]:
    return [INTEGRATION]
