"""agent-sdk for fast-agent: function tools, approval gates, agents-as-tools with guards,
traces tagged with run id and path.

Importing this package does not import fast-agent (the entry point loads it whenever
plugins are listed); the names below import it on first use.
"""

from typing import TYPE_CHECKING

from agent_sdk.exports import lazy_exports
from agent_sdk_fast_agent._context import Conversation, conversation, current_conversation
from agent_sdk_fast_agent._integration import INTEGRATION
from agent_sdk_fast_agent._plugin import bind_context

if TYPE_CHECKING:
    from agent_sdk_fast_agent._agents import HISTORY_MODES, HistoryMode, fast_agent_agent_tool
    from agent_sdk_fast_agent._runs import ToolGate, instrument
    from agent_sdk_fast_agent._tools import (
        AgentSDKTool,
        fast_agent_tool,
        fast_agent_tools,
        tool_exception,
    )

__version__ = "0.1.0"

__all__ = [
    "HISTORY_MODES",
    "INTEGRATION",
    "AgentSDKTool",
    "Conversation",
    "HistoryMode",
    "ToolGate",
    "bind_context",
    "conversation",
    "current_conversation",
    "fast_agent_agent_tool",
    "fast_agent_tool",
    "fast_agent_tools",
    "instrument",
    "tool_exception",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "HISTORY_MODES": "agent_sdk_fast_agent._agents",
        "HistoryMode": "agent_sdk_fast_agent._agents",
        "fast_agent_agent_tool": "agent_sdk_fast_agent._agents",
        "ToolGate": "agent_sdk_fast_agent._runs",
        "instrument": "agent_sdk_fast_agent._runs",
        "AgentSDKTool": "agent_sdk_fast_agent._tools",
        "fast_agent_tool": "agent_sdk_fast_agent._tools",
        "fast_agent_tools": "agent_sdk_fast_agent._tools",
        "tool_exception": "agent_sdk_fast_agent._tools",
    },
)
