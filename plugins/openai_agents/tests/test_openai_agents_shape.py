"""openai-agents' part of the one shape: where an SDK agent keeps its name and description,
the SDK's own options (max_turns, run_config), native approval, and the 0.1 names kept as
deprecated aliases. The shape every plugin has (keywords, approval, names, history, options,
kept exceptions) is the contract kit's C0."""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner

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
)
from agent_sdk_openai_agents.testing import ScriptedModel


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


def test_a_name_from_the_agent_is_made_valid_with_its_case_kept() -> None:
    agent = Agent(name="Legal Team (EU)", model=ScriptedModel([Turn.say("ok")]))
    tool = openai_agents_agent_tool(agent)
    assert tool.name == "Legal_Team_EU"
    assert tool._is_agent_tool and tool._agent_instance is agent  # the SDK restores it by this
    assert tool.description == "Ask the Legal Team (EU) agent."
    described = Agent(name="tax", handoff_description="Tax questions.")
    assert openai_agents_agent_tool(described).description == "Tax questions."


def test_what_the_sdk_cannot_take_is_refused_saying_why() -> None:
    registry, _ = payments()
    with pytest.raises(ConfigurationError, match="no tool middleware"):
        INTEGRATION.tool(registry.get("pay"), middleware=[object()])
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
