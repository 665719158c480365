"""The contract-kit harness for openai-agents, and the scripted Model it drives.

Usable outside pytest (``agent-sdk demo`` loads ``OpenAIAgentsHarness``). Runs go through
``Runner.run`` with a scripted ``agents.Model``; no network. Built with an ``Endpoint``
(``OpenAIAgentsHarness(endpoint)``), every agent runs on the SDK's own
``OpenAIChatCompletionsModel`` or ``OpenAIResponsesModel`` over an ``AsyncOpenAI`` client
pointed at it, streamed (``Runner.run_streamed``) when the endpoint streams.

The SDK traces every run, mirrored into OpenTelemetry by the plugin's bridge
(``instrument(exclusive=True)``), installed while the harness's runs last: the top agent's
``invoke_agent`` and every model call's ``chat`` span come from the SDK's own agent and
generation/response spans, and nothing is exported to OpenAI (the SDK's other processors
are put back after the last run). ``sdk_tracing=False`` turns SDK tracing off per run
(``RunConfig(tracing_disabled=True)``) and touches no global state. ``lean=True`` runs in
the plugin's lean mode instead (``instrument(mode="lean")`` while the runs last): the SDK
traces nothing, agent-sdk's ``invoke_agent`` and ``chat`` spans stand for its runs.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import re
import threading
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from agents import (
    Agent,
    AgentToolStreamEvent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
)
from agents.items import ModelResponse, ToolCallItem, ToolCallOutputItem, TResponseInputItem
from agents.models.interface import Model, ModelTracing
from agents.run_state import RunState
from agents.testing import assistant_message, function_call
from agents.tracing import gen_trace_id, generation_span
from agents.usage import Usage

from agent_sdk import (
    ErrorKind,
    IntegrationError,
    ToolError,
    ToolSpec,
    run_scope,
    tool_error,
)
from agent_sdk.integration import Harness, new_id
from agent_sdk.scripted import ECHO, RunResult, ScriptedAgent, SeenResult, Turn
from agent_sdk_openai_agents._schema import STRICT_UNPORTABLE, export_schema
from agent_sdk_openai_agents._tools import ERROR_DATA_KEY, pending_error
from agent_sdk_openai_agents._tracing import OpenTelemetryBridge, instrument

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from agent_sdk.scripted import Api, Endpoint

_TURN_MARK = re.compile(r"^t(\d+)_")
_ids = itertools.count(1)


class ScriptedModel(Model):
    """An ``agents.Model`` that plays ``turns`` from the first one in every conversation.

    It keeps no per-run state: the turn to play is read from the conversation it is sent
    (every item it produced is marked with its turn), so one model can serve clones of an
    agent in parallel and resumed runs. ``calls`` records what each call was sent.
    """

    def __init__(self, turns: Sequence[Turn], *, name: str = "scripted") -> None:
        self.turns = list(turns)
        self.name = name
        self.calls: list[dict[str, Any]] = []

    def _turn_index(self, items: str | list[TResponseInputItem]) -> int:
        if isinstance(items, str):
            return 0
        done = -1
        for item in items:
            data = item if isinstance(item, dict) else getattr(item, "model_dump", dict)()
            mark = _TURN_MARK.match(str(data.get("id") or ""))
            if mark:
                done = max(done, int(mark.group(1)))
        return done + 1

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> ModelResponse:
        index = self._turn_index(input)
        self.calls.append(
            {"system": system_instructions, "input": input, "tools": [t.name for t in tools]}
        )
        if index >= len(self.turns):
            raise RuntimeError(f"scripted model {self.name!r} has no turn {index + 1}")
        turn = self.turns[index]
        with generation_span(model=self.name, disabled=tracing.is_disabled()) as span:
            if turn.delay:
                await asyncio.sleep(turn.delay)
            output: list[Any] = []
            text = turn.text
            if text == ECHO:
                text = "\n".join(_texts(input))
            if text is not None:
                output.append(assistant_message(text, item_id=f"t{index}_msg_{next(_ids)}"))
            for i, call in enumerate(turn.calls):
                arguments = (
                    call.arguments if isinstance(call.arguments, str) else dict(call.arguments)
                )
                output.append(
                    function_call(
                        call.name,
                        arguments,
                        call_id=call.id,
                        item_id=f"t{index}_fc{i}_{next(_ids)}",
                    )
                )
            usage = Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15)
            span.span_data.usage = {"input_tokens": 10, "output_tokens": 5}
            return ModelResponse(output=output, usage=usage, response_id=f"resp_{next(_ids)}")

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model does not stream")


def _texts(items: str | list[TResponseInputItem]) -> list[str]:
    if isinstance(items, str):
        return [items]
    out: list[str] = []
    for item in items:
        data = item if isinstance(item, dict) else getattr(item, "model_dump", dict)()
        if data.get("role") == "system":
            continue
        content = data.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.append(" ".join(str(c.get("text", "")) for c in content if isinstance(c, dict)))
        elif data.get("type") == "function_call_output":
            out.append(str(data.get("output", "")))
    return out


def seen_results(result: Any) -> tuple[list[SeenResult], list[BaseException]]:
    """The tool results a run's model saw, with our error flag and kept exceptions."""
    names = {}
    for item in result.new_items:
        if isinstance(item, ToolCallItem):
            raw = item.raw_item
            call_id = raw.get("call_id") if isinstance(raw, dict) else getattr(raw, "call_id", None)
            name = raw.get("name") if isinstance(raw, dict) else getattr(raw, "name", None)
            names[call_id] = name
    results: list[SeenResult] = []
    exceptions: list[BaseException] = []
    for item in result.new_items:
        if not isinstance(item, ToolCallOutputItem):
            continue
        data = (item.custom_data or {}).get(ERROR_DATA_KEY)
        is_error = bool(data and data.get("is_error"))
        error = tool_error(item.call_id) if is_error else None
        if error is not None:
            exceptions.append(error.cause or error)
        text = item.output if isinstance(item.output, str) else json.dumps(item.output, default=str)
        results.append(SeenResult(item.call_id, names.get(item.call_id), text, is_error))
    return results, exceptions


