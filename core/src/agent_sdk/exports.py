"""Module attributes resolved on first use: lazy exports and deprecated aliases."""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str,
    exports: Mapping[str, str],
    *,
    deprecated: Mapping[str, tuple[str, str]] | None = None,
    submodules: bool = False,
) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``name`` from ``exports[name]`` on first use.

    A plugin's package is imported whenever plugins are listed; with this its public names
    that need the framework cost nothing until they are used::

        __getattr__ = lazy_exports(__name__, {"myfw_tool": "agent_sdk_myfw._tools"})

    A resolved name is stored in the module, so later uses are plain attribute lookups.
    ``deprecated`` maps old names to ``("module", "new_name")``: the old name still works
    and warns once (DeprecationWarning) naming the new one. With ``submodules`` a package's
    submodule that nobody imported yet is imported when used as an attribute
    (``agent_sdk.tracing`` after a bare ``import agent_sdk``).
    """
    old = dict(deprecated or {})
    warned: set[str] = set()

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module), name)
            setattr(sys.modules[package], name, value)
            return value
        if name in old:
            target_module, new_name = old[name]
            if name not in warned:
                warned.add(name)
                warnings.warn(
                    f"{package}.{name} is deprecated and will be removed in the next release; "
                    f"use {target_module}.{new_name}",
                    DeprecationWarning,
                    stacklevel=2,
                )
            return getattr(importlib.import_module(target_module), new_name)
        if submodules and not name.startswith("__"):
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as e:
                if e.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def deprecated_exports(package: str, moved: Mapping[str, tuple[str, str]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for names that moved: each warns once and still works."""
    return lazy_exports(package, {}, deprecated=moved)
