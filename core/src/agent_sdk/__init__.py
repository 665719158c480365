"""agent-sdk: describe a tool once, or wrap an agent as a tool, and use it in any framework."""

from agent_sdk._version import __version__
from agent_sdk.approval import (
    ApprovalPort,
    ApprovalRequest,
    ApprovalToken,
    AutoApprove,
    CallbackApproval,
    Decision,
    DeferredApproval,
    DenyAll,
    PendingApproval,
    SQLiteApprovalStore,
)
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
from agent_sdk.executor import ApprovalGate, DecidedApproval, Executor, ToolOutcome
from agent_sdk.extraction import AgentResponse, Message, ReturnMode, Usage, extract
from agent_sdk.hierarchy import (
    FanOutResult,
    HierarchyLimits,
    RunReport,
    RunState,
    agent_tool,
    bind_call,
    call_agent,
    current_run,
    fan_out,
    harshest,
    run_scope,
)
from agent_sdk.hookspecs import hookimpl
from agent_sdk.plugins import Integration, get_integration, integrations, register_plugin
from agent_sdk.spec import Registry, ToolSpec
from agent_sdk.tracing import configure_tracing

__all__ = [
    "AgentResponse",
    "AgentSDKError",
    "ApprovalError",
    "ApprovalGate",
    "ApprovalPort",
    "ApprovalRequest",
    "ApprovalToken",
    "AutoApprove",
    "CallContext",
    "CallbackApproval",
    "ConfigurationError",
    "DecidedApproval",
    "Decision",
    "DeferredApproval",
    "DenyAll",
    "ErrorKind",
    "Executor",
    "FanOutResult",
    "HierarchyLimitError",
    "HierarchyLimits",
    "Integration",
    "IntegrationError",
    "Message",
    "PendingApproval",
    "Registry",
    "ReturnMode",
    "RunReport",
    "RunState",
    "SQLiteApprovalStore",
    "ToolError",
    "ToolOutcome",
    "ToolSpec",
    "Usage",
    "__version__",
    "agent_tool",
    "bind_call",
    "call_agent",
    "configure_tracing",
    "current_context",
    "current_run",
    "extract",
    "fan_out",
    "get_integration",
    "harshest",
    "hookimpl",
    "integrations",
    "register_plugin",
    "run_scope",
    "use_context",
]
