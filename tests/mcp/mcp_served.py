"""What the MCP tests serve (``agent-sdk serve-mcp mcp_served:tools`` from this folder):
plain tools and framework-free agent tools run by the core's ``agent_tool``."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from agent_sdk import AgentResponse, Executor, Message, Registry, Usage
from agent_sdk.agents import agent_tool
from agent_sdk.approval.store import DeferredApproval
from agent_sdk.context import CallContext

BACK_URL = "MCP_TEST_BACK_URL"
"""Where ``tax`` finds the caller's ``legal`` (recursion across hosts)."""
APPROVALS = "MCP_TEST_APPROVALS"
"""The SQLite file of this server's own approvals."""


def _registry() -> Registry:
    registry = Registry()

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @registry.tool
    def boom() -> str:
        """Always fails."""
        raise RuntimeError("the tool broke")

    @registry.tool
    async def slow(seconds: float) -> str:
        """Sleep, then answer."""
        await asyncio.sleep(seconds)
        return "slept"

    @registry.tool(confirm=True)
    def transfer(amount: int) -> str:
        """Move money (needs this server's approval)."""
        return f"moved {amount}"

    return registry


async def _leaf(request: Any, ctx: CallContext) -> AgentResponse:
    return AgentResponse(
        messages=[Message("assistant", f"leaf at {ctx.path_text}")], usage=Usage(model_calls=5)
    )


LEAF = agent_tool(_leaf, name="leaf", description="A leaf agent: five model calls.")


async def _deep(request: Any, ctx: CallContext) -> AgentResponse:
    outcome = await Executor(Registry([LEAF])).run("leaf", {"request": "go"})
    return AgentResponse(
        messages=[Message("assistant", f"deep at {ctx.path_text}; leaf said: {outcome.text}")],
        usage=Usage(model_calls=1),
    )


async def _tax(request: Any, ctx: CallContext) -> AgentResponse:
    text = f"tax at {ctx.path_text} (run {ctx.run_id})"
    back = os.environ.get(BACK_URL)
    if back:
        from agent_sdk.mcp import remote_tools

        outcome = await Executor(Registry(await remote_tools(back, names=["legal"]))).run(
            "legal", {"request": "check the tax clause"}
        )
        text += f"; legal said: {outcome.text}"
    return AgentResponse(messages=[Message("assistant", text)], usage=Usage(model_calls=2))


def tools() -> Executor:
    registry = _registry()
    registry.add(agent_tool(_deep, name="deep", description="Calls the leaf agent."))
    registry.add(agent_tool(_tax, name="tax", description="The tax reviewer."))
    store = os.environ.get(APPROVALS)
    return Executor(registry, approval=DeferredApproval(store) if store else None)