@dataclass(frozen=True)
class PausedRun:
    """A run paused on SDK interruptions: its serialised state and what resumes it."""

    agent: Agent[Any]
    config: RunConfig
    state: str
    """``RunState.to_string()`` at the pause."""
    calls: tuple[tuple[str, str, dict[str, Any]], ...]
    max_turns: int
    run_id: str
    """The run scope's id: with SDK tracing off it is what names the run across a resume."""


def _edit_state(blob: str, edit: Mapping[str, Mapping[str, Any]]) -> str:
    """``blob`` with the arguments of the function calls named in ``edit`` replaced.

    The SDK keeps a call's arguments in every serialised copy of the call (model responses,
    generated and session items, the interruption, ``last_processed_response.functions``,
    which is what runs on resume) and binds the call id to a fingerprint of them in
    ``context.tool_invocations``, so approving an edited call raises ModelBehaviorError.
    That binding is dropped for the edited calls (``approve`` records a fresh one), in the
    run's context and in those of the paused child runs it holds (``agent_run_state``).
    """
    data = json.loads(blob)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            call_id = node.get("call_id")
            if isinstance(call_id, str) and call_id in edit and "arguments" in node:
                node["arguments"] = json.dumps(dict(edit[call_id]), separators=(",", ":"))
            invocations = node.get("tool_invocations")
            if isinstance(invocations, dict):
                for edited in edit:
                    invocations.pop(edited, None)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(data)
    return json.dumps(data)


_bridge_lock = threading.Lock()
_bridge: OpenTelemetryBridge | None = None
_bridge_users = 0


@contextmanager
def _bridged(on: bool, lean: bool = False) -> Iterator[None]:
    """While the harness's runs last: the SDK's traces go to OpenTelemetry only (one
    exclusive bridge, shared by concurrent runs, removed with the last of them); ``lean``:
    the lean mode instead (installed once, shared the same way)."""
    global _bridge, _bridge_users
    if lean:
        installed = instrument(mode="lean")
        try:
            yield
        finally:
            installed.uninstrument()
        return
    if not on:
        yield
        return
    with _bridge_lock:
        if _bridge is None:
            _bridge = instrument(exclusive=True)
        _bridge_users += 1
    try:
        yield
    finally:
        with _bridge_lock:
            _bridge_users -= 1
            if _bridge_users == 0 and _bridge is not None:
                _bridge.uninstrument()
                _bridge = None


