"""An AG2 Agent as a sub-agent tool: a thin adapter over ``agent_sdk.agent_tool``.

The core does the guards (depth, recursion, budget, timeout, parallelism), extraction,
spans and pending-approval surfacing; this module only runs the child and reads its
stream into the neutral ``AgentResponse``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
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
from pydantic import BaseModel

from agent_sdk import (
    AgentResponse,
    CallContext,
    ConfigurationError,
    Message,
    ToolSpec,
    Usage,
    agent_tool,
)
from agent_sdk.extraction import ReturnMode

_INVALID = re.compile(r"[^A-Za-z0-9_-]+")


def tool_name_for(agent_name: str) -> str:
    """The agent's name as a valid tool name ("Legal Review" -> "Legal_Review")."""
    name = _INVALID.sub("_", agent_name).strip("_")[:64]
    if not name:
        raise ConfigurationError(
            f"cannot make a tool name from agent name {agent_name!r}: pass name="
        )
    return name


def agent_spec(
    agent: Agent,
    *,
    name: str | None,
    description: str | None,
    return_mode: ReturnMode,
    timeout: float | None,
    input_schema: type[BaseModel] | Mapping[str, Any] | None,
) -> ToolSpec:
    if not isinstance(agent, Agent):
        raise ConfigurationError(f"ag2_agent_tool needs an ag2.Agent, got {type(agent).__name__}")
    tool_name = name or tool_name_for(agent.name)
    text = description or (
        f"Ask the {agent.name} agent. It sees only the request you pass, never this conversation."
    )

    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        prompt = request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
        # A fresh stream per call: the child starts with an empty history, and parallel
        # calls of the same agent never see each other's messages.
        stream = MemoryStream()
        reply = await agent.ask(prompt, stream=stream)
        events = await stream.history.get_events()
        structured = None
        if getattr(agent, "_response_schema", None) is not None:
            structured = await reply.content()  # validated against the agent's schema
        return read_response(events, prompt=list(reply.context.prompt), structured=structured)

    return agent_tool(
        invoke,
        name=tool_name,
        description=text,
        input_schema=input_schema,
        return_mode=return_mode,
        timeout=timeout,
        provider="ag2",
    )


def read_response(
    events: Iterable[Any], *, prompt: Sequence[str] = (), structured: Any = None
) -> AgentResponse:
    """A finished AG2 stream as an AgentResponse.

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
    conversation_chars = 0
    for event in events:
        if isinstance(event, ModelRequest):
            text = "\n".join(_part_text(p) for p in event.parts)
            messages.append(Message("user", text))
            conversation_chars += len(text)
        elif isinstance(event, ModelResponse):
            if not event.response_force:
                usage.model_calls += 1
                usage.input_chars += system_chars + conversation_chars
            messages.append(Message("assistant", event.content))
            conversation_chars += len(event.content or "") + sum(
                len(c.name) + len(c.arguments or "") for c in event.tool_calls.calls
            )
        elif isinstance(event, ToolResultsEvent):
            for result in event.results:
                text = "\n".join(_part_text(p) for p in result.result.parts)
                messages.append(Message("tool", text))
                conversation_chars += len(text)
        elif isinstance(event, UsageEvent) and event.usage:
            usage.input_tokens += int(event.usage.prompt_tokens or 0)
            usage.output_tokens += int(event.usage.completion_tokens or 0)
    return AgentResponse(messages=messages, structured=structured, usage=usage, raw=events)


def _part_text(part: Any) -> str:
    if isinstance(part, TextInput):
        return part.content
    if isinstance(part, DataInput):
        try:
            return json.dumps(part.data, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(part.data)
    return ""
