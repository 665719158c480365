"""The contract-kit harness for AG2, and a scripted model that speaks the kit's turns.

``ScriptedConfig`` is AG2's own ``ag2.testing.TestConfig`` with two additions the kit
needs: a delay before a turn answers, and an echo turn. Each model call takes the next
``agent_sdk.scripted.Turn`` and hands it to AG2's ``TestClient`` as that call's script, so
everything else (text replies, several tool calls in one turn, errors going back to the
model as a real provider would send them) is AG2's behaviour, not ours.

Built with an ``agent_sdk.scripted.Endpoint`` (``AG2Harness(endpoint)``), every agent runs
on AG2's own OpenAI clients instead: ``OpenAIConfig`` (Chat Completions) or
``OpenAIResponsesConfig`` (the Responses API) with the endpoint's base URL, model, key and
streaming, and the scripted server's key in its system prompt (``Harness.system_prompt``).

Usable outside pytest: ``agent-sdk demo`` loads ``AG2Harness`` through
``AG2Integration.harness`` (``"agent_sdk_ag2.testing:AG2Harness"``).
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

import httpx2
from ag2 import Agent, MemoryStream
from ag2.config import ModelConfig, OpenAIConfig, OpenAIResponsesConfig
from ag2.config.openai import OpenAIClient, OpenAIResponsesClient
from ag2.events import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallEvent,
    ToolCallsEvent,
    ToolErrorEvent,
    ToolResultsEvent,
)
from ag2.testing import TestClient, TestConfig

from agent_sdk import ToolSpec
from agent_sdk.integration import Harness, lazy_exports
from agent_sdk.scripted import ECHO, RunResult, ScriptedAgent, SeenResult, ToolCall, Turn
from agent_sdk_ag2 import ag2_instrument
from agent_sdk_ag2._agents import _part_text

if TYPE_CHECKING:
    from agent_sdk.scripted import Api, Endpoint

__all__ = ["AG2Harness", "ScriptedConfig", "seen_results"]


class ScriptedConfig(TestConfig):
    """A TestConfig that plays ``agent_sdk.scripted.Turn``s: text, tool calls (several in
    one turn), text with tool calls, a delay, or an echo of what the model was sent.

    Every ``create()`` (one per ``ask``) starts the script from the first turn. Tool errors
    go back to the model as results (``raise_tool_errors=False``), as with a real provider.
    """

    __test__ = False

    def __init__(self, turns: Sequence[Turn], *, model: str = "scripted") -> None:
        super().__init__(model=model, raise_tool_errors=False)
        self.turns = tuple(turns)

    def create(self) -> TestClient:
        return _TurnClient(self.turns)


class _TurnClient(TestClient):
    __test__ = False

    def __init__(self, turns: Sequence[Turn]) -> None:
        super().__init__(raise_tool_errors=False)
        self._turns: Iterator[Turn] = iter(turns)

    async def __call__(self, messages: Sequence[Any], context: Any, **kwargs: Any) -> ModelResponse:
        turn = next(self._turns, None)
        if turn is None:
            raise RuntimeError("the scripted model has no turn left")
        if turn.delay:
            await asyncio.sleep(turn.delay)
        self.events = iter([_scripted(turn, messages)])
        return await super().__call__(messages, context, **kwargs)


def _scripted(turn: Turn, messages: Sequence[Any]) -> Any:
    text = _echo(messages) if turn.text == ECHO else turn.text
    calls = [_call_event(c) for c in turn.calls]
    if calls and text is not None:
        return ModelResponse(ModelMessage(text), tool_calls=ToolCallsEvent(calls))
    if calls:
        return calls  # several calls in one turn
    return text or ""


def _call_event(call: ToolCall) -> ToolCallEvent:
    arguments = (
        call.arguments if isinstance(call.arguments, str) else json.dumps(dict(call.arguments))
    )
    return ToolCallEvent(call.name, arguments=arguments, id=call.id)


def _echo(messages: Sequence[Any]) -> str:
    texts: list[str] = []
    for m in messages:
        if isinstance(m, ModelRequest):
            texts.extend(_part_text(p) for p in m.parts)
        elif isinstance(m, ModelResponse) and m.content:
            texts.append(m.content)
        elif isinstance(m, ToolResultsEvent):
            texts.extend(_part_text(p) for r in m.results for p in r.result.parts)
    return "\n".join(t for t in texts if t)


def seen_results(events: Iterable[Any]) -> list[SeenResult]:
    """Every tool result the model was sent, from a stream's history."""
    seen: list[SeenResult] = []
    for event in events:
        if isinstance(event, ToolResultsEvent):
            for r in event.results:
                text = "\n".join(_part_text(p) for p in r.result.parts)
                seen.append(SeenResult(r.parent_id, r.name, text, isinstance(r, ToolErrorEvent)))
    return seen


