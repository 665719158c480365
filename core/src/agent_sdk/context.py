"""The context of one tool call, carried in a contextvar so nested calls inherit it."""

from __future__ import annotations

import contextvars
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from agent_sdk.deprecated import warn

if TYPE_CHECKING:
    from agent_sdk.approval.tokens import ApprovalToken


def new_id(prefix: str) -> str:
    """``prefix_`` and 128 random bits in hex (as a uuid4's hex, at a fifth of the cost)."""
    return f"{prefix}_{os.urandom(16).hex()}"


NO_EXTRA: Mapping[str, Any] = MappingProxyType({})
"""The ``extra`` of a context given none: one shared, read-only empty mapping."""


@dataclass(frozen=True, slots=True, init=False)
class CallContext:
    """Who is calling a tool, from where in the hierarchy.

    ``path`` holds the names of the sub-agents the call runs inside (the orchestrator is the
    empty path), so ``depth == len(path)`` and the orchestrator's direct children run at
    depth 1. ``token`` is a one-use approval token minted by an approval gate for this very
    call (``approval=`` is its 0.1 name, deprecated).
    """

    run_id: str
    thread_id: str | None
    call_id: str | None
    path: tuple[str, ...]
    token: ApprovalToken | None = field(repr=False)
    extra: Mapping[str, Any] = field(repr=False)

    def __init__(
        self,
        run_id: str,
        thread_id: str | None = None,
        call_id: str | None = None,
        path: tuple[str, ...] = (),
        token: ApprovalToken | None = None,
        extra: Mapping[str, Any] = NO_EXTRA,
        **deprecated: Any,
    ) -> None:
        if deprecated:
            token = _deprecated_token(deprecated, token)
        # The slots' own setters (what object.__setattr__ finds past the frozen __setattr__,
        # without looking each name up): every tool call and sub-agent makes a context.
        _set_run_id(self, run_id)
        _set_thread_id(self, thread_id)
        _set_call_id(self, call_id)
        _set_path(self, path)
        _set_token(self, token)
        _set_extra(self, extra)

    @property
    def approval(self) -> ApprovalToken | None:
        """Deprecated (0.1): ``token``."""
        warn("agent_sdk.CallContext.approval")
        return self.token

    @property
    def depth(self) -> int:
        return len(self.path)

    @property
    def path_text(self) -> str:
        return "/".join(self.path)

    def evolve(self, **changes: Any) -> CallContext:
        """A copy with the given fields changed (frozen dataclass ``replace``)."""
        if "approval" in changes:
            changes["token"] = _deprecated_token({"approval": changes.pop("approval")}, None)
        return replace(self, **changes)

    @classmethod
    def new(cls, *, run_id: str | None = None, **fields: Any) -> CallContext:
        return cls(run_id=run_id or new_id("run"), **fields)


_set_run_id, _set_thread_id, _set_call_id, _set_path, _set_token, _set_extra = (
    vars(CallContext)[name].__set__
    for name in ("run_id", "thread_id", "call_id", "path", "token", "extra")
)


def _deprecated_token(given: dict[str, Any], token: ApprovalToken | None) -> ApprovalToken | None:
    unknown = set(given) - {"approval"}
    if unknown:
        names = ", ".join(sorted(unknown))
        raise TypeError(f"CallContext got unexpected keyword argument(s) {names}")
    warn("agent_sdk.CallContext.approval", stacklevel=3)
    return token if token is not None else given["approval"]


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
