"""A function's signature and docstring -> an input model and a description."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from agent_sdk.context import CallContext
from agent_sdk.errors import ConfigurationError
from agent_sdk.names import model_name


def parameters(fn: Callable[..., Any]) -> Mapping[str, inspect.Parameter]:
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}


def _split_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    text = inspect.cleandoc(doc or "")
    match = re.search(r"^(Args|Arguments|Parameters):\s*$", text, re.MULTILINE)
    if not match:
        return text, {}
    summary, section = text[: match.start()].strip(), text[match.end() :]
    params: dict[str, str] = {}
    current = None
    for line in section.splitlines():
        found = re.match(r"^\s{0,8}(\w+)\s*(\([^)]*\))?\s*:\s*(.*)$", line)
        if found:
            current = found.group(1)
            params[current] = found.group(3).strip()
        elif current and line.strip():
            params[current] += " " + line.strip()
        elif not line.strip():
            current = None
    return summary, params


def docstring_summary(fn: Callable[..., Any]) -> str:
    """The description part of ``fn``'s docstring (without its Args section)."""
    return _split_docstring(getattr(fn, "__doc__", None))[0]


def model_from_function(fn: Callable[..., Any], name: str) -> tuple[type[BaseModel], str]:
    """Infer the input model and description from a function's signature and docstring."""
    summary, param_docs = _split_docstring(fn.__doc__)
    try:
        hints = get_type_hints(fn)
    except Exception:
        hints = {}
    fields: dict[str, Any] = {}
    for pname, param in parameters(fn).items():
        if pname == "ctx" or hints.get(pname) is CallContext:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ConfigurationError(f"tool {name!r}: *args and **kwargs cannot be described")
        annotation = hints.get(pname, Any)
        default = ... if param.default is param.empty else param.default
        fields[pname] = (annotation, Field(default, description=param_docs.get(pname)))
    model = create_model(model_name(name), __config__=ConfigDict(extra="forbid"), **fields)
    return model, summary
