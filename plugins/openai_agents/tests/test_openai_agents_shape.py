"""The one shape every integration has: the same public keywords, the executor's own token
authority behind the approval gate, the core's tool-name and history rules, and the 0.1
names kept as deprecated aliases."""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner

import agent_sdk_openai_agents as plugin
from agent_sdk import (
    AutoApprove,
    CallbackApproval,
    ConfigurationError,
    Decision,
    Executor,
    IntegrationError,
    Registry,
    TokenAuthority,
    tool_error,
)
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_openai_agents import (
    INTEGRATION,
    NativeApproval,
    openai_agents_agent_tool,
    openai_agents_tool,
    openai_agents_tools,
)
from agent_sdk_openai_agents.testing import OpenAIAgentsHarness, ScriptedModel


def outputs(result: Any) -> dict[str, str]:
    return {
        i.call_id: i.output
        for i in result.new_items
        if getattr(i, "type", "") == "tool_call_output_item"
    }


def run(tools: list[Any], turns: list[Turn]) -> Any:
    agent = Agent(name="o", model=ScriptedModel(turns), tools=tools)
    return asyncio.run(Runner.run(agent, "go", run_config=RunConfig(tracing_disabled=True)))


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
def test_an_approved_call_runs_once_with_an_executor_of_its_own_authority(how: str) -> None:
    # The gate is built from the executor, so its tokens are ones that executor accepts: a
    # custom TokenAuthority no longer refuses calls the port approved.
    registry, paid = payments()
    executor = Executor(registry, authority=TokenAuthority())
    if how == "tool":
        tools = [openai_agents_tool(registry.get("pay"), executor=executor, approval=AutoApprove())]
    else:
        tools = openai_agents_tools(registry, executor=executor, approval=AutoApprove())
    call = ToolCall("pay", {"amount": 7})
    result = run(tools, [Turn.call(call), Turn.say("done")])
    assert outputs(result)[call.id] == "paid 7"
    assert paid == [7] and result.final_output == "done"


def test_the_port_is_asked_once_and_the_harness_loop_runs_the_call_once() -> None:
    registry, paid = payments()
    asked: list[str | None] = []

    def reviewer(request: Any) -> bool:
        asked.append(request.call_id)
        return True

    harness = OpenAIAgentsHarness()
    tool = harness.export_tool(
        registry.get("pay"),
        executor=Executor(registry, authority=TokenAuthority()),
        approval=CallbackApproval(reviewer),
    )
    call = ToolCall("pay", {"amount": 3})
    result = asyncio.run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
    assert result.result(call.id).text == "paid 3" and result.result(call.id).is_error is False
    assert paid == [3] and asked == [call.id]


def test_a_plain_function_is_a_tool() -> None:
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    tool = openai_agents_tool(add)
    assert isinstance(tool, FunctionTool) and tool.name == "add"
    assert tool.description == "Add two numbers."
    call = ToolCall("add", {"a": 2, "b": 3})
    assert outputs(run([tool], [Turn.call(call), Turn.say("done")]))[call.id] == "5"


def test_an_invalid_explicit_agent_tool_name_is_refused() -> None:
    agent = Agent(name="legal", model=ScriptedModel([Turn.say("ok")]))
    with pytest.raises(ConfigurationError, match="agent tool name"):
        openai_agents_agent_tool(agent, name="legal review!")
    with pytest.raises(ConfigurationError):
        openai_agents_agent_tool(agent, name="x" * 65)


def test_a_name_from_the_agent_is_made_valid_with_its_case_kept() -> None:
    agent = Agent(name="Legal Team (EU)", model=ScriptedModel([Turn.say("ok")]))
    tool = openai_agents_agent_tool(agent)
    assert tool.name == "Legal_Team_EU"
    assert tool._is_agent_tool and tool._agent_instance is agent  # the SDK restores it by this
    assert tool.description == "Ask the Legal Team (EU) agent."
    described = Agent(name="tax", handoff_description="Tax questions.")
    assert openai_agents_agent_tool(described).description == "Tax questions."


