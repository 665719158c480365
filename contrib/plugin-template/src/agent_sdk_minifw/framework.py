"""minifw: a tiny agent framework, standing in for the one your plugin integrates.

A scripted model answers; the tool calls of one turn run concurrently; their results go
back to the model until it answers with text only. Tools receive a ``ToolEvent`` (the
framework's own event object) and return a ``ToolResult`` with an error flag. An
``Observer`` (minifw's extension point, as real frameworks have middleware or hooks) is
told of every agent run and every model call; minifw has no tracing of its own.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
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


@dataclass(frozen=True)
class ModelCallReport:
    """One call of minifw's scripted model, as observers see it."""

    agent: str
    model: str
    start_ns: int
    end_ns: int
    finish_reason: str


class Observer:
    """Told of every agent run and model call (override what you need)."""

    def agent_run(self, agent: Agent) -> AbstractContextManager[Any]:
        return nullcontext()

    def model_called(self, report: ModelCallReport) -> None:
        pass


class Agent:
    model = "scripted"

    def __init__(
        self,
        name: str,
        turns: Sequence[Turn],
        tools: Sequence[Tool] = (),
        *,
        observers: Sequence[Observer] = (),
    ) -> None:
        self.name = name
        self.turns = list(turns)
        self.tools = {t.name: t for t in tools}
        self.observers = list(observers)

    def clone(self, *, observers: Sequence[Observer] | None = None) -> Agent:
        return Agent(
            self.name,
            self.turns,
            list(self.tools.values()),
            observers=self.observers if observers is None else observers,
        )

    async def run(self, prompt: str) -> Session:
        session = Session(id=f"mini-{uuid.uuid4().hex[:12]}")
        session.messages.append({"role": "user", "text": prompt})
        scopes = [o.agent_run(self) for o in self.observers]
        for scope in scopes:
            scope.__enter__()
        try:
            await self._loop(session)
        finally:
            for scope in reversed(scopes):
                scope.__exit__(None, None, None)
        return session

    async def _loop(self, session: Session) -> None:
        for turn in self.turns:
            start = time.time_ns()
            if turn.delay:
                await asyncio.sleep(turn.delay)
            session.model_calls += 1
            text = turn.text
            if text == ECHO:
                text = "\n".join(m["text"] for m in session.messages if m["role"] != "system")
            session.messages.append({"role": "assistant", "text": text})
            report = ModelCallReport(
                self.name, self.model, start, time.time_ns(), "tool_calls" if turn.calls else "stop"
            )
            for observer in self.observers:
                observer.model_called(report)
            if not turn.calls:
                return
            await asyncio.gather(*(self._call(session, c) for c in turn.calls))

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
