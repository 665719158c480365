"""The openai-agents Integration and its one hook: the entry point.

Listing plugins imports this module, so it does not import the OpenAI Agents SDK: the
methods import ``_tools``, ``_agents``, ``_approval`` and ``_context`` when they are used.
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
    from agents import Agent, FunctionTool  # noqa: F401


class OpenAIAgentsIntegration(Integration["FunctionTool", "Agent[Any]"]):
    """Specs as ``agents.FunctionTool``s (option ``strict=``), agents as tools (options
    ``max_turns=``, ``run_config=``, ``on_stream=``), contexts from a ``ToolContext``, and
    native approvals as the SDK's ``needs_approval`` policy."""

    name = "openai-agents"
    distribution = "agent-sdk-openai-agents"
    requires = Requirement(
        "openai-agents",
        ">=0.24,<0.25",
        symbols=(
            "agents:Agent.clone",
            "agents:Agent.model_settings",
            "agents:AgentToolStreamEvent",
            "agents:Agent.handoff_description",
            "agents:FunctionTool.needs_approval",
            "agents:FunctionTool.custom_data_extractor",
            "agents:FunctionTool._is_agent_tool",
            "agents:FunctionTool._agent_instance",
            "agents:RunConfig.call_model_input_filter",
            "agents:RunContextWrapper.get_approval_status",
            "agents:ModelSettings.include_usage",
            "agents:Runner.run",
            "agents:Runner.run_streamed",
            "agents:RunResultStreaming.run_loop_task",
            "agents.agent_tool_state:get_agent_tool_resume_state",
            "agents.agent_tool_state:get_agent_tool_state_scope",
            "agents.agent_tool_state:peek_agent_tool_run_result",
            "agents.agent_tool_state:record_agent_tool_resume_state",
            "agents.agent_tool_state:record_agent_tool_run_result",
            "agents.run:DEFAULT_MAX_TURNS",
            "agents.run_config:ModelInputData",
            "agents.strict_schema:ensure_strict_json_schema",
            "agents.tool:FunctionToolCustomDataContext",
            "agents.tool_context:ToolContext.tool_call_id",
            "agents.tracing:TracingProcessor",
            "agents.tracing:get_current_span",
        ),
    )
    aliases = ("openai_agents", "agents")
    harness = "agent_sdk_openai_agents.testing:OpenAIAgentsHarness"
    history_modes = ("fresh",)
    provider = "openai"
    tool_options = ("strict",)
    agent_tool_options = ("max_turns", "run_config", "on_stream")
    option_hints: ClassVar[Mapping[str, str]] = {
        "middleware": "openai-agents has no tool middleware; use the FunctionTool's "
        "tool_input_guardrails / tool_output_guardrails instead"
    }

    def export_tool(
        self,
        spec: ToolSpec,
        *,
        executor: Executor | None = None,
        gate: ApprovalGate | None = None,
        strict: bool | None = None,
        **options: Any,
    ) -> Any:
        """``spec`` as an ``agents.FunctionTool`` (``strict=None``: an OpenAI strict schema
        where the spec can be expressed strictly)."""
        from agent_sdk_openai_agents._tools import build_tool

        return build_tool(spec, executor=executor or Executor(), gate=gate, strict=strict)

    def agent_name(self, agent: Any) -> str:
        _check_agent(agent)
        return super().agent_name(agent)

    def agent_description(self, agent: Any, name: str) -> str:
        text = getattr(agent, "handoff_description", None)
        return text if isinstance(text, str) and text.strip() else f"Ask the {agent.name} agent."

    def agent_spec(
        self,
        agent: Any,
        settings: AgentToolSettings,
        *,
        max_turns: int | None = None,
        run_config: Any = None,
        on_stream: Any = None,
        **options: Any,
    ) -> ToolSpec:
        """A fresh clone of ``agent`` per call, on its own conversation (history "fresh");
        ``on_stream``: stream the child run and hand it every event."""
        _check_agent(agent)
        _check_on_stream(on_stream)
        from agent_sdk_openai_agents._agents import agent_spec

        return agent_spec(
            agent,
            settings,
            max_turns=max_turns,
            run_config=run_config,
            on_stream=on_stream,
            provider=self.provider,
        )

    def bind_context(self, event: Any) -> CallContext:
        """The CallContext of the tool call an SDK ``ToolContext`` describes."""
        from agents import RunContextWrapper

        from agent_sdk_openai_agents._context import bind_tool_context

        if not isinstance(event, RunContextWrapper):
            raise IntegrationError(
                f"openai-agents binds a context from a ToolContext, not {type(event).__name__}"
            )
        return bind_tool_context(event)

    def native_approval(self, gate: ApprovalGate) -> Any:
        """A ``needs_approval`` policy for any FunctionTool, deciding through ``gate``."""
        from agent_sdk_openai_agents._approval import NativeApproval

        return NativeApproval(gate)


def _check_on_stream(on_stream: Any) -> None:
    if on_stream is not None and not callable(on_stream):
        raise ConfigurationError(
            f"on_stream must be a callable taking each event of the child run, not "
            f"{type(on_stream).__name__}"
        )


def _check_agent(agent: Any) -> None:
    from agents import Agent

    if not isinstance(agent, Agent):
        raise ConfigurationError(
            f"openai_agents_agent_tool needs an agents.Agent, got {type(agent).__name__}"
        )


INTEGRATION = OpenAIAgentsIntegration()


@hookimpl
def agent_sdk_integrations() -> Sequence[Integration]:
    return [INTEGRATION]
