"""Module attributes resolved on first use (lazy exports)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

from agent_sdk.deprecated import module_getattr


def lazy_exports(
    package: str, exports: Mapping[str, str], *, submodules: bool = False
) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``name`` from ``exports[name]`` on first use.

    A plugin's package is imported whenever plugins are listed; with this its public names
    that need the framework cost nothing until they are used::

        __getattr__ = lazy_exports(__name__, {"myfw_tool": "agent_sdk_myfw._tools"})

    A resolved name is stored in the module, so later uses are plain attribute lookups.
    Names that moved away from ``package`` (the table of ``agent_sdk.deprecated``) still
    work and warn once. With ``submodules`` a package's submodule that nobody imported yet
    is imported when used as an attribute (``agent_sdk.tracing`` after a bare
    ``import agent_sdk``).
    """

    def submodule(name: str) -> Any:
        if submodules and not name.startswith("__"):
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as e:
                if e.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    moved = module_getattr(package, submodule, wrapped=True)

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            return moved(name)
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
