"""Deprecated: the hierarchy module was split into ``agent_sdk.run`` (limits, state, report,
``run_scope``, ``bind_call``) and ``agent_sdk.agents`` (``agent_tool``, ``call_agent``,
``fan_out``). Every old name still works for one release and warns once."""

from agent_sdk.exports import deprecated_exports

_RUN: tuple[str, ...] = ("HierarchyLimits", "PathCost", "RunReport", "RunState", "bind_call")
_RUN += ("current_run", "note_pending_approval", "run_scope")
_AGENTS = ("AgentRequest", "FanOutResult", "agent_tool", "call_agent", "fan_out")

__getattr__ = deprecated_exports(
    __name__,
    {
        **{n: ("agent_sdk.run", n) for n in _RUN},
        **{n: ("agent_sdk.agents", n) for n in _AGENTS},
        "harshest": ("agent_sdk.demo", "harshest"),
        "DEFAULT_SEVERITY": ("agent_sdk.demo", "DEFAULT_SEVERITY"),
    },
)
