"""agent-sdk integration for the OpenAI Agents SDK (``openai-agents``, import ``agents``).

``openai_agents_tool(spec)`` exports a ToolSpec as an ``agents.FunctionTool`` whose calls
all go through the agent-sdk executor; ``openai_agents_agent_tool(agent)`` exposes an
``agents.Agent`` as a tool with hierarchy guards; ``instrument()`` mirrors the SDK's own
traces into OpenTelemetry. Importing this package does not import the SDK; the names below
import it on first use.
"""

from typing import TYPE_CHECKING

from agent_sdk.exports import lazy_exports
from agent_sdk_openai_agents._plugin import INTEGRATION

if TYPE_CHECKING:
    from agent_sdk_openai_agents._api import (
        openai_agents_agent_tool,
        openai_agents_tool,
        openai_agents_tools,
    )
    from agent_sdk_openai_agents._approval import NativeApproval
    from agent_sdk_openai_agents._tools import ERROR_DATA_KEY, tool_error
    from agent_sdk_openai_agents._tracing import OpenTelemetryBridge, instrument

__version__ = "0.1.0"

__all__ = [
    "ERROR_DATA_KEY",
    "INTEGRATION",
    "NativeApproval",
    "OpenTelemetryBridge",
    "instrument",
    "openai_agents_agent_tool",
    "openai_agents_tool",
    "openai_agents_tools",
    "tool_error",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "openai_agents_agent_tool": "agent_sdk_openai_agents._api",
        "openai_agents_tool": "agent_sdk_openai_agents._api",
        "openai_agents_tools": "agent_sdk_openai_agents._api",
        "NativeApproval": "agent_sdk_openai_agents._approval",
        "ERROR_DATA_KEY": "agent_sdk_openai_agents._tools",
        "tool_error": "agent_sdk_openai_agents._tools",
        "OpenTelemetryBridge": "agent_sdk_openai_agents._tracing",
        "instrument": "agent_sdk_openai_agents._tracing",
    },
)
