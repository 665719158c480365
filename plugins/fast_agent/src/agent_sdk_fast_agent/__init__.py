"""agent-sdk for fast-agent: function tools, approval gates, agents-as-tools with guards,
traces tagged with run id and path.

Importing this package does not import fast-agent (the entry point loads it whenever
plugins are listed); ``fast_agent_instrument``, ``ToolGate`` and ``AgentSDKTool`` import it on first
use, the functions below when they are called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_sdk import tool_error
from agent_sdk.integration import lazy_exports
from agent_sdk_fast_agent._context import Conversation, conversation, current_conversation
from agent_sdk_fast_agent._integration import INTEGRATION

if TYPE_CHECKING:
    from agent_sdk_fast_agent._approval import ToolGate
    from agent_sdk_fast_agent._tools import AgentSDKTool
    from agent_sdk_fast_agent._tracing import fast_agent_instrument

__version__ = "0.2.0"


# The public shape is the integration's own, written once in the core (typed with
# fast-agent's tool type): fast_agent_tool(spec_or_function, *, executor=None,
# approval=None), fast_agent_tools(registry, ...), fast_agent_agent_tool(agent_or_factory,
# *, name=None, ..., output_model=None, confirm=False, display=False).
fast_agent_tool = INTEGRATION.tool
fast_agent_tools = INTEGRATION.tools
fast_agent_agent_tool = INTEGRATION.agent_tool
fast_agent_agent_tool_spec = INTEGRATION.agent_tool_spec


def _tool_exception(tool_use_id: str) -> BaseException | None:
    """What the deprecated ``tool_exception(tool_use_id)`` (0.1) still answers."""
    error = tool_error(tool_use_id)
    return None if error is None else (error.cause or error)


__all__ = [
    "INTEGRATION",
    "AgentSDKTool",
    "Conversation",
    "ToolGate",
    "conversation",
    "current_conversation",
    "fast_agent_agent_tool",
    "fast_agent_agent_tool_spec",
    "fast_agent_instrument",
    "fast_agent_tool",
    "fast_agent_tools",
]

# Names that import fast-agent load on first use; the 0.1 names (instrument, orchestrate,
# bind_context, tool_exception, HISTORY_MODES, HistoryMode) still work and warn once:
# agent_sdk.deprecated.
__getattr__ = lazy_exports(
    __name__,
    {
        "ToolGate": "agent_sdk_fast_agent._approval",
        "fast_agent_instrument": "agent_sdk_fast_agent._tracing",
        "AgentSDKTool": "agent_sdk_fast_agent._tools",
    },
)
