"""Conversations: fast-agent has no run or conversation id, so we mint one per top-level
``generate``/``send`` and carry it (with the run's stop signal) to every tool call and clone."""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from agent_sdk import HierarchyLimitError
from agent_sdk.integration import CallContext, bind_call, new_id


@dataclass
class RunControl:
    """Shared by a top-level run and every clone it starts: the budget error that stops it."""

    stop: HierarchyLimitError | None = None

    def record_stop(self, error: HierarchyLimitError) -> None:
        if self.stop is None:
            self.stop = error


@dataclass(frozen=True)
class Conversation:
    """One agent conversation: the id tool calls get as conversation (thread) id."""

    id: str
    agent: str | None = None
    control: RunControl = field(default_factory=RunControl)


_conversation: contextvars.ContextVar[Conversation | None] = contextvars.ContextVar(
    "agent_sdk_fast_agent_conversation", default=None
)


def new_conversation_id() -> str:
    return new_id("fa")


def current_conversation() -> Conversation | None:
    """The conversation the code runs in (set by an orchestrated agent, or ``conversation``)."""
    return _conversation.get()


@contextmanager
def use_conversation(conv: Conversation | None) -> Iterator[Conversation | None]:
    token = _conversation.set(conv)
    try:
        yield conv
    finally:
        _conversation.reset(token)


@contextmanager
def conversation(conversation_id: str | None = None) -> Iterator[Conversation]:
    """Name the conversation of the agent runs inside the block.

    fast-agent has no run or conversation id. An orchestrated agent mints one per top-level
    ``generate``/``send``; use this to choose it instead (for example a fast-agent session
    id) or to read it: ``with conversation() as conv: await agent.send(...)``, then
    ``conv.id``. Without an active ``run_scope`` the id is also the run id.
    """
    conv = Conversation(conversation_id or new_conversation_id())
    with use_conversation(conv):
        yield conv


def bind_tool_call(tool_use_id: str | None, extra: dict[str, Any] | None = None) -> CallContext:
    """The CallContext of a tool call: call id = fast-agent's ``tool_use_id``."""
    conv = _conversation.get()
    return bind_call(
        call_id=tool_use_id,
        conversation_id=conv.id if conv is not None else None,
        extra=extra,
    )
