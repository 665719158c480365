"""minifw: a tiny agent framework, standing in for the one your plugin integrates.

A scripted model answers; the tool calls of one turn run concurrently; their results go
back to the model until it answers with text only. Tools receive a ``ToolEvent`` (the
framework's own event object) and return a ``ToolResult`` with an error flag.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_sdk.scripted import ECHO, SeenResult, Turn


@dataclass(frozen=True)
class ToolEvent:
    """What minifw hands a tool: the call and the session it belongs to."""

    call_id: str
    tool: str
    arguments: str
    session_id: str
    agent: str


@dataclass
class ToolResult:
    text: str
    is_error: bool = False
    exception: BaseException | None = None


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[[ToolEvent], Awaitable[ToolResult]]


@dataclass
class Session:
    id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    results: list[SeenResult] = field(default_factory=list)
    exceptions: list[BaseException] = field(default_factory=list)
    model_calls: int = 0

    @property
    def final_text(self) -> str | None:
        last = self.messages[-1] if self.messages else None
        return last["text"] if last and last["role"] == "assistant" else None


class Agent:
    def __init__(self, name: str, turns: Sequence[Turn], tools: Sequence[Tool] = ()) -> None:
        self.name = name
        self.turns = list(turns)
        self.tools = {t.name: t for t in tools}

    def clone(self) -> Agent:
        return Agent(self.name, self.turns, list(self.tools.values()))

    async def run(self, prompt: str) -> Session:
        session = Session(id=f"mini-{uuid.uuid4().hex[:12]}")
        session.messages.append({"role": "user", "text": prompt})
        for turn in self.turns:
            if turn.delay:
                await asyncio.sleep(turn.delay)
            session.model_calls += 1
            text = turn.text
            if text == ECHO:
                text = "\n".join(m["text"] for m in session.messages if m["role"] != "system")
            session.messages.append({"role": "assistant", "text": text})
            if not turn.calls:
                return session
            await asyncio.gather(*(self._call(session, c) for c in turn.calls))
        return session

    async def _call(self, session: Session, call: Any) -> None:
        args = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
        tool = self.tools.get(call.name)
        if tool is None:
            result = ToolResult(f"no tool {call.name}", is_error=True)
        else:
            result = await tool.fn(ToolEvent(call.id, call.name, args, session.id, self.name))
        if result.exception is not None:
            session.exceptions.append(result.exception)
        session.results.append(SeenResult(call.id, call.name, result.text, result.is_error))
        session.messages.append({"role": "tool", "text": result.text})
