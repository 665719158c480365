"""Choosing an output mode: the built-in ones and those plugins add
(``agent_sdk_output_modes``), checked at configuration time and applied to a finished
response."""

from __future__ import annotations

import inspect
from typing import Any

from agent_sdk.errors import ConfigurationError, ErrorKind, ToolError
from agent_sdk.extraction import _BUILTIN_FUNCTIONS, BUILTIN_MODES, AgentResponse, ReturnMode
from agent_sdk.plugins import output_modes


def check_return_mode(mode: Any) -> ReturnMode:
    """Refuse an unknown mode or an async callable at configuration time."""
    if callable(mode) and not isinstance(mode, str):
        if inspect.iscoroutinefunction(mode) or inspect.iscoroutinefunction(
            getattr(mode, "__call__", None)  # noqa: B004
        ):
            raise ConfigurationError(
                "return_mode callables must be synchronous: they select text from a finished "
                "response"
            )
        return mode  # type: ignore[no-any-return]
    if isinstance(mode, str) and mode in BUILTIN_MODES:
        return mode  # type: ignore[return-value]  # no need to load plugins for a built-in
    known = output_modes()
    if not isinstance(mode, str) or mode not in known:
        raise ConfigurationError(
            f"return_mode {mode!r} is not known; use one of {', '.join(sorted(known))} "
            "or a function AgentResponse -> str"
        )
    return mode  # type: ignore[return-value]


def extract(response: AgentResponse, mode: ReturnMode, *, agent: str = "agent") -> str:
    """The tool result text for ``response`` under ``mode``.

    Pending approvals inside the child come first and are never hidden by extraction: the
    result is the approval-pending error naming them.
    """
    if response.pending_approvals:
        ids = ", ".join(response.pending_approvals)
        raise ToolError(
            ErrorKind.APPROVAL_PENDING,
            f"approval required: {ids} (sub-agent '{agent}' is waiting for approval)",
            approval_id=response.pending_approvals[0],
        )
    fn = (_BUILTIN_FUNCTIONS.get(mode) or output_modes()[mode]) if isinstance(mode, str) else mode
    text = fn(response)
    if not isinstance(text, str):
        raise ToolError(
            ErrorKind.TOOL_FAILED,
            f"the return_mode function for '{agent}' returned {type(text).__name__}, not str",
        )
    return text
