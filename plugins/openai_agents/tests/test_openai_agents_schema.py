"""Strict schemas: exported strictly when expressible (optional -> nullable, mapped back),
else exported unchanged with strict_json_schema=False."""

from __future__ import annotations

import asyncio
import copy
import json
from datetime import date
from typing import Any, Literal

import pytest
from agents import Agent, RunConfig, Runner, function_tool
from pydantic import BaseModel, Field

from agent_sdk import ConfigurationError, Executor, ToolSpec
from agent_sdk.scripted.openai_rules import (
    AZURE_STRICT_ONLY,
    RequestError,
    check_chat,
    check_responses,
)
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_openai_agents import openai_agents_tool
from agent_sdk_openai_agents._schema import STRICT_UNPORTABLE
from agent_sdk_openai_agents.testing import ScriptedModel


def run_calls(tool: Any, *calls: ToolCall) -> Any:
    agent = Agent(
        name="o", model=ScriptedModel([Turn.call(*calls), Turn.say("done")]), tools=[tool]
    )
    return asyncio.run(Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True)))


def test_optional_fields_become_nullable_and_required() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "units": {"type": "string", "enum": ["c", "f"], "default": "c"},
            "days": {"type": "integer", "default": 3},
        },
        "required": ["city"],
    }
    original = copy.deepcopy(schema)
    spec = ToolSpec(name="forecast", description="d", handler=lambda **kw: kw, input_schema=schema)
    tool = openai_agents_tool(spec)
    assert tool.strict_json_schema is True
    params = tool.params_json_schema
    assert params["required"] == ["city", "units", "days"]
    assert params["additionalProperties"] is False
    assert params["properties"]["days"]["type"] == ["integer", "null"]
    assert {"type": "null"} in params["properties"]["units"]["anyOf"]
    assert schema == original, "the caller's schema must not change"


def test_a_null_for_an_optional_field_is_mapped_back_to_the_default() -> None:
    seen: list[dict[str, Any]] = []

    class Args(BaseModel):
        city: str
        days: int = 3
        note: str | None = None

    async def forecast(city: str, days: int, note: str | None) -> dict[str, Any]:
        seen.append({"city": city, "days": days, "note": note})
        return {"city": city, "days": days}

    spec = ToolSpec(name="forecast", description="d", handler=forecast, input_model=Args)
    tool = openai_agents_tool(spec)
    assert tool.strict_json_schema is True
    # note is nullable already: it stays as it is (null is a real value there)
    assert "null" in str(tool.params_json_schema["properties"]["note"])
    call = ToolCall("forecast", {"city": "Rome", "days": None, "note": None})
    result = run_calls(tool, call)
    assert seen == [{"city": "Rome", "days": 3, "note": None}]
    outputs = [
        i.output for i in result.new_items if getattr(i, "type", "") == "tool_call_output_item"
    ]
    assert outputs == ['{"city": "Rome", "days": 3}'], "results go out as JSON, not a repr"


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"tags": {"type": "object"}}},  # a free-form dict
        {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True},
        {
            "type": "object",
            "properties": {
                "x": {"anyOf": [{"type": "object", "properties": {"y": {"type": "string"}}}]}
            },
        },
    ],
)
def test_schemas_strict_mode_cannot_express_are_exported_unchanged(schema: dict[str, Any]) -> None:
    spec = ToolSpec(name="t", description="d", handler=lambda **kw: "ok", input_schema=schema)
    tool = openai_agents_tool(spec)
    assert tool.strict_json_schema is False
    assert tool.params_json_schema == spec.json_schema()
    with pytest.raises(ConfigurationError):
        openai_agents_tool(spec, strict=True)


def test_recursive_models_are_exported_non_strict() -> None:
    class Node(BaseModel):
        name: str
        children: list[Node] = []

    spec = ToolSpec(name="tree", description="d", handler=lambda **kw: "ok", input_model=Node)
    tool = openai_agents_tool(spec)
    assert tool.strict_json_schema is False


