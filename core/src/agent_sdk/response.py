"""A sub-agent's finished response, in framework-neutral form: its messages, structured
output, usage and the approvals it waits on. Turning it into tool text:
``agent_sdk.extraction``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


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
