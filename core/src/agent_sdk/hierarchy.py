"""Deprecated: the hierarchy module was split into ``agent_sdk.run`` (limits, state, report,
``run_scope``, ``bind_call``) and ``agent_sdk.agents`` (``agent_tool``, ``call_agent``,
``fan_out``). Every old name still works for one release and warns once."""

from agent_sdk.deprecated import module_getattr

__getattr__ = module_getattr(__name__)
