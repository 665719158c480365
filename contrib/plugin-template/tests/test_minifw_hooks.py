"""The hooks take effect once the plugin is installed (discovered through its entry point)."""

import asyncio

import pytest

from agent_sdk import AgentResponse, AutoApprove, Executor, Message, Registry, get_integration
from agent_sdk.extraction import extract
from agent_sdk.plugins import loaded_plugins
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk_minifw import _integration, minifw_tool
from agent_sdk_minifw.framework import Agent, ToolEvent


def test_discovered_through_the_entry_point():
    assert any(p.entry_point == "minifw" for p in loaded_plugins())
    assert get_integration("minifw").harness == "agent_sdk_minifw.testing:MiniHarness"


def confirm_tools() -> Executor:
    registry = Registry()

    @registry.tool(confirm=True)
    async def lookup_price(sku: str) -> str:
        return "9.99"

    @registry.tool(confirm=True)
    async def delete_account(user: str) -> str:
        return "deleted"

    return Executor(registry)  # no approval port: a confirm call is denied


def test_installing_the_template_changes_no_approval():
    """Its policy speaks only about names the host declared read-only: none by default."""
    executor = confirm_tools()
    for tool, args in (("lookup_price", {"sku": "a"}), ("delete_account", {"user": "a"})):
        outcome = asyncio.run(executor.run(tool, args))
        assert outcome.error.kind.value == "approval-denied"
        assert "no approval port" in outcome.error.message  # the port decided, not a policy
    approving = Executor(executor.registry, approval=AutoApprove())
    assert asyncio.run(approving.run("delete_account", {"user": "a"})).text == "deleted"


def test_host_declared_read_only_tools_need_no_person(monkeypatch):
    monkeypatch.setattr(_integration, "READ_ONLY_TOOLS", {"lookup_price"})
    executor = confirm_tools()
    assert asyncio.run(executor.run("lookup_price", {"sku": "a"})).text == "9.99"
    assert asyncio.run(executor.run("delete_account", {"user": "a"})).error is not None


def test_bullets_output_mode():
    response = AgentResponse(messages=[Message("assistant", "one"), Message("assistant", "two")])
    assert extract(response, "bullets") == "- one\n- two"


def test_context_binding_and_export_through_the_host():
    integration = get_integration("minifw")
    ctx = integration.bind_context(ToolEvent("call-1", "t", "{}", "session-1", "agent"))
    assert (ctx.call_id, ctx.run_id, ctx.thread_id) == ("call-1", "session-1", "session-1")

    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    tool = minifw_tool(add)  # a plain function is described from its signature
    assert tool.parameters["required"] == ["a", "b"]
    session = asyncio.run(
        Agent(
            "a", [Turn.call(ToolCall("add", {"a": 1, "b": 2}, id="c1")), Turn.say("ok")], [tool]
        ).run("go")
    )
    assert session.results[0].text == "3" and session.final_text == "ok"


def test_old_names_still_work_and_warn():
    import agent_sdk_minifw

    with pytest.warns(DeprecationWarning, match="minifw_tool"):
        old = agent_sdk_minifw.export_tool
    assert old is minifw_tool
