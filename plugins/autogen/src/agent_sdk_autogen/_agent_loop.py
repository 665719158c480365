"""AssistantAgent's tool loop, adapted per agent instance (never AutoGen's classes), and the
two public ways to get it: ``autogen_instrument`` and ``autogen_run``. AutoGen-specific (no
canonical module covers it): the loop's traps are AutoGen's. The opt-in lives here, not in
``_tracing``: it gives the loop (arguments, usage on streams and spans), and this module
builds on ``_tracing`` (the spans), ``_tools`` and ``_run_control``.

Two traps of AutoGen 0.7.5 sit in ``AssistantAgent``'s loop, where no tool or model-client
hook reaches (``autogen_agentchat/agents/_assistant_agent.py``):

- **Arguments**: ``AssistantAgent._execute_tool_call`` runs ``json.loads(tool_call.arguments)``
  before any tool code and answers text that is not JSON (``{"a": 1, "b": 20``, ``not json``)
  with its own ``Error: Expecting ',' delimiter: ...``; JSON that is not an object is handed
  on, and ``StaticWorkbench.call_tool`` turns a falsy one (``null``, ``[]``, ``0``) into
  ``{}``, which a tool without required parameters would run on. For this plugin's tools
  such calls carry the model's raw text to the tool (:class:`RawArguments`), so the executor
  answers ``tool-args-invalid`` as for any invalid arguments, and the run goes on.
- **Usage on streams**: ``AssistantAgent._call_llm`` and ``_reflect_on_tool_use_flow`` call
  ``model_client.create_stream(...)`` without ``include_usage``, and AutoGen's OpenAI clients
  ask for usage on a stream only when told (``stream_options``): a streamed agent reports 0
  tokens. Here a streamed call to an OpenAI client asks for it, unless the client's own
  create args already say something about ``stream_options``.
- **Model-call spans**: AutoGen traces agents (``invoke_agent``) but no model call, and its
  agent span has no ``gen_ai.provider.name``. Here every model call (the tool loop's and the
  reflection's) is a ``chat {model}`` span with AutoGen's usage and finish reason, and
  AutoGen's own ``invoke_agent`` span of the agent gets its provider and tokens (``_tracing``).

:func:`adapt` switches an ``AssistantAgent`` (or every ``AssistantAgent`` of a team) to a
subclass of its own class that overrides those three class methods and
``on_messages_stream`` (which only completes AutoGen's span around it).
``autogen_run`` (public, here: a cancel-safe ``run()``) and the agent tools adapt the agents
they run; ``autogen_instrument`` (public) is for agents and teams a user runs with AutoGen's
own ``run()`` / ``run_stream()``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, TypeVar, cast

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import Response, TaskResult, Team
from autogen_agentchat.messages import (
    BaseAgentEvent,
    BaseChatMessage,
    ModelClientStreamingChunkEvent,
    ThoughtEvent,
)
from autogen_core import CancellationToken, FunctionCall
from autogen_core.model_context import ChatCompletionContext
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    FunctionExecutionResult,
    SystemMessage,
)
from autogen_core.tools import BaseTool, Workbench
from pydantic import BaseModel

from agent_sdk import Usage
from agent_sdk_autogen._run_control import run_linked
from agent_sdk_autogen._tools import AutogenTool, RawArguments
from agent_sdk_autogen._tracing import adopt_agent_span, set_usage, traced

R = TypeVar("R")


def adapt(runner: R) -> R:
    """``runner`` with this plugin's loop: an ``AssistantAgent`` (its class switched to a
    subclass of its own class, in place), or a team whose ``AssistantAgent`` members (nested
    teams included) are; anything else as it is. Idempotent."""
    if isinstance(runner, AssistantAgent):
        if not isinstance(runner, _AdaptedLoop):
            agent: AssistantAgent = runner
            agent.__class__ = _adapted(type(agent))
    elif isinstance(runner, Team):
        for member in getattr(runner, "_participants", ()):
            adapt(member)
    return runner


def autogen_instrument(agent_or_team: R) -> R:
    """Give an AutoGen agent or team you run yourself (``run()``, ``run_stream()``) what
    :func:`autogen_run` gives the agents it runs, and return it: arguments that are not a
    JSON object reach this plugin's tools, which answer the model ``tool-args-invalid``
    (AutoGen answers malformed JSON itself, in plain text), streamed model calls ask
    an OpenAI client for usage, and every model call is a ``chat {model}`` span under
    AutoGen's ``invoke_agent`` span of the agent (given ``gen_ai.provider.name`` and the
    run's tokens). Changes the class of each ``AssistantAgent`` (never the
    class itself) to a subclass of its own; idempotent."""
    return adapt(agent_or_team)


async def autogen_run(
    runnable: Any,
    *,
    task: str | BaseChatMessage | Sequence[BaseChatMessage] | None = None,
    cancellation_token: CancellationToken | None = None,
    output_task_messages: bool = True,
) -> TaskResult:
    """``runnable.run(task=...)`` for an AutoGen agent or team, safe to cancel.

    Use it instead of ``run()`` when the run may be cancelled, or may exhaust a run_scope's
    budget: cancelling ``cancellation_token`` while a tool runs then raises CancelledError
    promptly (plain ``run()`` waits forever in AutoGen 0.7.5), cancelling the calling task
    stops the tool calls too, and budget exhaustion in a tool ends the run by raising
    HierarchyLimitError. The agent (or the team's agents) is first given this plugin's loop
    (``autogen_instrument``): malformed arguments reach its tools, streamed calls ask for usage.
    """
    adapt(runnable)
    return await run_linked(
        lambda token: runnable.run(
            task=task, cancellation_token=token, output_task_messages=output_task_messages
        ),
        cancellation_token,
    )


_classes: dict[type[AssistantAgent], type[AssistantAgent]] = {}
_classes_lock = threading.Lock()


def _adapted(cls: type[AssistantAgent]) -> type[AssistantAgent]:
    with _classes_lock:
        found = _classes.get(cls)
        if found is None:
            # Same name, module and qualname: logs, reprs and component paths read as before.
            found = _classes[cls] = type(
                cls.__name__,
                (_AdaptedLoop, cls),
                {"__module__": cls.__module__, "__qualname__": cls.__qualname__},
            )
        return found


class _AdaptedLoop(AssistantAgent):
    """The overrides; a concrete class is ``(_AdaptedLoop, <the agent's class>)``."""

    async def on_messages_stream(
        self, messages: Sequence[BaseChatMessage], cancellation_token: CancellationToken
    ) -> AsyncGenerator[BaseAgentEvent | BaseChatMessage | Response, None]:
        span = adopt_agent_span(self.name)
        if span is None:
            async for item in super().on_messages_stream(messages, cancellation_token):
                yield item
            return
        usage = Usage()
        try:
            async for item in super().on_messages_stream(messages, cancellation_token):
                message = item.chat_message if isinstance(item, Response) else item
                if message.models_usage is not None:
                    usage.model_calls += 1
                    usage.input_tokens += message.models_usage.prompt_tokens
                    usage.output_tokens += message.models_usage.completion_tokens
                if isinstance(item, Response):
                    # Now: on_messages() returns at the Response and leaves this generator
                    # to be closed later, when AutoGen's span may have ended.
                    set_usage(span, usage)
                yield item
        except (Exception, asyncio.CancelledError):
            set_usage(span, usage)
            raise

    @classmethod
    async def _execute_tool_call(
        cls,
        tool_call: FunctionCall,
        workbench: Sequence[Workbench],
        handoff_tools: list[BaseTool[Any, Any]],
        agent_name: str,
        cancellation_token: CancellationToken,
        stream: Any,
    ) -> tuple[FunctionCall, FunctionExecutionResult]:
        raw = await _run_raw(tool_call, workbench, handoff_tools, cancellation_token)
        if raw is not None:
            return tool_call, raw
        return await super()._execute_tool_call(
            tool_call=tool_call,
            workbench=workbench,
            handoff_tools=handoff_tools,
            agent_name=agent_name,
            cancellation_token=cancellation_token,
            stream=stream,
        )

    @classmethod
    async def _call_llm(
        cls,
        model_client: ChatCompletionClient,
        model_client_stream: bool,
        system_messages: list[SystemMessage],
        model_context: ChatCompletionContext,
        workbench: Sequence[Workbench],
        handoff_tools: list[BaseTool[Any, Any]],
        agent_name: str,
        cancellation_token: CancellationToken,
        output_content_type: type[BaseModel] | None,
        message_id: str,
    ) -> AsyncGenerator[CreateResult | ModelClientStreamingChunkEvent, None]:
        async for item in super()._call_llm(
            model_client=_client(model_client, model_client_stream),
            model_client_stream=model_client_stream,
            system_messages=system_messages,
            model_context=model_context,
            workbench=workbench,
            handoff_tools=handoff_tools,
            agent_name=agent_name,
            cancellation_token=cancellation_token,
            output_content_type=output_content_type,
            message_id=message_id,
        ):
            yield item

    @classmethod
    async def _reflect_on_tool_use_flow(
        cls,
        system_messages: list[SystemMessage],
        model_client: ChatCompletionClient,
        model_client_stream: bool,
        model_context: ChatCompletionContext,
        workbench: Sequence[Workbench],
        handoff_tools: list[BaseTool[Any, Any]],
        agent_name: str,
        inner_messages: list[BaseAgentEvent | BaseChatMessage],
        output_content_type: type[BaseModel] | None,
        cancellation_token: CancellationToken,
    ) -> AsyncGenerator[Response | ModelClientStreamingChunkEvent | ThoughtEvent, None]:
        async for item in super()._reflect_on_tool_use_flow(
            system_messages=system_messages,
            model_client=_client(model_client, model_client_stream),
            model_client_stream=model_client_stream,
            model_context=model_context,
            workbench=workbench,
            handoff_tools=handoff_tools,
            agent_name=agent_name,
            inner_messages=inner_messages,
            output_content_type=output_content_type,
            cancellation_token=cancellation_token,
        ):
            yield item


def _client(model_client: ChatCompletionClient, stream: bool) -> ChatCompletionClient:
    """The client an adapted agent calls: usage asked on streams, a chat span per call."""
    return traced(usage_on_streams(model_client) if stream else model_client, origin=model_client)


# -- arguments -------------------------------------------------------------------------------
async def _run_raw(
    call: FunctionCall,
    workbench: Sequence[Workbench],
    handoff_tools: Sequence[BaseTool[Any, Any]],
    token: CancellationToken,
) -> FunctionExecutionResult | None:
    """The result of ``call`` run on its raw argument text, when AutoGen would not hand the
    tool a JSON object and the tool is one of this plugin's; else None (AutoGen's own way)."""
    try:
        parsed = json.loads(call.arguments)
    except ValueError:
        pass
    else:
        if isinstance(parsed, dict):
            return None
    if any(tool.name == call.name for tool in handoff_tools):
        return None
    for wb in workbench:  # the first workbench that lists the name runs it (as AutoGen does)
        if not any(schema["name"] == call.name for schema in await wb.list_tools()):
            continue
        overrides: Mapping[str, str] = getattr(wb, "_override_name_to_original", None) or {}
        original = overrides.get(call.name, call.name)
        tools: Sequence[Any] = getattr(wb, "_tools", None) or ()
        if not any(isinstance(t, AutogenTool) and t.name == original for t in tools):
            return None
        # The workbench's own path (name overrides, cancellation linked to the token, the
        # tool's exception as an error result), with the text in place of parsed arguments.
        result = await wb.call_tool(
            call.name, RawArguments(call.arguments), cancellation_token=token, call_id=call.id
        )
        return FunctionExecutionResult(
            content=result.to_text(), call_id=call.id, is_error=result.is_error, name=call.name
        )
    return None


# -- usage on streams ------------------------------------------------------------------------
def usage_on_streams(client: ChatCompletionClient) -> ChatCompletionClient:
    """``client``, asking for usage on streamed calls where it is one of AutoGen's OpenAI
    clients (``stream_options.include_usage``) and its create args leave it unsaid."""
    try:
        from autogen_ext.models.openai import BaseOpenAIChatCompletionClient
    except ImportError:  # autogen-ext without its openai extra: no OpenAI client to ask
        return client
    if not isinstance(client, BaseOpenAIChatCompletionClient):
        return client
    create_args: Mapping[str, Any] = getattr(client, "_create_args", None) or {}
    if "stream_options" in create_args:
        return client  # the user's own choice
    return cast(ChatCompletionClient, _UsageOnStreams(client))


class _UsageOnStreams:
    """A view of an OpenAI client whose ``create_stream`` asks for usage; everything else
    (usage totals included) is the client's own."""

    def __init__(self, client: ChatCompletionClient) -> None:
        self._client = client

    def create_stream(self, *args: Any, **kwargs: Any) -> Any:
        extra: Mapping[str, Any] = kwargs.get("extra_create_args") or {}
        if "include_usage" not in kwargs and "stream_options" not in extra:
            kwargs["include_usage"] = True
        return self._client.create_stream(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


__all__ = ["adapt", "autogen_instrument", "autogen_run", "usage_on_streams"]
