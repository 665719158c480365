"""Plugin discovery (entry-point group ``agent_sdk``) and the Integration registry."""

from __future__ import annotations

import importlib.metadata as md
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pluggy
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from agent_sdk import hookspecs
from agent_sdk.errors import ConfigurationError, IntegrationError

if TYPE_CHECKING:
    from agent_sdk.approval import ApprovalPort, ApprovalRequest
    from agent_sdk.context import CallContext
    from agent_sdk.executor import Executor
    from agent_sdk.extraction import AgentResponse
    from agent_sdk.spec import ToolSpec

ENTRY_POINT_GROUP = "agent_sdk"
ENV_ONLY = "AGENT_SDK_PLUGINS"
ENV_NO_AUTOLOAD = "AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD"

# Our own integrations, so a missing one can be named with its install line.
KNOWN_DISTRIBUTIONS = {
    "ag2": "agent-sdk-ag2",
    "autogen": "agent-sdk-autogen",
    "autogen-0.7": "agent-sdk-autogen",
    "openai-agents": "agent-sdk-openai-agents",
    "fast-agent": "agent-sdk-fast-agent",
}


@dataclass(frozen=True)
class Integration:
    """A framework integration, declared by a plugin through ``agent_sdk_integrations``.

    ``framework`` is the framework's distribution name and ``supported`` the version range
    the integration was tested with; outside it the integration refuses to work.
    ``bind_approval`` returns the framework-native approval object for a port, where the
    framework has one.
    """

    name: str
    distribution: str
    framework: str
    supported: str
    aliases: tuple[str, ...] = ()
    native_approval: Callable[[ApprovalPort], Any] | None = field(default=None, repr=False)
    harness: str | None = None
    """``module:Class`` of the integration's contract-kit Harness (used by ``agent-sdk demo``)."""

    def __post_init__(self) -> None:
        try:
            SpecifierSet(self.supported)
        except InvalidSpecifier as exc:
            raise ConfigurationError(
                f"integration {self.name!r}: supported={self.supported!r} is not a version range"
            ) from exc

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    def framework_version(self) -> str | None:
        try:
            return md.version(self.framework)
        except md.PackageNotFoundError:
            return None

    def check(self) -> str:
        """Return the framework version found, or raise IntegrationError saying what to do."""
        found = self.framework_version()
        if found is None:
            raise IntegrationError(
                f"integration {self.name!r} needs {self.framework} {self.supported}, which is "
                f"not installed: pip install '{self.framework}{self.supported}'"
            )
        try:
            ok = Version(found) in SpecifierSet(self.supported, prereleases=True)
        except InvalidVersion:
            ok = False
        if not ok:
            raise IntegrationError(
                f"integration {self.name!r} supports {self.framework} {self.supported}, but "
                f"{self.framework} {found} is installed: pip install '{self.framework}"
                f"{self.supported}' or upgrade {self.distribution}"
            )
        return found

    def export_tool(
        self,
        spec: ToolSpec,
        *,
        executor: Executor | None = None,
        approval: ApprovalPort | None = None,
        middleware: Sequence[Any] = (),
    ) -> Any:
        """Export ``spec`` as this framework's native tool (through the tool-export hook)."""
        from agent_sdk.executor import Executor

        self.check()
        tool = plugin_manager().hook.agent_sdk_export_tool(
            integration=self.name,
            spec=spec,
            executor=executor or Executor(),
            approval=approval,
            middleware=tuple(middleware),
        )
        if tool is None:
            raise IntegrationError(f"no plugin exports tools for integration {self.name!r}")
        return tool

    def bind_context(self, event: Any) -> CallContext:
        """Map a framework event or run context to a CallContext (context-binding hook)."""
        ctx = plugin_manager().hook.agent_sdk_bind_context(integration=self.name, event=event)
        if ctx is None:
            raise IntegrationError(
                f"integration {self.name!r} cannot bind a context from {type(event).__name__}"
            )
        return ctx  # type: ignore[no-any-return]

    def load_harness(self) -> Any:
        """A new instance of the integration's contract-kit Harness."""
        if not self.harness:
            raise IntegrationError(f"integration {self.name!r} ships no contract-kit harness")
        import importlib

        module, _, attr = self.harness.partition(":")
        return getattr(importlib.import_module(module), attr)()

    def bind_approval(self, port: ApprovalPort) -> Any:
        """The framework-native approval object for ``port``, or None (use ``approval=``)."""
        return self.native_approval(port) if self.native_approval else None


@dataclass(frozen=True)
class PluginInfo:
    entry_point: str
    module: str
    distribution: str | None
    version: str | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class _Plugins:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.manager: pluggy.PluginManager | None = None
        self.loaded: list[PluginInfo] = []
        self.failed: list[PluginInfo] = []


