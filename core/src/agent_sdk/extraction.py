"""Turning a sub-agent's finished response into the text its caller sees: the built-in
output modes (all, last, json), the modes plugins add (``agent_sdk_output_modes``), checking
a mode at configuration time and applying it (``extract``)."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from itertools import accumulate
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
        return json_or_quoted(extract_last(response))
    if isinstance(value, str):
        return json_or_quoted(value)
    return to_json_text(value)


# The limits tool arguments have (spec.MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_BYTES): what is
# passed on as JSON is what a model could send back as arguments.
MAX_JSON_DEPTH = 64
"""Text nested deeper than this is not passed on as JSON (json mode quotes it)."""
MAX_JSON_CHARS = 1_000_000
"""Text longer than this is not parsed to check that it is JSON (json mode quotes it)."""


def json_or_quoted(text: str) -> str:
    """``text`` as it is when it is JSON within MAX_JSON_DEPTH and MAX_JSON_CHARS, else
    quoted as a JSON string: what the caller gets is JSON either way, and no text, however
    hostile (``"[" * 100_000``), makes the check fail."""
    return text if _is_json(text) else json.dumps(text, ensure_ascii=False)


def _is_json(text: str) -> bool:
    if len(text) > MAX_JSON_CHARS or _depth(text) > MAX_JSON_DEPTH:
        return False
    try:
        json.loads(text, parse_constant=_not_json)
    except (ValueError, RecursionError):  # RecursionError: a deep call stack of our caller's
        return False
    return True


def _not_json(name: str) -> None:
    raise ValueError(f"{name} is not JSON")  # Python's json reads NaN and Infinity


# A JSON string, as json.loads reads one (the brackets inside it do not nest), or an unclosed
# one to the end (where the parser stops). It always matches where it starts, so it never
# backtracks: linear in the text.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _depth(text: str) -> int:
    """How deep the brackets of ``text`` nest outside its strings (an upper bound of what
    the parser would descend into: an unclosed string only adds brackets). Linear, with no
    recursion."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return 0  # too few brackets to nest too deep: the common case, two C scans
    brackets = _NOT_A_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def to_json_text(value: Any) -> str:
    """Serialise structured output as JSON, never as a Python repr."""
    if isinstance(value, str):
        return value
    try:
        if isinstance(value, BaseModel):
            return value.model_dump_json()
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=_json_default)
    except (TypeError, ValueError, RecursionError) as exc:
        # ValueError: NaN, a cycle, or pydantic's own serialisation errors (a model nested
        # too deep among them); RecursionError: a plain value nested too deep.
        raise ToolError(
            ErrorKind.TOOL_FAILED,
            f"structured output of type {type(value).__name__} cannot be serialised as JSON",
            cause=exc,
            detail="the result cannot be serialised as JSON",
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
