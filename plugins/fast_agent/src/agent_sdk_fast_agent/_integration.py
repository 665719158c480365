"""The fast-agent Integration and the plugin's hook: the entry point.

The entry point imports this module whenever plugins are listed, so it does not import
fast-agent (seconds): the methods import ``_tools``, ``_agents`` and ``_approval`` when an
integration is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from agent_sdk import ConfigurationError, Executor, IntegrationError, ToolSpec
from agent_sdk.integration import (
    AgentToolSettings,
    ApprovalGate,
    CallContext,
    Integration,
    Requirement,
    hookimpl,
)
from agent_sdk_fast_agent._context import bind_tool_call

_TOOLS = "fast_agent.tools.invocation_context"
_AGENT = "fast_agent.agents.llm_decorator:LlmDecorator"
_AS_TOOLS = "fast_agent.agents.workflow.agents_as_tools_agent"


if TYPE_CHECKING:  # the native tool type the Integration base names (as a string)
    from agent_sdk_fast_agent._tools import AgentSDKTool  # noqa: F401


class FastAgentIntegration(Integration["AgentSDKTool", Any]):
    """fast-agent: ToolSpecs as fastmcp function tools, agents as tools (a detached clone
    per call), ``ToolGate`` approvals for fast-agent's own tools."""

    name = "fast-agent"
    distribution = "agent-sdk-fast-agent"
    requires = Requirement(
        "fast-agent-mcp",
        ">=0.10,<0.11",
        symbols=(
            f"{_TOOLS}:get_local_tool_invocation_context",
            f"{_TOOLS}:LocalToolInvocationContext",
            f"{_TOOLS}:AgentToolInvocationContext",
            "fast_agent.agents.tool_runner:ToolRunnerHooks",
            "fast_agent.agents.tool_result_channels:build_tool_result_message",
            "fast_agent.agents.tool_agent:ToolAgent.add_tool",
            "fast_agent.agents.tool_agent:ToolAgent.run_tools",
            f"{_AGENT}.spawn_detached_instance",
            f"{_AGENT}.load_message_history",
            f"{_AGENT}.append_history",
            f"{_AGENT}.merge_usage_from",
            f"{_AGENT}.structured_schema",
            f"{_AS_TOOLS}:HistorySource.CHILD",
            f"{_AS_TOOLS}:HistoryMergeTarget.CHILD",
            "fast_agent.ui.display_suppression:suppress_interactive_display",
            "fast_agent.mcp.prompt:Prompt",
            "fastmcp.tools:FunctionTool",
            "fastmcp.tools:ToolResult",
        ),
    )
    aliases = ("fast_agent", "fast-agent-mcp")
    harness = "agent_sdk_fast_agent.testing:FastAgentHarness"
    history_modes = ("fresh", "fork", "shared")
    agent_tool_options = ("output_model", "confirm", "display")
    option_hints: ClassVar[Mapping[str, str]] = {
        "gate": "gate fast-agent's own tools with fast_agent_instrument(agent, gate=...)",
        "middleware": "fast-agent has no tool middleware; gate fast-agent's own tools with "
        "fast_agent_instrument(agent, gate=...)",
    }

    def export_tool(
        self,
        spec: ToolSpec,
        *,
        executor: Executor | None = None,
        gate: ApprovalGate | None = None,
        **options: Any,
    ) -> Any:
        """An ``AgentSDKTool`` (a fastmcp ``FunctionTool``) for ``agent.add_tool``."""
        from agent_sdk_fast_agent._tools import build_tool

        return build_tool(spec, executor or Executor(), gate)

    def agent_name(self, agent: Any) -> str:
        _check_agent(agent, named=False)
        return str(agent.name)

    def agent_description(self, agent: Any, name: str) -> str:
        config = getattr(agent, "config", None)
        text = getattr(config, "description", None) or getattr(agent, "instruction", None)
        return (
            text
            if isinstance(text, str) and text.strip()
            else f"Send a request to the {name} agent."
        )

    def agent_spec(
        self,
        agent: Any,
        settings: AgentToolSettings,
        *,
        output_model: type[BaseModel] | None = None,
        confirm: bool | Callable[[BaseModel], bool] = False,
        display: bool = False,
        **options: Any,
    ) -> ToolSpec:
        _check_agent(agent, named=True)
        from agent_sdk_fast_agent._agents import agent_spec

        return agent_spec(
            agent,
            settings,
            output_model=output_model,
            confirm=confirm,
            display=display,
            provider=self.provider,
        )

    def bind_context(self, event: Any = None) -> CallContext:
        """The CallContext of a fast-agent tool call.

        ``event`` is fast-agent's ``LocalToolInvocationContext`` (None: the current one) or
        ``AgentToolInvocationContext``, or a ``tool_use_id`` string. The call id is the
        ``tool_use_id``; the conversation id is the one ``fast_agent_instrument`` minted for the
        running top-level generate (see ``conversation``).
        """
        if isinstance(event, str):
            return bind_tool_call(event)
        from fast_agent.tools.invocation_context import (
            AgentToolInvocationContext,
            LocalToolInvocationContext,
            get_local_tool_invocation_context,
        )

        if event is None:
            event = get_local_tool_invocation_context()
        if event is None:
            return bind_tool_call(None)
        if isinstance(event, (LocalToolInvocationContext, AgentToolInvocationContext)):
            return bind_tool_call(event.tool_use_id)
        raise IntegrationError(f"cannot bind a fast-agent context from {type(event).__name__}")

    def native_approval(self, gate: ApprovalGate) -> Any:
        """A ``ToolGate`` deciding fast-agent's own tools (every call) through ``gate``."""
        from agent_sdk_fast_agent._approval import ToolGate

        return ToolGate(gate)


def _check_agent(agent: Any, *, named: bool) -> None:
    """A fast-agent agent, or (with ``name=``) a function returning one: agents of a
    ``FastAgent`` app exist only inside ``fast.run()``."""
    if hasattr(agent, "spawn_detached_instance"):
        return
    if not callable(agent):
        raise ConfigurationError(
            f"{type(agent).__name__} is not a fast-agent agent (no spawn_detached_instance)"
        )
    if not named:
        raise ConfigurationError("give name= when agent is a function returning the agent")


INTEGRATION = FastAgentIntegration()


@hookimpl
def agent_sdk_integrations() -> Sequence[Integration]:
    return [INTEGRATION]
