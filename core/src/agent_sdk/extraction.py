"""The neutral finished agent response, and the built-in output modes that turn it into tool
text (all, last, json). Choosing a mode, plugins' modes included: ``agent_sdk.output_modes``."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from agent_sdk.errors import ErrorKind, ToolError
from agent_sdk.exports import deprecated_exports


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


# Moved in 0.2 to agent_sdk.output_modes (they ask the plugins); warn once, still work.
__getattr__ = deprecated_exports(
    __name__,
    {
        "check_return_mode": ("agent_sdk.output_modes", "check_return_mode"),
        "extract": ("agent_sdk.output_modes", "extract"),
    },
)
