"""agent-sdk for AG2 1.x: export tool specs and agents as AG2 tools.

``ag2_tool(spec)`` / ``ag2_tools(registry)`` give AG2 ``FunctionTool`` objects that run
every call through the agent-sdk executor; ``ag2_agent_tool(agent)`` runs an AG2 ``Agent``
as a sub-agent tool. ``INTEGRATION`` is the object ``get_integration("ag2")`` returns.
"""

from agent_sdk_ag2._api import ag2_agent_tool, ag2_tool, ag2_tools
from agent_sdk_ag2._plugin import (
    INTEGRATION,
    agent_sdk_bind_context,
    agent_sdk_export_tool,
    agent_sdk_integrations,
)

__version__ = "0.1.0"

__all__ = [
    "INTEGRATION",
    "__version__",
    "ag2_agent_tool",
    "ag2_tool",
    "ag2_tools",
    # pluggy hooks (this package is the entry point's plugin object)
    "agent_sdk_bind_context",
    "agent_sdk_export_tool",
    "agent_sdk_integrations",
]
