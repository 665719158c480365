"""agent-sdk integration for Microsoft Agent Framework (``agent-framework-core``, import
``agent_framework``).

``agent_framework_tool(spec_or_function)`` exports a ToolSpec (or a plain function) as a MAF
``FunctionTool`` whose calls all go through the agent-sdk executor (a pending approval stops
a run with MAF's own function-approval request); ``agent_framework_agent_tool(agent)``
exposes an ``Agent`` as a tool with return modes, hierarchy guards and child approvals that
reach the parent; ``INTEGRATION.bind_approval(port)`` is a function middleware deciding
MAF's own tools through the same gate; ``agent_framework_instrument(agent)`` puts your own
top agent in the agent-sdk run. Importing this package does not import Agent Framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_sdk.integration import lazy_exports
from agent_sdk_agent_framework._integration import INTEGRATION

if TYPE_CHECKING:
    from agent_sdk_agent_framework._approval import ApprovalMiddleware
    from agent_sdk_agent_framework._tools import ERROR_DATA_KEY, ExecutorTool

__version__ = "0.2.0"


# The public shape is the integration's own, written once in the core (typed with MAF's
# FunctionTool and Agent): agent_framework_tool(spec_or_function, *, executor=None,
# approval=None, pause=True), agent_framework_tools(registry, ...),
# agent_framework_agent_tool(agent, *, name=None, ..., on_stream=None).
agent_framework_tool = INTEGRATION.tool
agent_framework_tools = INTEGRATION.tools
agent_framework_agent_tool = INTEGRATION.agent_tool
agent_framework_agent_tool_spec = INTEGRATION.agent_tool_spec


def agent_framework_instrument(agent: Any) -> Any:
    """Put your own top agent in the agent-sdk run it is called in; returns ``agent``.

    MAF traces it already (``invoke_agent``, ``chat`` with tokens: in agent-sdk's tree, with
    the run id and path stamped by ``RunSpanProcessor``). This adds, once, two middlewares:
    its own model calls are charged to the run's cost report and refused once the run's
    model-call budget is spent (the run ends with ``HierarchyLimitError``), and a run
    without an ``AgentSession`` gets one conversation id for all its tool calls."""
    from agent_sdk_agent_framework._tracing import instrument

    return instrument(agent)


__all__ = [
    "ERROR_DATA_KEY",
    "INTEGRATION",
    "ApprovalMiddleware",
    "ExecutorTool",
    "agent_framework_agent_tool",
    "agent_framework_agent_tool_spec",
    "agent_framework_instrument",
    "agent_framework_tool",
    "agent_framework_tools",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "ApprovalMiddleware": "agent_sdk_agent_framework._approval",
        "ERROR_DATA_KEY": "agent_sdk_agent_framework._tools",
        "ExecutorTool": "agent_sdk_agent_framework._tools",
    },
)
