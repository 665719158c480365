"""ag2_agent_tool and the run's guards: budget stop, usage, json mode, naming, failures."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from typing import Any

import pytest
from ag2 import Agent, Context, tool
from ag2.events import ModelRequest, ModelResponse
from ag2.testing import TrackingConfig
from ag2_helpers import call, kind, run_agent
from pydantic import BaseModel

from agent_sdk import (
    ConfigurationError,
    HierarchyLimitError,
    HierarchyLimits,
    ToolSpec,
    run_scope,
)
from agent_sdk.testing import ECHO, Turn
from agent_sdk_ag2 import ag2_agent_tool, ag2_tool
from agent_sdk_ag2.testing import ScriptedConfig


def _worker(name: str = "worker", *turns: Turn) -> Agent:
    return Agent(name, config=ScriptedConfig(turns or [Turn.say("worked")]))


async def test_budget_exhaustion_ends_the_run_and_the_model_is_not_called_again() -> None:
    ran: list[str] = []

    async def note(label: str) -> str:
        ran.append(label)
        return label

    sibling = ag2_tool(
        ToolSpec(
            name="note",
            description="Note.",
            handler=note,
            input_schema={"type": "object", "properties": {"label": {"type": "string"}}},
        )
    )
    worker = ag2_agent_tool(_worker())
    model = TrackingConfig(
        ScriptedConfig(
            [
                Turn.call(call("worker", {"request": "one"})),
                Turn.call(call("worker", {"request": "two"}), call("note", {"label": "sibling"})),
                Turn.say("never reached"),
            ]
        )
    )
    agent = Agent("boss", config=model, tools=[worker, sibling])
    async with run_scope(limits=HierarchyLimits(max_model_calls=1)) as state:
        with pytest.raises(HierarchyLimitError, match="budget of 1 model calls"):
            await agent.ask("go")
    assert len(model.calls) == 2, "no model call after the budget ran out"
    assert ran == ["sibling"], "the sibling of the same turn still finished"
    assert state.spent == 1 and state.active == 0


async def test_budget_exhaustion_deep_in_the_hierarchy_ends_the_top_run() -> None:
    leaf = ag2_agent_tool(_worker("leaf"))
    # middle holds one call of the budget while it runs and each leaf spends one: the third
    # leaf call finds the budget of 3 spent.
    middle_turns = [Turn.call(call("leaf", {"request": r})) for r in "abc"] + [Turn.say("done")]
    middle = ag2_agent_tool(Agent("middle", config=ScriptedConfig(middle_turns), tools=[leaf]))
    async with run_scope(limits=HierarchyLimits(max_depth=3, max_model_calls=3)) as state:
        with pytest.raises(HierarchyLimitError, match="'leaf' was not started"):
            await run_agent([middle], [Turn.call(call("middle", {"request": "go"})), Turn.say("x")])
    assert state.report.per_path["middle/leaf"].calls == 2 and state.active == 0
    assert state.reserved == 0


async def test_child_usage_and_input_size_reach_the_run_report() -> None:
    async def add(a: int, b: int) -> int:
        return a + b

    adder = ag2_tool(
        ToolSpec(
            name="add",
            description="Add.",
            handler=add,
            input_schema={
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        )
    )
    child = Agent(
        "analyst",
        "You add numbers.",
        config=ScriptedConfig([Turn.call(call("add", {"a": 2, "b": 3})), Turn.say("five")]),
        tools=[adder],
    )
    tool = ag2_agent_tool(child)
    async with run_scope() as state:
        _, results, _ = await run_agent(
            [tool], [Turn.call(call("analyst", {"request": "2+3?"})), Turn.say("ok")]
        )
    assert results[0].text == "five"
    cost = state.report.per_path["analyst"]
    assert cost.calls == 1 and cost.usage.model_calls == 2
    # system prompt + request on call 1; plus the tool call and its result on call 2
    prompt, request = len("You add numbers."), len("2+3?")
    assert cost.usage.input_chars == (prompt + request) + (
        prompt + request + len("add") + len('{"a": 2, "b": 3}') + 1
    )


async def test_json_mode_uses_the_agent_response_schema() -> None:
    class Verdict(BaseModel):
        verdict: str
        score: int

    judge = Agent(
        "judge",
        config=ScriptedConfig([Turn.say('{"verdict": "approve", "score": 3}')]),
        response_schema=Verdict,
    )
    tool = ag2_agent_tool(judge, return_mode="json")
    _, results, _ = await run_agent(
        [tool], [Turn.call(call("judge", {"request": "rate"})), Turn.say("ok")]
    )
    assert json.loads(results[0].text) == {"verdict": "approve", "score": 3}


async def test_a_reply_that_breaks_the_response_schema_is_a_tool_failure() -> None:
    class Verdict(BaseModel):
        verdict: str

    judge = Agent("judge", config=ScriptedConfig([Turn.say("not json")]), response_schema=Verdict)
    tool = ag2_agent_tool(judge, return_mode="json")
    _, results, _ = await run_agent(
        [tool], [Turn.call(call("judge", {"request": "rate"})), Turn.say("ok")]
    )
    assert kind(results[0].text) == "tool-failed" and results[0].is_error


async def test_a_failing_child_model_is_a_tool_failure_the_parent_sees() -> None:
    broken = Agent("flaky", config=ScriptedConfig([]))  # no turn left: the model call fails
    tool = ag2_agent_tool(broken)
    reply, results, _ = await run_agent(
        [tool], [Turn.call(call("flaky", {"request": "x"})), Turn.say("recovered")]
    )
    assert kind(results[0].text) == "tool-failed" and "flaky" in results[0].text
    assert reply.body == "recovered"


async def test_input_schema_requests_reach_the_child_as_json() -> None:
    class Review(BaseModel):
        document: str
        focus: str

    echo = Agent("reviewer", config=ScriptedConfig([Turn.echo()]))
    tool = ag2_agent_tool(echo, input_schema=Review)
    args = {"document": "contract.pdf", "focus": "liability"}
    _, results, _ = await run_agent([tool], [Turn.call(call("reviewer", args)), Turn.say("ok")])
    assert json.loads(results[0].text) == args


def test_names_and_descriptions() -> None:
    tool = ag2_agent_tool(Agent("Legal Review!", config=ScriptedConfig([])))
    assert tool.name == "Legal_Review"
    assert "Legal Review!" in tool.schema.function.description
    named = ag2_agent_tool(_worker(), name="ask_worker", description="Ask the worker.")
    assert (named.name, named.schema.function.description) == ("ask_worker", "Ask the worker.")
    assert named.schema.function.parameters["required"] == ["request"]


def test_configuration_mistakes_fail_at_configuration_time() -> None:
    with pytest.raises(ConfigurationError):
        ag2_agent_tool(object())  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        ag2_agent_tool(_worker(), return_mode="first")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        ag2_agent_tool(_worker(), timeout=0)


async def test_the_child_sees_only_the_request() -> None:
    echo = Agent("echoer", config=ScriptedConfig([Turn(text=ECHO)]))
    tool = ag2_agent_tool(echo)
    _, results, _ = await run_agent(
        [tool], [Turn.call(call("echoer", {"request": "only this"})), Turn.say("ok")]
    )
    assert results[0].text == "only this"


async def test_concurrent_fresh_calls_share_no_history_or_state() -> None:
    # Each call is a fresh child on its own stream; the streams of one agent tool share
    # only AG2's subscriber models (built once, bound per stream: ChildStream), nothing a call
    # changes. Two calls run inside the child's tool at the same time (each waits for the
    # other), then a third runs on the warm models.
    streams: list[Any] = []
    subscribers: list[list[Any]] = []
    both_inside = asyncio.Event()

    @tool
    async def note(text: str, context: Context) -> str:
        """Note."""
        streams.append(context.stream)
        subscribers.append([model for _, model in context.stream._subscribers.values()])
        if len(streams) == 2:
            both_inside.set()
        if len(streams) <= 2:
            await asyncio.wait_for(both_inside.wait(), 30)  # both children are mid-run
        return "noted"

    child = Agent(
        "worker",
        config=ScriptedConfig([Turn.call(call("note", {"text": "x"})), Turn.echo()]),
        tools=[note],
    )
    worker = ag2_agent_tool(child)
    a, b, c = (call("worker", {"request": r}) for r in ("alpha", "beta", "gamma"))
    async with run_scope() as state:
        _, results, _ = await run_agent([worker], [Turn.call(a, b), Turn.call(c), Turn.say("done")])
    # each child's model saw its own request and its own tool result, nothing else
    assert sorted(r.text for r in results) == ["alpha\nnoted", "beta\nnoted", "gamma\nnoted"]
    assert len({id(s) for s in streams}) == 3
    asked = [await _own_request(stream) for stream in streams]
    assert sorted(asked[:2]) == ["alpha", "beta"] and asked[2] == "gamma"
    cost = state.report.per_path["worker"]
    assert cost.calls == 3 and cost.usage.model_calls == 6
    _assert_models_shared_calls_not(subscribers)
    # and the tool keeps no stream of a finished call
    refs = [weakref.ref(s) for s in streams]
    del streams[:], subscribers[:], results
    gc.collect()
    assert [r() for r in refs] == [None, None, None]


async def _own_request(stream: Any) -> str:
    """The one request on a child's stream (which holds that child's two model responses)."""
    events = await stream.history.get_events()
    requests = [e.parts[0].content for e in events if isinstance(e, ModelRequest)]
    assert len(requests) == 1 and sum(isinstance(e, ModelResponse) for e in events) == 2
    return str(requests[0])


def _assert_models_shared_calls_not(subscribers: list[list[Any]]) -> None:
    """The concurrent children ran on one set of models (one pydantic model per shape),
    each copy bound to its own stream's subscriber; no call is another stream's."""
    first, second = ({m.serializer.model: m for m in s} for s in subscribers[:2])
    assert first.keys() == second.keys() and len(first) >= 5
    for shape, model in first.items():
        assert model.call is not second[shape].call
        assert model.custom_fields is second[shape].custom_fields
    calls = [{id(m.call) for m in s} for s in subscribers]
    assert not (calls[0] & calls[1]) and not (calls[1] & calls[2])
