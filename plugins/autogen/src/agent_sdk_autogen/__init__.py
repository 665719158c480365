"""agent-sdk for Microsoft AutoGen 0.7: tools, approval gate, agents and teams as tools.

Importing this package does not import AutoGen (the entry point loads it whenever plugins
are listed); the names below import it on first use.
"""

from typing import TYPE_CHECKING

from agent_sdk.exports import lazy_exports
from agent_sdk_autogen._integration import INTEGRATION

if TYPE_CHECKING:
    from agent_sdk_autogen._agents import autogen_agent_tool, autogen_team_tool
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

__getattr__ = lazy_exports(
    __name__,
    {
        "autogen_agent_tool": "agent_sdk_autogen._agents",
        "autogen_team_tool": "agent_sdk_autogen._agents",
        "AutogenToolError": "agent_sdk_autogen._runs",
        "autogen_run": "agent_sdk_autogen._runs",
        "collect_tool_errors": "agent_sdk_autogen._runs",
        "AutogenTool": "agent_sdk_autogen._tools",
        "autogen_tool": "agent_sdk_autogen._tools",
        "autogen_tools": "agent_sdk_autogen._tools",
    },
)
