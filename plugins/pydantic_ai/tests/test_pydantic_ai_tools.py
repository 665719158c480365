"""Tool export: the pydantic-ai 2.68 behaviours the plugin absorbs (``Tool.from_schema``
validates nothing, a tool exception ends the run, retries spend a budget, failures reach
OpenAI models as a string), the ids bound from ``RunContext``, toolsets, options."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic_ai import Agent, DeferredToolRequests, RunContext, Tool
from pydantic_ai.models.function import FunctionModel

from agent_sdk import (
    CallContext,
    ConfigurationError,
    DeferredApproval,
    Executor,
    Registry,
    ToolSpec,
    tool_error,
)
from agent_sdk.scripted import ScriptedServer
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_pydantic_ai import (
    INTEGRATION,
    pydantic_ai_tool,
    pydantic_ai_tools,
    pydantic_ai_toolset,
)
from agent_sdk_pydantic_ai.testing import PydanticAIHarness, ScriptedFunction, seen_results


def agent(turns: list[Turn], **kw: Any) -> Agent[Any, Any]:
    return Agent(FunctionModel(ScriptedFunction(turns)), name="o", **kw)


def results(result: Any) -> dict[str, Any]:
    return {r.call_id: r for r in seen_results(result.all_messages())[0]}


def city_spec(ran: list[dict[str, Any]]) -> ToolSpec:
    async def weather(city: str) -> dict[str, Any]:
        ran.append({"city": city})
        return {"city": city, "temp_c": 21}

    return ToolSpec(
        name="weather",
        description="Weather for a city.",
        handler=weather,
        input_schema={
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    )


BAD = {"extra": {"city": "Oslo", "extra": 1}, "type": {"city": 5}}


def test_a_from_schema_tool_gets_invalid_arguments_ours_never_do() -> None:
    # pydantic-ai's own Tool.from_schema hands the model's arguments over unchecked ...
    raw: list[dict[str, Any]] = []

    async def unchecked(**kwargs: Any) -> str:
        raw.append(kwargs)
        return "ran"

    native = Tool.from_schema(
        unchecked, "weather", "Weather.", city_spec([]).json_schema(), takes_ctx=False
    )
    calls = [ToolCall("weather", args) for args in BAD.values()]
    asyncio.run(agent([Turn.call(*calls), Turn.say("done")], tools=[native]).run("go"))
    assert raw == list(BAD.values()), "the trap: pydantic-ai validated nothing"
    # ... ours go through the executor, which refuses them before the handler runs.
    ran: list[dict[str, Any]] = []
    calls = [ToolCall("weather", args) for args in BAD.values()]
    result = asyncio.run(
        agent([Turn.call(*calls), Turn.say("done")], tools=[pydantic_ai_tool(city_spec(ran))]).run(
            "go"
        )
    )
    assert ran == []
    seen = results(result)
    for call in calls:
        error = json.loads(seen[call.id].text)["error"]
        assert error["kind"] == "tool-args-invalid" and seen[call.id].is_error, seen[call.id]


def test_the_model_is_told_the_specs_own_schema() -> None:
    told: list[Any] = []

    def model(messages: Any, info: Any) -> Any:
        told.extend(info.function_tools)
        return _say("done")

    spec = city_spec([])
    asyncio.run(Agent(FunctionModel(model), tools=[pydantic_ai_tool(spec)]).run("go"))
    [tool] = told
    assert (tool.name, tool.description) == ("weather", "Weather for a city.")
    assert tool.parameters_json_schema == spec.json_schema()


def _say(text: str) -> Any:
    from pydantic_ai.messages import ModelResponse, TextPart

    return ModelResponse(parts=[TextPart(text)])


def test_a_failing_tool_never_ends_the_run_nor_spends_the_retry_budget() -> None:
    # pydantic-ai ends the run on any exception but ModelRetry, and a ModelRetry spends the
    # tool's retry budget (1 by default): three failures in a row would end it too.
    async def explode() -> str:
        raise KeyError("ledger-9")

    spec = ToolSpec(
        name="explode",
        description="Fails.",
        handler=explode,
        input_schema={"type": "object", "properties": {}},
    )
    calls = [ToolCall("explode", {}) for _ in range(3)]
    turns = [*(Turn.call(c) for c in calls), Turn.say("recovered")]
    result = asyncio.run(agent(turns, tools=[pydantic_ai_tool(spec)]).run("go"))
    assert result.output == "recovered"
    for call in calls:
        seen = results(result)[call.id]
        assert json.loads(seen.text)["error"]["kind"] == "tool-failed" and seen.is_error
        kept = tool_error(call.id)
        assert kept is not None and isinstance(kept.cause, KeyError)


def test_a_failed_result_crosses_the_wire_as_our_structured_error() -> None:
    # A ToolFailed / ModelRetry result reaches OpenAI models as {"error": "<text>"}: the
    # structured error would be a string. Ours is sent as it is.
    async def explode() -> str:
        raise RuntimeError("boom in the ledger")

    spec = ToolSpec(
        name="explode",
        description="Fails.",
        handler=explode,
        input_schema={"type": "object", "properties": {}},
    )
    call = ToolCall("explode", {})
    with ScriptedServer() as server:
        harness = PydanticAIHarness(server.endpoint(api="chat"))
        tool = harness.export_tool(spec, executor=Executor())
        asyncio.run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
        [sent] = [r for r in server.tool_results() if r.call_id == call.id]
    error = json.loads(sent.text)["error"]
    assert error["kind"] == "tool-failed" and "boom in the ledger" in error["message"]


def test_call_id_run_and_conversation_are_bound_from_the_run_context() -> None:
    seen: list[CallContext] = []

    async def who(ctx: CallContext) -> str:
        seen.append(ctx)
        return "me"

    spec = ToolSpec(
        name="who", description="d", handler=who, input_schema={"type": "object", "properties": {}}
    )
    call = ToolCall("who", {})
    result = asyncio.run(
        agent([Turn.call(call), Turn.say("done")], tools=[pydantic_ai_tool(spec)]).run(
            "go", conversation_id="conv-7"
        )
    )
    [ctx] = seen
    assert (ctx.call_id, ctx.run_id, ctx.thread_id) == (call.id, "conv-7", "conv-7")
    assert ctx.extra["pydantic_ai_run_id"] == result.run_id and ctx.extra["agent"] == "o"


def test_integration_binds_a_context_from_a_run_context() -> None:
    bound: list[CallContext] = []

    def probe(ctx: RunContext[Any]) -> str:
        bound.append(INTEGRATION.bind_context(ctx))
        return "ok"

    call = ToolCall("probe", {})
    asyncio.run(
        agent([Turn.call(call), Turn.say("done")], tools=[probe]).run("go", conversation_id="c-1")
    )
    assert (bound[0].call_id, bound[0].run_id) == (call.id, "c-1")
    with pytest.raises(Exception, match="RunContext"):
        INTEGRATION.bind_context(object())


def test_a_registry_as_one_toolset() -> None:
    registry, ran = Registry(), []

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add."""
        ran.append((a, b))
        return a + b

    @registry.tool
    def neg(a: int) -> int:
        """Negate."""
        return -a

    toolset = pydantic_ai_toolset(registry, id="maths")
    assert toolset.id == "maths" and set(toolset.tools) == {"add", "neg"}
    calls = [ToolCall("add", {"a": "2", "b": 3}), ToolCall("neg", {"a": 4})]
    result = asyncio.run(agent([Turn.call(*calls), Turn.say("done")], toolsets=[toolset]).run("go"))
    assert [results(result)[c.id].text for c in calls] == ["5", "-4"]
    assert ran == [(2, 3)], "coerced once, by the executor"
    assert [t.name for t in pydantic_ai_tools(registry)] == ["add", "neg"]


