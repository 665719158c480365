"""What agent-sdk and its plugins deprecate, in one place (as pytest keeps its own in
``_pytest/deprecated.py``): one table from every old dotted name to its new one.

An old name keeps working for one release and warns once (``DeprecationWarning``) naming
its replacement. A name that moved is served by its old module's ``__getattr__``
(:func:`module_getattr`; ``lazy_exports`` asks this table as well); a module that moved is
a thin module at its old path that becomes the new module (:func:`moved_module`); a method,
property or class kept under its old name calls :func:`warn` when it is used. A plugin's
``__getattr__`` asks this table like any core module.

This module imports nothing of agent-sdk, so every module can use it.
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Final


@dataclass(frozen=True)
class Replaced:
    """An old name whose replacement is not the same object: ``use`` is what its warning
    says to use instead. ``served`` is the dotted name of what the old name still gives (a
    shim kept for it); None where the old name is itself the shim: a method, property or
    class that warns when it is used."""

    use: str
    served: str | None = None


# The plugin-author API kept what only authors need (0.2); everything else an old plugin
# imported from agent_sdk.integration is an application name, imported from agent_sdk.
_APPLICATION_NAMES = (
    "HISTORY_MODES",
    "AgentResponse",
    "ApprovalPort",
    "ApprovalRequest",
    "ApprovalToken",
    "ConfigurationError",
    "Decision",
    "ErrorKind",
    "Executor",
    "HierarchyLimitError",
    "HierarchyLimits",
    "HistoryMode",
    "IntegrationError",
    "Message",
    "Registry",
    "ReturnMode",
    "ToolError",
    "ToolOutcome",
    "ToolSpec",
    "Usage",
    "current_run",
    "run_scope",
    "tool_error",
)

DEPRECATED: Final[Mapping[str, str | Replaced]] = {
    # old dotted name: the new one (or Replaced, where the new one is no drop-in).
    #
    # -- modules that moved into a package (0.2) -------------------------------------------
    "agent_sdk.genai_spans": "agent_sdk.tracing.genai",
    "agent_sdk.run_spans": "agent_sdk.tracing.run_processor",
    "agent_sdk.trace_file": "agent_sdk.tracing.trace_file",
    "agent_sdk.propagation": "agent_sdk.tracing.propagation",
    "agent_sdk.semconv": "agent_sdk.tracing.semconv",
    "agent_sdk.endpoint": "agent_sdk.scripted.endpoint",
    "agent_sdk.scripted_server": "agent_sdk.scripted.server",
    "agent_sdk.openai_rules": "agent_sdk.scripted.openai_rules",
    "agent_sdk.output_modes": "agent_sdk.extraction",
    # -- agent_sdk.hierarchy was split into run and agents (0.2) ---------------------------
    **{
        f"agent_sdk.hierarchy.{name}": f"agent_sdk.run.{name}"
        for name in (
            "HierarchyLimits",
            "PathCost",
            "RunReport",
            "RunState",
            "bind_call",
            "current_run",
            "note_pending_approval",
            "run_scope",
        )
    },
    **{
        f"agent_sdk.hierarchy.{name}": f"agent_sdk.agents.{name}"
        for name in ("AgentRequest", "FanOutResult", "agent_tool", "call_agent", "fan_out")
    },
    "agent_sdk.hierarchy.harshest": "agent_sdk.demo.harshest",
    "agent_sdk.hierarchy.DEFAULT_SEVERITY": "agent_sdk.demo.DEFAULT_SEVERITY",
    # -- names that moved between core modules (0.2) ---------------------------------------
    "agent_sdk.harshest": "agent_sdk.demo.harshest",
    "agent_sdk.tracing.extract": "agent_sdk.tracing.continue_run",
    "agent_sdk.plugins.Integration": "agent_sdk.integration.Integration",
    "agent_sdk.plugins.lazy_exports": "agent_sdk.exports.lazy_exports",
    "agent_sdk.executor.DecidedApproval": "agent_sdk.approval.gate.DecidedApproval",
    "agent_sdk.executor.decision_error": "agent_sdk.approval.gate.decision_error",
    "agent_sdk.extraction.Message": "agent_sdk.response.Message",
    "agent_sdk.extraction.Usage": "agent_sdk.response.Usage",
    # -- renamed methods and fields, a replaced class (0.2): the old one warns when used ---
    "agent_sdk.CallContext.approval": Replaced("agent_sdk.CallContext.token"),
    "agent_sdk.Integration.check": Replaced("agent_sdk.Integration.check_framework"),
    "agent_sdk.Requirement.check": Replaced("agent_sdk.Requirement.check_installed"),
    "agent_sdk.ApprovalGate.admit": Replaced("agent_sdk.ApprovalGate.decide"),
    "agent_sdk.ApprovalGate.check": Replaced("agent_sdk.ApprovalGate.decide_native"),
    "agent_sdk.DecidedApproval": Replaced("agent_sdk.ApprovalGate.decide_early"),
    # -- agent_sdk.integration is the plugin-author API only (0.2) -------------------------
    **{f"agent_sdk.integration.{name}": f"agent_sdk.{name}" for name in _APPLICATION_NAMES},
    **{
        f"agent_sdk.integration.{name}": f"agent_sdk.plugins.{name}"
        for name in ("KNOWN_DISTRIBUTIONS", "get_integration", "integrations", "name_clashes")
    },
    "agent_sdk.integration.AgentRequest": "agent_sdk.agents.AgentRequest",
    "agent_sdk.integration.agent_tool": "agent_sdk.agent_tool",
    "agent_sdk.integration.call_agent": "agent_sdk.call_agent",
    "agent_sdk.integration.check_history": "agent_sdk.agents.check_history",
    "agent_sdk.integration.check_tool_name": "agent_sdk.names.check_tool_name",
    "agent_sdk.integration.tool_name_from": "agent_sdk.names.tool_name_from",
    "agent_sdk.integration.note_pending_approval": "agent_sdk.run.note_pending_approval",
    "agent_sdk.integration.safe_message": "agent_sdk.redaction.safe_message",
    "agent_sdk.integration.DecidedApproval": "agent_sdk.DecidedApproval",
    "agent_sdk.integration.no_other_options": Replaced(
        "Integration.tool_options / agent_tool_options: the core refuses the options an "
        "integration does not declare",
        served="agent_sdk._integration.no_other_options",
    ),
    # -- the plugins' own names: 0.1 names, and one name for the top-agent opt-in (0.2) ----
    "agent_sdk_ag2.agent_sdk_integrations": "agent_sdk_ag2._integration.agent_sdk_integrations",
    "agent_sdk_ag2.testing.endpoint_config": Replaced(
        "agent_sdk_ag2.testing.AG2Harness(endpoint).endpoint_model()",
        served="agent_sdk_ag2.testing._endpoint_config",
    ),
    "agent_sdk_autogen.autogen_prepare": "agent_sdk_autogen.autogen_instrument",
    "agent_sdk_autogen.testing.endpoint_client": Replaced(
        "agent_sdk_autogen.testing.AutogenHarness(endpoint).endpoint_model()",
        served="agent_sdk_autogen.testing._endpoint_client",
    ),
    "agent_sdk_openai_agents.tool_error": "agent_sdk.tool_error",
    "agent_sdk_openai_agents.instrument": "agent_sdk_openai_agents.openai_agents_instrument",
    "agent_sdk_fast_agent.instrument": "agent_sdk_fast_agent.fast_agent_instrument",
    "agent_sdk_fast_agent.orchestrate": "agent_sdk_fast_agent.fast_agent_instrument",
    "agent_sdk_fast_agent.HISTORY_MODES": "agent_sdk.HISTORY_MODES",
    "agent_sdk_fast_agent.HistoryMode": "agent_sdk.HistoryMode",
    "agent_sdk_fast_agent.bind_context": "agent_sdk_fast_agent.INTEGRATION.bind_context",
    "agent_sdk_fast_agent.tool_exception": Replaced(
        "agent_sdk.tool_error(tool_use_id) (its .cause is the handler's exception)",
        served="agent_sdk_fast_agent._tool_exception",
    ),
    "agent_sdk_fast_agent.testing.use_endpoint": Replaced(
        "FastAgentHarness(endpoint).endpoint_model() (the model string; a harness run points "
        "its app's providers at the endpoint)",
        served="agent_sdk_fast_agent.testing._use_endpoint",
    ),
    "agent_sdk_minifw.export_tool": "agent_sdk_minifw.minifw_tool",
    "agent_sdk_minifw.export_agent_tool": "agent_sdk_minifw.minifw_agent_tool",
    "agent_sdk_minifw.minifw_observer": Replaced(
        "agent_sdk_minifw.minifw_instrument(agent), which adds the observer",
        served="agent_sdk_minifw._tracing._observer",
    ),
}

# The 0.1 hooks: behaviour is a method of the Integration now. pluggy warns when a plugin
# implements one (``warn_on_impl``); the base Integration still calls them for 0.1 plugins.
EXPORT_TOOL_HOOK: Final = DeprecationWarning(
    "agent_sdk_export_tool is deprecated: override Integration.export_tool instead"
)
BIND_CONTEXT_HOOK: Final = DeprecationWarning(
    "agent_sdk_bind_context is deprecated: override Integration.bind_context instead"
)

_warned: set[str] = set()


def replacement(old: str) -> tuple[str | None, str]:
    """(the dotted name of what ``old`` gives now, or None where ``old`` is itself a shim;
    what its warning says to use)."""
    entry = DEPRECATED[old]
    return (entry, entry) if isinstance(entry, str) else (entry.served, entry.use)


def warn(old: str, *, stacklevel: int = 2) -> None:
    """Warn, once per process, that ``old`` is deprecated, naming its replacement."""
    if old in _warned:
        return
    _warned.add(old)
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {replacement(old)[1]}",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )


def module_getattr(
    module: str, fallback: Callable[[str], Any] | None = None, *, wrapped: bool = False
) -> Callable[[str], Any]:
    """A module ``__getattr__`` that serves ``module``'s old names from the table (each
    warns once and still works); any other name goes to ``fallback``, else AttributeError::

        __getattr__ = module_getattr(__name__)

    ``wrapped``: called from another module ``__getattr__`` (``lazy_exports``), so the
    warning skips that frame too and points at the user's code."""
    stacklevel = 3 if wrapped else 2

    def __getattr__(name: str) -> Any:
        old = f"{module}.{name}"
        served = replacement(old)[0] if old in DEPRECATED else None
        if served is not None:
            warn(old, stacklevel=stacklevel)
            return pkgutil.resolve_name(served)
        if fallback is not None:
            return fallback(name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def moved_module(old: str) -> ModuleType:
    """The module ``old`` moved to, after warning (once) that it moved. A thin module at the
    old path replaces itself with it, so both names are one module::

        sys.modules[__name__] = moved_module(__name__)
    """
    # The thin module's code runs below the import machinery's frames, which warnings skip:
    # the warning points at the import statement.
    warn(old, stacklevel=3)
    new = replacement(old)[0]
    assert new is not None, f"{old} is a module: the table names where it moved"
    return importlib.import_module(new)
