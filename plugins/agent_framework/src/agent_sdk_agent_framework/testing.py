"""The contract-kit harness for Microsoft Agent Framework, and the scripted chat client it
drives (MAF ships none).

Usable outside pytest (``agent-sdk demo`` loads ``AgentFrameworkHarness``). Runs go through
``Agent.run`` with a ``ScriptedChatClient``: the layers MAF's own OpenAI clients have
(function invocation, chat middleware, telemetry) over a ``BaseChatClient`` that plays kit
``Turn``s, plain and streamed (``Agent.as_tool`` and our agent tools run children streamed).
Built with an ``Endpoint`` (``AgentFrameworkHarness(endpoint)``), every agent runs on MAF's
own ``OpenAIChatCompletionClient`` (Chat Completions) or ``OpenAIChatClient`` (Responses)
over an ``AsyncOpenAI`` pointed at it, streamed when the endpoint streams.

Every run has an ``AgentSession`` (its id is the run's conversation). A run that stops on
function-approval requests of ours is played by a host that does not wait: it answers them in
MAF and resumes, so the gate decides the calls again and the model sees ``approval required:
apr_…`` where the port is still pending. ``pause``/``resume`` stop and resume instead, from
``session.to_dict()`` (``serialize_paused``/``restore_paused`` write and read it as text).
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from agent_framework import (
    Agent,
    AgentSession,
    BaseChatClient,
    ChatMiddlewareLayer,
    ChatResponse,
    ChatResponseUpdate,
    Content,
    FunctionInvocationLayer,
    Message,
    UsageDetails,
)
from agent_framework.observability import ChatTelemetryLayer

from agent_sdk import IntegrationError, tool_error
from agent_sdk.integration import Harness
from agent_sdk.scripted import ECHO, RunResult, ScriptedAgent, SeenResult, Turn
from agent_sdk_agent_framework._tools import error_flag, pending_calls

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from agent_sdk.scripted import Api, Endpoint

_ids = itertools.count(1)
_MAX_RESUMES = 8


def _call_contents(turn: Turn) -> list[Content]:
    return [
        Content.from_function_call(
            call_id=call.id,
            name=call.name,
            arguments=call.arguments
            if isinstance(call.arguments, str)
            else json.dumps(dict(call.arguments)),
        )
        for call in turn.calls
    ]


class ScriptedChatClient(
    FunctionInvocationLayer[Any],
    ChatMiddlewareLayer[Any],
    ChatTelemetryLayer[Any],
    BaseChatClient[Any],
):
    """A MAF chat client that plays ``turns`` from the first one in every conversation.

    It keeps no per-run state: the turn to play is the number of assistant messages in the
    conversation it is sent, so one client serves parallel children and resumed runs.
    Streamed requests get the same answer as updates. ``calls`` records what each call was
    sent."""

    OTEL_PROVIDER_NAME: ClassVar[str] = "scripted"

    def __init__(self, turns: Sequence[Turn], *, name: str = "scripted") -> None:
        super().__init__()
        self.turns = list(turns)
        self.name = name
        self.model = "scripted"  # what MAF's chat spans name as the request model
        self.calls: list[list[Message]] = []

    async def _respond(self, messages: Sequence[Message]) -> ChatResponse[Any]:
        index = sum(1 for m in messages if m.role == "assistant")
        self.calls.append(list(messages))
        if index >= len(self.turns):
            raise RuntimeError(f"scripted client {self.name!r} has no turn {index + 1}")
        turn = self.turns[index]
        if turn.delay:
            await asyncio.sleep(turn.delay)
        text = turn.text
        if text == ECHO:
            text = "\n".join(m.text for m in messages if m.role != "system" and m.text)
        contents = [Content.from_text(text)] if text is not None else []
        contents += _call_contents(turn)
        return ChatResponse(
            messages=[Message(role="assistant", contents=contents)],
            response_id=f"resp_{next(_ids)}",
            model=self.model,
            finish_reason="tool_calls" if turn.calls else "stop",
            usage_details=UsageDetails(
                input_token_count=10, output_token_count=5, total_token_count=15
            ),
        )

    def _inner_get_response(
        self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any
    ) -> Any:
        if not stream:
            return self._respond(messages)

        async def updates() -> AsyncIterator[ChatResponseUpdate]:
            response = await self._respond(messages)
            for message in response.messages:
                yield ChatResponseUpdate(
                    role="assistant",
                    contents=list(message.contents),
                    response_id=response.response_id,
                    model=response.model,
                )
            usage = response.usage_details or UsageDetails()
            yield ChatResponseUpdate(
                role="assistant",
                contents=[Content.from_usage(usage)],
                response_id=response.response_id,
                finish_reason=response.finish_reason,
            )

        return self._build_response_stream(updates())


def seen_results(responses: Sequence[Any]) -> tuple[list[SeenResult], list[BaseException]]:
    """The tool results the model saw over a run's responses (a resumed call's last), with
    our error flag and the exceptions the core kept."""
    names: dict[str | None, str | None] = {}
    by_call: dict[str | None, SeenResult] = {}
    for response in responses:
        for message in response.messages:
            for content in message.contents:
                if content.type == "function_call":
                    names[content.call_id] = content.name
                elif content.type == "function_result":
                    flagged = error_flag(content) is not None
                    by_call[content.call_id] = SeenResult(
                        content.call_id,
                        names.get(content.call_id),
                        str(content.result or ""),
                        flagged,
                    )
    results = list(by_call.values())
    exceptions: list[BaseException] = []
    for seen in results:
        error = tool_error(seen.call_id) if seen.is_error else None
        if error is not None:
            exceptions.append(error.cause or error)
    return results, exceptions


@dataclass(frozen=True)
class PausedRun:
    """A run stopped on function-approval requests: its session and requests as JSON."""

    agent: Agent[Any]
    session: str
    """``json.dumps(session.to_dict())`` at the pause."""
    requests: tuple[dict[str, Any], ...]
    """Each request's ``Content.to_dict()``."""


