"""The one plugin manager (pluggy, entry-point group ``agent_sdk``): loading plugins, and
asking their hooks. The integrations they declare: ``agent_sdk.plugins``.

One bad plugin never breaks the others: an entry point that fails to import, and a hook
that raises or answers nonsense, are recorded against that plugin (``failed_plugins()``,
``agent-sdk plugins``) and its answer is left out.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pluggy

from agent_sdk import hookspecs
from agent_sdk.redaction import safe_message

if TYPE_CHECKING:
    from agent_sdk.approval.ports import ApprovalRequest
    from agent_sdk.response import AgentResponse

ENTRY_POINT_GROUP = "agent_sdk"
ENV_ONLY = "AGENT_SDK_PLUGINS"
ENV_NO_AUTOLOAD = "AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD"


@dataclass(frozen=True)
class PluginInfo:
    """A plugin as found: entry point, module, distribution; ``error`` when it failed."""

    entry_point: str
    module: str
    distribution: str | None
    version: str | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def label(self) -> str:
        """How messages name the plugin: its distribution, else its entry point."""
        if self.distribution:
            return f"{self.distribution} {self.version or ''}".strip()
        return f"plugin {self.entry_point!r}"


class _Plugins:
    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.manager: pluggy.PluginManager | None = None
        self.loaded: list[PluginInfo] = []
        self.failed: list[PluginInfo] = []
        self.by_name: dict[str, PluginInfo] = {}  # pluggy plugin name -> info


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
                PluginInfo(ep.name, ep.value, dist_name, dist_version, _describe(exc))
            )
            continue
        info = PluginInfo(ep.name, ep.value, dist_name, dist_version)
        _plugins.loaded.append(info)
        _plugins.by_name[ep.name] = info


def _describe(exc: BaseException) -> str:
    return safe_message(exc, limit=300)


def register_plugin(plugin: object, *, name: str | None = None) -> None:
    """Register a plugin object or module by hand (no entry point needed)."""
    pm = plugin_manager()
    registered = pm.register(plugin, name=name)
    if registered is not None:
        module = getattr(plugin, "__name__", type(plugin).__name__)
        _plugins.by_name[registered] = PluginInfo(registered, str(module), None, None)


def unregister_plugin(plugin: object) -> None:
    plugin_manager().unregister(plugin)


def reset_plugins() -> None:
    """Forget loaded plugins; the next use rediscovers them (for tests)."""
    with _plugins.lock:
        _plugins.manager = None
        _plugins.loaded.clear()
        _plugins.failed.clear()
        _plugins.by_name.clear()


@contextmanager
def loading_only(*entry_points: str) -> Iterator[None]:
    """Inside the block only the named entry points load (none: no plugins at all); the
    previous setting comes back afterwards. For tests and tools that must not import every
    installed framework."""
    saved = {k: os.environ.get(k) for k in (ENV_ONLY, ENV_NO_AUTOLOAD)}
    for key in saved:
        os.environ.pop(key, None)
    if entry_points:
        os.environ[ENV_ONLY] = ",".join(entry_points)
    else:
        os.environ[ENV_NO_AUTOLOAD] = "1"
    reset_plugins()
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        reset_plugins()


def loaded_plugins() -> list[PluginInfo]:
    plugin_manager()
    return list(_plugins.loaded)


def failed_plugins() -> list[PluginInfo]:
    """Plugins that failed to load or whose hooks failed, with the error; the rest work."""
    plugin_manager()
    return list(_plugins.failed)


def report_failure(info: PluginInfo, error: str) -> PluginInfo:
    """Record that ``info``'s plugin misbehaved (once per message) and return the record."""
    failed = PluginInfo(info.entry_point, info.module, info.distribution, info.version, error)
    with _plugins.lock:
        if failed not in _plugins.failed:
            _plugins.failed.append(failed)
    return failed


def plugin_info(plugin_name: str) -> PluginInfo:
    """What is known of the plugin pluggy registered as ``plugin_name``."""
    return _plugins.by_name.get(plugin_name) or PluginInfo(plugin_name, plugin_name, None, None)


FAILED = object()
"""What ``hook_answers`` yields for an implementation that raised."""


def hook_answers(hook: str, **kwargs: Any) -> Iterator[tuple[PluginInfo, Any]]:
    """Call every implementation of ``hook`` on its own, first registered first. An
    implementation that raises is recorded as that plugin's failure and answers FAILED."""
    pm = plugin_manager()
    caller = getattr(pm.hook, hook)
    for impl in reversed(caller.get_hookimpls()):
        info = plugin_info(impl.plugin_name)
        args = {name: kwargs[name] for name in impl.argnames}
        try:
            answer = impl.function(**args)
        except Exception as exc:
            report_failure(info, f"hook {hook} raised {_describe(exc)}")
            answer = FAILED
        yield info, answer


def approval_policy(request: ApprovalRequest) -> bool | None:
    """Ask the approval-policy plugins: False if any denies, True if one allows and none
    denies, else None. Only ``True`` allows; an answer that is not True, False or None
    (a string, a number, a coroutine...) is that plugin's error and denies the call."""
    allowed = False
    for info, answer in hook_answers("agent_sdk_approval_policy", request=request):
        if answer is None:
            continue
        if answer is True:
            allowed = True
            continue
        if answer is not False and answer is not FAILED:
            close = getattr(answer, "close", None)
            if callable(close) and hasattr(answer, "cr_frame"):
                close()  # an async hookimpl's coroutine: never awaited, so no warning
            report_failure(
                info,
                f"hook agent_sdk_approval_policy answered {type(answer).__name__}; "
                "answer True, False or None",
            )
        return False
    return True if allowed else None


def output_modes() -> dict[str, Callable[[AgentResponse], str]]:
    """The output modes plugins add, the first plugin to name a mode keeping it (the
    built-in ones, which no plugin replaces: ``agent_sdk.extraction.known_modes``)."""
    modes: dict[str, Callable[[AgentResponse], str]] = {}
    for info, mapping in hook_answers("agent_sdk_output_modes"):
        if mapping is None or mapping is FAILED:
            continue
        if not hasattr(mapping, "items"):
            report_failure(info, "hook agent_sdk_output_modes did not answer a mapping")
            continue
        for name, fn in mapping.items():
            if isinstance(name, str) and callable(fn):
                modes.setdefault(name, fn)
            else:
                report_failure(info, f"hook agent_sdk_output_modes answered a bad mode {name!r}")
    return modes
