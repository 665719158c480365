"""AutoGen agents and teams as tools, over the neutral ``agent_sdk.agent_tool``.

AutoGen's own AgentTool/TeamTool run one shared instance: parallel calls mix their
histories into one model context, and a second parallel TeamTool call fails with "The team
is already running". Here every call gets its own child (a clone of a template agent, or a
new one from a factory) on its own conversation, run in a task linked to its cancellation
token; guards, extraction, spans and pending approvals come from the core.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, Literal

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

from agent_sdk import (
    AgentResponse,
    CallContext,
    ConfigurationError,
    Executor,
    Message,
    Usage,
    agent_tool,
)
from agent_sdk.extraction import ReturnMode
from agent_sdk_autogen._integration import check_framework
from agent_sdk_autogen._runs import run_linked
from agent_sdk_autogen._tools import AutogenTool, build_tool

History = Literal["fresh", "shared"]
AgentFactory = Callable[[], ChatAgent | Awaitable[ChatAgent]]
TeamFactory = Callable[[], Team | Awaitable[Team]]
Item = BaseAgentEvent | BaseChatMessage

PROVIDER = "autogen"


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


async def _call_factory(factory: Callable[[], Any], kind: type[Any], what: str) -> Any:
    made = factory()
    if inspect.isawaitable(made):
        made = await made
    if not isinstance(made, kind):
        raise ConfigurationError(f"the {what} factory returned {type(made).__name__}, not a {what}")
    return made


async def clone_agent(template: AssistantAgent) -> AssistantAgent:
    """A copy of ``template`` with its own model context, holding the template's history
    as it is now (save_state/load_state). Tools, model client, memory and workbench are
    shared: they keep no per-conversation state."""
    clone = copy.copy(template)
    clone._model_context = copy.copy(template._model_context)
    await clone.load_state(await template.save_state())
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


def _factory_names(
    factory: Any, expected: type, kind: str, name: str | None, description: str | None, history: str
) -> tuple[str, str | None]:
    """The tool's name and description for an agent or team factory (built once to ask it,
    unless both are given or the factory is async)."""
    if history == "shared":
        raise ConfigurationError(
            f"history='shared' needs a {kind} instance: a factory builds a new {kind} per call"
        )
    if inspect.iscoroutinefunction(factory):
        if name is None:
            raise ConfigurationError(f"give name= for an async {kind} factory")
    elif name is None or description is None:
        sample = factory()
        if not isinstance(sample, expected):
            raise ConfigurationError(
                f"the {kind} factory returned {type(sample).__name__}, not an AutoGen {kind}"
            )
        name, description = name or sample.name, description or sample.description  # type: ignore[attr-defined]
    assert name is not None
    return name, description


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


def _check_history(history: str) -> None:
    if history not in ("fresh", "shared"):
        raise ConfigurationError(f"history must be 'fresh' or 'shared', not {history!r}")


# -- agents ------------------------------------------------------------------------------------
def autogen_agent_tool(
    agent: ChatAgent | AgentFactory,
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    timeout: float | None = None,
    input_schema: Any = None,
    history: History = "fresh",
    executor: Executor | None = None,
) -> AutogenTool:
    """An AutoGen agent as a tool, with a fresh child per call.

    ``agent`` is an ``AssistantAgent`` used as a template (each call runs a clone holding
    the template's history as it is at call time, so parallel calls never see each other),
    or a factory returning a new agent per call (any ChatAgent; may be async). With
    ``history="shared"`` every call runs the template itself, one call at a time, and its
    history grows across calls (AutoGen's AgentTool behaviour, without the mixing).

    The child's events are not streamed into the parent's run; its spans nest under the
    tool call. ``return_mode`` is "last", "all", "json" or a function AgentResponse -> str.
    """
    check_framework()
    _check_history(history)
    if isinstance(agent, ChatAgent):
        template = agent
        if history == "fresh" and not isinstance(template, AssistantAgent):
            raise ConfigurationError(
                f"cannot clone a {type(template).__name__} per call: pass a factory that "
                "builds a new agent, or history='shared'"
            )
        tool_name = name or template.name
        tool_description = description or template.description
        factory: AgentFactory | None = None
    elif callable(agent):
        template, factory = None, agent
        tool_name, description = _factory_names(
            agent, ChatAgent, "agent", name, description, history
        )
        tool_description = description or f"Ask {tool_name}."
    else:
        raise ConfigurationError(
            f"autogen_agent_tool needs an AutoGen agent or a factory, got {type(agent).__name__}"
        )
    serial = _Serial()

    @asynccontextmanager
    async def child() -> AsyncIterator[ChatAgent]:
        if factory is not None:
            yield await _call_factory(factory, ChatAgent, "agent")
        elif history == "shared":
            assert template is not None
            async with serial.lock():
                yield template
        else:
            assert isinstance(template, AssistantAgent)
            yield await clone_agent(template)

    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        async with child() as runner:
            items = await run_linked(lambda token: _drive_agent(runner, _task_text(request), token))
        return to_response(items, raw=items)

    spec = agent_tool(
        invoke,
        name=tool_name,
        description=tool_description,
        input_schema=input_schema,
        return_mode=return_mode,
        timeout=timeout,
        provider=PROVIDER,
    )
    return build_tool(spec, executor=executor)


# -- teams -------------------------------------------------------------------------------------
def autogen_team_tool(
    team: Team | TeamFactory,
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    timeout: float | None = None,
    input_schema: Any = None,
    history: History = "fresh",
    executor: Executor | None = None,
) -> AutogenTool:
    """An AutoGen team as a tool.

    With a factory every call runs a new team, so parallel calls work (AutoGen's TeamTool
    fails the second one with "The team is already running"). A team instance cannot be
    cloned: its calls run one at a time, each after ``team.reset()`` (``history="fresh"``)
    or continuing the same conversation (``history="shared"``).
    """
    check_framework()
    _check_history(history)
    if isinstance(team, Team):
        instance: Team | None = team
        factory: TeamFactory | None = None
        tool_name = name or team.name
        tool_description = description or team.description
    elif callable(team):
        instance, factory = None, team
        tool_name, description = _factory_names(team, Team, "team", name, description, history)
        tool_description = description or f"Ask the {tool_name} team."
    else:
        raise ConfigurationError(
            f"autogen_team_tool needs an AutoGen team or a factory, got {type(team).__name__}"
        )
    serial = _Serial()

    async def run_team(runner: Team, text: str) -> list[Item]:
        return await run_linked(lambda token: _drive_team(runner, text, token))

    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        text = _task_text(request)
        if factory is not None:
            items = await run_team(await _call_factory(factory, Team, "team"), text)
        else:
            assert instance is not None
            async with serial.lock():
                if history == "fresh":
                    await instance.reset()
                items = await run_team(instance, text)
        return to_response(items, raw=items)

    spec = agent_tool(
        invoke,
        name=tool_name,
        description=tool_description,
        input_schema=input_schema,
        return_mode=return_mode,
        timeout=timeout,
        provider=PROVIDER,
    )
    return build_tool(spec, executor=executor)
