"""The context of one tool call, carried in a contextvar so nested calls inherit it."""

from __future__ import annotations

import contextvars
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_sdk.approval.tokens import ApprovalToken


def new_id(prefix: str) -> str:
    """``prefix_`` and 128 random bits in hex (as a uuid4's hex, at a fifth of the cost)."""
    return f"{prefix}_{os.urandom(16).hex()}"


NO_EXTRA: Mapping[str, Any] = MappingProxyType({})
"""The ``extra`` of a context given none: one shared, read-only empty mapping."""


@dataclass(frozen=True, slots=True)
class CallContext:
    """Who is calling a tool, from where in the hierarchy.

    ``path`` holds the names of the sub-agents the call runs inside (the orchestrator is the
    empty path), so ``depth == len(path)`` and the orchestrator's direct children run at
    depth 1. ``approval`` is a one-use token minted by an approval gate for this very call.
    """

    run_id: str
    thread_id: str | None = None
    call_id: str | None = None
    path: tuple[str, ...] = ()
    approval: ApprovalToken | None = field(default=None, repr=False)
    extra: Mapping[str, Any] = field(default=NO_EXTRA, repr=False)

    @property
    def depth(self) -> int:
        return len(self.path)

    @property
    def path_text(self) -> str:
        return "/".join(self.path)

    def evolve(self, **changes: Any) -> CallContext:
        """A copy with the given fields changed (frozen dataclass ``replace``)."""
        return replace(self, **changes)

    @classmethod
    def new(cls, *, run_id: str | None = None, **fields: Any) -> CallContext:
        return cls(run_id=run_id or new_id("run"), **fields)


_current: contextvars.ContextVar[CallContext | None] = contextvars.ContextVar(
    "agent_sdk_call_context", default=None
)


def current_context() -> CallContext | None:
    """The context of the tool call running now, or None outside any call."""
    return _current.get()


class use_context:
    """Make ``ctx`` current for the block (and for tasks and threads started in it).

    A class, not a generator: it is entered on every tool call and sub-agent.
    """

    __slots__ = ("_token", "ctx")

    def __init__(self, ctx: CallContext | None) -> None:
        self.ctx = ctx

    def __enter__(self) -> CallContext | None:
        self._token = _current.set(self.ctx)
        return self.ctx

    def __exit__(self, *exc_info: object) -> None:
        _current.reset(self._token)