_plugins = _Plugins()


def plugin_manager() -> pluggy.PluginManager:
    """The one plugin manager; entry points are loaded on first use."""
    pm = _plugins.manager
    if pm is not None:
        return pm
    with _plugins.lock:
        if _plugins.manager is None:
            pm = pluggy.PluginManager("agent_sdk")
            pm.add_hookspecs(hookspecs)
            from agent_sdk import _builtin

            pm.register(_builtin, name="agent_sdk.builtin")
            if os.environ.get(ENV_NO_AUTOLOAD, "").strip().lower() not in ("1", "true", "yes"):
                _load_entry_points(pm)
            _plugins.manager = pm
        return _plugins.manager


def _load_entry_points(pm: pluggy.PluginManager) -> None:
    only = {n.strip() for n in os.environ.get(ENV_ONLY, "").split(",") if n.strip()}
    for ep in md.entry_points(group=ENTRY_POINT_GROUP):
        if only and ep.name not in only:
            continue
        dist = getattr(ep, "dist", None)
        dist_name = dist.metadata["Name"] if dist is not None else None
        dist_version = dist.version if dist is not None else None
        try:
            plugin = ep.load()
            if pm.is_registered(plugin):
                continue
            pm.register(plugin, name=ep.name)
        except Exception as exc:
            _plugins.failed.append(
                PluginInfo(
                    ep.name, ep.value, dist_name, dist_version, f"{type(exc).__name__}: {exc}"
                )
            )
            continue
        _plugins.loaded.append(PluginInfo(ep.name, ep.value, dist_name, dist_version))


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``name`` from ``exports[name]`` on first use.

    A plugin's package is imported whenever plugins are listed; with this its public names
    that need the framework cost nothing until they are used::

        __getattr__ = lazy_exports(__name__, {"myfw_tool": "agent_sdk_myfw._tools"})
    """
    import importlib

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__


def register_plugin(plugin: object, *, name: str | None = None) -> None:
    """Register a plugin object or module by hand (no entry point needed)."""
    plugin_manager().register(plugin, name=name)


def unregister_plugin(plugin: object) -> None:
    plugin_manager().unregister(plugin)


def reset_plugins() -> None:
    """Forget loaded plugins; the next use rediscovers them (for tests)."""
    with _plugins.lock:
        _plugins.manager = None
        _plugins.loaded.clear()
        _plugins.failed.clear()


def loaded_plugins() -> list[PluginInfo]:
    plugin_manager()
    return list(_plugins.loaded)


def failed_plugins() -> list[PluginInfo]:
    """Plugins whose entry point failed to load, with the error; the rest still work."""
    plugin_manager()
    return list(_plugins.failed)


def integrations() -> list[Integration]:
    """Every integration declared by a loaded plugin, in load order."""
    seen: dict[str, Integration] = {}
    for batch in reversed(plugin_manager().hook.agent_sdk_integrations()):
        for integration in batch or ():
            seen.setdefault(integration.name, integration)
    return list(seen.values())


def get_integration(name: str) -> Integration:
    """The integration for ``name`` (or one of its aliases), checked against its framework.

    Raises IntegrationError naming the package to install when none is found, the plugin's
    error when it failed to load, and the supported range when the framework is outside it.
    """
    for integration in integrations():
        if name in integration.names:
            integration.check()
            return integration
    dist = KNOWN_DISTRIBUTIONS.get(name)
    for failure in failed_plugins():
        if failure.entry_point == name or (dist and failure.distribution == dist):
            raise IntegrationError(
                f"the plugin for {name!r} ({failure.distribution} {failure.version}) failed to "
                f"load: {failure.error}"
            )
    installed = ", ".join(i.name for i in integrations()) or "none"
    hint = f"pip install {dist}" if dist else "install a plugin that provides it"
    raise IntegrationError(
        f"no integration named {name!r} is installed ({hint}); installed: {installed}"
    )


def approval_policy(request: ApprovalRequest) -> bool | None:
    """Ask the approval-policy plugins: False if any denies, True if one allows, else None."""
    answers = [
        a for a in plugin_manager().hook.agent_sdk_approval_policy(request=request) if a is not None
    ]
    if any(a is False for a in answers):
        return False
    return True if answers else None


def output_modes() -> dict[str, Callable[[AgentResponse], str]]:
    """Every output-extraction mode, built-in and from plugins (built-ins cannot be replaced)."""
    modes: dict[str, Callable[[AgentResponse], str]] = {}
    # pluggy calls the last registered first; the built-ins come first here so they win.
    for mapping in reversed(plugin_manager().hook.agent_sdk_output_modes()):
        for name, fn in (mapping or {}).items():
            modes.setdefault(name, fn)
    return modes