@pytest.mark.parametrize("history", ["fork", "shared", "everything"])
def test_an_unsupported_history_mode_is_refused_naming_the_supported_ones(history: str) -> None:
    agent = Agent(name="legal")
    with pytest.raises(ConfigurationError, match=r"history=.*use one of 'fresh'"):
        openai_agents_agent_tool(agent, history=history)


def test_history_fresh_runs_a_fresh_child_per_call() -> None:
    echo = Agent(name="echo", model=ScriptedModel([Turn.echo()]))
    tool = openai_agents_agent_tool(echo, history="fresh")
    first, second = ToolCall("echo", {"request": "one"}), ToolCall("echo", {"request": "two"})
    out = outputs(run([tool], [Turn.call(first), Turn.call(second), Turn.say("done")]))
    assert (out[first.id], out[second.id]) == ("one", "two")


def test_options_are_checked() -> None:
    registry, _ = payments()
    with pytest.raises(ConfigurationError, match="no tool middleware"):
        INTEGRATION.tool(registry.get("pay"), middleware=[object()])
    with pytest.raises(ConfigurationError, match="unknown option"):
        INTEGRATION.tool(registry.get("pay"), bogus=1)
    with pytest.raises(ConfigurationError, match="unknown option"):
        INTEGRATION.agent_tool(Agent(name="a"), bogus=1)
    with pytest.raises(ConfigurationError, match=r"needs an agents\.Agent"):
        openai_agents_agent_tool(object())  # type: ignore[arg-type]
    with pytest.raises(IntegrationError, match="ToolContext"):
        INTEGRATION.bind_context(object())


def test_max_turns_and_run_config_are_framework_options() -> None:
    def again() -> str:
        """Once more."""
        return "again"

    looping = Agent(
        name="looper",
        model=ScriptedModel([Turn.call(ToolCall("again", {}))] * 5),
        tools=[openai_agents_tool(again, executor=Executor())],
    )
    tool = openai_agents_agent_tool(
        looping, max_turns=2, run_config=RunConfig(tracing_disabled=True)
    )
    call = ToolCall("looper", {"request": "go"})
    text = outputs(run([tool], [Turn.call(call), Turn.say("done")]))[call.id]
    assert json.loads(text)["error"]["kind"] == "tool-failed" and "max turns" in text.lower()


def test_the_old_tool_error_name_warns_once_and_is_the_cores() -> None:
    def explode() -> str:
        raise RuntimeError("boom")

    call = ToolCall("explode", {})
    run([openai_agents_tool(explode)], [Turn.call(call), Turn.say("done")])
    with pytest.warns(DeprecationWarning, match="use agent_sdk.tool_error"):
        old = plugin.tool_error
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert plugin.tool_error is old  # once only
    assert old is tool_error
    error = old(call.id)
    assert error is not None and isinstance(error.cause, RuntimeError)


def test_native_approval_keeps_its_name_and_its_old_spellings() -> None:
    native = INTEGRATION.bind_approval(AutoApprove())
    assert isinstance(native, NativeApproval)
    # 0.1 built it from a port directly; that still works
    assert isinstance(NativeApproval(AutoApprove()).gate.port, AutoApprove)
    with pytest.raises(ConfigurationError):
        NativeApproval(object())
    custom = Executor(authority=TokenAuthority())
    assert INTEGRATION.bind_approval(AutoApprove(), executor=custom).gate.authority is (
        custom.authority
    )


def test_native_approval_decisions_is_deprecated_but_answers() -> None:
    from agents import function_tool

    @function_tool
    def wipe(target: str) -> str:
        """Wipe a target."""
        return "wiped"

    native = INTEGRATION.bind_approval(
        CallbackApproval(lambda req: req.arguments["target"] == "tmp")
    )
    wipe.needs_approval = native
    ok, bad = ToolCall("wipe", {"target": "tmp"}), ToolCall("wipe", {"target": "prod"})
    run([wipe], [Turn.call(ok, bad), Turn.say("done")])
    with pytest.warns(DeprecationWarning, match="refusal"):
        decisions = native.decisions
    assert decisions[ok.id] == Decision.approve()
    assert decisions[bad.id].approved is False
