"""The one shape every integration has: the same public keywords, the approval gate built
from the executor (its own token authority), the core's tool-name and history rules, the
0.1 names still working."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest
from ag2 import Agent
from ag2_helpers import call, kind, run_agent

import agent_sdk
import agent_sdk_ag2
from agent_sdk import (
    AutoApprove,
    CallbackApproval,
    ConfigurationError,
    Executor,
    Registry,
    TokenAuthority,
    run_scope,
    tool_error,
)
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_ag2 import INTEGRATION, AgentSDKTool, ag2_agent_tool, ag2_tool, ag2_tools
from agent_sdk_ag2.testing import AG2Harness, ScriptedConfig


def payments() -> tuple[Registry, list[int]]:
    registry = Registry()
    paid: list[int] = []

    @registry.tool(confirm=True)
    def pay(amount: int) -> str:
        """Pay."""
        paid.append(amount)
        return f"paid {amount}"

    return registry, paid


@pytest.mark.parametrize("how", ["tool", "tools"])
async def test_an_approved_call_runs_once_with_an_executor_of_its_own_authority(how: str) -> None:
    # The gate is built from the executor, so its tokens are ones that executor accepts: a
    # custom TokenAuthority no longer refuses calls the port approved.
    registry, paid = payments()
    executor = Executor(registry, authority=TokenAuthority())  # no port of its own
    if how == "tool":
        tools = [ag2_tool(registry.get("pay"), executor=executor, approval=AutoApprove())]
    else:
        tools = ag2_tools(registry, executor=executor, approval=AutoApprove())
    c = ToolCall("pay", {"amount": 7})
    result = await AG2Harness().run(tools, [Turn.call(c), Turn.say("done")])
    assert result.result(c.id).text == "paid 7" and result.result(c.id).is_error is False
    assert paid == [7] and result.final_text == "done"
    assert executor.authority.outstanding() == 0


async def test_the_port_is_asked_once_and_the_harness_loop_runs_the_call_once() -> None:
    registry, paid = payments()
    asked: list[str | None] = []

    def reviewer(request: Any) -> bool:
        asked.append(request.call_id)
        return True

    harness = AG2Harness()
    tool = harness.export_tool(
        registry.get("pay"),
        executor=Executor(registry, authority=TokenAuthority()),
        approval=CallbackApproval(reviewer),
    )
    c = ToolCall("pay", {"amount": 3})
    result = await harness.run([tool], [Turn.call(c), Turn.say("done")])
    assert result.result(c.id).text == "paid 3"
    assert paid == [3] and asked == [c.id]


async def test_a_plain_function_is_a_tool() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    tool = ag2_tool(add)
    assert isinstance(tool, AgentSDKTool) and tool.name == "add"
    assert tool.schema.function.description == "Add two numbers."
    c = call("add", {"a": 2, "b": 3})
    _, results, _ = await run_agent([tool], [Turn.call(c), Turn.say("done")])
    assert results[0].text == "5" and results[0].is_error is False


async def test_the_exception_of_a_failed_call_is_kept_by_the_core() -> None:
    def explode() -> str:
        """Fails."""
        raise KeyError("ledger-9")

    c = call("explode")
    _, results, _ = await run_agent([ag2_tool(explode)], [Turn.call(c), Turn.say("ok")])
    assert kind(results[0].text) == "tool-failed"
    kept = tool_error(c.id)
    assert kept is not None and isinstance(kept.cause, KeyError)


def test_an_invalid_explicit_agent_tool_name_is_refused() -> None:
    agent = Agent("legal", config=ScriptedConfig([Turn.say("ok")]))
    with pytest.raises(ConfigurationError, match="agent tool name 'legal review!' is invalid"):
        ag2_agent_tool(agent, name="legal review!")
    with pytest.raises(ConfigurationError):
        ag2_agent_tool(agent, name="x" * 65)
    assert ag2_agent_tool(agent, name="Ask-Legal").name == "Ask-Legal", "valid: kept as given"


def test_a_name_from_the_agent_is_made_valid_with_its_case_kept() -> None:
    tool = ag2_agent_tool(Agent("Legal Team (EU)", config=ScriptedConfig([])))
    assert tool.name == "Legal_Team_EU"
    assert "Legal Team (EU)" in tool.schema.function.description
    with pytest.raises(ConfigurationError, match="pass name="):
        ag2_agent_tool(Agent("!!!", config=ScriptedConfig([])))


@pytest.mark.parametrize("history", ["fork", "everything"])
def test_an_unsupported_history_mode_is_refused_naming_the_supported_ones(history: str) -> None:
    agent = Agent("legal", config=ScriptedConfig([]))
    with pytest.raises(ConfigurationError, match=r"history=.*use one of 'fresh', 'shared'"):
        ag2_agent_tool(agent, history=history)


async def test_history_fresh_asks_on_a_new_stream_per_call() -> None:
    echo = Agent("echo", config=ScriptedConfig([Turn.echo()]))
    tool = ag2_agent_tool(echo, history="fresh")
    one, two = call("echo", {"request": "one"}), call("echo", {"request": "two"})
    _, results, _ = await run_agent([tool], [Turn.call(one), Turn.call(two), Turn.say("done")])
    assert [r.text for r in results] == ["one", "two"]


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


def test_options_are_checked() -> None:
    agent = Agent("a", config=ScriptedConfig([]))
    with pytest.raises(ConfigurationError, match=r"unknown option\(s\) bogus"):
        INTEGRATION.agent_tool(agent, bogus=1)
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
