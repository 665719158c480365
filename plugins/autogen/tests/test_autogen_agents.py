"""Agents and teams as tools: a child per call, history modes, usage, structured output."""

from __future__ import annotations

import json
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent, UserProxyAgent
from autogen_agentchat.conditions import MaxMessageTermination
from autogen_agentchat.messages import ToolCallExecutionEvent
from autogen_agentchat.teams import RoundRobinGroupChat
from autogen_agentchat.tools import AgentTool, TeamTool
from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import UserMessage
from pydantic import BaseModel

from agent_sdk import ConfigurationError, run_scope
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk_autogen import autogen_agent_tool, autogen_run, autogen_team_tool
from agent_sdk_autogen.testing import ScriptedChatCompletionClient, scripted_agent


def results(result: Any) -> dict[str, Any]:
    return {
        r.call_id: r
        for m in result.messages
        if isinstance(m, ToolCallExecutionEvent)
        for r in m.content
    }


def two_parallel(name: str, key: str = "request") -> tuple[list[ToolCall], list[Turn]]:
    calls = [ToolCall(name, {key: "alpha-request"}), ToolCall(name, {key: "beta-request"})]
    return calls, [Turn.call(*calls), Turn.say("done")]


def echo_agent(name: str = "echoer", *, turns: int = 2, **options: Any) -> AssistantAgent:
    return AssistantAgent(
        name,
        ScriptedChatCompletionClient([Turn.echo()] * turns),
        description="Echoes what it was sent.",
        system_message=None,
        **options,
    )


async def test_autogen_agent_tool_mixes_parallel_histories() -> None:
    # The AutoGen trap: one shared agent behind AgentTool.
    native = AgentTool(echo_agent(), return_value_as_last_message=True)
    calls, turns = two_parallel("echoer", key="task")
    seen = results(await scripted_agent("boss", turns, tools=[native]).run(task="go"))
    texts = [seen[c.id].content for c in calls]
    assert any("alpha-request" in t and "beta-request" in t for t in texts), texts


async def test_parallel_calls_run_on_clones_of_the_template() -> None:
    template = echo_agent()
    calls, turns = two_parallel("echoer")
    tool = autogen_agent_tool(template)
    seen = results(await scripted_agent("boss", turns, tools=[tool]).run(task="go"))
    first, second = (seen[c.id].content for c in calls)
    assert "alpha-request" in first and "beta-request" not in first
    assert "beta-request" in second and "alpha-request" not in second
    assert await template.model_context.get_messages() == [], "the template never runs"


async def test_a_fork_starts_from_the_template_history_at_call_time() -> None:
    context = UnboundedChatCompletionContext([UserMessage(content="remember-me", source="user")])
    template = echo_agent(turns=1, model_context=context)
    tool = autogen_agent_tool(template, history="fork")
    await template.model_context.add_message(UserMessage(content="added-later", source="user"))
    call = ToolCall("echoer", {"request": "now"})
    seen = results(
        await scripted_agent("boss", [Turn.call(call), Turn.say("ok")], tools=[tool]).run(task="go")
    )
    assert seen[call.id].content.split("\n") == ["remember-me", "added-later", "now"]
    assert len(await template.model_context.get_messages()) == 2, "the call's are dropped"


async def test_fresh_starts_with_no_history_and_says_so_where_0_1_copied_it() -> None:
    context = UnboundedChatCompletionContext([UserMessage(content="remember-me", source="user")])
    template = echo_agent(turns=2, model_context=context)  # the clones share its client
    tool = autogen_agent_tool(template)  # history="fresh"
    calls = [ToolCall("echoer", {"request": "one"}), ToolCall("echoer", {"request": "two"})]
    boss = scripted_agent(
        "boss", [Turn.call(calls[0]), Turn.call(calls[1]), Turn.say("ok")], tools=[tool]
    )
    with pytest.warns(DeprecationWarning, match="history='fork'") as warned:
        seen = results(await boss.run(task="go"))
    assert [seen[c.id].content for c in calls] == ["one", "two"]
    assert len(warned) == 1, "once per tool"
    assert [m.content for m in await template.model_context.get_messages()] == ["remember-me"]


async def test_shared_history_is_opt_in_and_one_call_at_a_time() -> None:
    template = echo_agent()
    calls, turns = two_parallel("echoer")
    tool = autogen_agent_tool(template, history="shared")
    seen = results(await scripted_agent("boss", turns, tools=[tool]).run(task="go"))
    first, second = (seen[c.id].content for c in calls)
    assert first == "alpha-request", "the first call must not see the second"
    assert "alpha-request" in second and "beta-request" in second
    assert len(await template.model_context.get_messages()) == 4


def _team_factory() -> RoundRobinGroupChat:
    return RoundRobinGroupChat(
        [echo_agent("member", turns=1)],
        termination_condition=MaxMessageTermination(2),
        name="crew",
        description="A crew of one.",
    )


async def test_autogen_team_tool_fails_a_second_parallel_call() -> None:
    native = TeamTool(
        _team_factory(), name="crew", description="A crew.", return_value_as_last_message=True
    )
    calls, turns = two_parallel("crew", key="task")
    seen = results(await scripted_agent("boss", turns, tools=[native]).run(task="go"))
    assert [seen[c.id].is_error for c in calls].count(True) == 1
    assert any("already running" in seen[c.id].content for c in calls)


async def test_a_team_factory_runs_parallel_calls_on_their_own_teams() -> None:
    tool = autogen_team_tool(_team_factory)
    calls, turns = two_parallel("crew")
    seen = results(await scripted_agent("boss", turns, tools=[tool]).run(task="go"))
    first, second = (seen[c.id].content for c in calls)
    assert not seen[calls[0].id].is_error and not seen[calls[1].id].is_error
    assert first == "alpha-request" and second == "beta-request"


