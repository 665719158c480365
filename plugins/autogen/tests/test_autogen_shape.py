"""The one shape every integration has: the same public keywords, the executor's own token
authority behind the approval gate, the core's tool-name and history rules, and the 0.1
names kept as deprecated aliases."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from autogen_agentchat.agents import UserProxyAgent
from autogen_agentchat.conditions import MaxMessageTermination
from autogen_agentchat.messages import ToolCallExecutionEvent
from autogen_agentchat.teams import RoundRobinGroupChat

import agent_sdk_autogen
from agent_sdk import (
    AutoApprove,
    ConfigurationError,
    Executor,
    Registry,
    TokenAuthority,
    get_integration,
)
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk_autogen import (
    INTEGRATION,
    AutogenTool,
    autogen_agent_tool,
    autogen_run,
    autogen_team_tool,
    autogen_tool,
    autogen_tools,
)
from agent_sdk_autogen.testing import AutogenHarness, scripted_agent


def results(result: Any) -> dict[str, Any]:
    return {
        r.call_id: r
        for m in result.messages
        if isinstance(m, ToolCallExecutionEvent)
        for r in m.content
    }


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
    # The bug behind the one gate: the gate minted tokens with the process-wide authority,
    # so an executor with its own TokenAuthority refused every approved call.
    registry, paid = payments()
    executor = Executor(registry, authority=TokenAuthority())  # no port of its own
    if how == "tool":
        tools = [autogen_tool(registry.get("pay"), executor=executor, approval=AutoApprove())]
    else:
        tools = autogen_tools(registry, executor=executor, approval=AutoApprove())
    call = ToolCall("pay", {"amount": 7})
    agent = scripted_agent("payer", [Turn.call(call), Turn.say("done")], tools=tools)
    result = await autogen_run(agent, task="go")
    seen = results(result)[call.id]
    assert (seen.content, seen.is_error) == ("paid 7", False)
    assert paid == [7], "approved once, run exactly once"
    assert executor.authority.outstanding() == 0


async def test_the_harness_loop_runs_an_approved_call_once() -> None:
    registry, paid = payments()
    harness = AutogenHarness()
    tool = harness.export_tool(
        registry.get("pay"),
        executor=Executor(registry, authority=TokenAuthority()),
        approval=AutoApprove(),
    )
    call = ToolCall("pay", {"amount": 3})
    result = await harness.run([tool], [Turn.call(call), Turn.say("done")])
    assert result.result(call.id).text == "paid 3" and result.result(call.id).is_error is False
    assert paid == [3]


async def test_a_plain_function_is_a_tool() -> None:
    def multiply(a: int, b: int) -> int:
        """Multiply two numbers."""
        return a * b

    tool = autogen_tool(multiply)
    assert isinstance(tool, AutogenTool) and tool.name == "multiply"
    assert tool.description == "Multiply two numbers."
    call = ToolCall("multiply", {"a": 6, "b": 7})
    agent = scripted_agent("asker", [Turn.call(call), Turn.say("done")], tools=[tool])
    seen = results(await autogen_run(agent, task="go"))[call.id]
    assert (seen.content, seen.is_error) == ("42", False)


def crew(name: str = "crew") -> RoundRobinGroupChat:
    return RoundRobinGroupChat(
        [scripted_agent("member", [Turn.echo()])],
        termination_condition=MaxMessageTermination(2),
        name=name,
        description="A crew of one.",
    )


def test_agent_tool_names_follow_the_one_rule() -> None:
    agent = scripted_agent("Lead", [Turn.say("hi")])
    for make in (autogen_agent_tool, autogen_team_tool):
        with pytest.raises(ConfigurationError, match="agent tool name 'ask lead!' is invalid"):
            make(agent, name="ask lead!")
        with pytest.raises(ConfigurationError, match="agent tool name"):
            make(agent, name="x" * 65)
    assert autogen_agent_tool(agent).name == "Lead", "case kept (0.1 kept it too)"
    assert autogen_agent_tool(agent, name="Ask-Lead").name == "Ask-Lead"
    # A team's name may be any text: it is made a valid tool name, case kept.
    assert autogen_team_tool(crew("Crew v2.0")).name == "Crew_v2_0"
    assert autogen_team_tool(lambda: crew("Crew v2.0")).name == "Crew_v2_0"


@pytest.mark.parametrize("make", [autogen_agent_tool, autogen_team_tool])
def test_an_unknown_history_mode_names_the_supported_ones(make: Any) -> None:
    with pytest.raises(ConfigurationError, match="use one of 'fresh', 'fork', 'shared'"):
        make(scripted_agent("lead", [Turn.say("hi")]), history="forever")


def test_a_mode_the_agent_cannot_have_is_refused_saying_what_works() -> None:
    with pytest.raises(ConfigurationError, match=r"team cannot be copied.*'fresh'.*'shared'"):
        autogen_team_tool(crew(), history="fork")
    with pytest.raises(ConfigurationError, match="instance: a factory builds a new one"):
        autogen_agent_tool(lambda: scripted_agent("a", []), history="fork")
    with pytest.raises(ConfigurationError, match="UserProxyAgent cannot be copied"):
        autogen_agent_tool(UserProxyAgent("human"), history="fork")


async def test_agent_and_team_tools_are_one_integration_method() -> None:
    # autogen_team_tool is autogen_agent_tool with a team's words; both take either.
    by_agent_tool = INTEGRATION.agent_tool(crew)
    assert (by_agent_tool.name, by_agent_tool.description) == ("crew", "A crew of one.")
    call = ToolCall("crew", {"request": "hello"})
    agent = scripted_agent("boss", [Turn.call(call), Turn.say("ok")], tools=[by_agent_tool])
    assert results(await autogen_run(agent, task="go"))[call.id].content == "hello"


def test_a_sync_factory_is_built_once_to_read_its_name_and_description() -> None:
    built: list[int] = []

    def make() -> Any:
        built.append(1)
        return scripted_agent("maker", [Turn.say("hi")], description="Makes things.")

    tool = autogen_agent_tool(make)
    assert (tool.name, tool.description) == ("maker", "Makes things.")
    assert built == [1]
    autogen_agent_tool(make, name="m", description="M.")
    assert built == [1], "not built when both are given"


def test_the_public_functions_have_the_common_keywords() -> None:
    common = {"executor": None, "approval": None}
    agent_common = {
        "name": None,
        "description": None,
        "return_mode": "last",
        "history": "fresh",
        "executor": None,
        "timeout": None,
        "input_schema": None,
    }

    def keywords(function: Any) -> dict[str, Any]:
        parameters = list(inspect.signature(function).parameters.values())[1:]
        assert all(p.kind is p.KEYWORD_ONLY for p in parameters)
        return {p.name: p.default for p in parameters}

    assert keywords(autogen_tool) == keywords(autogen_tools) == common
    assert keywords(autogen_agent_tool) == keywords(autogen_team_tool) == agent_common


def test_the_public_shape() -> None:
    assert set(agent_sdk_autogen.__all__) >= {
        "INTEGRATION",
        "autogen_tool",
        "autogen_tools",
        "autogen_agent_tool",
        "autogen_team_tool",
        "autogen_run",
        "collect_tool_errors",
    }
    assert get_integration("autogen") is INTEGRATION is agent_sdk_autogen.INTEGRATION
    assert INTEGRATION.bind_approval(AutoApprove()) is None, "AutoGen has no approval hook"
    with pytest.raises(AttributeError):
        agent_sdk_autogen.no_such_name  # noqa: B018
