"""The contract-kit harness for pydantic-ai, and the scripted model it drives.

Usable outside pytest (``agent-sdk demo`` loads ``PydanticAIHarness``). Runs go through
``Agent.run`` with a ``FunctionModel`` playing the script (several tool calls per turn; no
network; its usage is estimated from the text, so usage checks use the HTTP mode). Built
with an ``Endpoint`` (``PydanticAIHarness(endpoint)``), every agent runs on pydantic-ai's own
``OpenAIChatModel`` or ``OpenAIResponsesModel`` over an ``AsyncOpenAI`` client pointed at
it, streamed (an ``event_stream_handler``, for the orchestrator and every child) when the
endpoint streams.

The orchestrator is traced as ``pydantic_ai_instrument(agent)`` traces it (the trace
skeleton's spans, no capability in the run); the children an agent tool runs are traced by
the plugin itself.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterable, AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import TypeAdapter
from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    ModelMessagesTypeAdapter,
    RunContext,
    ToolDenied,
)
from pydantic_ai.agent import AbstractAgent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent_sdk import ErrorKind, IntegrationError, ToolError, tool_error
from agent_sdk.integration import Harness
from agent_sdk.scripted import ECHO, RunResult, ScriptedAgent, SeenResult, Turn
from agent_sdk_pydantic_ai._approval import (
    METADATA_KEY,
    deferred_approval_ids,
    deferred_results,
)
from agent_sdk_pydantic_ai._tools import ERROR_METADATA_KEY
from agent_sdk_pydantic_ai._tracing import TracedAgent, traced

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from agent_sdk.scripted import Api, Endpoint

REQUESTS = TypeAdapter(DeferredToolRequests)


def _content(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _texts(messages: Sequence[ModelMessage]) -> list[str]:
    """The text of every non-system message (what ECHO answers with)."""
    out: list[str] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, UserPromptPart | ToolReturnPart):
                out.append(_content(part.content))
            elif isinstance(part, TextPart):
                out.append(part.content)
    return out


class ScriptedFunction:
    """A ``FunctionModel`` function that plays ``turns`` from the first one in every
    conversation: the turn to play is the number of model responses the conversation holds,
    so one model serves parallel child runs and resumed runs alike."""

    def __init__(self, turns: Sequence[Turn], *, name: str = "scripted") -> None:
        self.turns = list(turns)
        self.name = name

    async def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        index = sum(isinstance(m, ModelResponse) for m in messages)
        if index >= len(self.turns):
            raise RuntimeError(f"scripted model {self.name!r} has no turn {index + 1}")
        turn = self.turns[index]
        if turn.delay:
            await asyncio.sleep(turn.delay)
        parts: list[Any] = []
        text = turn.text
        if text == ECHO:
            text = "\n".join(_texts(messages))
        if text is not None:
            parts.append(TextPart(text))
        for call in turn.calls:
            # The call's own arguments, as the model sent them (a dict is handed on as is).
            parts.append(ToolCallPart(call.name, call.arguments, tool_call_id=call.id))  # type: ignore[arg-type]
        return ModelResponse(parts=parts, model_name=self.name)


def seen_results(messages: Sequence[ModelMessage]) -> tuple[list[SeenResult], list[BaseException]]:
    """The tool results a run's model saw (the last for each call), with our error flag
    (the ToolReturnPart's metadata) and the exceptions the core kept."""
    by_call: dict[str, SeenResult] = {}
    order: list[str] = []
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if not isinstance(part, ToolReturnPart):
                continue
            metadata = part.metadata if isinstance(part.metadata, Mapping) else {}
            marked = metadata.get(ERROR_METADATA_KEY)
            is_error = part.outcome in ("failed", "retried") or bool(
                isinstance(marked, Mapping) and marked.get("is_error")
            )
            text = part.model_response_str(wrap_if_error=False)
            if part.tool_call_id not in by_call:
                order.append(part.tool_call_id)
            by_call[part.tool_call_id] = SeenResult(
                part.tool_call_id, part.tool_name, text, is_error
            )
    results = [by_call[i] for i in order]
    exceptions: list[BaseException] = []
    for seen in results:
        error = tool_error(seen.call_id) if seen.is_error else None
        if error is not None:
            exceptions.append(error.cause or error)
    return results, exceptions


def paused_calls_of(requests: DeferredToolRequests) -> list[tuple[str, str, dict[str, Any]]]:
    """(call id, tool, arguments) of each confirm call ``requests`` waits on, in call order:
    a paused agent tool's call stands for its child's calls."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    for call in requests.approvals:
        entry = requests.metadata.get(call.tool_call_id, {}).get(METADATA_KEY) or {}
        child = entry.get("child") if isinstance(entry, Mapping) else None
        if isinstance(child, Mapping):
            out += paused_calls_of(REQUESTS.validate_python(child["requests"]))
        else:
            out.append((call.tool_call_id, call.tool_name, call.args_as_dict()))
    return out


@dataclass(frozen=True)
class PausedRun:
    """A run paused on deferred calls: what a host writes down, and the agent to resume."""

    agent: AbstractAgent[Any, Any]
    history: str
    """``result.all_messages_json()`` at the pause."""
    requests: str
    """The run's ``DeferredToolRequests`` output as JSON (its metadata carries our state)."""

    def parsed(self) -> tuple[list[ModelMessage], DeferredToolRequests]:
        history = ModelMessagesTypeAdapter.validate_json(self.history)
        return history, REQUESTS.validate_json(self.requests)


async def _drain(ctx: RunContext[Any], events: AsyncIterable[Any]) -> None:
    async for _ in events:
        pass


class PydanticAIHarness(Harness):
    """Drives ``Agent.run`` with a scripted ``FunctionModel`` for the contract kit, or with an
    endpoint pydantic-ai's own OpenAI models over HTTP (``apis``: Chat Completions and
    Responses).

    Pending approvals do not pause ``run`` (its orchestrator's output is ``str``): the model
    sees ``approval required: apr_…``. ``pause`` runs an orchestrator whose output types
    include ``DeferredToolRequests``: a pending call (also a child's) pauses the run the
    pydantic-ai way, and ``resume`` approves every paused call in pydantic-ai and resumes
    from the history JSON; the gate decides each call again.
    """

    integration = "pydantic-ai"
    apis: ClassVar[tuple[Api, ...]] = ("chat", "responses")
    native_pause = True
    native_child_pause = True
    parallel = True
    error_flag = True
    text_with_calls = True
    raw_arguments = True
    schema_adjustments = "none: the model is told the spec's own JSON schema"

    def __init__(self, endpoint: Endpoint | None = None) -> None:
        super().__init__(endpoint)
        self._http_agents: list[Agent[Any, Any]] = []

    # -- the model: scripted in-process, or pydantic-ai's OpenAI models over HTTP ----------
    def endpoint_model(self, client: AsyncOpenAI | None = None) -> Model:
        """pydantic-ai's own model over the endpoint (``OpenAIResponsesModel`` or
        ``OpenAIChatModel``, as its API is), on ``client`` (default: the harness's
        ``built_client``; runs give every agent the client of their event loop)."""
        from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
        from pydantic_ai.providers.openai import OpenAIProvider

        endpoint = self.endpoint
        if endpoint is None:
            raise IntegrationError(f"{self.integration}: the harness has no endpoint")
        provider = OpenAIProvider(openai_client=client or self.built_client())
        if endpoint.api == "responses":
            return OpenAIResponsesModel(endpoint.model, provider=provider)
        return OpenAIChatModel(endpoint.model, provider=provider)

    def _agent(
        self,
        name: str,
        turns: Sequence[Turn],
        *,
        instructions: str | None = None,
        description: str | None = None,
        tools: Sequence[Any] = (),
        output_type: Any = str,
        capabilities: Sequence[Any] = (),
    ) -> Agent[Any, Any]:
        if self.endpoint is None:
            model: Any = FunctionModel(ScriptedFunction(turns, name=name), model_name=name)
            prompt = instructions or f"You are {name}."
        else:
            model = self.endpoint_model()
            prompt = self.system_prompt(name, instructions or "", turns)
        agent: Agent[Any, Any] = Agent(
            model,
            name=name,
            description=description,
            instructions=prompt,
            tools=list(tools),
            output_type=output_type,
            capabilities=list(capabilities),
        )
        if self.endpoint is not None:
            self._http_agents.append(agent)
        return agent

    @asynccontextmanager
    async def _connected(self) -> AsyncIterator[None]:
        """Over an endpoint: every agent the harness built on the event loop's shared
        client (the base's ``openai_connection``), given to them with ``Agent.override`` for
        this context."""
        async with self.openai_connection() as client, AsyncExitStack() as stack:
            if client is not None:
                model = self.endpoint_model(client)
                for agent in self._http_agents:
                    stack.enter_context(agent.override(model=model))
            yield

    def _run_options(self) -> dict[str, Any]:
        streamed = self.endpoint is not None and self.endpoint.stream
        return {"event_stream_handler": _drain} if streamed else {}

    # -- the harness -----------------------------------------------------------------------
    def advertised(self, tool: Any) -> dict[str, Any]:
        definition = tool.tool_def
        return {
            "name": definition.name,
            "description": definition.description,
            "parameters": definition.parameters_json_schema,
        }

    def agent_tool_options(self) -> dict[str, Any]:
        # Over a streaming endpoint, child runs stream too.
        return self._run_options()

    def native_agent(self, agent: ScriptedAgent) -> Agent[Any, Any]:
        return self._agent(
            agent.name,
            agent.turns,
            instructions=agent.instructions or None,
            description=agent.description,
            tools=agent.tools,
        )

    def _orchestrator(
        self,
        tools: Sequence[Any],
        turns: Sequence[Turn],
        instructions: str | None = None,
        *,
        pausable: bool = False,
    ) -> TracedAgent:
        return traced(
            self._agent(
                "orchestrator",
                turns,
                instructions=instructions or "You orchestrate.",
                tools=tools,
                output_type=[str, DeferredToolRequests] if pausable else str,
            )
        )

    def _report(self, result: Any) -> RunResult:
        results, exceptions = seen_results(result.all_messages())
        output = result.output
        return RunResult(
            results=results,
            final_text=output if isinstance(output, str) else None,
            run_id=result.conversation_id,
            thread_id=result.conversation_id,
            exceptions=exceptions,
            events=list(result.new_messages()),
        )

    async def run(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instructions: str | None = None
    ) -> RunResult:
        agent = self._orchestrator(tools, turns, instructions)
        async with self._connected():
            result = await agent.run("start", **self._run_options())
        return self._report(result)

    async def pause(self, tools: Sequence[Any], turns: Sequence[Turn]) -> PausedRun:
        agent = self._orchestrator(tools, turns, pausable=True)
        async with self._connected():
            result = await agent.run("start", **self._run_options())
        if not isinstance(result.output, DeferredToolRequests):
            raise AssertionError(
                f"the run did not pause; it saw {seen_results(result.all_messages())[0]}"
            )
        return PausedRun(
            agent, result.all_messages_json().decode(), REQUESTS.dump_json(result.output).decode()
        )

    def paused_calls(self, paused: PausedRun) -> list[tuple[str, str, dict[str, Any]]]:
        return paused_calls_of(paused.parsed()[1])

    async def resume(
        self, paused: PausedRun, *, edit: Mapping[str, Mapping[str, Any]] | None = None
    ) -> RunResult:
        history, requests = paused.parsed()
        results = deferred_results(requests, edit=edit)
        async with self._connected():
            result = await paused.agent.run(
                message_history=history, deferred_tool_results=results, **self._run_options()
            )
            # A host that does not wait: what pauses again is answered with its error.
            for _ in range(8):
                if not isinstance(result.output, DeferredToolRequests):
                    break
                result = await paused.agent.run(
                    message_history=result.all_messages(),
                    deferred_tool_results=_still_pending(result.output),
                    **self._run_options(),
                )
        return self._report(result)

    def serialize_paused(self, paused: PausedRun) -> str:
        return json.dumps({"history": paused.history, "requests": paused.requests})

    def restore_paused(self, text: str, tools: Sequence[Any], turns: Sequence[Turn]) -> PausedRun:
        data = json.loads(text)
        agent = self._orchestrator(tools, turns, pausable=True)
        return PausedRun(agent, str(data["history"]), str(data["requests"]))


def _still_pending(requests: DeferredToolRequests) -> Any:
    """Each paused call answered with the approval-pending error (the model sees it)."""
    from pydantic_ai import DeferredToolResults

    ids = deferred_approval_ids(requests)
    answers: dict[str, Any] = {}
    for call in requests.approvals:
        error = tool_error(call.tool_call_id)
        if error is None or error.approval_id is None:
            pending = ", ".join(ids.get(call.tool_call_id, [])) or "unknown"
            error = ToolError(ErrorKind.APPROVAL_PENDING, f"approval required: {pending}")
        answers[call.tool_call_id] = ToolDenied(error.to_model_text())
    return DeferredToolResults(approvals=answers)


__all__ = ["PausedRun", "PydanticAIHarness", "ScriptedFunction", "paused_calls_of", "seen_results"]
