"""agent-sdk for Microsoft AutoGen 0.7: tools, approval gate, agents and teams as tools.

``autogen_tool(spec_or_function)`` exports a ToolSpec (or a plain function) as an AutoGen
``BaseTool`` whose calls all go through the agent-sdk executor; ``autogen_agent_tool(agent)``
runs an agent or team as a tool, a child per call; ``autogen_run`` is a cancel-safe
``run()``; ``autogen_instrument`` gives an agent or team you run yourself what ``autogen_run``
gives the agents it runs. Importing this package does not import AutoGen (the entry point
loads it whenever plugins are listed); the functions import it on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_sdk.integration import lazy_exports
from agent_sdk_autogen._integration import INTEGRATION

if TYPE_CHECKING:
    from agent_sdk_autogen._agent_loop import autogen_instrument, autogen_run
    from agent_sdk_autogen._tools import AutogenTool, AutogenToolError, collect_tool_errors

__version__ = "0.2.0"


# The public shape is the integration's own, written once in the core (typed with AutoGen's
# tool type): autogen_tool(spec_or_function, *, executor=None, approval=None),
# autogen_tools(registry, ...), autogen_agent_tool(agent_or_team_or_factory, *, ...).
# autogen_team_tool is the same function: teams are agents here (a factory makes parallel
# calls work, where AutoGen's TeamTool fails the second with "The team is already running").
autogen_tool = INTEGRATION.tool
autogen_tools = INTEGRATION.tools
autogen_agent_tool = INTEGRATION.agent_tool
autogen_agent_tool_spec = INTEGRATION.agent_tool_spec
autogen_team_tool = INTEGRATION.agent_tool


__all__ = [
    "INTEGRATION",
    "AutogenTool",
    "AutogenToolError",
    "autogen_agent_tool",
    "autogen_agent_tool_spec",
    "autogen_instrument",
    "autogen_run",
    "autogen_team_tool",
    "autogen_tool",
    "autogen_tools",
    "collect_tool_errors",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "AutogenToolError": "agent_sdk_autogen._tools",
        "autogen_instrument": "agent_sdk_autogen._agent_loop",
        "autogen_run": "agent_sdk_autogen._agent_loop",
        "collect_tool_errors": "agent_sdk_autogen._tools",
        "AutogenTool": "agent_sdk_autogen._tools",
    },
)
