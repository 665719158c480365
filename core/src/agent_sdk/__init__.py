"""agent-sdk: describe a tool once, or wrap an agent as a tool, and use it in any framework.

The names here are for applications. Plugin authors import from ``agent_sdk.integration``;
the contract kit is ``agent_sdk.testing``; scripted models are ``agent_sdk.scripted``.
"""

from typing import TYPE_CHECKING

from agent_sdk._version import __version__

# Context and errors are plain Python; everything else is imported on first use, so
# ``import agent_sdk`` costs a few milliseconds and ``from agent_sdk import Executor`` loads
# what the executor needs and no more: plugin discovery (pluggy, importlib.metadata,
# packaging), the SQLite store, tracing setup and agents as tools wait until they are used.
# See docs/performance.md. Every name imports from ``agent_sdk`` exactly as before.
from agent_sdk.context import CallContext, current_context, use_context
from agent_sdk.errors import (
    AgentSDKError,
    ApprovalError,
    ConfigurationError,
    ErrorKind,
    HierarchyLimitError,
    IntegrationError,
    ToolError,
)
from agent_sdk.exports import lazy_exports

_LAZY = {
    # Tools: describe once, run everywhere.
    "Registry": "agent_sdk.spec",
    "ToolSpec": "agent_sdk.spec",
    "Executor": "agent_sdk.executor",
    "ToolOutcome": "agent_sdk.executor",
    "tool_error": "agent_sdk.failures",
    # Approvals: ports that decide, durable deferred approvals, one-use tokens.
    "ApprovalGate": "agent_sdk.approval.gate",
    "DecidedApproval": "agent_sdk.approval.gate",
    "ApprovalPort": "agent_sdk.approval.ports",
    "ApprovalRequest": "agent_sdk.approval.ports",
    "AutoApprove": "agent_sdk.approval.ports",
    "CallbackApproval": "agent_sdk.approval.ports",
    "Decision": "agent_sdk.approval.ports",
    "DenyAll": "agent_sdk.approval.ports",
    "ApprovalToken": "agent_sdk.approval.tokens",
    "TokenAuthority": "agent_sdk.approval.tokens",
    "DeferredApproval": "agent_sdk.approval.store",
    "PendingApproval": "agent_sdk.approval.store",
    "SQLiteApprovalStore": "agent_sdk.approval.store",
    # Agents as tools and hierarchies: guards, runs, cost, output, fan-out.
    "HISTORY_MODES": "agent_sdk.agents",
    "FanOutResult": "agent_sdk.agents",
    "HistoryMode": "agent_sdk.agents",
    "agent_tool": "agent_sdk.agents",
    "call_agent": "agent_sdk.agents",
    "fan_out": "agent_sdk.agents",
    "AgentResponse": "agent_sdk.response",
    "Message": "agent_sdk.response",
    "Usage": "agent_sdk.response",
    "ReturnMode": "agent_sdk.extraction",
    "extract": "agent_sdk.extraction",
    "HierarchyLimits": "agent_sdk.run",
    "RunReport": "agent_sdk.run",
    "RunState": "agent_sdk.run",
    "bind_call": "agent_sdk.run",
    "current_run": "agent_sdk.run",
    "run_scope": "agent_sdk.run",
    # Integrations and plugins.
    "hookimpl": "agent_sdk.hookspecs",
    "Integration": "agent_sdk._integration",
    "Requirement": "agent_sdk._integration",
    "get_integration": "agent_sdk.plugins",
    "integrations": "agent_sdk.plugins",
    "register_plugin": "agent_sdk.plugin_manager",
    # Tracing.
    "configure_tracing": "agent_sdk.tracing.configure",
}

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, imported eagerly
    from agent_sdk._integration import Integration, Requirement
    from agent_sdk.agents import (
        HISTORY_MODES,
        FanOutResult,
        HistoryMode,
        agent_tool,
        call_agent,
        fan_out,
    )
    from agent_sdk.approval.gate import ApprovalGate, DecidedApproval
    from agent_sdk.approval.ports import (
        ApprovalPort,
        ApprovalRequest,
        AutoApprove,
        CallbackApproval,
        Decision,
        DenyAll,
    )
    from agent_sdk.approval.store import DeferredApproval, PendingApproval, SQLiteApprovalStore
    from agent_sdk.approval.tokens import ApprovalToken, TokenAuthority
    from agent_sdk.executor import Executor, ToolOutcome
    from agent_sdk.extraction import ReturnMode, extract
    from agent_sdk.failures import tool_error
    from agent_sdk.hookspecs import hookimpl
    from agent_sdk.plugin_manager import register_plugin
    from agent_sdk.plugins import get_integration, integrations
    from agent_sdk.response import AgentResponse, Message, Usage
    from agent_sdk.run import (
        HierarchyLimits,
        RunReport,
        RunState,
        bind_call,
        current_run,
        run_scope,
    )
    from agent_sdk.spec import Registry, ToolSpec
    from agent_sdk.tracing.configure import configure_tracing

__all__ = [  # noqa: RUF022 - grouped by topic, as _LAZY above
    # tools
    "Executor",
    "Registry",
    "ToolOutcome",
    "ToolSpec",
    "tool_error",
    # errors
    "AgentSDKError",
    "ApprovalError",
    "ConfigurationError",
    "ErrorKind",
    "HierarchyLimitError",
    "IntegrationError",
    "ToolError",
    # approvals
    "ApprovalGate",
    "ApprovalPort",
    "ApprovalRequest",
    "ApprovalToken",
    "AutoApprove",
    "CallbackApproval",
    "DecidedApproval",
    "Decision",
    "DeferredApproval",
    "DenyAll",
    "PendingApproval",
    "SQLiteApprovalStore",
    "TokenAuthority",
    # agents as tools, hierarchies
    "HISTORY_MODES",
    "AgentResponse",
    "FanOutResult",
    "HierarchyLimits",
    "HistoryMode",
    "Message",
    "ReturnMode",
    "RunReport",
    "RunState",
    "Usage",
    "agent_tool",
    "bind_call",
    "call_agent",
    "current_run",
    "extract",
    "fan_out",
    "run_scope",
    # context
    "CallContext",
    "current_context",
    "use_context",
    # integrations and plugins
    "Integration",
    "Requirement",
    "get_integration",
    "hookimpl",
    "integrations",
    "register_plugin",
    # tracing
    "configure_tracing",
    "__version__",
]

# The names in _LAZY load on first use; a submodule used as an attribute (``agent_sdk.tracing``)
# too. Names that moved in 0.2 work for one release and warn once (agent_sdk.deprecated).
__getattr__ = lazy_exports(__name__, _LAZY, submodules=True)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
