"""agent-sdk for AG2 1.x: export tool specs and agents as AG2 tools.

``ag2_tool(spec_or_function)`` / ``ag2_tools(registry)`` give AG2 ``FunctionTool`` objects
that run every call through the agent-sdk executor; ``ag2_agent_tool(agent)`` runs an AG2
``Agent`` as a sub-agent tool. ``INTEGRATION`` is the object ``get_integration("ag2")``
returns. Importing this package does not import AG2; the functions import it on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_sdk.integration import lazy_exports
from agent_sdk_ag2._integration import INTEGRATION

if TYPE_CHECKING:
    from agent_sdk_ag2._tools import AgentSDKTool
    from agent_sdk_ag2._tracing import SpanMiddleware, ag2_instrument

__version__ = "0.2.0"


# The public shape is the integration's own, written once in the core (typed with AG2's
# tool and agent types): ag2_tool(spec_or_function, *, executor=None, approval=None,
# middleware=()), ag2_tools(registry, ...), ag2_agent_tool(agent, *, name=None, ...).
ag2_tool = INTEGRATION.tool
ag2_tools = INTEGRATION.tools
ag2_agent_tool = INTEGRATION.agent_tool
ag2_agent_tool_spec = INTEGRATION.agent_tool_spec


__all__ = [
    "INTEGRATION",
    "AgentSDKTool",
    "SpanMiddleware",
    "__version__",
    "ag2_agent_tool",
    "ag2_agent_tool_spec",
    "ag2_instrument",
    "ag2_tool",
    "ag2_tools",
]

# AgentSDKTool, SpanMiddleware and ag2_instrument import AG2: they load on first use. The
# hook moved with the entry point (it warns once: agent_sdk.deprecated).
__getattr__ = lazy_exports(
    __name__,
    {
        "AgentSDKTool": "agent_sdk_ag2._tools",
        "SpanMiddleware": "agent_sdk_ag2._tracing",
        "ag2_instrument": "agent_sdk_ag2._tracing",
    },
)
