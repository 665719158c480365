"""Turning a sub-agent's finished response into the text its caller sees: the built-in
output modes (all, last, json), the modes plugins add (``agent_sdk_output_modes``), checking
a mode at configuration time and applying it (``extract``)."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel

from agent_sdk.deprecated import module_getattr
from agent_sdk.errors import ConfigurationError, ErrorKind, ToolError
from agent_sdk.response import AgentResponse

ReturnMode = Literal["all", "last", "json"] | Callable[[AgentResponse], str]
BUILTIN_MODES = ("all", "last", "json")


def extract_all(response: AgentResponse) -> str:
    return "\n\n".join(response.assistant_texts())


def extract_last(response: AgentResponse) -> str:
    # The last assistant message only: an empty or non-text final message gives "" rather
    # than falling back to earlier commentary that could pass for an answer.
    for message in reversed(response.messages):
        if message.role == "assistant":
            return message.text or ""
    return ""


def extract_json(response: AgentResponse) -> str:
    value = response.structured
    if value is None:
        text = extract_last(response)
        try:
            json.loads(text)
        except ValueError:
            return json.dumps(text, ensure_ascii=False)
        return text
    return to_json_text(value)


def to_json_text(value: Any) -> str:
    """Serialise structured output as JSON, never as a Python repr."""
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=_json_default)
    except (TypeError, ValueError) as exc:
        raise ToolError(
            ErrorKind.TOOL_FAILED,
            f"structured output of type {type(value).__name__} cannot be serialised as JSON",
            cause=exc,
        ) from exc


def _json_default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if hasattr(value, "__dataclass_fields__"):
        import dataclasses

        return dataclasses.asdict(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


_BUILTIN_FUNCTIONS: dict[str, Callable[[AgentResponse], str]] = {
    "all": extract_all,
    "last": extract_last,
    "json": extract_json,
}


def known_modes() -> dict[str, Callable[[AgentResponse], str]]:
    """Every output mode: the built-in ones, then those plugins add (which cannot replace a
    built-in one)."""
    # Plugin discovery (pluggy, entry points) loads with the first mode that is not built
    # in, not with a tool call.
    from agent_sdk.plugin_manager import output_modes

    return {**output_modes(), **_BUILTIN_FUNCTIONS}


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
    known = known_modes()
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
    fn = (_BUILTIN_FUNCTIONS.get(mode) or known_modes()[mode]) if isinstance(mode, str) else mode
    text = fn(response)
    if not isinstance(text, str):
        raise ToolError(
            ErrorKind.TOOL_FAILED,
            f"the return_mode function for '{agent}' returned {type(text).__name__}, not str",
        )
    return text


# Message and Usage moved to agent_sdk.response (0.2); they warn once and still work.
__getattr__ = module_getattr(__name__)
