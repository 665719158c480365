"""Plugins and the integrations they declare: ``integrations()``, ``get_integration(name)``.

Plugins are found through the entry-point group ``agent_sdk`` and loaded by the one plugin
manager (``agent_sdk.plugin_manager``, whose loading functions are re-exported here). Each
plugin declares its integrations with the hook ``agent_sdk_integrations``; a plugin that
answers nonsense is reported against its name and the others still count.

The manager is a module of its own, below this one: the approval gate (policies), output
extraction (plugins' modes) and the base ``Integration`` (the 0.1 hooks) ask it, and finding
integrations needs the ``Integration`` class, so one module doing both would import in a
circle.
"""

from __future__ import annotations

from agent_sdk import _integration
from agent_sdk.deprecated import module_getattr
from agent_sdk.errors import IntegrationError
from agent_sdk.plugin_manager import (
    ENTRY_POINT_GROUP,
    ENV_NO_AUTOLOAD,
    ENV_ONLY,
    FAILED,
    PluginInfo,
    failed_plugins,
    hook_answers,
    loaded_plugins,
    loading_only,
    register_plugin,
    report_failure,
    reset_plugins,
    unregister_plugin,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "ENV_NO_AUTOLOAD",
    "ENV_ONLY",
    "KNOWN_DISTRIBUTIONS",
    "PluginInfo",
    "failed_plugins",
    "get_integration",
    "integrations",
    "loaded_plugins",
    "loading_only",
    "name_clashes",
    "register_plugin",
    "reset_plugins",
    "unregister_plugin",
]


Declaration = tuple[_integration.Integration, PluginInfo]


def _declared() -> tuple[list[Declaration], dict[str, list[PluginInfo]]]:
    """Every well-formed declaration with its plugin, and the names claimed twice."""
    found: list[Declaration] = []
    owners: dict[str, list[PluginInfo]] = {}
    for info, answer in hook_answers("agent_sdk_integrations"):
        if answer is None or answer is FAILED:
            continue
        items = list(answer) if isinstance(answer, (list, tuple)) else None
        if items is None or not all(isinstance(i, _integration.Integration) for i in items):
            what = type(answer).__name__ if items is None else "a list holding non-Integrations"
            report_failure(
                info, f"hook agent_sdk_integrations answered {what}; answer a list of Integration"
            )
            continue
        for integration in items:
            found.append((integration, info))
            for n in integration.names:
                claimants = owners.setdefault(n, [])
                if info not in claimants:
                    claimants.append(info)
    clashes = {n: infos for n, infos in owners.items() if len(infos) > 1}
    return found, clashes


def name_clashes() -> dict[str, list[PluginInfo]]:
    """Integration names (or aliases) claimed by more than one plugin, with the claimants."""
    return _declared()[1]


def integrations() -> list[_integration.Integration]:
    """Every integration declared by a loaded plugin, in load order. An integration whose
    name another plugin also claims is left out (``get_integration`` names both)."""
    found, clashes = _declared()
    result: list[_integration.Integration] = []
    for integration, _ in found:
        if integration.name not in clashes and integration not in result:
            result.append(integration)
    return result


# Our own integrations, so a missing one can be named with its install line.
KNOWN_DISTRIBUTIONS = {
    "ag2": "agent-sdk-ag2",
    "autogen": "agent-sdk-autogen",
    "openai-agents": "agent-sdk-openai-agents",
    "fast-agent": "agent-sdk-fast-agent",
    "agent-framework": "agent-sdk-agent-framework",
    "pydantic-ai": "agent-sdk-pydantic-ai",
}


def get_integration(name: str) -> _integration.Integration:
    """The integration for ``name`` (or one of its aliases), checked against its framework.

    Raises IntegrationError naming the package to install when none is found, the plugin's
    error when it failed to load, both distributions when two plugins claim the name, and
    the supported range when the framework is outside it.
    """
    found, clashes = _declared()
    if name in clashes:
        who = " and ".join(info.label for info in clashes[name])
        raise IntegrationError(
            f"integration name {name!r} is claimed by two plugins: {who}. Uninstall one of "
            "them (a plugin must not shadow another's integration)"
        )
    for integration, _ in found:
        if name in integration.names:
            integration.check_framework(symbols=False)  # the version; symbols on first use
            return integration
    dist = KNOWN_DISTRIBUTIONS.get(name)
    for failure in failed_plugins():
        if failure.entry_point == name or (dist and failure.distribution == dist):
            raise IntegrationError(
                f"the plugin for {name!r} ({failure.label}) failed to load: {failure.error}"
            )
    installed = ", ".join(sorted(i.name for i, _ in found)) or "none"
    hint = f"pip install {dist}" if dist else "install a plugin that provides it"
    raise IntegrationError(
        f"no integration named {name!r} is installed ({hint}); installed: {installed}"
    )


# Integration moved in 0.2 to agent_sdk.integration (this module uses it as
# ``_integration.Integration``, so the old name still warns); see agent_sdk.deprecated.
__getattr__ = module_getattr(__name__)
