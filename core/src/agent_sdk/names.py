"""Naming rules shared by every integration: tool names, and class names derived from them."""

from __future__ import annotations

import re

from agent_sdk.errors import ConfigurationError

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""What every provider accepts as a tool name (OpenAI's rule, the strictest in use)."""


def check_tool_name(name: object, *, what: str = "tool name") -> str:
    """``name`` if it is a valid tool name, else ConfigurationError saying the rule."""
    if not isinstance(name, str) or not TOOL_NAME.match(name):
        raise ConfigurationError(
            f"{what} {name!r} is invalid: use 1-64 letters, digits, '_' or '-'"
        )
    return name


def tool_name_from(text: str, *, what: str = "agent") -> str:
    """A valid tool name made from ``text`` (an agent's own name): case kept, every run of
    other characters becomes one '_', cut to 64. An explicit ``name=`` is never rewritten:
    it must already be valid (``check_tool_name``)."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", str(text)).strip("_")[:64]
    if not name:
        raise ConfigurationError(
            f"cannot make a tool name from the {what} name {text!r}: pass name=..."
        )
    return name


def model_name(tool: str) -> str:
    """A class name for a tool's input model: ``send_verdict`` -> ``SendVerdict``."""
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]", tool) if part) or "Args"
