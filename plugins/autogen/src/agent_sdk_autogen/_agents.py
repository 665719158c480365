"""AutoGen agents and teams as tools, over the neutral ``agent_tool``.

AutoGen's own AgentTool/TeamTool run one shared instance: parallel calls mix their
histories into one model context, and a second parallel TeamTool call fails with "The team
is already running". Here every call gets its own child (a copy of a template agent, or a
new agent or team from a factory) on its own conversation, run in a task linked to its
cancellation token; guards, extraction, spans and pending approvals come from the core.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import warnings
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import ChatAgent, Response, TaskResult, Team
from autogen_agentchat.messages import (
    BaseAgentEvent,
    BaseChatMessage,
    ModelClientStreamingChunkEvent,
    StructuredMessage,
    TextMessage,
    ThoughtEvent,
    ToolCallExecutionEvent,
    ToolCallRequestEvent,
)
from autogen_core import CancellationToken

from agent_sdk import AgentResponse, ConfigurationError, HistoryMode, Message, ToolSpec, Usage
from agent_sdk.integration import AgentToolSettings, CallContext
from agent_sdk_autogen._agent_loop import adapt
from agent_sdk_autogen._run_control import run_linked

Runner = ChatAgent | Team
Factory = Callable[[], Runner | Awaitable[Runner]]
Item = BaseAgentEvent | BaseChatMessage


class _Serial:
    """One asyncio.Lock per event loop (a tool may outlive the loop it was first used on)."""

    def __init__(self) -> None:
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    def lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        found = self._locks.get(loop)
        if found is None:
            found = self._locks[loop] = asyncio.Lock()
        return found


async def _call_factory(factory: Factory) -> Runner:
    made = factory()
    if inspect.isawaitable(made):
        made = await made
    if not isinstance(made, (ChatAgent, Team)):
        raise ConfigurationError(
            f"the factory returned {type(made).__name__}, not an AutoGen agent or team"
        )
    return made


async def clone_agent(template: AssistantAgent, *, keep_history: bool = True) -> AssistantAgent:
    """A copy of ``template`` with its own model context: holding the template's history as
    it is now (save_state/load_state), or empty. Tools, model client, memory and workbench
    are shared: they keep no per-conversation state."""
    clone = copy.copy(template)
    clone._model_context = copy.copy(template._model_context)
    if keep_history:
        await clone.load_state(await template.save_state())
    else:
        await clone._model_context.clear()
    return clone


# -- what a child produced, in neutral form --------------------------------------------------
def to_response(items: Sequence[Item], *, raw: Any = None) -> AgentResponse:
    """AutoGen messages and events -> AgentResponse (texts, tool results, usage, structured).

    ``input_chars`` counts the conversation sent before each model call (the model is sent
    the whole history every time; the system message is not in the stream, so not counted).
    """
    messages: list[Message] = []
    usage = Usage()
    structured: Any = None
    conversation_chars = 0
    for item in items:
        if item.models_usage is not None:
            usage.model_calls += 1
            usage.input_tokens += item.models_usage.prompt_tokens
            usage.output_tokens += item.models_usage.completion_tokens
            usage.input_chars += conversation_chars
        conversation_chars += _item_chars(item)
        if isinstance(item, ToolCallExecutionEvent):
            messages.extend(Message("tool", result.content) for result in item.content)
        elif isinstance(item, ThoughtEvent):  # text the model sent along with tool calls
            messages.append(Message("assistant", item.content))
        elif isinstance(item, BaseChatMessage):
            role = "user" if item.source == "user" else "assistant"
            messages.append(Message(role, item.to_model_text()))
            if isinstance(item, StructuredMessage) and role == "assistant":
                structured = item.content
    return AgentResponse(messages=messages, structured=structured, usage=usage, raw=raw)


def _item_chars(item: Item) -> int:
    if isinstance(item, ToolCallExecutionEvent):
        return sum(len(result.content) for result in item.content)
    if isinstance(item, ToolCallRequestEvent):
        return sum(len(call.name) + len(call.arguments) for call in item.content)
    if isinstance(item, ThoughtEvent):
        return len(item.content)
    if isinstance(item, BaseChatMessage):
        return len(item.to_model_text())
    return 0


def _task_text(request: Any) -> str:
    return request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)


async def _drive_agent(agent: ChatAgent, text: str, token: CancellationToken) -> list[Item]:
    # on_messages_stream rather than run_stream: run/run_stream open AutoGen's own
    # `invoke_agent` span, which would duplicate the core's span for this very call.
    task = TextMessage(content=text, source="user")
    items: list[Item] = [task]
    async for item in agent.on_messages_stream([task], token):
        if isinstance(item, Response):
            items.append(item.chat_message)
        elif not isinstance(item, ModelClientStreamingChunkEvent):
            items.append(item)
    return items


async def _drive_team(team: Team, text: str, token: CancellationToken) -> list[Item]:
    result: TaskResult | None = None
    async for item in team.run_stream(task=text, cancellation_token=token):
        if isinstance(item, TaskResult):
            result = item
    if result is None:  # pragma: no cover - run_stream always ends with a TaskResult
        raise RuntimeError("the team ended without a TaskResult")
    return list(result.messages)


# -- the agent tool ----------------------------------------------------------------------------
def sample(agent: Any) -> Runner | None:
    """The agent or team an agent tool takes its name and description from: ``agent``
    itself, or the one a sync factory builds (the core asks once per ``agent_tool`` call);
    None for an async factory (it cannot be built here)."""
    if isinstance(agent, (ChatAgent, Team)):
        return agent
    _check_factory(agent)
    if inspect.iscoroutinefunction(agent):
        return None
    made = agent()
    if not isinstance(made, (ChatAgent, Team)):
        raise ConfigurationError(
            f"the factory returned {type(made).__name__}, not an AutoGen agent or team"
        )
    return made


def _check_factory(agent: Any) -> None:
    if not callable(agent):
        raise ConfigurationError(
            "autogen_agent_tool needs an AutoGen agent or a factory (or a team), got "
            f"{type(agent).__name__}"
        )


def _check_history(agent: Any, history: HistoryMode) -> None:
    if isinstance(agent, AssistantAgent):
        return  # a copy per call, with or without its history, or the agent itself
    if isinstance(agent, Team):
        if history == "fork":
            raise ConfigurationError(
                "history='fork': a team cannot be copied per call; use 'fresh' (reset "
                "before each call) or 'shared', or pass a factory that builds a new team"
            )
    elif isinstance(agent, ChatAgent):
        if history != "shared":
            raise ConfigurationError(
                f"history={history!r}: a {type(agent).__name__} cannot be copied per call; "
                "pass a factory that builds a new agent, or use history='shared'"
            )
    else:
        _check_factory(agent)
        if history != "fresh":
            raise ConfigurationError(
                f"history={history!r} needs an agent or team instance: a factory builds a "
                "new one per call (history='fresh')"
            )


def agent_spec(
    agent: Runner | Factory,
    settings: AgentToolSettings,
    *,
    provider: str,
) -> ToolSpec:
    """The ToolSpec running ``agent`` as a sub-agent, a child per call (see
    ``AutogenIntegration.agent_spec`` for what each history mode runs)."""
    name, history = settings.name, settings.history

    _check_history(agent, history)
    serial = _Serial()
    warned: list[bool] = []

    @asynccontextmanager
    async def child() -> AsyncIterator[Runner]:
        if isinstance(agent, AssistantAgent) and history != "shared":
            if history == "fresh" and not warned and await agent.model_context.get_messages():
                warned.append(True)
                warnings.warn(
                    f"agent tool {name!r}: history='fresh' now runs every call with no history "
                    "(0.1 copied the template's); pass history='fork' to keep it",
                    DeprecationWarning,
                    stacklevel=1,
                )
            yield await clone_agent(agent, keep_history=history == "fork")
        elif isinstance(agent, (ChatAgent, Team)):  # one call at a time
            async with serial.lock():
                if isinstance(agent, Team) and history == "fresh":
                    await agent.reset()
                yield agent
        else:
            yield await _call_factory(agent)

    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        text = _task_text(request)
        async with child() as runner:
            adapt(runner)  # malformed arguments reach our tools; usage asked on streams
            if isinstance(runner, Team):
                items = await run_linked(lambda token: _drive_team(runner, text, token))
            else:
                items = await run_linked(lambda token: _drive_agent(runner, text, token))
        return to_response(items, raw=items)

    return settings.spec(
        invoke,
        provider=provider,
    )