def test_a_pending_approval_where_the_run_cannot_pause_is_the_models_to_see() -> None:
    # pydantic-ai fails a run on a deferred call unless DeferredToolRequests is among its
    # output types; there the model is told the approval id, as in every integration.
    ran: list[dict[str, Any]] = []
    port = DeferredApproval()
    spec = city_spec(ran)
    gated = ToolSpec(
        name=spec.name,
        description=spec.description,
        handler=spec.handler,
        input_schema=spec.json_schema(),
        confirm=True,
    )
    call = ToolCall("weather", {"city": "Oslo"})
    tool = pydantic_ai_tool(gated, approval=port)
    result = asyncio.run(agent([Turn.call(call), Turn.say("done")], tools=[tool]).run("go"))
    assert result.output == "done" and ran == []
    [entry] = port.pending()
    assert f"approval required: {entry.id}" in results(result)[call.id].text
    paused = asyncio.run(
        agent(
            [Turn.call(ToolCall("weather", {"city": "Oslo"})), Turn.say("done")],
            tools=[tool],
            output_type=[str, DeferredToolRequests],
        ).run("go")
    )
    assert isinstance(paused.output, DeferredToolRequests), "here the run can pause"


def test_options_pydantic_ai_does_not_have_are_refused_naming_them() -> None:
    spec = city_spec([])
    with pytest.raises(ConfigurationError, match=r"requires_approval.*approval=port"):
        pydantic_ai_tool(spec, requires_approval=True)
    with pytest.raises(ConfigurationError, match=r"pydantic_ai\.Agent"):
        INTEGRATION.agent_tool(object(), name="x")
    with pytest.raises(ConfigurationError, match="event_stream_handler"):
        INTEGRATION.agent_tool(agent([]), name="x", event_stream_handler=42)