def test_non_strict_tools_still_validate_and_report_in_the_loop() -> None:
    calls: list[Any] = []
    spec = ToolSpec(
        name="tag",
        description="d",
        handler=lambda tags: calls.append(tags) or "ok",
        input_schema={
            "type": "object",
            "properties": {"tags": {"type": "object"}},
            "required": ["tags"],
        },
    )
    tool = openai_agents_tool(spec)
    ok, bad = ToolCall("tag", {"tags": {"a": 1}}), ToolCall("tag", {"tags": [1]})
    result = run_calls(tool, ok, bad)
    outputs = {
        i.call_id: i.output
        for i in result.new_items
        if getattr(i, "type", "") == "tool_call_output_item"
    }
    assert outputs[ok.id] == "ok" and calls == [{"a": 1}]
    assert '"tool-args-invalid"' in outputs[bad.id]


def test_strict_false_keeps_the_neutral_schema() -> None:
    spec = ToolSpec(
        name="t",
        description="d",
        handler=lambda q: q,
        input_schema={"type": "object", "properties": {"q": {"type": "string"}}},
    )
    tool = openai_agents_tool(spec, strict=False, executor=Executor())
    assert tool.strict_json_schema is False and tool.params_json_schema == spec.json_schema()


# -- Azure OpenAI's strict-schema rules (the scripted server applies them) -----------------


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


def forecast_spec() -> ToolSpec:
    return ToolSpec(
        name="forecast", description="Forecast.", handler=lambda **kw: "ok", input_model=Forecast
    )


def chat_body(tool: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.params_json_schema,
                    "strict": tool.strict_json_schema,
                },
            }
        ],
    }


def responses_body(tool: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "input": "hi",
        "tools": [
            {
                "type": "function",
                "name": tool.name,
                "parameters": tool.params_json_schema,
                "strict": tool.strict_json_schema,
            }
        ],
    }


def test_the_sdks_own_strict_schemas_are_refused_by_azure() -> None:
    """The trap: a default (or a constraint) in a strict schema, as the SDK exports it."""

    @function_tool
    def forecast(city: str, days: int = 3) -> str:
        """Forecast."""
        return city

    assert forecast.strict_json_schema is True
    assert forecast.params_json_schema["properties"]["days"]["default"] == 3
    with pytest.raises(RequestError, match="'default' is not permitted"):
        check_chat(chat_body(forecast), "azure")
    check_chat(chat_body(forecast), "openai")  # api.openai.com takes it


def test_our_strict_schemas_pass_azures_rules() -> None:
    tool = openai_agents_tool(forecast_spec(), executor=Executor())
    assert tool.strict_json_schema is True
    check_chat(chat_body(tool), "azure")
    check_responses(responses_body(tool), "azure")
    text = json.dumps(tool.params_json_schema)
    assert not any(f'"{k}":' in text for k in AZURE_STRICT_ONLY), text
    # The model still reads what was dropped, in the description.
    props = tool.params_json_schema["properties"]
    assert props["days"]["description"].startswith("How many days (")
    assert "default: 3" in props["days"]["description"]
    assert "maximum: 14" in props["days"]["description"]
    assert "pattern" in props["city"]["description"]
    assert set(STRICT_UNPORTABLE) >= AZURE_STRICT_ONLY


def test_enum_values_and_property_names_that_look_like_keywords_are_kept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "default": {"type": "string", "enum": ["pattern", "format"]},
            "filter": {
                "type": "object",
                "properties": {"minimum": {"type": "integer", "minimum": 0}},
                "required": ["minimum"],
            },
        },
        "required": ["default", "filter"],
    }
    spec = ToolSpec(name="t", description="d", handler=lambda **kw: "ok", input_schema=schema)
    params = openai_agents_tool(spec).params_json_schema
    assert list(params["properties"]) == ["default", "filter"]
    assert params["properties"]["default"]["enum"] == ["pattern", "format"]
    inner = params["properties"]["filter"]["properties"]["minimum"]
    assert inner == {"type": "integer", "description": "(minimum: 0)"}
    check_chat(chat_body(openai_agents_tool(spec)), "azure")
