"""Over HTTP: the contract kit with every agent on the SDK's own OpenAIChatCompletionsModel or
OpenAIResponsesModel (an AsyncOpenAI client pointed at the scripted server), plain and
streamed; and the traps found there: strict schemas Azure refuses, streamed Chat Completions
without usage, SDK spans without the run id."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine, Iterator
from datetime import date
from typing import Any, Literal

import pytest
from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
)
from openai import AsyncOpenAI
from pydantic import BaseModel, Field

from agent_sdk import ConfigurationError, Executor, HierarchyLimits, ToolSpec, run_scope
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk.scripted.server import ScriptedServer
from agent_sdk.testing.over_http import HttpContractSuite
from agent_sdk.tracing import semconv as sc
from agent_sdk_openai_agents import (
    openai_agents_agent_tool,
    openai_agents_instrument,
    openai_agents_tool,
)
from agent_sdk_openai_agents.testing import OpenAIAgentsHarness

RC = RunConfig(tracing_disabled=True)


class TestOpenAIAgentsContractOverHttp(HttpContractSuite):
    harness_class = OpenAIAgentsHarness


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:  # Azure's rules (the default)
        yield s


_clients: list[AsyncOpenAI] = []


def run(main: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run(main)``, then the clients the test built are closed in that loop (a
    connection left open keeps a server thread waiting on it)."""

    async def closing() -> Any:
        try:
            return await main
        finally:
            while _clients:
                await _clients.pop().close()

    return asyncio.run(closing())


def model(server: ScriptedServer, api: str = "chat") -> Any:
    client = AsyncOpenAI(base_url=server.url, api_key="k", max_retries=0)
    _clients.append(client)
    if api == "responses":
        return OpenAIResponsesModel(model="scripted", openai_client=client)
    return OpenAIChatCompletionsModel(model="scripted", openai_client=client)


def agent(
    server: ScriptedServer, name: str, turns: list[Turn], **kw: Any
) -> tuple[Agent[Any], str]:
    """An agent on the SDK's own model over HTTP, playing ``turns``; and its script key."""
    key = server.script(turns)
    api = kw.pop("api", "chat")
    return Agent(
        name=name, instructions=f"You are {name}.\n\n{key}", model=model(server, api), **kw
    ), key


async def run_streamed(top: Agent[Any], **kw: Any) -> Any:
    result = Runner.run_streamed(top, "start", run_config=kw.pop("run_config", RC), **kw)
    async for _ in result.stream_events():
        pass
    return result


def outputs(result: Any) -> dict[str, str]:
    return {i.call_id: i.output for i in result.new_items if i.type == "tool_call_output_item"}


# -- trap (a): strict schemas Azure OpenAI refuses (the schemas: test_openai_agents_schema) --


class Where(BaseModel):
    lat: float = Field(ge=-90, le=90)
    lon: float = Field(ge=-180, le=180)


class Forecast(BaseModel):
    city: str = Field(min_length=2, max_length=40, pattern=r"^[A-Z]", description="City name")
    days: int = Field(3, ge=1, le=14, description="How many days")
    start: date | None = None
    tags: list[str] = Field(default_factory=list, max_length=3)
    units: Literal["c", "f"] = "c"
    where: Where


def forecast_spec(seen: list[dict[str, Any]]) -> ToolSpec:
    def forecast(**kw: Any) -> str:
        seen.append(kw)
        return "sunny"

    return ToolSpec(
        name="forecast", description="Forecast.", handler=forecast, input_model=Forecast
    )


def test_dropped_constraints_are_still_enforced_and_defaults_still_apply(
    server: ScriptedServer,
) -> None:
    seen: list[dict[str, Any]] = []
    tool = openai_agents_tool(forecast_spec(seen), executor=Executor())
    here = {"lat": 41.9, "lon": 12.5}
    ok = ToolCall(
        "forecast",
        {"city": "Rome", "days": None, "start": None, "tags": None, "units": None, "where": here},
    )
    too_long = ToolCall(
        "forecast",
        {"city": "Rome", "days": 99, "start": None, "tags": None, "units": "c", "where": here},
    )
    off_map = ToolCall(
        "forecast",
        {
            "city": "rome",
            "days": 2,
            "start": "2025-13-01",
            "tags": None,
            "units": "c",
            "where": {"lat": 100, "lon": 0},
        },
    )
    top, _ = agent(server, "o", [Turn.call(ok, too_long, off_map), Turn.say("done")], tools=[tool])
    result = run(Runner.run(top, "start", run_config=RC))
    assert result.final_output == "done"
    assert [r.status for r in server.requests] == [200, 200], "Azure's rules accept the tool"
    out = outputs(result)
    assert out[ok.id] == "sunny"
    assert seen == [
        {"city": "Rome", "days": 3, "start": None, "tags": [], "units": "c", "where": Where(**here)}
    ]
    for bad in (too_long, off_map):
        error = json.loads(out[bad.id])["error"]
        assert error["kind"] == "tool-args-invalid", out[bad.id]
    assert "days" in out[too_long.id]
    for field in ("city", "start", "lat"):
        assert field in out[off_map.id]


