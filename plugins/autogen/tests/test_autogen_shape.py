"""AutoGen's part of the one shape: teams and factories as agent tools (their names, the
history modes they can have), the public keywords and names. The shape every plugin has
(keywords, approval, names, history, options, kept exceptions) is the contract kit's C0."""

from __future__ import annotations

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
    get_integration,
)
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk_autogen import (
    INTEGRATION,
    autogen_agent_tool,
    autogen_run,
    autogen_team_tool,
)
from agent_sdk_autogen.testing import scripted_agent


def results(result: Any) -> dict[str, Any]:
    return {
        r.call_id: r
        for m in result.messages
        if isinstance(m, ToolCallExecutionEvent)
        for r in m.content
    }


def crew(name: str = "crew") -> RoundRobinGroupChat:
    return RoundRobinGroupChat(
        [scripted_agent("member", [Turn.echo()])],
        termination_condition=MaxMessageTermination(2),
        name=name,
        description="A crew of one.",
    )


def test_agent_and_team_names_are_made_valid_with_their_case_kept() -> None:
    agent = scripted_agent("Lead", [Turn.say("hi")])
    assert autogen_agent_tool(agent).name == "Lead", "case kept (0.1 kept it too)"
    with pytest.raises(ConfigurationError, match="agent tool name 'ask lead!' is invalid"):
        autogen_team_tool(agent, name="ask lead!")
    # A team's name may be any text: it is made a valid tool name, case kept.
    assert autogen_team_tool(crew("Crew v2.0")).name == "Crew_v2_0"
    assert autogen_team_tool(lambda: crew("Crew v2.0")).name == "Crew_v2_0"


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
