"""The script a scripted model plays: ``Turn``s of text and ``ToolCall``s (and ``ECHO``,
the turn that answers with what the model was sent)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

_ids = itertools.count(1)


@dataclass(frozen=True)
class ToolCall:
    """One tool call the scripted model makes. ``arguments`` may be a dict or raw JSON text."""

    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    id: str = field(default_factory=lambda: f"call_{next(_ids)}")


ECHO = "\x00echo"
"""Turn text that makes the scripted model answer with the text of every non-system message
it was sent, joined by newlines (to see what a child received)."""


@dataclass(frozen=True)
class Turn:
    """One scripted model response: optional text, tool calls, a delay before answering."""

    text: str | None = None
    calls: tuple[ToolCall, ...] = ()
    delay: float = 0.0

    @classmethod
    def say(cls, text: str, *, delay: float = 0.0) -> Turn:
        return cls(text=text, delay=delay)

    @classmethod
    def call(cls, *calls: ToolCall, text: str | None = None, delay: float = 0.0) -> Turn:
        return cls(text=text, calls=tuple(calls), delay=delay)

    @classmethod
    def echo(cls, *, delay: float = 0.0) -> Turn:
        return cls(text=ECHO, delay=delay)


__all__ = ["ECHO", "ToolCall", "Turn"]