class OpenAIAgentsHarness(Harness):
    """Drives ``Runner.run`` with a scripted model for the contract kit, or with an endpoint
    the SDK's own OpenAI models over HTTP (``apis``: Chat Completions and Responses).

    Pending approvals pause an openai-agents run (SDK interruptions). This harness plays a
    host that does not wait: it rejects each pending call with the ``approval-pending``
    message (``state.reject(item, rejection_message=...)``) and resumes, so the model sees
    ``approval required: apr_…`` exactly as the contract expects.
    """

    integration = "openai-agents"
    apis: ClassVar[tuple[Api, ...]] = ("chat", "responses")
    native_pause = True
    native_child_pause = True  # child interruptions surface in the parent's run
    parallel = True
    error_flag = True
    text_with_calls = True
    schema_adjustments = (
        "strict mode: every object gets additionalProperties=false and lists all properties "
        "as required; optional properties become nullable (a null is dropped again before "
        "validation). Strict schemas drop the keywords Azure OpenAI refuses there ("
        + ", ".join(STRICT_UNPORTABLE[:6])
        + ", ...) and name them in the description instead; the executor still validates "
        "against the full schema. Schemas strict mode cannot express are exported unchanged "
        "with strict_json_schema=False."
    )

    def __init__(
        self, endpoint: Endpoint | None = None, *, sdk_tracing: bool = True, lean: bool = False
    ) -> None:
        super().__init__(endpoint)
        self.sdk_tracing = sdk_tracing
        self.lean = lean
        """The plugin's lean mode instead of the bridge (``sdk_tracing`` is then moot)."""
        self.last_result: Any = None
        self.stream_events = 0
        """Events handed to ``on_stream`` by streamed child runs (over a streaming endpoint)."""
        self._http_agents: list[Agent[Any]] = []

    # -- the model: scripted in-process, or the SDK's OpenAI models over HTTP ------------
    def endpoint_model(self, client: AsyncOpenAI | None = None) -> Model:
        """The SDK's own model over the endpoint (``OpenAIResponsesModel`` or
        ``OpenAIChatCompletionsModel``, as its API is), on ``client`` (default: the
        harness's ``built_client``; runs give every agent the client of their loop)."""
        endpoint = self.endpoint
        if endpoint is None:
            raise IntegrationError(f"{self.integration}: the harness has no endpoint")
        if client is None:
            client = self.built_client()
        if endpoint.api == "responses":
            return OpenAIResponsesModel(model=endpoint.model, openai_client=client)
        return OpenAIChatCompletionsModel(model=endpoint.model, openai_client=client)

    def _http_agent(self, agent: Agent[Any]) -> Agent[Any]:
        """Note an agent built over the endpoint: each run gives it the client of its loop."""
        self._http_agents.append(agent)
        return agent

    @asynccontextmanager
    async def _connected(self) -> AsyncIterator[None]:
        """Every agent the harness built on the event loop's shared client (the base's
        ``openai_connection``) while a run lasts."""
        async with self.openai_connection() as client:
            if client is not None:
                model = self.endpoint_model(client)
                for agent in self._http_agents:
                    agent.model = model
            yield

    async def _run(self, agent: Agent[Any], input: Any, config: RunConfig, max_turns: int) -> Any:
        if self.endpoint is not None and self.endpoint.stream:
            streamed = Runner.run_streamed(agent, input, run_config=config, max_turns=max_turns)
            async for _ in streamed.stream_events():
                pass
            return streamed
        return await Runner.run(agent, input, run_config=config, max_turns=max_turns)

    def _count_event(self, event: AgentToolStreamEvent) -> None:
        self.stream_events += 1

    # -- the harness -----------------------------------------------------------------------
    def advertised(self, tool: Any) -> dict[str, Any]:
        return {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.params_json_schema,
        }

    def expected_schema(self, spec: ToolSpec) -> dict[str, Any]:
        return export_schema(spec.json_schema()).params

    def agent_tool_options(self) -> dict[str, Any]:
        # Over a streaming endpoint, child runs stream too: on_stream counts their events.
        streamed = self.endpoint is not None and self.endpoint.stream
        return {"on_stream": self._count_event if streamed else None}

    def native_agent(self, agent: ScriptedAgent) -> Agent[Any]:
        if self.endpoint is None:
            return Agent(
                name=agent.name,
                instructions=f"You are {agent.name}.",
                model=ScriptedModel(agent.turns, name=agent.name),
                tools=list(agent.tools),
            )
        # No ModelSettings here: the plugin itself asks for usage on streamed calls.
        return self._http_agent(
            Agent(
                name=agent.name,
                instructions=self.system_prompt(agent.name, agent.instructions, agent.turns),
                model=self.endpoint_model(),
                tools=list(agent.tools),
            )
        )

    def run_config(self) -> RunConfig:
        return RunConfig(
            trace_id=gen_trace_id(),
            tracing_disabled=self.lean or not self.sdk_tracing,
            workflow_name="orchestrator",  # a trace outside a run scope: no harness name
        )

    def _orchestrator(
        self, tools: Sequence[Any], turns: Sequence[Turn], instructions: str | None = None
    ) -> Agent[Any]:
        if self.endpoint is None:
            return Agent(
                name="orchestrator",
                instructions="You orchestrate.",
                model=ScriptedModel(turns, name="orchestrator"),
                tools=list(tools),
            )
        return self._http_agent(
            Agent(
                name="orchestrator",
                instructions=self.system_prompt(
                    "orchestrator", instructions or "You orchestrate.", turns
                ),
                model=self.endpoint_model(),
                # What a user sets on their own agents (the SDK asks for usage on streamed
                # Chat Completions from api.openai.com only).
                model_settings=ModelSettings(include_usage=True),
                tools=list(tools),
            )
        )

    async def run(
        self, tools: Sequence[Any], turns: Sequence[Turn], *, instructions: str | None = None
    ) -> RunResult:
        agent = self._orchestrator(tools, turns, instructions)
        config = self.run_config()
        max_turns = len(turns) + 2
        with _bridged(self.sdk_tracing, self.lean):
            async with self._connected():
                result = await self._run(agent, "start", config, max_turns)
                return await self._finish(agent, result, config, max_turns)

    async def _finish(
        self, agent: Agent[Any], result: Any, config: RunConfig, max_turns: int
    ) -> RunResult:
        """Reject what is still pending (as a host that does not wait) and report the run."""
        for _ in range(8):
            if not result.interruptions:
                break
            state = result.to_state()
            for item in result.interruptions:
                error = pending_error(item.call_id) or ToolError(
                    ErrorKind.APPROVAL_PENDING, f"approval required for tool '{item.tool_name}'"
                )
                state.reject(item, rejection_message=error.to_model_text())
            result = await self._run(agent, state, config, max_turns)
        self.last_result = result
        results, exceptions = seen_results(result)
        final = result.final_output if isinstance(result.final_output, str) else None
        return RunResult(
            results=results,
            final_text=final,
            run_id=config.trace_id,
            thread_id=config.trace_id,
            exceptions=exceptions,
            events=list(result.new_items),
        )

    async def pause(self, tools: Sequence[Any], turns: Sequence[Turn]) -> PausedRun:
        agent = self._orchestrator(tools, turns)
        config = self.run_config()
        max_turns = len(turns) + 2
        run_id = new_id("run")  # a host names its run, so its resumption is the same run
        with _bridged(self.sdk_tracing, self.lean):
            async with self._connected(), run_scope(run_id):
                result = await self._run(agent, "start", config, max_turns)
        if not result.interruptions:
            raise AssertionError(f"the run did not pause; it saw {seen_results(result)[0]}")
        calls = []
        for item in result.interruptions:
            raw = item.raw_item
            arguments = (
                raw.get("arguments") if isinstance(raw, dict) else getattr(raw, "arguments", None)
            )
            calls.append((str(item.call_id), str(item.tool_name), json.loads(arguments or "{}")))
        blob = result.to_state().to_string()
        return PausedRun(agent, config, blob, tuple(calls), max_turns, run_id)

    def paused_calls(self, paused: PausedRun) -> list[tuple[str, str, dict[str, Any]]]:
        return list(paused.calls)

    def serialize_paused(self, paused: PausedRun) -> str:
        """The SDK's ``RunState.to_string()`` and what names the run (its run scope and
        trace id) and bounds it: what a host writes down to resume after a restart."""
        return json.dumps(
            {
                "state": paused.state,
                "calls": [list(c) for c in paused.calls],
                "max_turns": paused.max_turns,
                "run_id": paused.run_id,
                "trace_id": paused.config.trace_id,
            }
        )

    def restore_paused(self, text: str, tools: Sequence[Any], turns: Sequence[Turn]) -> PausedRun:
        """``text`` for an orchestrator built anew from ``tools`` and ``turns``: the state
        is read back by ``RunState.from_string`` at resume, with this agent."""
        data = json.loads(text)
        config = dataclasses.replace(self.run_config(), trace_id=data["trace_id"])
        calls = tuple((str(i), str(n), dict(a)) for i, n, a in data["calls"])
        agent = self._orchestrator(tools, turns)
        return PausedRun(agent, config, data["state"], calls, data["max_turns"], data["run_id"])

    async def resume(
        self, paused: PausedRun, *, edit: Mapping[str, Mapping[str, Any]] | None = None
    ) -> RunResult:
        blob = _edit_state(paused.state, edit) if edit else paused.state
        state = await RunState.from_string(paused.agent, blob)
        for item in state.get_interruptions():
            state.approve(item)
        with _bridged(self.sdk_tracing, self.lean):
            async with self._connected(), run_scope(paused.run_id):
                result = await self._run(paused.agent, state, paused.config, paused.max_turns)
                return await self._finish(paused.agent, result, paused.config, paused.max_turns)