async def test_a_team_instance_runs_one_call_at_a_time_after_a_reset() -> None:
    team = RoundRobinGroupChat(
        [echo_agent("member", turns=2)], termination_condition=MaxMessageTermination(2), name="crew"
    )
    tool = autogen_team_tool(team, description="A crew.")
    calls, turns = two_parallel("crew")
    seen = results(await scripted_agent("boss", turns, tools=[tool]).run(task="go"))
    first, second = (seen[c.id].content for c in calls)
    assert (first, second) == ("alpha-request", "beta-request"), "reset between calls"


class Verdict(BaseModel):
    verdict: str
    score: int


async def test_json_mode_returns_structured_output_and_usage_is_charged() -> None:
    def judge() -> AssistantAgent:
        return AssistantAgent(
            "judge",
            ScriptedChatCompletionClient([Turn.say('{"verdict": "approve", "score": 3}')]),
            output_content_type=Verdict,
            system_message=None,
        )

    tool = autogen_agent_tool(judge, return_mode="json")
    call = ToolCall("judge", {"request": "rate it please"})
    async with run_scope() as state:
        seen = results(
            await autogen_run(
                scripted_agent("boss", [Turn.call(call), Turn.say("ok")], tools=[tool]), task="go"
            )
        )
    assert json.loads(seen[call.id].content) == {"verdict": "approve", "score": 3}
    cost = state.report.per_path["judge"]
    assert cost.calls == 1 and cost.usage.model_calls == 1
    assert cost.usage.input_tokens == 3, "the replay client counts the request's words"


async def test_all_mode_keeps_thoughts_and_tool_results_in_order() -> None:
    from agent_sdk import ToolSpec
    from agent_sdk_autogen import autogen_tool

    async def add(a: int, b: int) -> int:
        return a + b

    adder = autogen_tool(
        ToolSpec(
            name="add",
            description="Add.",
            handler=add,
            input_schema={
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        )
    )
    captured: list[Any] = []

    def keep(response: Any) -> str:
        captured.append(response)
        return "kept"

    tool = autogen_agent_tool(
        lambda: scripted_agent(
            "calc",
            [Turn.call(ToolCall("add", {"a": 2, "b": 3}), text="adding"), Turn.say("it is 5")],
            tools=[adder],
        ),
        name="calc",
        description="Calculates.",
        return_mode=keep,
    )
    call = ToolCall("calc", {"request": "2+3?"})
    await scripted_agent("boss", [Turn.call(call), Turn.say("ok")], tools=[tool]).run(task="go")
    (response,) = captured
    assert [(m.role, m.text) for m in response.messages] == [
        ("user", "2+3?"),
        ("assistant", "adding"),
        ("tool", "5"),
        ("assistant", "it is 5"),
    ]
    assert response.usage.model_calls == 2


def test_configuration_mistakes_fail_at_configuration_time() -> None:
    with pytest.raises(ConfigurationError, match="history"):
        autogen_agent_tool(echo_agent(), history="sometimes")
    with pytest.raises(ConfigurationError, match="factory"):
        autogen_agent_tool(UserProxyAgent("human"))
    with pytest.raises(ConfigurationError, match="instance"):
        autogen_agent_tool(echo_agent, history="shared")

    async def make() -> AssistantAgent:
        return echo_agent()

    with pytest.raises(ConfigurationError, match="name="):
        autogen_agent_tool(make)
    with pytest.raises(ConfigurationError, match="not an AutoGen agent"):
        autogen_agent_tool(lambda: "nope")
    with pytest.raises(ConfigurationError, match="return_mode"):
        autogen_agent_tool(echo_agent(), return_mode="first")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="agent or a factory"):
        autogen_agent_tool(42)
    assert autogen_agent_tool(make, name="maker").name == "maker"


def test_names_and_descriptions_come_from_the_agent_or_team() -> None:
    tool = autogen_agent_tool(echo_agent())
    assert (tool.name, tool.description) == ("echoer", "Echoes what it was sent.")
    assert tool.schema["parameters"]["required"] == ["request"]
    team_tool = autogen_team_tool(_team_factory)
    assert (team_tool.name, team_tool.description) == ("crew", "A crew of one.")


def test_input_chars_count_the_conversation_sent_before_each_model_call() -> None:
    """The child's model is sent the whole conversation on every call: a request, then the
    request plus its tool call and result. (Without this the core falls back to the request
    length, and the cost report cannot show what return modes save.)"""
    import asyncio

    from agent_sdk import Executor, run_scope
    from agent_sdk.scripted import ScriptedAgent, ToolCall, Turn
    from agent_sdk.testing.contract import Recorder
    from agent_sdk_autogen.testing import AutogenHarness

    harness = AutogenHarness()
    leaf = harness.export_tool(Recorder().add_spec(), executor=Executor())
    child = ScriptedAgent(
        "counter", [Turn.call(ToolCall("add", {"a": 1, "b": 2})), Turn.say("three")], tools=[leaf]
    )
    tool = harness.export_agent_tool(child)
    request = "q" * 200

    async def main() -> int:
        async with run_scope() as run:
            await harness.run(
                [tool], [Turn.call(ToolCall("counter", {"request": request})), Turn.say("ok")]
            )
        return run.report.per_path["counter"].usage.input_chars

    chars = asyncio.run(main())
    call_chars = len("add") + len('{"a": 1, "b": 2}')
    assert chars >= 2 * len(request) + call_chars + len("3"), chars