# -- trap (b): streamed Chat Completions without usage -------------------------------------


def child_turns() -> list[Turn]:
    return [Turn.say("it is 42")]


def test_streamed_children_ask_for_usage_and_the_report_equals_the_server(
    server: ScriptedServer,
) -> None:
    events: list[Any] = []
    child, child_key = agent(server, "counter", child_turns())
    assert child.model_settings.include_usage is None  # as users build them
    tool = openai_agents_agent_tool(child, on_stream=events.append)
    calls = [ToolCall("counter", {"request": f"count {i}"}) for i in range(2)]
    top, top_key = agent(server, "boss", [Turn.call(*calls), Turn.say("done")], tools=[tool])

    async def main() -> Any:
        async with run_scope(limits=HierarchyLimits(max_model_calls=10)) as state:
            result = await run_streamed(top)
            return state, result

    state, result = run(main())
    assert result.final_output == "done"
    children = server.calls(child_key)
    assert len(children) == 2
    for request in children:
        assert request.body["stream"] is True
        assert request.body["stream_options"] == {"include_usage": True}
    # The SDK itself asks api.openai.com only: the user's own top agent does not ask.
    assert all("stream_options" not in r.body for r in server.calls(top_key))
    cost = state.report.per_path["counter"]
    wire = server.usage(child_key)
    assert (cost.usage.input_tokens, cost.usage.output_tokens) == (
        wire["input_tokens"],
        wire["output_tokens"],
    )
    assert wire["input_tokens"] > 0 and cost.usage.model_calls == 2
    kinds = {e["event"].type for e in events}
    assert "raw_response_event" in kinds, "on_stream gets the child's stream events"
    assert {e["tool_call"].call_id for e in events} == {c.id for c in calls}
    assert {e["agent"].name for e in events} == {"counter"}


def test_an_explicit_include_usage_of_the_user_is_kept(server: ScriptedServer) -> None:
    child, child_key = agent(
        server, "quiet", child_turns(), model_settings=ModelSettings(include_usage=False)
    )
    tool = openai_agents_agent_tool(child, on_stream=lambda event: None)
    call = ToolCall("quiet", {"request": "go"})
    top, _ = agent(server, "boss", [Turn.call(call), Turn.say("done")], tools=[tool])
    result = run(run_streamed(top))
    assert outputs(result)[call.id] == "it is 42"
    [request] = server.calls(child_key)
    assert request.body["stream_options"] == {"include_usage": False}
    assert child.model_settings.include_usage is False, "the user's agent is not changed"


def test_on_stream_must_be_callable() -> None:
    with pytest.raises(ConfigurationError, match="on_stream"):
        openai_agents_agent_tool(Agent(name="a"), on_stream="yes")  # type: ignore[arg-type]


