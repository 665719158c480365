"""Sub-agents started from threads that do not copy the context (issue 15, item 12): such a
thread looks exactly like a new root run, so by default it begins one; a run opened with
``detached="refuse"`` refuses it, naming the fix, and a handler that copies the context
stays inside the run's limits."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from typing import Any

import pytest

from agent_sdk import (
    AgentResponse,
    CallContext,
    ConfigurationError,
    Executor,
    HierarchyLimits,
    Message,
    agent_tool,
    run_scope,
)
from agent_sdk.run import refusing_detached

started: list[str] = []


async def child(request: Any, ctx: CallContext) -> AgentResponse:
    started.append("/".join(ctx.path))
    return AgentResponse(messages=[Message("assistant", f"child at depth {len(ctx.path)}")])


CHILD = agent_tool(child, name="child", description="a sub-agent")


def _in_thread(copy: bool) -> str:
    """What a handler gets when it starts the sub-agent in a plain thread."""
    box: dict[str, str] = {}

    def work() -> None:
        outcome = asyncio.run(Executor().run_spec(CHILD, {"request": "x"}))
        box["text"] = outcome.text

    target = contextvars.copy_context().run if copy else None
    thread = threading.Thread(target=(lambda: target(work)) if target else work)
    thread.start()
    thread.join(30)
    return box["text"]


@pytest.mark.parametrize(
    ("detached", "copy", "expected"),
    [
        ("new-run", False, "child at depth 1"),  # documented: a new root run begins
        ("refuse", False, "detached='refuse'"),
        ("refuse", True, "depth-exceeded"),  # the context came along: max_depth=1 holds
        ("new-run", True, "depth-exceeded"),
    ],
)
def test_a_detached_sub_agent(detached, copy, expected):
    started.clear()
    limits = HierarchyLimits(max_depth=1, detached=detached)

    async def main() -> str:
        async with run_scope(limits=limits):
            spec = agent_tool(
                _ParentInvoke(copy), name="parent", description="starts a child in a thread"
            )
            return (await Executor().run_spec(spec, {"request": "go"})).text

    text = asyncio.run(main())
    assert expected in text, text
    assert bool(started) is (expected == "child at depth 1")
    assert refusing_detached() is None, "the refusal ends with the run"


class _ParentInvoke:
    def __init__(self, copy: bool) -> None:
        self.copy = copy

    async def __call__(self, request: Any, ctx: CallContext) -> AgentResponse:
        text = await asyncio.to_thread(_in_thread, self.copy)
        return AgentResponse(messages=[Message("assistant", text)])


def test_detached_must_be_known():
    with pytest.raises(ConfigurationError, match="detached"):
        HierarchyLimits(detached="ignore")  # type: ignore[arg-type]
