"""The one shape every integration has: the same keywords, the one approval gate built from
the executor, one tool-name rule, one history vocabulary, and the 0.1 names still working."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

import agent_sdk
import agent_sdk_fast_agent
from agent_sdk import (
    AutoApprove,
    ConfigurationError,
    Decision,
    Executor,
    Registry,
    TokenAuthority,
    tool_error,
)
from agent_sdk.testing import ToolCall, Turn
from agent_sdk.testing.contract import CountingPort, error_of
from agent_sdk_fast_agent import (
    INTEGRATION,
    AgentSDKTool,
    ToolGate,
    fast_agent_agent_tool,
    fast_agent_tool,
    orchestrate,
)


def results(agent: Any) -> dict[str, tuple[str, bool]]:
    out = {}
    for message in agent.last_turn_messages:
        for call_id, result in (message.tool_results or {}).items():
            out[call_id] = ("".join(b.text for b in result.content), bool(result.is_error))
    return out


async def test_a_confirm_tool_with_an_executor_of_its_own_authority_runs_once(app: Any) -> None:
    """The bug behind the one gate: a gate minting tokens with the process-wide authority
    made an executor with its own authority refuse every approved call."""
    registry = Registry()
    ran: list[str] = []

    @registry.tool(confirm=True)
    def refund(order_id: str) -> str:
        """Refund an order."""
        ran.append(order_id)
        return f"refunded {order_id}"

    executor = Executor(registry, authority=TokenAuthority())  # no port of its own
    tool = fast_agent_tool(registry.get("refund"), executor=executor, approval=AutoApprove())
    script = [Turn.call(ToolCall("refund", {"order_id": "42"}, id="rf1")), Turn.say("done")]
    async with app({"orch": script}) as fa:
        agent = orchestrate(fa.orch, tools=[tool])
        assert await agent.send("go") == "done"
        out = results(agent)
    assert out["rf1"] == ("refunded 42", False)
    assert ran == ["42"], "approved once, run exactly once"
    assert executor.authority.outstanding() == 0


async def test_a_plain_function_is_a_tool(app: Any) -> None:
    def multiply(a: int, b: int) -> int:
        """Multiply two numbers."""
        return a * b

    tool = fast_agent_tool(multiply)
    assert isinstance(tool, AgentSDKTool) and tool.name == "multiply"
    assert tool.description == "Multiply two numbers."
    script = [Turn.call(ToolCall("multiply", {"a": 6, "b": 7}, id="m1")), Turn.say("done")]
    async with app({"orch": script}) as fa:
        agent = orchestrate(fa.orch, tools=[tool])
        await agent.send("go")
        assert results(agent)["m1"] == ("42", False)


async def test_agent_tool_names_follow_the_one_rule(app: Any) -> None:
    with pytest.raises(ConfigurationError, match="agent tool name 'ask lead!' is invalid"):
        fast_agent_agent_tool(lambda: None, name="ask lead!")
    async with app({"Lead.v2": [Turn.say("hi")]}) as fa:
        tool = fast_agent_agent_tool(fa["Lead.v2"])
        assert tool.name == "Lead_v2", "a name taken from the agent is made valid, case kept"
        assert fast_agent_agent_tool(fa["Lead.v2"], name="Ask-Lead").name == "Ask-Lead"


def test_an_unsupported_history_mode_names_the_supported_ones() -> None:
    with pytest.raises(ConfigurationError, match="use one of 'fresh', 'fork', 'shared'"):
        fast_agent_agent_tool(lambda: None, name="x", history="forever")


@pytest.mark.parametrize(("old", "new"), [("scratch", "fresh"), ("fork_and_merge", "shared")])
async def test_the_old_history_names_warn_and_still_work(app: Any, old: str, new: str) -> None:
    script = {
        "orch": [Turn.call(ToolCall("memo", {"request": "hi"}, id="h1")), Turn.say("done")],
        "memo": [Turn.echo()],
    }
    async with app(script) as fa:
        with pytest.warns(DeprecationWarning, match=f"history={new!r}"):
            tool = fast_agent_agent_tool(fa.memo, history=old)
        agent = orchestrate(fa.orch, tools=[tool])
        await agent.send("go")
        assert results(agent)["h1"] == ("hi", False)
        shared = [m.all_text() for m in fa.memo.message_history]
    assert ("hi" in shared) == (new == "shared")


class ApprovesYes:
    def __init__(self) -> None:
        self.asked: list[str] = []

    async def request(self, tool: str, arguments: dict[str, Any], **_: Any) -> Decision:
        self.asked.append(arguments["request"])
        return Decision(arguments["request"] == "yes", reason="only yes")


async def test_agent_tools_take_an_approval_port_for_confirm(app: Any) -> None:
    scripts = {
        "orch": [
            Turn.call(ToolCall("judge", {"request": "yes"}, id="j1")),
            Turn.call(ToolCall("judge", {"request": "no"}, id="j2")),
            Turn.say("done"),
        ],
        "judge": [Turn.echo()],
    }
    port = ApprovesYes()
    async with app(scripts) as fa:
        tool = fast_agent_agent_tool(fa.judge, confirm=True, approval=port)
        agent = orchestrate(fa.orch, tools=[tool])
        await agent.send("go")
        out = results(agent)
    assert out["j1"] == ("yes", False)
    assert out["j2"][1] and error_of(out["j2"][0])["kind"] == "approval-denied"  # type: ignore[index]
    assert port.asked == ["yes", "no"]


async def test_tool_gate_denials_are_kept_for_the_host(app: Any) -> None:
    from fast_agent.tools.function_tool_loader import build_default_function_tool

    async def local_weather(city: str) -> str:
        return f"{city}: sunny"

    native = build_default_function_tool(local_weather, name="local_weather", description="W.")
    script = [Turn.call(ToolCall("local_weather", {"city": "X"}, id="tg-1")), Turn.say("done")]
    gate = INTEGRATION.bind_approval(CountingPort(False))
    assert isinstance(gate, ToolGate)
    async with app({"orch": script}) as fa:
        fa.orch.add_tool(native)
        orchestrate(fa.orch, gate=gate)
        await fa.orch.send("go")
        text, is_error = results(fa.orch)["tg-1"]
    assert is_error and error_of(text)["kind"] == "approval-denied"  # type: ignore[index]
    kept = tool_error("tg-1")
    assert kept is not None and kept.kind.value == "approval-denied"


async def test_the_exception_of_a_failed_call_is_kept_by_the_core(app: Any) -> None:
    def explode() -> str:
        """Fails."""
        raise RuntimeError("boom in the ledger")

    script = [Turn.call(ToolCall("explode", {}, id="ex-1")), Turn.say("done")]
    async with app({"orch": script}) as fa:
        agent = orchestrate(fa.orch, tools=[fast_agent_tool(explode)])
        await agent.send("go")
    kept = tool_error("ex-1")
    assert kept is not None and isinstance(kept.cause, RuntimeError)
    with pytest.warns(DeprecationWarning, match="tool_error"):
        old = agent_sdk_fast_agent.tool_exception
    assert old("ex-1") is kept.cause, "tool_exception: the cause, as before"
    assert old("never-failed") is None


@pytest.mark.parametrize(
    ("old", "module", "new"),
    [
        ("instrument", "agent_sdk_fast_agent", "orchestrate"),
        ("HISTORY_MODES", "agent_sdk", "HISTORY_MODES"),
        ("HistoryMode", "agent_sdk", "HistoryMode"),
    ],
)
def test_moved_names_warn_and_still_work(old: str, module: str, new: str) -> None:
    target = getattr(importlib.import_module(module), new)
    with pytest.warns(DeprecationWarning, match=new):
        assert getattr(agent_sdk_fast_agent, old) is target


def test_bind_context_is_now_the_integrations() -> None:
    with pytest.warns(DeprecationWarning, match=r"INTEGRATION\.bind_context"):
        bind = agent_sdk_fast_agent.bind_context
    assert bind("toolu_1").call_id == "toolu_1"


def test_the_public_shape() -> None:
    assert set(agent_sdk_fast_agent.__all__) >= {
        "INTEGRATION",
        "fast_agent_tool",
        "fast_agent_tools",
        "fast_agent_agent_tool",
        "orchestrate",
    }
    assert agent_sdk.get_integration("fast-agent") is INTEGRATION
    with pytest.raises(AttributeError):
        agent_sdk_fast_agent.no_such_name  # noqa: B018
