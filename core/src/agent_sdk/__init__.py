"""agent-sdk: describe a tool once, or wrap an agent as a tool, and use it in any framework.

The names here are for applications. Plugin authors import from ``agent_sdk.integration``;
the contract kit is ``agent_sdk.testing``; scripted models are ``agent_sdk.scripted``.
"""

from agent_sdk._version import __version__

# Agents as tools and hierarchies: guards, runs, cost, output, fan-out.
from agent_sdk.agents import (
    HISTORY_MODES,
    FanOutResult,
    HistoryMode,
    agent_tool,
    call_agent,
    fan_out,
)

# Approvals: ports that decide, durable deferred approvals, one-use tokens.
from agent_sdk.approval import (
    ApprovalGate,
    ApprovalPort,
    ApprovalRequest,
    ApprovalToken,
    AutoApprove,
    CallbackApproval,
    DecidedApproval,
    Decision,
    DeferredApproval,
    DenyAll,
    PendingApproval,
    SQLiteApprovalStore,
    TokenAuthority,
)

# Context: which call is running, from where in the hierarchy.
from agent_sdk.context import CallContext, current_context, use_context

# Errors: what the model, the host and a plugin author can see go wrong.
from agent_sdk.errors import (
    AgentSDKError,
    ApprovalError,
    ConfigurationError,
    ErrorKind,
    HierarchyLimitError,
    IntegrationError,
    ToolError,
)
from agent_sdk.executor import Executor, ToolOutcome
from agent_sdk.exports import deprecated_exports
from agent_sdk.extraction import AgentResponse, Message, ReturnMode, Usage
from agent_sdk.failures import tool_error

# Integrations and plugins.
from agent_sdk.hookspecs import hookimpl
from agent_sdk.integration import Integration, Requirement, get_integration, integrations
from agent_sdk.output_modes import extract
from agent_sdk.plugins import register_plugin
from agent_sdk.run import HierarchyLimits, RunReport, RunState, bind_call, current_run, run_scope

# Tools: describe once, run everywhere.
from agent_sdk.spec import Registry, ToolSpec

# Tracing.
from agent_sdk.tracing import configure_tracing

__all__ = [  # noqa: RUF022 - grouped by topic, as the imports above
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

# Moved in 0.2; the old names work for one release and warn once.
__getattr__ = deprecated_exports(__name__, {"harshest": ("agent_sdk.demo", "harshest")})
