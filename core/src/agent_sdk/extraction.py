"""The neutral finished agent response and the output modes that turn it into tool text."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from agent_sdk.errors import ConfigurationError, ErrorKind, ToolError


@dataclass(frozen=True)
class Message:
    role: Literal["user", "assistant", "tool", "system"] | str
    text: str | None


@dataclass
class Usage:
    """What a (sub-)agent run cost. ``input_chars`` counts characters sent to models."""

    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    input_chars: int = 0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.model_calls += other.model_calls
        self.input_chars += other.input_chars


@dataclass
class AgentResponse:
    """A sub-agent's finished response, in framework-neutral form.

    ``pending_approvals`` holds the ``apr_…`` ids of approvals the child is waiting on;
    extraction never hides them.
    """

    messages: list[Message] = field(default_factory=list)
    structured: Any = None
    usage: Usage = field(default_factory=Usage)
    pending_approvals: list[str] = field(default_factory=list)
    raw: Any = field(default=None, repr=False)

    def assistant_texts(self) -> list[str]:
        return [m.text for m in self.messages if m.role == "assistant" and m.text]


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
    from agent_sdk.plugins import output_modes

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
    if callable(mode) and not isinstance(mode, str):
        fn = mode
    elif mode in _BUILTIN_FUNCTIONS:
        fn = _BUILTIN_FUNCTIONS[mode]
    else:
        from agent_sdk.plugins import output_modes

        fn = output_modes()[mode]
    text = fn(response)
    if not isinstance(text, str):
        raise ToolError(
            ErrorKind.TOOL_FAILED,
            f"the return_mode function for '{agent}' returned {type(text).__name__}, not str",
        )
    return text
