"""AG2's part of the one shape: where an AG2 agent keeps its name, history "shared" on
AG2 streams, the public names and the 0.1 names still working. The shape every plugin has
(keywords, approval, names, history, options, kept exceptions) is the contract kit's C0."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from ag2 import Agent
from ag2_helpers import call, kind, run_agent

import agent_sdk
import agent_sdk_ag2
from agent_sdk import (
    ConfigurationError,
    Executor,
    Registry,
    run_scope,
    tool_error,
)
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_ag2 import INTEGRATION, ag2_agent_tool
from agent_sdk_ag2.testing import ScriptedConfig


def payments() -> tuple[Registry, list[int]]:
    registry = Registry()
    paid: list[int] = []

    @registry.tool(confirm=True)
    def pay(amount: int) -> str:
        """Pay."""
        paid.append(amount)
        return f"paid {amount}"

    return registry, paid


def test_a_name_from_the_agent_is_made_valid_with_its_case_kept() -> None:
    tool = ag2_agent_tool(Agent("Legal Team (EU)", config=ScriptedConfig([])))
    assert tool.name == "Legal_Team_EU"
    assert "Legal Team (EU)" in tool.schema.function.description
    with pytest.raises(ConfigurationError, match="pass name="):
        ag2_agent_tool(Agent("!!!", config=ScriptedConfig([])))


async def test_history_shared_continues_the_agents_one_conversation() -> None:
    memo = Agent("memo", config=ScriptedConfig([Turn.echo()]))
    tool = ag2_agent_tool(memo, history="shared")
    one, two = call("memo", {"request": "one"}), call("memo", {"request": "two"})
    _, results, _ = await run_agent([tool], [Turn.call(one), Turn.call(two), Turn.say("done")])
    # the second call sees the first call's request and answer
    assert [r.text for r in results] == ["one", "one\none\ntwo"]
    # another tool of the same agent continues the same conversation
    again = ag2_agent_tool(memo, name="memo_again", history="shared")
    three = call("memo_again", {"request": "three"})
    _, results, _ = await run_agent([again], [Turn.call(three), Turn.say("done")])
    assert results[0].text.splitlines()[-1] == "three" and "two" in results[0].text


async def test_history_shared_takes_parallel_calls_one_at_a_time() -> None:
    memo = Agent("memo", config=ScriptedConfig([Turn.say("noted", delay=0.01)]))
    tool = ag2_agent_tool(memo, history="shared", return_mode="all")
    calls = [call("memo", {"request": r}) for r in ("a", "b", "c")]
    async with run_scope() as state:
        _, results, _ = await run_agent([tool], [Turn.call(*calls), Turn.say("done")])
    # every call reads back only what it added: its own request's answer
    assert sorted(r.text for r in results) == ["noted"] * 3
    assert state.report.per_path["memo"].usage.model_calls == 3


async def test_history_shared_refuses_a_call_back_into_its_own_conversation() -> None:
    # Under another tool name the core's recursion guard does not see it; the call would
    # wait for its own turn forever.
    inner = call("memo_again", {"request": "x"})
    memo = Agent("memo", config=ScriptedConfig([Turn.call(inner), Turn.echo()]))
    memo.tools.append(ag2_agent_tool(memo, name="memo_again", history="shared"))
    tool = ag2_agent_tool(memo, history="shared")
    _, results, _ = await run_agent(
        [tool], [Turn.call(call("memo", {"request": "go"})), Turn.say("done")]
    )
    assert "conversation is already in this call path" in results[0].text
    assert kind(tool_error(inner.id).to_model_text()) == "recursion"  # type: ignore[union-attr]


async def test_the_agent_tool_runs_through_the_executor_it_is_given() -> None:
    executor = Executor()
    tool = ag2_agent_tool(Agent("w", config=ScriptedConfig([Turn.say("ok")])), executor=executor)
    assert tool.executor is executor
    c = call("w", {"request": "go"})
    _, results, _ = await run_agent([tool], [Turn.call(c), Turn.say("done")])
    assert results[0].text == "ok"


def test_an_agent_tool_needs_an_ag2_agent() -> None:
    with pytest.raises(ConfigurationError, match=r"needs an ag2\.Agent"):
        ag2_agent_tool(object())  # type: ignore[arg-type]


def test_the_old_history_names_are_mapped_with_a_warning() -> None:
    agent = Agent("a", config=ScriptedConfig([]))
    with pytest.warns(DeprecationWarning, match="history='shared'"):
        ag2_agent_tool(agent, history="fork_and_merge")


def test_the_old_hook_name_warns_once_and_still_works() -> None:
    from agent_sdk_ag2 import _integration

    with pytest.warns(DeprecationWarning, match=r"agent_sdk_ag2\._integration"):
        old = agent_sdk_ag2.agent_sdk_integrations
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert agent_sdk_ag2.agent_sdk_integrations is old  # once only
    assert old is _integration.agent_sdk_integrations and old() == [INTEGRATION]


def test_the_public_shape() -> None:
    assert set(agent_sdk_ag2.__all__) == {
        "INTEGRATION",
        "AgentSDKTool",
        "SpanMiddleware",
        "__version__",
        "ag2_agent_tool",
        "ag2_agent_tool_spec",
        "ag2_instrument",
        "ag2_tool",
        "ag2_tools",
    }
    assert agent_sdk.get_integration("ag2") is INTEGRATION
    assert agent_sdk.get_integration("ag2-1") is INTEGRATION
    assert INTEGRATION.history_modes == ("fresh", "shared")
    for gone in ("bridge", "check_bridge", "agent_sdk_export_tool", "agent_sdk_bind_context"):
        with pytest.raises(AttributeError):
            getattr(agent_sdk_ag2, gone)


def test_importing_the_entry_point_does_not_import_ag2() -> None:
    import subprocess
    import sys

    code = (
        "import sys, agent_sdk_ag2._integration, agent_sdk_ag2; "
        "assert not any(m == 'ag2' or m.startswith('ag2.') for m in sys.modules), 'ag2 loaded'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_harness_runs_outside_pytest() -> None:
    registry, paid = payments()
    harness = INTEGRATION.load_harness()
    tool = harness.export_tool(registry.get("pay"), executor=Executor(registry))
    c = ToolCall("pay", {"amount": 1})
    result = asyncio.run(harness.run([tool], [Turn.call(c), Turn.say("done")]))
    assert kind(result.result(c.id).text) == "approval-denied" and paid == []
