import asyncio
import json

import pytest
from pydantic import BaseModel

from agent_sdk import (
    CallContext,
    ConfigurationError,
    ErrorKind,
    Executor,
    Registry,
    ToolError,
    ToolSpec,
)


def test_registry_infers_model_and_description_from_the_function():
    registry = Registry()

    @registry.tool
    def search(query: str, limit: int = 5, ctx: CallContext | None = None) -> list[str]:
        """Search the catalogue.

        Args:
            query: words to look for
            limit: how many results
        """
        return []

    schema = search.json_schema()
    assert search.description == "Search the catalogue."
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"]["description"] == "words to look for"
    assert schema["properties"]["limit"]["default"] == 5
    assert "ctx" not in schema["properties"], "the context parameter is not part of the schema"
    assert registry.get("search") is search and "search" in registry and len(registry) == 1


def test_decorator_with_options_and_duplicate_names():
    registry = Registry()

    @registry.tool(name="pay", confirm=True, timeout=2.0, tags={"money"})
    async def transfer(amount: int) -> str:
        return "ok"

    assert transfer.name == "pay" and transfer.confirm is True and transfer.tags == {"money"}
    with pytest.raises(ConfigurationError, match="already registered"):
        registry.add(
            ToolSpec(
                name="pay", description="x", handler=lambda: 1, input_schema={"type": "object"}
            )
        )


def test_unknown_tool_is_tool_not_found_naming_the_known_ones():
    registry = Registry()
    registry.tool(lambda: 1, name="one")
    with pytest.raises(ToolError) as info:
        registry.get("two")
    assert info.value.kind is ErrorKind.TOOL_NOT_FOUND and "one" in info.value.message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "bad name"}, "tool name"),
        ({"input_model": None, "input_schema": None}, "exactly one"),
        ({"timeout": 0}, "timeout"),
        ({"confirm": "yes"}, "confirm"),
        ({"handler": 42}, "callable"),
    ],
)
def test_configuration_mistakes_fail_at_configuration_time(kwargs, message):
    base = {
        "name": "ok",
        "description": "d",
        "handler": lambda: 1,
        "input_schema": {"type": "object"},
    }
    base.update(kwargs)
    with pytest.raises(ConfigurationError, match=message):
        ToolSpec(**base)


def test_json_schema_spec_validates_and_coerces():
    schema = {
        "type": "object",
        "title": "Order",
        "properties": {
            "sku": {"type": "string"},
            "qty": {"type": "integer", "default": 1},
            "mode": {"enum": ["fast", "slow"]},
            "address": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["sku", "mode"],
    }
    original = json.loads(json.dumps(schema))
    spec = ToolSpec(name="order", description="Order", handler=lambda **kw: kw, input_schema=schema)
    assert spec.json_schema() == original and spec.json_schema() is not spec.json_schema()
    model = spec.validate('{"sku": "A1", "mode": "fast", "qty": "3", "address": {"city": "Oslo"}}')
    kwargs = spec.handler_kwargs(model, None)
    assert kwargs["qty"] == 3 and kwargs["address"] == {"city": "Oslo"} and kwargs["tags"] is None
    for bad, needle in [
        ({"sku": "A1", "mode": "medium"}, "mode"),
        ({"mode": "fast"}, "sku"),
        ({"sku": "A1", "mode": "fast", "address": {}}, "address.city"),
        ({"sku": "A1", "mode": "fast", "colour": "red"}, "colour"),
    ]:
        with pytest.raises(ToolError) as info:
            spec.validate(bad)
        assert info.value.kind is ErrorKind.TOOL_ARGS_INVALID and needle in info.value.message
    spec.json_schema()["properties"].clear()
    assert spec.json_schema() == original, "callers cannot mutate the spec's schema"


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ("[1, 2]", "JSON object"),
        ("3", "JSON object"),
        ("{bad json", "not valid JSON"),
        ('{"a": 1, "a": 2}', "duplicated key"),
        ('{"a": NaN}', "NaN"),
        ('{"a": Infinity}', "Infinity"),
        (b"\xff\xfe", "UTF-8"),
        ("[" * 100 + "]" * 100, "JSON"),
        ('{"a": ' + "[" * 80 + "]" * 80 + "}", "nested deeper"),
        ("x" * 1_000_001, "larger than"),
    ],
)
def test_raw_arguments_are_checked_before_validation(raw, needle):
    class Args(BaseModel):
        a: int = 0

    spec = ToolSpec(name="t", description="t", handler=lambda a: a, input_model=Args)
    with pytest.raises(ToolError) as info:
        spec.validate(raw)
    assert info.value.kind is ErrorKind.TOOL_ARGS_INVALID
    assert needle in info.value.message


def test_empty_arguments_mean_an_empty_object():
    class Args(BaseModel):
        a: int = 7

    spec = ToolSpec(name="t", description="t", handler=lambda a: a, input_model=Args)
    assert spec.validate("").a == 7 and spec.validate(None).a == 7


@pytest.mark.parametrize(
    ("prop", "good", "bad"),
    [
        ({"type": "integer", "minimum": 1, "maximum": 10}, 10, 11),
        ({"type": "integer", "minimum": 1}, 1, 0),
        ({"type": "number", "exclusiveMinimum": 0}, 0.5, 0),
        ({"type": "number", "exclusiveMaximum": 1}, 0.5, 1),
        ({"type": "integer", "multipleOf": 5}, 15, 7),
        ({"type": "string", "minLength": 2, "maxLength": 3}, "abc", "abcd"),
        ({"type": "string", "pattern": "^[A-Z]{2}$"}, "GB", "gb"),
        ({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2}, ["a"], []),
    ],
)
def test_a_json_schemas_bounds_are_enforced(prop, good, bad):
    """The model is shown the bounds of a JSON-schema spec: the handler never sees a value
    outside them."""
    seen = []
    spec = ToolSpec(
        name="bounded",
        description="x",
        handler=lambda **kw: seen.append(kw["v"]) or "ok",
        input_schema={"type": "object", "properties": {"v": prop}, "required": ["v"]},
    )
    executor = Executor()
    assert asyncio.run(executor.run_spec(spec, {"v": good})).text == "ok"
    outcome = asyncio.run(executor.run_spec(spec, {"v": bad}))
    assert json.loads(outcome.text)["error"]["kind"] == "tool-args-invalid"
    assert seen == [good]
    assert spec.json_schema()["properties"]["v"] == prop