def _edited(node: Any, edit: Mapping[str, Mapping[str, Any]]) -> Any:
    """``node`` with the arguments of every function call named in ``edit`` replaced (MAF
    keeps a call in the history, the pending request and the request's call; our data
    names it too)."""
    if isinstance(node, list):
        return [_edited(v, edit) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _edited(v, edit) for k, v in node.items()}
    call_id = out.get("call_id")
    if isinstance(call_id, str) and call_id in edit and "arguments" in out:
        new = dict(edit[call_id])
        out["arguments"] = json.dumps(new) if isinstance(out["arguments"], str) else new
    return out


class AgentFrameworkHarness(Harness):
    """Drives ``Agent.run`` for the contract kit: a ``ScriptedChatClient`` in process, or
    over HTTP MAF's own OpenAI clients (``apis``: Chat Completions and Responses)."""

    integration = "agent-framework"
    apis: ClassVar[tuple[Api, ...]] = ("chat", "responses")
    native_pause = True
    native_child_pause = True
    parallel = True  # the calls of one model response run as tasks, gathered
    error_flag = True  # our flag on the result item (MAF's own flag needs a raise)
    text_with_calls = True
    raw_arguments = True
    schema_adjustments = "none: MAF sends a dict input_model to the model as it is"

    def __init__(self, endpoint: Endpoint | None = None) -> None:
        super().__init__(endpoint)
        self._http_agents: list[Agent[Any]] = []
        self.stream_updates = 0
        """Updates handed to ``on_stream`` by child runs (over a streaming endpoint)."""

    # -- the model: scripted in process, or MAF's OpenAI clients over HTTP ---------------
    def endpoint_model(self, client: AsyncOpenAI | None = None) -> Any:
        """MAF's own OpenAI chat client over the endpoint (``OpenAIChatClient`` for the
        Responses API, ``OpenAIChatCompletionClient`` for Chat Completions), on ``client``
        (default: the harness's ``built_client``; runs give every agent the client of their
        event loop)."""
        endpoint = self.endpoint
        if endpoint is None:
            raise IntegrationError(f"{self.integration}: the harness has no endpoint")
        from agent_framework.openai import OpenAIChatClient, OpenAIChatCompletionClient

        openai = client if client is not None else self.built_client()
        if endpoint.api == "responses":
            return OpenAIChatClient(model=endpoint.model, async_client=openai)
        return OpenAIChatCompletionClient(model=endpoint.model, async_client=openai)

    def _agent(
        self,
        name: str,
        turns: Sequence[Turn],
        *,
        tools: Sequence[Any],
        instructions: str = "",
        description: str | None = None,
    ) -> Agent[Any]:
        if self.endpoint is None:
            return Agent(
                client=ScriptedChatClient(turns, name=name),
                name=name,
                description=description,
                instructions=instructions or f"You are {name}.",
                tools=list(tools),
            )
        agent: Agent[Any] = Agent(
            client=self.endpoint_model(),
            name=name,
            description=description,
            instructions=self.system_prompt(name, instructions, turns),
            tools=list(tools),
            # MAF's Responses client continues a conversation by previous_response_id
            # (stored on the server) unless told not to store: the scripted server, like
            # any stateless endpoint, is sent the whole input.
            default_options={"store": False} if self.endpoint.api == "responses" else None,
        )
        self._http_agents.append(agent)
        return agent

    @asynccontextmanager
    async def _connected(self) -> AsyncIterator[None]:
        """Every agent the harness built on the event loop's shared client (the base's
        ``openai_connection``) while a run lasts."""
        async with self.openai_connection() as openai:
            for agent in self._http_agents if openai is not None else ():
                agent.client = self.endpoint_model(openai)
            yield

    def _count(self, update: Any) -> None:
        self.stream_updates += 1

    # -- the harness -----------------------------------------------------------------------
    def advertised(self, tool: Any) -> dict[str, Any]:
        return {"name": tool.name, "description": tool.description, "parameters": tool.parameters()}

    def agent_tool_options(self) -> dict[str, Any]:
        streamed = self.endpoint is not None and self.endpoint.stream
        return {"on_stream": self._count if streamed else None}

    def native_agent(self, agent: ScriptedAgent) -> Agent[Any]:
        return self._agent(
            agent.name,
            agent.turns,
            tools=agent.tools,
            instructions=agent.instructions,
            description=agent.description,
        )

    def _orchestrator(
        self, tools: Sequence[Any], turns: Sequence[Turn], instructions: str | None = None
    ) -> Agent[Any]:
        return self._agent(
            "orchestrator", turns, tools=tools, instructions=instructions or "You orchestrate."
        )

    async def _run(self, agent: Agent[Any], given: Any, session: AgentSession) -> Any:
        if self.endpoint is not None and self.endpoint.stream:
            stream = agent.run(given, stream=True, session=session)
            async for _ in stream:
                pass
            return await stream.get_final_response()
        return await agent.run(given, session=session)

    async def run(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instructions: str | None = None
    ) -> RunResult:
        agent = self._orchestrator(tools, turns, instructions)
        async with self._connected():
            session = agent.create_session()
            response = await self._run(agent, "start", session)
            return await self._finish(agent, session, [response])

    async def _finish(
        self, agent: Agent[Any], session: AgentSession, responses: list[Any]
    ) -> RunResult:
        """Resume what stopped on approval requests (a host that does not wait: MAF's
        approval only resumes our calls, the gate decides them) and report the run."""
        for _ in range(_MAX_RESUMES):
            requests = list(responses[-1].user_input_requests or [])
            if not requests:
                break
            answers = [r.to_function_approval_response(approved=True) for r in requests]
            given = Message(role="user", contents=answers)
            responses.append(await self._run(agent, given, session))
        results, exceptions = seen_results(responses)
        return RunResult(
            results=results,
            final_text=responses[-1].text or None,
            run_id=session.session_id,
            thread_id=session.session_id,
            exceptions=exceptions,
            events=responses,
        )

    # -- the native pause ----------------------------------------------------------------------
    async def pause(self, tools: Sequence[Any], turns: Sequence[Turn]) -> PausedRun:
        agent = self._orchestrator(tools, turns)
        async with self._connected():
            session = agent.create_session()
            response = await self._run(agent, "start", session)
        requests = list(response.user_input_requests or [])
        if not requests:
            raise AssertionError(f"the run did not pause; it saw {seen_results([response])[0]}")
        return PausedRun(agent, json.dumps(session.to_dict()), tuple(r.to_dict() for r in requests))

    def paused_calls(self, paused: PausedRun) -> list[tuple[str, str, dict[str, Any]]]:
        calls: list[tuple[str, str, dict[str, Any]]] = []
        for raw in paused.requests:
            request = Content.from_dict(raw)
            ours = pending_calls(request)
            if ours:
                calls += [(str(c["call_id"]), str(c["tool"]), dict(c["arguments"])) for c in ours]
            elif request.function_call is not None:
                call = request.function_call
                arguments = call.parse_arguments() or {}
                calls.append((str(call.call_id), str(call.name), dict(arguments)))
        return calls

    async def resume(
        self, paused: PausedRun, *, edit: Mapping[str, Mapping[str, Any]] | None = None
    ) -> RunResult:
        blob, requests = json.loads(paused.session), list(paused.requests)
        if edit:
            blob, requests = _edited(blob, edit), _edited(requests, edit)
        session = AgentSession.from_dict(blob)
        answers = [
            Content.from_dict(r).to_function_approval_response(approved=True) for r in requests
        ]
        async with self._connected():
            given = Message(role="user", contents=answers)
            response = await self._run(paused.agent, given, session)
            return await self._finish(paused.agent, session, [response])

    def serialize_paused(self, paused: PausedRun) -> str:
        return json.dumps({"session": json.loads(paused.session), "requests": paused.requests})

    def restore_paused(self, text: str, tools: Sequence[Any], turns: Sequence[Turn]) -> PausedRun:
        data = json.loads(text)
        agent = self._orchestrator(tools, turns)
        return PausedRun(agent, json.dumps(data["session"]), tuple(data["requests"]))


__all__ = ["AgentFrameworkHarness", "PausedRun", "ScriptedChatClient", "seen_results"]
