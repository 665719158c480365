"""agent-sdk plugin template: minifw tools and agents-as-tools.

Importing this package does not import minifw: ``minifw_instrument`` loads it on first use,
the functions below when they are called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_sdk.integration import lazy_exports
from agent_sdk_minifw._integration import INTEGRATION

if TYPE_CHECKING:
    from agent_sdk_minifw._tracing import minifw_instrument


# The public shape is the integration's own, written once in the core: minifw_tool(
# spec_or_function, *, executor=None, approval=None), minifw_tools(registry, ...),
# minifw_agent_tool(agent, *, name=None, description=None, return_mode="last", ...).
minifw_tool = INTEGRATION.tool
minifw_tools = INTEGRATION.tools
minifw_agent_tool = INTEGRATION.agent_tool
minifw_agent_tool_spec = INTEGRATION.agent_tool_spec


__all__ = [
    "INTEGRATION",
    "minifw_agent_tool",
    "minifw_agent_tool_spec",
    "minifw_instrument",
    "minifw_tool",
    "minifw_tools",
]

# minifw_instrument loads minifw on first use. The 0.1 names (export_tool,
# export_agent_tool, minifw_observer) still work for one release and warn once: they are
# entries of agent-sdk's table (agent_sdk.deprecated), which lazy_exports asks.
__getattr__ = lazy_exports(__name__, {"minifw_instrument": "agent_sdk_minifw._tracing"})
