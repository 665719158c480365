"""Agents as tools, next to ``Agent.as_tool()`` in the same run: the return mode reads the
child's own messages (as_tool concatenates every assistant text), the child's usage is the
run's (as_tool reports none), children stream, and a budget spent by the top agent's own
model calls (``agent_framework_instrument``) ends the run."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agent_framework import Agent

from agent_sdk import ConfigurationError, Executor, HierarchyLimitError, HierarchyLimits, run_scope
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk.testing.contract import Recorder, exception_chain
from agent_sdk_agent_framework import (
    agent_framework_agent_tool,
    agent_framework_instrument,
    agent_framework_tool,
)
from agent_sdk_agent_framework.testing import ScriptedChatClient, seen_results


def researcher() -> Agent[Any]:
    leaf = agent_framework_tool(Recorder().add_spec(), executor=Executor())
    turns = [
        Turn.call(ToolCall("add", {"a": 1, "b": 2}), text="Let me look..."),
        Turn.say("Final: a and b."),
    ]
    return Agent(
        client=ScriptedChatClient(turns, name="researcher"),
        name="researcher",
        description="Researches.",
        tools=[leaf],
    )


def test_return_modes_read_the_childs_own_messages_where_as_tool_concatenates() -> None:
    child = researcher()
    native = ToolCall("researcher", {"task": "q"})
    last = ToolCall("last", {"request": "q"})
    every = ToolCall("every", {"request": "q"})
    tools = [
        child.as_tool(),
        agent_framework_agent_tool(child, name="last"),
        agent_framework_agent_tool(child, name="every", return_mode="all"),
    ]
    top = Agent(
        client=ScriptedChatClient([Turn.call(native, last, every), Turn.say("done")]), tools=tools
    )

    async def main() -> Any:
        async with run_scope() as run:
            response = await top.run("go", session=top.create_session())
        return run, response

    run, response = asyncio.run(main())
    out = {r.call_id: r.text for r in seen_results([response])[0]}
    assert out[native.id] == "Let me look...Final: a and b.", "MAF 1.23's as_tool"
    assert out[last.id] == "Final: a and b."
    assert out[every.id].index("Let me look...") < out[every.id].index("Final: a and b.")
    assert out[every.id] != out[native.id], "'all' keeps the messages apart"
    # Usage: the children of ours are charged to the run (two model calls each); MAF's parent
    # usage counts only its own calls, and as_tool's child is charged nowhere.
    assert {
        p: (c.usage.model_calls, c.usage.input_tokens) for p, c in run.report.per_path.items()
    } == {
        "last": (2, 20),
        "every": (2, 20),
    }
    assert response.usage_details["input_token_count"] == 20, "the parent's own two calls"


def test_children_stream_and_on_stream_sees_every_update() -> None:
    updates: list[Any] = []
    tool = agent_framework_agent_tool(researcher(), on_stream=updates.append)
    call = ToolCall("researcher", {"request": "q"})
    top = Agent(client=ScriptedChatClient([Turn.call(call), Turn.say("done")]), tools=[tool])
    response = asyncio.run(top.run("go"))
    assert seen_results([response])[0][0].text == "Final: a and b."
    texts = "".join(u.text for u in updates if u.text)
    assert "Let me look..." in texts and "Final: a and b." in texts
    assert any(c.type == "function_result" for u in updates for c in u.contents)
    with pytest.raises(ConfigurationError, match="on_stream must be a callable"):
        agent_framework_agent_tool(researcher(), on_stream="print")
    with pytest.raises(ConfigurationError, match=r"needs an agent_framework\.Agent"):
        agent_framework_agent_tool(object(), name="x")


def test_each_call_is_a_fresh_child_with_no_history() -> None:
    client = ScriptedChatClient([Turn.echo()], name="echo")
    tool = agent_framework_agent_tool(Agent(client=client, name="echo"))
    calls = [ToolCall("echo", {"request": f"r{i}"}) for i in range(3)]
    top = Agent(client=ScriptedChatClient([Turn.call(*calls), Turn.say("done")]), tools=[tool])
    response = asyncio.run(top.run("go"))
    out = {r.call_id: r.text for r in seen_results([response])[0]}
    for i, call in enumerate(calls):
        assert f"r{i}" in out[call.id] and all(
            f"r{j}" not in out[call.id] for j in range(3) if j != i
        )
    assert len(client.calls) == 3
    assert all(sum(m.role == "user" for m in sent) == 1 for sent in client.calls)


def test_concurrent_children_count_only_their_own_model_calls() -> None:
    """Children not streamed are metered by one chat middleware object shared by every call
    and every agent tool: children of different lengths, running at once, each count their
    own calls, see only their own request, and a child that fails is charged the calls it
    made (its second one, which failed, included: a call counts once it is made)."""
    rec = Recorder()

    def worker(name: str, turns: list[Turn]) -> tuple[Any, ScriptedChatClient]:
        client = ScriptedChatClient(turns, name=name)
        add = agent_framework_tool(rec.add_spec(), executor=Executor())
        return agent_framework_agent_tool(Agent(client=client, name=name, tools=[add])), client

    step = Turn.call(ToolCall("add", {"a": 1, "b": 2}), delay=0.01)
    long, long_client = worker("long", [step, step, Turn.say("long done", delay=0.01)])
    short, short_client = worker("short", [Turn.echo(delay=0.02)])
    broken, _ = worker("broken", [step])  # its second model call has no turn: it raises
    calls = [
        *(ToolCall("long", {"request": f"l{i}"}) for i in range(2)),
        *(ToolCall("short", {"request": f"s{i}"}) for i in range(2)),
        ToolCall("broken", {"request": "b"}),
    ]
    top = Agent(
        client=ScriptedChatClient([Turn.call(*calls), Turn.say("done")]),
        tools=[long, short, broken],
    )

    async def main() -> Any:
        async with run_scope() as run:
            response = await top.run("go")
        return run, response

    run, response = asyncio.run(main())
    out = {r.call_id: r for r in seen_results([response])[0]}
    assert [out[c.id].text for c in calls[:4]] == ["long done", "long done", "s0", "s1"]
    assert out[calls[4].id].is_error
    usage = {p: (c.calls, c.usage.model_calls) for p, c in run.report.per_path.items()}
    assert usage == {"long": (2, 6), "short": (2, 2), "broken": (1, 2)}
    assert len(long_client.calls) == 6 and len(short_client.calls) == 2
    for sent in [*long_client.calls, *short_client.calls]:
        users = [m.text for m in sent if m.role == "user"]
        assert len(users) == 1, "a fresh child: its own request, nothing of its siblings'"
    for i, request in enumerate(("l0", "l1")):
        mine = [s for s in long_client.calls if any(m.text == request for m in s)]
        assert [sum(m.role == "assistant" for m in s) for s in mine] == [0, 1, 2], i


def test_instrument_charges_the_top_agent_and_ends_the_run_when_the_budget_is_spent() -> None:
    worker = agent_framework_agent_tool(
        Agent(client=ScriptedChatClient([Turn.say("worked")]), name="worker")
    )
    turns = [Turn.call(ToolCall("worker", {"request": "1"})), Turn.say("done")]
    top = agent_framework_instrument(Agent(client=ScriptedChatClient(turns), tools=[worker]))
    assert agent_framework_instrument(top) is top and len(top.middleware) == 2, "added once"

    async def main(budget: int) -> Any:
        async with run_scope(limits=HierarchyLimits(max_model_calls=budget)) as run:
            try:
                await top.run("go")
            except BaseException as exc:
                return run, exc
            return run, None

    run, exc = asyncio.run(main(10))
    assert exc is None
    assert run.report.per_path[""].usage.model_calls == 2, "the top agent's own calls"
    assert run.report.per_path[""].usage.input_tokens == 20
    assert run.spent == 3
    run, exc = asyncio.run(main(2))  # the top's first call and the worker: none left
    assert any(isinstance(e, HierarchyLimitError) for e in exception_chain(exc)), repr(exc)
    assert run.spent == 2


def test_a_sessionless_instrumented_run_is_one_run() -> None:
    rec = Recorder()
    add = agent_framework_tool(rec.add_spec(), executor=Executor())
    turns = [
        Turn.call(ToolCall("add", {"a": 1, "b": 1})),
        Turn.call(ToolCall("add", {"a": 2, "b": 2})),
        Turn.say("ok"),
    ]
    plain = Agent(client=ScriptedChatClient(turns), tools=[add])
    asyncio.run(plain.run("go"))
    assert len({c.run_id for c in rec.contexts}) == 2, "MAF has no run id: two calls, two runs"
    rec.contexts.clear()
    asyncio.run(agent_framework_instrument(plain).run("go"))
    assert len({c.run_id for c in rec.contexts}) == 1
