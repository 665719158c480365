"""The model-call budget holds under parallelism and failure (issue 15, item 4): a sub-agent
reserves a call before it starts, pays what it used whatever the outcome, and one that
cannot be afforded is refused with budget-exhausted."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from reliability_helpers import only_plugin, plugin_names

from agent_sdk import (
    AgentResponse,
    CallContext,
    Executor,
    HierarchyLimitError,
    HierarchyLimits,
    Message,
    Usage,
    agent_tool,
    run_scope,
)
from agent_sdk.run import note_usage
from agent_sdk.scripted import ScriptedAgent, ToolCall, Turn
from agent_sdk.testing.contract import exception_chain


def test_parallel_children_cannot_overspend():
    started: list[int] = []

    async def child(request: Any, ctx: CallContext) -> AgentResponse:
        started.append(1)
        await asyncio.sleep(0)  # let the siblings try to start meanwhile
        return AgentResponse(messages=[Message("assistant", "ok")], usage=Usage(model_calls=5))

    spec = agent_tool(child, name="worker", description="d")

    async def main() -> tuple[list[Any], Any]:
        async with run_scope(limits=HierarchyLimits(max_model_calls=1)) as state:
            results = await asyncio.gather(
                *(Executor().run_spec(spec, {"request": str(i)}) for i in range(20)),
                return_exceptions=True,
            )
            return results, state

    results, state = asyncio.run(main())
    assert len(started) == 1
    refused = [r for r in results if isinstance(r, HierarchyLimitError)]
    assert len(refused) == 19 and "not started" in str(refused[0])
    assert state.spent == 5 and state.reserved == 0  # what the one child used, nothing held


def test_failed_and_timed_out_children_pay_what_they_used():
    async def burns_then_hangs(request: Any, ctx: CallContext) -> AgentResponse:
        for _ in range(3):
            note_usage(Usage(model_calls=1, input_tokens=10))  # as a plugin reports calls
        await asyncio.sleep(60)
        raise AssertionError("never")

    async def burns_then_fails(request: Any, ctx: CallContext) -> AgentResponse:
        note_usage(Usage(model_calls=2))
        raise RuntimeError("child crashed")

    async def fails_at_once(request: Any, ctx: CallContext) -> AgentResponse:
        raise RuntimeError("child crashed before its plugin saw a call")

    slow = agent_tool(burns_then_hangs, name="slow", description="d", timeout=0.05)
    crash = agent_tool(burns_then_fails, name="crash", description="d")
    early = agent_tool(fails_at_once, name="early", description="d")

    async def main() -> Any:
        async with run_scope(limits=HierarchyLimits(max_model_calls=100)) as state:
            outcomes = await asyncio.gather(
                *(Executor().run_spec(slow, {"request": "x"}) for _ in range(4)),
                Executor().run_spec(crash, {"request": "x"}),
                Executor().run_spec(early, {"request": "x"}),
            )
            return outcomes, state

    outcomes, state = asyncio.run(main())
    assert [o.error.kind.value for o in outcomes] == ["tool-timeout"] * 4 + ["tool-failed"] * 2
    assert state.report.per_path["slow"].usage.model_calls == 12
    assert state.report.per_path["slow"].usage.input_tokens == 120
    assert state.report.per_path["crash"].usage.model_calls == 2
    assert state.report.per_path["early"].usage.model_calls == 1  # it started: at least one
    assert state.spent == 15 and state.reserved == 0


def test_cancelled_children_release_their_hold():
    entered = asyncio.Event()

    async def hang(request: Any, ctx: CallContext) -> AgentResponse:
        entered.set()
        await asyncio.sleep(60)
        raise AssertionError("never")

    spec = agent_tool(hang, name="hang", description="d")

    async def main() -> Any:
        async with run_scope(limits=HierarchyLimits(max_model_calls=2)) as state:
            task = asyncio.ensure_future(Executor().run_spec(spec, {"request": "x"}))
            await asyncio.wait_for(entered.wait(), 30)
            assert state.reserved == 1 and state.remaining == 1
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return state

    state = asyncio.run(main())
    assert state.reserved == 0 and state.spent == 1


@pytest.fixture(scope="module", params=plugin_names())
def harness(request: pytest.FixtureRequest) -> Any:
    with only_plugin(request.param) as h:
        yield h


def test_parallel_sub_agent_calls_through_each_plugin_cannot_overspend(harness: Any) -> None:
    worker = harness.export_agent_tool(ScriptedAgent("worker", [Turn.say("worked")]))
    name = harness.advertised(worker)["name"]
    calls = [ToolCall(name, {"request": f"job {i}"}) for i in range(8)]

    async def main() -> Any:
        async with run_scope(limits=HierarchyLimits(max_model_calls=1)) as state:
            try:
                await harness.run([worker], [Turn.call(*calls), Turn.say("done")])
            except BaseException as exc:
                return exc, state
            return None, state

    exc, state = asyncio.run(main())
    assert exc is not None and any(isinstance(e, HierarchyLimitError) for e in exception_chain(exc))
    assert state.report.per_path["worker"].calls == 1  # one child ran, seven were refused
    assert state.spent == 1 and state.reserved == 0 and state.active == 0
