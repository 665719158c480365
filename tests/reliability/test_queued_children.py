"""A sub-agent that never ran is never charged (issue 27, finding 2).

Under ``max_parallel`` a child waits for its slot; cancelled or timed out while it waits, it
made no model call, so it releases its hold on the budget and pays nothing. A child that did
run and was timed out or cancelled still pays what it was seen using (at least one call).
The children block on an ``asyncio.Event`` that is only set once the test has seen what it
needs, so the outcome never depends on how fast anything is."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_sdk import (
    AgentResponse,
    CallContext,
    Executor,
    HierarchyLimits,
    Message,
    RunState,
    Usage,
    agent_tool,
    fan_out,
    run_scope,
)
from agent_sdk.run import note_usage


class Children:
    """Sub-agents that count their starts, note two model calls and wait for ``release``."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.first_in = asyncio.Event()
        self.release = asyncio.Event()
        self.spec = agent_tool(self.invoke, name="worker", description="d")

    async def invoke(self, request: Any, ctx: CallContext) -> AgentResponse:
        self.started.append(str(request))
        note_usage(Usage(model_calls=2))  # as a plugin reports the calls it makes
        self.first_in.set()
        await self.release.wait()
        return AgentResponse(messages=[Message("assistant", "done")], usage=Usage(model_calls=2))

    def call(self, request: str) -> Any:
        return Executor().run_spec(self.spec, {"request": request})


ONE_AT_A_TIME = HierarchyLimits(max_model_calls=5, max_parallel=1)


@pytest.mark.parametrize("how", ["timed-out", "cancelled"])
def test_children_that_waited_for_their_slot_pay_nothing(how):
    # asyncio.wait_for raises asyncio.TimeoutError, which is TimeoutError only from 3.11.
    async def main() -> tuple[Children, RunState, str]:
        children = Children()
        async with run_scope(limits=ONE_AT_A_TIME) as state:
            running = asyncio.ensure_future(children.call("first"))
            await children.first_in.wait()  # it holds the only slot until `release`
            queued = [children.call(f"queued-{i}") for i in range(4)]
            if how == "timed-out":
                outcomes = await asyncio.gather(
                    *(asyncio.wait_for(q, 0.01) for q in queued), return_exceptions=True
                )
                assert all(isinstance(o, asyncio.TimeoutError) for o in outcomes), outcomes
            else:
                tasks = [asyncio.ensure_future(q) for q in queued]
                # Let them run up to their wait for the slot (no event marks that point;
                # each reserves its call just before it waits).
                while state.reserved < 5:  # noqa: ASYNC110
                    await asyncio.sleep(0)
                for task in tasks:
                    task.cancel()
                outcomes = await asyncio.gather(*tasks, return_exceptions=True)
                assert all(isinstance(o, asyncio.CancelledError) for o in outcomes), outcomes
            assert children.started == ["first"]
            assert state.spent == 0 and state.reserved == 1, "only the running child holds one"
            # The one that ran is timed out in turn: it pays what it was seen using.
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(running, 0.01)
            assert state.spent == 2 and state.reserved == 0
            # The budget left is what was not used: the next child runs.
            children.release.set()
            after = await children.call("after")
            return children, state, after.text

    children, state, text = asyncio.run(main())
    assert text == "done" and children.started == ["first", "after"]
    assert state.spent == 4 and state.reserved == 0 and state.active == 0
    assert state.report.per_path["worker"].calls == 2  # the queued ones were no calls


def test_fan_out_with_a_timeout_charges_only_the_children_that_started():
    """The issue's case: ``max_parallel=1`` and ``fan_out(timeout=...)`` of five children
    that would each outlast it. However many got their turn, each pays its two calls and
    the waiting ones nothing; a call after it is not refused for budget."""

    async def main() -> tuple[Children, RunState, Any, str]:
        children = Children()
        async with run_scope(limits=HierarchyLimits(max_model_calls=20, max_parallel=1)) as state:
            calls = {f"c{i}": (lambda i=i: children.call(f"c{i}")) for i in range(5)}
            result = await fan_out(calls, timeout=0.05)
            children.release.set()
            after = await children.call("after")
            return children, state, result, after.text

    children, state, result, text = asyncio.run(main())
    assert sorted(result.timed_out) == [f"c{i}" for i in range(5)]
    ran = len(children.started) - 1  # less the one after
    assert ran >= 1 and text == "done"
    assert state.spent == 2 * ran + 2 and state.reserved == 0
    assert state.report.per_path["worker"].calls == ran + 1
