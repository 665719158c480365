"""The hooks take effect once the plugin is installed (discovered through its entry point)."""

import asyncio

from agent_sdk_minifw.framework import ToolEvent

from agent_sdk import AgentResponse, Executor, Message, Registry, get_integration
from agent_sdk.extraction import extract
from agent_sdk.plugins import loaded_plugins
from agent_sdk.testing import Turn


def test_discovered_through_the_entry_point():
    assert any(p.entry_point == "minifw" for p in loaded_plugins())
    assert get_integration("minifw").harness == "agent_sdk_minifw.testing:MiniHarness"


def test_approval_policy_allows_lookups_and_denies_deletes():
    registry = Registry()

    @registry.tool(confirm=True)
    async def lookup_price(sku: str) -> str:
        return "9.99"

    @registry.tool(confirm=True)
    async def delete_account(user: str) -> str:
        return "deleted"

    executor = Executor(registry)  # no approval port: without the policy both would be denied
    assert asyncio.run(executor.run("lookup_price", {"sku": "a"})).text == "9.99"
    denied = asyncio.run(executor.run("delete_account", {"user": "a"}))
    assert denied.error.kind.value == "approval-denied" and "policy" in denied.error.message


def test_bullets_output_mode():
    response = AgentResponse(messages=[Message("assistant", "one"), Message("assistant", "two")])
    assert extract(response, "bullets") == "- one\n- two"


def test_context_binding_and_export_through_the_host():
    integration = get_integration("minifw")
    ctx = integration.bind_context(ToolEvent("call-1", "t", "{}", "session-1", "agent"))
    assert (ctx.call_id, ctx.run_id, ctx.thread_id) == ("call-1", "session-1", "session-1")
    registry = Registry()

    @registry.tool
    async def add(a: int, b: int) -> int:
        return a + b

    tool = integration.export_tool(registry.get("add"))
    from agent_sdk_minifw.framework import Agent

    from agent_sdk.testing import ToolCall

    session = asyncio.run(
        Agent(
            "a", [Turn.call(ToolCall("add", {"a": 1, "b": 2}, id="c1")), Turn.say("ok")], [tool]
        ).run("go")
    )
    assert session.results[0].text == "3" and session.final_text == "ok"
