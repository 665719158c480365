"""agent-sdk for fast-agent: function tools, approval gates, agents-as-tools with guards,
traces tagged with run id and path."""

from ._agents import HISTORY_MODES, HistoryMode, fast_agent_agent_tool
from ._context import Conversation, conversation, current_conversation
from ._plugin import (
    INTEGRATION,
    agent_sdk_bind_context,
    agent_sdk_export_tool,
    agent_sdk_integrations,
    bind_context,
)
from ._runs import ToolGate, instrument
from ._tools import AgentSDKTool, fast_agent_tool, fast_agent_tools, tool_exception

__all__ = [
    "HISTORY_MODES",
    "INTEGRATION",
    "AgentSDKTool",
    "Conversation",
    "HistoryMode",
    "ToolGate",
    "agent_sdk_bind_context",
    "agent_sdk_export_tool",
    "agent_sdk_integrations",
    "bind_context",
    "conversation",
    "current_conversation",
    "fast_agent_agent_tool",
    "fast_agent_tool",
    "fast_agent_tools",
    "instrument",
    "tool_exception",
]
