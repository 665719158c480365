"""fast-agent's part of the one shape: names of app agents, approval for agent tools and
fast-agent's own tools (ToolGate), and the 0.1 names still working. The shape every plugin
has (keywords, approval, names, history, options, kept exceptions) is the kit's C0."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

import agent_sdk
import agent_sdk_fast_agent
from agent_sdk import (
    ConfigurationError,
    Decision,
    tool_error,
)
from agent_sdk.testing import ToolCall, Turn
from agent_sdk.testing.contract import CountingPort, error_of
from agent_sdk_fast_agent import (
    INTEGRATION,
    ToolGate,
    fast_agent_agent_tool,
    fast_agent_instrument,
    fast_agent_tool,
)


def results(agent: Any) -> dict[str, tuple[str, bool]]:
    out = {}
    for message in agent.last_turn_messages:
        for call_id, result in (message.tool_results or {}).items():
            out[call_id] = ("".join(b.text for b in result.content), bool(result.is_error))
    return out


async def test_a_name_from_the_agent_is_made_valid_with_its_case_kept(app: Any) -> None:
    async with app({"Lead.v2": [Turn.say("hi")]}) as fa:
        tool = fast_agent_agent_tool(fa["Lead.v2"])
        assert tool.name == "Lead_v2", "a name taken from the agent is made valid, case kept"
    with pytest.raises(ConfigurationError, match="give name="):
        fast_agent_agent_tool(lambda: None)


async def test_the_old_shared_history_name_warns_and_still_shares(app: Any) -> None:
    # ("scratch" -> "fresh" is the kit's C0.)
    script = {
        "orch": [Turn.call(ToolCall("memo", {"request": "hi"}, id="h1")), Turn.say("done")],
        "memo": [Turn.echo()],
    }
    async with app(script) as fa:
        with pytest.warns(DeprecationWarning, match="history='shared'"):
            tool = fast_agent_agent_tool(fa.memo, history="fork_and_merge")
        agent = fast_agent_instrument(fa.orch, tools=[tool])
        await agent.send("go")
        assert results(agent)["h1"] == ("hi", False)
        shared = [m.all_text() for m in fa.memo.message_history]
    assert "hi" in shared, "the template's own history holds the call"


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
        agent = fast_agent_instrument(fa.orch, tools=[tool])
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
        fast_agent_instrument(fa.orch, gate=gate)
        await fa.orch.send("go")
        text, is_error = results(fa.orch)["tg-1"]
    assert is_error and error_of(text)["kind"] == "approval-denied"  # type: ignore[index]
    kept = tool_error("tg-1")
    assert kept is not None and kept.kind.value == "approval-denied"


async def test_the_old_tool_exception_name_answers_the_cause(app: Any) -> None:
    def explode() -> str:
        """Fails."""
        raise RuntimeError("boom in the ledger")

    script = [Turn.call(ToolCall("explode", {}, id="ex-1")), Turn.say("done")]
    async with app({"orch": script}) as fa:
        agent = fast_agent_instrument(fa.orch, tools=[fast_agent_tool(explode)])
        await agent.send("go")
    kept = tool_error("ex-1")
    assert kept is not None
    with pytest.warns(DeprecationWarning, match="tool_error"):
        old = agent_sdk_fast_agent.tool_exception
    assert old("ex-1") is kept.cause, "tool_exception: the cause, as before"
    assert old("never-failed") is None


@pytest.mark.parametrize(
    ("old", "module", "new"),
    [
        ("instrument", "agent_sdk_fast_agent", "fast_agent_instrument"),
        ("orchestrate", "agent_sdk_fast_agent", "fast_agent_instrument"),
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
        "fast_agent_instrument",
    }
    assert agent_sdk.get_integration("fast-agent") is INTEGRATION
    with pytest.raises(AttributeError):
        agent_sdk_fast_agent.no_such_name  # noqa: B018