def _endpoint_config(endpoint: Endpoint) -> ModelConfig:
    """AG2's own OpenAI config for ``endpoint``: ``OpenAIConfig`` (Chat Completions; it asks
    for usage on streams itself) or ``OpenAIResponsesConfig``.

    AG2 builds a new OpenAI client on every ``ask`` (``config.create()``), and each one
    loads the TLS trust store (~30 ms) even for ``http://``; these configs hand their
    clients one shared httpx client per event loop instead (AG2's ``http_client``)."""
    options: dict[str, Any] = {
        "model": endpoint.model,
        "api_key": endpoint.api_key,
        "base_url": endpoint.base_url,
        "streaming": endpoint.stream,
    }
    if endpoint.api == "responses":
        return _SharedTransportResponsesConfig(**options)
    return _SharedTransportConfig(**options)


class _SharedTransportConfig(OpenAIConfig):
    __slots__ = ()

    def create(self) -> OpenAIClient:
        return OpenAIConfig.create(replace(self, http_client=_loop_http_client()))


class _SharedTransportResponsesConfig(OpenAIResponsesConfig):
    __slots__ = ()

    def create(self) -> OpenAIResponsesClient:
        return OpenAIResponsesConfig.create(replace(self, http_client=_loop_http_client()))


_http_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx2.AsyncClient] = (
    weakref.WeakKeyDictionary()
)


def _loop_http_client() -> httpx2.AsyncClient:
    """The running loop's httpx client. It keeps no idle connection, so nothing is left
    open when the loop ends."""
    loop = asyncio.get_running_loop()
    client = _http_clients.get(loop)
    if client is None:
        limits = httpx2.Limits(max_keepalive_connections=0)
        client = _http_clients[loop] = httpx2.AsyncClient(limits=limits)
    return client


class AG2Harness(Harness):
    """Drives a real AG2 ``Agent`` whose model is a ``ScriptedConfig``, or with an endpoint
    AG2's own OpenAI client (``endpoint_model``) over HTTP."""

    apis: ClassVar[tuple[Api, ...]] = ("chat", "responses")
    integration = "ag2"
    parallel = True
    error_flag = True  # ToolErrorEvent
    text_with_calls = True
    schema_adjustments = "AG2 removes the top-level 'title' of the parameters schema"

    def advertised(self, tool: Any) -> dict[str, Any]:
        function = tool.schema.function  # what Agent sends the model (FunctionTool.schemas)
        return {
            "name": function.name,
            "description": function.description,
            "parameters": function.parameters,
        }

    def expected_schema(self, spec: ToolSpec) -> dict[str, Any]:
        schema = spec.json_schema()
        schema.pop("title", None)
        return schema

    def endpoint_model(self) -> ModelConfig:
        """AG2's own OpenAI config for the endpoint: ``OpenAIConfig`` (Chat Completions; it
        asks for usage on streams itself) or ``OpenAIResponsesConfig``, whose clients share
        one httpx client per event loop."""
        if self.endpoint is None:
            return super().endpoint_model()  # type: ignore[no-any-return]
        return _endpoint_config(self.endpoint)

    def native_agent(self, agent: ScriptedAgent) -> Agent:
        prompt, config = self._model(agent.name, agent.instructions, agent.turns)
        return Agent(
            agent.name,
            agent.description if prompt is None else prompt,
            config=config,
            tools=list(agent.tools),
        )

    def _model(
        self, name: str, instructions: str, turns: Sequence[Turn]
    ) -> tuple[str | None, ModelConfig]:
        """The system prompt (None: the harness's in-process default) and model config of
        an agent the harness builds."""
        if self.endpoint is None:
            return None, ScriptedConfig(turns)
        return self.system_prompt(name, instructions, turns), self.endpoint_model()

    async def run(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instructions: str | None = None
    ) -> RunResult:
        stream = MemoryStream()
        prompt, config = self._model("orchestrator", instructions or "", turns)
        agent = ag2_instrument(
            Agent(
                "orchestrator", () if prompt is None else prompt, config=config, tools=list(tools)
            )
        )
        reply = await agent.ask("start", stream=stream)
        events = await stream.history.get_events()
        results = seen_results(events)
        exceptions: list[BaseException] = [
            r.error
            for e in events
            if isinstance(e, ToolResultsEvent)
            for r in e.results
            if isinstance(r, ToolErrorEvent)
        ]
        return RunResult(
            results=results,
            final_text=reply.body,
            run_id=str(stream.id),
            thread_id=str(stream.id),
            exceptions=exceptions,
            events=list(events),
        )


# endpoint_config(endpoint) is AG2Harness(endpoint).endpoint_model() now (it warns once:
# agent_sdk.deprecated).
__getattr__ = lazy_exports(__name__, {})