def test_cancelling_a_run_stops_a_streamed_childs_tool_before_returning(
    server: ScriptedServer,
) -> None:
    state: dict[str, Any] = {}

    async def hang() -> str:
        state["task"] = asyncio.current_task()
        state["entered"].set()
        await asyncio.sleep(60)
        return "never"

    spec = ToolSpec(
        name="hang", description="Hangs.", handler=hang, input_schema={"type": "object"}
    )
    child, _ = agent(
        server,
        "waiter",
        [Turn.call(ToolCall("hang", {})), Turn.say("done")],
        tools=[openai_agents_tool(spec, executor=Executor())],
    )
    call = ToolCall("waiter", {"request": "wait"})
    top, _ = agent(
        server,
        "boss",
        [Turn.call(call), Turn.say("done")],
        tools=[openai_agents_agent_tool(child, on_stream=lambda event: None)],
    )

    async def main() -> None:
        state["entered"] = asyncio.Event()
        # The top run is not streamed: what is checked is the child run our tool streams.
        task = asyncio.ensure_future(Runner.run(top, "start", run_config=RC))
        await asyncio.wait_for(state["entered"].wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(20):  # as C4: let cancelled work unwind (no clock: a few loop turns)
            await asyncio.sleep(0)
        handler = state["task"]
        assert handler.done() and handler.cancelled(), "the child's tool was left running"

    run(main())


def test_cancelled_inside_on_stream_the_child_run_stops_too(server: ScriptedServer) -> None:
    """Cancelled while awaiting the on_stream callback (not the SDK's event queue): the
    child's run loop is not the caller's task, so it must be stopped by us, or the child's
    tools go on running after the call ended."""
    state: dict[str, Any] = {}

    async def hang() -> str:
        state["task"] = asyncio.current_task()
        state["entered"].set()
        await asyncio.sleep(60)
        return "never"

    spec = ToolSpec(
        name="hang", description="Hangs.", handler=hang, input_schema={"type": "object"}
    )
    child, _ = agent(
        server,
        "waiter",
        [Turn.call(ToolCall("hang", {})), Turn.say("done")],
        tools=[openai_agents_tool(spec, executor=Executor())],
    )

    async def stuck_consumer(event: Any) -> None:
        state["in_callback"].set()
        await asyncio.Event().wait()  # never returns: the host is cancelled in here

    call = ToolCall("waiter", {"request": "wait"})
    top, _ = agent(
        server,
        "boss",
        [Turn.call(call), Turn.say("done")],
        tools=[openai_agents_agent_tool(child, on_stream=stuck_consumer)],
    )

    async def main() -> None:
        state["entered"], state["in_callback"] = asyncio.Event(), asyncio.Event()
        task = asyncio.ensure_future(Runner.run(top, "start", run_config=RC))
        await asyncio.wait_for(state["in_callback"].wait(), 10)
        await asyncio.wait_for(state["entered"].wait(), 10)  # the child's run went on
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(20):  # as C4: let cancelled work unwind (no clock: a few loop turns)
            await asyncio.sleep(0)
        handler = state["task"]
        assert handler.done() and handler.cancelled(), "the child's tool was left running"

    run(main())


# -- trap (c): the bridged SDK spans carry the run id and path ------------------------------


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_every_span_of_the_run_carries_its_run_id_and_path(
    server: ScriptedServer, spans: Any, api: str
) -> None:
    leaf = ToolSpec(
        name="add",
        description="Add.",
        handler=lambda a, b: a + b,
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    )
    child, _ = agent(
        server,
        "analyst",
        [Turn.call(ToolCall("add", {"a": 1, "b": 2})), Turn.say("3")],
        api=api,
        tools=[openai_agents_tool(leaf, executor=Executor())],
    )
    top, _ = agent(
        server,
        "boss",
        [Turn.call(ToolCall("analyst", {"request": "add"})), Turn.say("done")],
        api=api,
        tools=[openai_agents_agent_tool(child)],
    )
    bridge = openai_agents_instrument()
    try:

        async def main() -> None:
            async with run_scope("run-http", name="review"):
                config = RunConfig(tracing_disabled=False, workflow_name="review")
                await Runner.run(top, "start", run_config=config)

        run(main())
    finally:
        bridge.uninstrument()
    finished = spans.get_finished_spans()
    assert {s.attributes.get(sc.RUN_ID) for s in finished} == {"run-http"}
    [scope] = [s for s in finished if s.parent is None]
    chats = [s for s in finished if s.attributes.get(sc.GEN_AI_OPERATION_NAME) == "chat"]
    by_path: dict[Any, int] = {}
    for s in chats:
        by_path[s.attributes[sc.PATH]] = by_path.get(s.attributes[sc.PATH], 0) + 1
        assert s.attributes.get(sc.GEN_AI_USAGE_INPUT_TOKENS), "model calls carry tokens"
    assert by_path == {scope.attributes[sc.PATH]: 2, "analyst": 2}
    [boss] = [s for s in finished if s.name == "invoke_agent boss"]
    assert boss.attributes[sc.PATH] == scope.attributes[sc.PATH]
    assert boss.attributes[sc.DEPTH] == 0
