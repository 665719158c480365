"""agent-sdk for Microsoft AutoGen 0.7: tools, approval gate, agents and teams as tools."""

from agent_sdk_autogen._agents import autogen_agent_tool, autogen_team_tool
from agent_sdk_autogen._integration import INTEGRATION
from agent_sdk_autogen._plugin import (
    agent_sdk_bind_context,
    agent_sdk_export_tool,
    agent_sdk_integrations,
)
from agent_sdk_autogen._runs import AutogenToolError, autogen_run, collect_tool_errors
from agent_sdk_autogen._tools import AutogenTool, autogen_tool, autogen_tools

__version__ = "0.1.0"

__all__ = [
    "INTEGRATION",
    "AutogenTool",
    "AutogenToolError",
    "autogen_agent_tool",
    "autogen_run",
    "autogen_team_tool",
    "autogen_tool",
    "autogen_tools",
    "collect_tool_errors",
]

# The hook implementations are found on this module by the entry point `autogen`.
_HOOKS = (agent_sdk_bind_context, agent_sdk_export_tool, agent_sdk_integrations)
