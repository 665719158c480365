"""The MAF behaviours our tools absorb, each next to MAF's own tool in the same run: MAF's
argument checks and its "Error: Function failed.", the call id without middleware, and the
``{"raw": ...}`` MAF makes of arguments that are not a JSON object."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agent_framework import Agent, FunctionInvocationContext, FunctionMiddleware, tool

from agent_sdk import ConfigurationError, Executor, ToolSpec, tool_error
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk_agent_framework import ERROR_DATA_KEY, ExecutorTool, agent_framework_tool
from agent_sdk_agent_framework.testing import ScriptedChatClient, seen_results

SCHEMA = {
    "type": "object",
    "title": "Weather",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "description": "1-14"}},
    "required": ["city"],
    "additionalProperties": False,
}


def weather_spec(seen: list[dict[str, Any]]) -> ToolSpec:
    async def weather(city: str, days: int = 1) -> dict[str, Any]:
        seen.append({"city": city, "days": days})
        if city == "Nowhere":
            raise LookupError("no such city: Nowhere")
        return {"city": city, "days": days, "temp_c": 21}

    return ToolSpec(
        name="weather", description="Weather for a city.", handler=weather, input_schema=SCHEMA
    )


@tool(name="native_weather", description="MAF's own tool, for contrast.")
def native_weather(city: str, days: int = 1) -> str:
    if city == "Nowhere":
        raise LookupError("no such city: Nowhere")
    return f"{city}: 21C for {days} days"


def run_agent(tools: list[Any], turns: list[Turn], **kw: Any) -> tuple[dict[str, Any], Any]:
    client = ScriptedChatClient(turns)
    agent = Agent(client=client, name="orchestrator", tools=tools, **kw)

    async def main() -> Any:
        return await agent.run("start", session=agent.create_session())

    response = asyncio.run(main())
    results, _ = seen_results([response])
    return {r.call_id: r for r in results}, response


def test_the_schema_goes_to_the_model_as_it_is() -> None:
    exported = agent_framework_tool(weather_spec([]))
    assert isinstance(exported, ExecutorTool)
    assert exported.parameters() == SCHEMA, "title, descriptions, additionalProperties kept"
    assert exported.to_json_schema_spec()["function"]["parameters"] == SCHEMA


def test_our_executor_validates_where_maf_would_only_say_argument_parsing_failed() -> None:
    seen: list[dict[str, Any]] = []
    ours = agent_framework_tool(weather_spec(seen))
    calls = [
        ToolCall("weather", {"city": "Oslo", "days": "2"}),  # coerced by the spec's model
        ToolCall("weather", {"city": "Oslo", "extra": 1}),
        ToolCall("weather", {"city": ["Oslo"]}),
        ToolCall("native_weather", {"city": ["Oslo"]}),
        ToolCall("native_weather", {"city": "Oslo", "extra": 1}),
    ]
    out, _ = run_agent([ours, native_weather], [Turn.call(*calls), Turn.say("done")])
    assert seen == [{"city": "Oslo", "days": 2}]
    for call in calls[1:3]:
        error = json.loads(out[call.id].text)["error"]
        assert error["kind"] == "tool-args-invalid" and "weather" in error["message"]
        assert out[call.id].is_error is True
    assert out[calls[3].id].text == "Error: Argument parsing failed."
    assert out[calls[3].id].is_error is False, "MAF's own result carries no flag of ours"
    assert out[calls[4].id].text == "Oslo: 21C for 1 days", "MAF's own tool drops `extra` silently"


def test_a_failure_is_a_structured_error_where_maf_says_function_failed() -> None:
    ours = agent_framework_tool(weather_spec([]))
    mine, theirs = (
        ToolCall("weather", {"city": "Nowhere"}),
        ToolCall("native_weather", {"city": "Nowhere"}),
    )
    out, response = run_agent([ours, native_weather], [Turn.call(mine, theirs), Turn.say("ok")])
    assert out[theirs.id].text == "Error: Function failed."
    error = json.loads(out[mine.id].text)["error"]
    assert error["kind"] == "tool-failed" and "no such city: Nowhere" in error["message"]
    assert "Traceback" not in out[mine.id].text
    kept = tool_error(mine.id)
    assert kept is not None and isinstance(kept.cause, LookupError)
    [item] = [
        c
        for m in response.messages
        for c in m.contents
        if c.type == "function_result" and c.call_id == mine.id
    ]
    assert item.items[0].additional_properties[ERROR_DATA_KEY]["kind"] == "tool-failed"
    assert response.text == "ok", "a failed tool does not end the run"


def test_arguments_that_are_not_an_object_never_reach_the_handler() -> None:
    # MAF hands a tool {"raw": <text>} for arguments that are not a JSON object.
    seen: list[dict[str, Any]] = []
    ours = agent_framework_tool(weather_spec(seen))
    calls = [ToolCall("weather", text) for text in ('"Oslo"', "[1]", '{"city": "Os')]
    out, _ = run_agent([ours], [Turn.call(*calls), Turn.say("done")])
    assert seen == []
    assert {json.loads(out[c.id].text)["error"]["kind"] for c in calls} == {"tool-args-invalid"}


class _SeesCallIds(FunctionMiddleware):
    def __init__(self) -> None:
        self.call_ids: list[Any] = []

    async def process(self, context: FunctionInvocationContext, call_next: Any) -> None:
        self.call_ids.append(context.metadata.get("call_id"))
        await call_next()


@pytest.mark.parametrize("middleware", [False, True])
def test_the_call_id_is_the_models_with_or_without_middleware(middleware: bool) -> None:
    # MAF puts the call id in the context's metadata only when a function middleware runs;
    # FunctionTool.invoke always gets it as tool_call_id.
    contexts: list[Any] = []

    async def lookup(q: str, ctx: Any) -> str:
        contexts.append(ctx)
        return q

    spec = ToolSpec.from_function(lookup)
    spy = _SeesCallIds()
    call = ToolCall("lookup", {"q": "x"})
    kw = {"middleware": [spy]} if middleware else {}
    run_agent(
        [agent_framework_tool(spec, executor=Executor())], [Turn.call(call), Turn.say("ok")], **kw
    )
    assert [c.call_id for c in contexts] == [call.id]
    assert spy.call_ids == ([call.id] if middleware else [])


def test_pause_takes_a_bool_and_other_options_are_refused_with_a_hint() -> None:
    with pytest.raises(ConfigurationError, match="pause must be True or False"):
        agent_framework_tool(weather_spec([]), pause="yes")
    with pytest.raises(ConfigurationError, match=r"approval_mode.*approval=port"):
        agent_framework_tool(weather_spec([]), approval_mode="always_require")
