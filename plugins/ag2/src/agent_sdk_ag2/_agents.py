"""An AG2 Agent as a sub-agent tool: a thin adapter over ``agent_sdk.agent_tool``.

The core does the guards (depth, recursion, budget, timeout, parallelism), extraction,
spans and pending-approval surfacing; this module only runs the child and reads its
stream into the neutral ``AgentResponse``.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

from ag2 import Agent, MemoryStream
from ag2.events import (
    DataInput,
    ModelRequest,
    ModelResponse,
    TextInput,
    ToolResultsEvent,
    UsageEvent,
)

from agent_sdk import AgentResponse, ErrorKind, Message, ToolError, ToolSpec, Usage
from agent_sdk.integration import AgentToolSettings, CallContext
from agent_sdk_ag2._tracing import SpanMiddleware, _asked_as_tool, has_spans


def agent_spec(
    agent: Agent,
    settings: AgentToolSettings,
    *,
    provider: str,
) -> ToolSpec:
    """The spec of ``agent`` as a tool named ``name`` (already a valid tool name)."""
    name, history = settings.name, settings.history

    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        prompt = request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
        if history == "shared":
            conversation = _conversation_of(agent)
            held = _held.get()
            if conversation in held:  # waiting for our own turn would never end
                raise ToolError(
                    ErrorKind.RECURSION,
                    f"cannot call sub-agent '{name}': its conversation is already in this "
                    "call path (history='shared'). Answer with the data you have.",
                    tool=name,
                )
            async with conversation.turn():
                reset = _held.set(held | {conversation})
                try:
                    start = len(list(await conversation.stream.history.get_events()))
                    return await _ask(agent, prompt, conversation.stream, start=start)
                finally:
                    _held.reset(reset)
        # A fresh stream per call: the child starts with an empty history, and parallel
        # calls of the same agent never see each other's messages.
        return await _ask(agent, prompt, MemoryStream())

    return settings.spec(
        invoke,
        provider=provider,
    )


async def _ask(agent: Agent, prompt: str, stream: MemoryStream, *, start: int = 0) -> AgentResponse:
    """Ask ``agent`` on ``stream``; the response is what the call adds after the stream's
    first ``start`` events. Its model calls get chat spans (``_tracing``) unless the agent
    traces itself; its invoke_agent span is agent-sdk's, around this call."""
    middleware = () if has_spans(agent) else (SpanMiddleware(agent, agent_spans=False),)
    asked = _asked_as_tool.set(agent)
    try:
        reply = await agent.ask(prompt, stream=stream, middleware=middleware)
    finally:
        _asked_as_tool.reset(asked)
    events = await stream.history.get_events()
    structured = None
    if getattr(agent, "_response_schema", None) is not None:
        structured = await reply.content()  # validated against the agent's schema
    return read_response(
        events, prompt=list(reply.context.prompt), structured=structured, start=start
    )


class _Conversation:
    """An AG2 agent's own conversation (history "shared"): one stream every call of the
    agent continues, one call at a time (so each call reads back only what it added)."""

    def __init__(self) -> None:
        self.stream = MemoryStream()
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    def turn(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        lock = self._locks.get(loop)
        if lock is None:
            lock = self._locks[loop] = asyncio.Lock()
        return lock


# An AG2 Agent keeps no history (it lives on the stream ``ask`` is given): the shared
# conversation is kept here, per agent, for as long as the agent lives.
_conversations: weakref.WeakKeyDictionary[Agent, _Conversation] = weakref.WeakKeyDictionary()


# The shared conversations the running call path is inside of.
_held: contextvars.ContextVar[frozenset[_Conversation]] = contextvars.ContextVar(
    "agent_sdk_ag2_held", default=frozenset()
)


def _conversation_of(agent: Agent) -> _Conversation:
    conversation = _conversations.get(agent)
    if conversation is None:
        conversation = _conversations[agent] = _Conversation()
    return conversation


def read_response(
    events: Iterable[Any], *, prompt: Sequence[str] = (), structured: Any = None, start: int = 0
) -> AgentResponse:
    """A finished AG2 stream as an AgentResponse (of the events from ``start`` on: the
    earlier ones are history the call continued).

    Messages: the requests (user), every model response (assistant; text may be None for
    a tool-calls-only response) and every tool result (tool). Usage: one model call per
    model response the model produced (responses AG2 forces for final tool results are
    not model calls), tokens from the stream's ``UsageEvent``s, and ``input_chars`` as the
    characters of the system prompt plus the conversation sent before each model call (AG2
    sends the whole history every time).
    """
    events = list(events)
    messages: list[Message] = []
    usage = Usage()
    system_chars = sum(len(p) for p in prompt if isinstance(p, str))
    conversation_chars = sum(_sent_chars(e) for e in events[:start])
    for event in events[start:]:
        if isinstance(event, ModelRequest):
            messages.append(Message("user", _parts_text(event.parts)))
        elif isinstance(event, ModelResponse):
            if not event.response_force:
                usage.model_calls += 1
                usage.input_chars += system_chars + conversation_chars
            messages.append(Message("assistant", event.content))
        elif isinstance(event, ToolResultsEvent):
            messages.extend(Message("tool", _parts_text(r.result.parts)) for r in event.results)
        elif isinstance(event, UsageEvent) and event.usage:
            usage.input_tokens += int(event.usage.prompt_tokens or 0)
            usage.output_tokens += int(event.usage.completion_tokens or 0)
        conversation_chars += _sent_chars(event)
    return AgentResponse(messages=messages, structured=structured, usage=usage, raw=events[start:])


def _sent_chars(event: Any) -> int:
    """The characters ``event`` adds to what AG2 sends the model on later calls."""
    if isinstance(event, ModelRequest):
        return len(_parts_text(event.parts))
    if isinstance(event, ModelResponse):
        return len(event.content or "") + sum(
            len(c.name) + len(c.arguments or "") for c in event.tool_calls.calls
        )
    if isinstance(event, ToolResultsEvent):
        return sum(len(_parts_text(r.result.parts)) for r in event.results)
    return 0


def _parts_text(parts: Iterable[Any]) -> str:
    return "\n".join(_part_text(p) for p in parts)


def _part_text(part: Any) -> str:
    if isinstance(part, TextInput):
        return part.content
    if isinstance(part, DataInput):
        try:
            return json.dumps(part.data, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(part.data)
    return ""
