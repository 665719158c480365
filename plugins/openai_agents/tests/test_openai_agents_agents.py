"""openai_agents_agent_tool: structured output as JSON, usage, fresh children, guards."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

from agents import Agent, RunConfig, Runner
from pydantic import BaseModel

from agent_sdk import CallContext, Executor, HierarchyLimits, ToolSpec, run_scope
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_openai_agents import openai_agents_agent_tool, openai_agents_tool
from agent_sdk_openai_agents.testing import ScriptedModel


class Opinion(BaseModel):
    verdict: Literal["approve", "reject"]
    reason: str


def outputs(result: Any) -> dict[str, str]:
    return {
        i.call_id: i.output
        for i in result.new_items
        if getattr(i, "type", "") == "tool_call_output_item"
    }


def ask(tool: Any, request: str = "review") -> tuple[str, Any]:
    call = ToolCall(tool.name, {"request": request})
    parent = Agent(
        name="boss", model=ScriptedModel([Turn.call(call), Turn.say("done")]), tools=[tool]
    )
    result = asyncio.run(Runner.run(parent, "go", run_config=RunConfig(tracing_disabled=True)))
    return outputs(result)[call.id], result


def test_json_mode_gives_structured_output_as_json_not_str() -> None:
    reviewer = Agent(
        name="legal",
        output_type=Opinion,
        model=ScriptedModel([Turn.say('{"verdict": "reject", "reason": "too broad"}')]),
    )
    text, _ = ask(openai_agents_agent_tool(reviewer, return_mode="json"))
    assert json.loads(text) == {"verdict": "reject", "reason": "too broad"}
    # The SDK's own as_tool sends str(Opinion), a Python repr, for the same child
    native = reviewer.as_tool(tool_name="legal_native", tool_description="d")
    call = ToolCall("legal_native", {"input": "review"})
    parent = Agent(
        name="boss", model=ScriptedModel([Turn.call(call), Turn.say("done")]), tools=[native]
    )
    result = asyncio.run(Runner.run(parent, "go", run_config=RunConfig(tracing_disabled=True)))
    [item] = [i for i in result.new_items if getattr(i, "type", "") == "tool_call_output_item"]
    assert item.raw_item["output"] == "verdict='reject' reason='too broad'"


def test_the_child_runs_fresh_on_its_own_conversation_with_usage_reported() -> None:
    echo = Agent(name="echo", instructions="Repeat.", model=ScriptedModel([Turn.echo()]))
    tool = openai_agents_agent_tool(echo, return_mode="last")
    seen: list[Any] = []

    async def main() -> str:
        async with run_scope("run-usage") as state:
            call = ToolCall("echo", {"request": "only this"})
            parent = Agent(
                name="boss", model=ScriptedModel([Turn.call(call), Turn.say("done")]), tools=[tool]
            )
            result = await Runner.run(parent, "go", run_config=RunConfig(tracing_disabled=True))
            seen.append(state.report.as_dict())
            return outputs(result)[call.id]

    assert asyncio.run(main()) == "only this"
    per_path = seen[0]["per_path"]["echo"]
    assert (
        per_path["model_calls"] == 1
        and per_path["input_tokens"] == 10
        and per_path["output_tokens"] == 5
    )
    assert per_path["input_chars"] >= len("only this") + len("Repeat.")


def test_a_parent_is_charged_only_the_characters_it_sends_not_its_childrens() -> None:
    # A child inherits its parent's run config; its model calls were counted by the
    # parent's input filter too (an orchestrator of three reviewers was charged 2.5x).
    helper = Agent(
        name="helper", instructions="h" * 5000, model=ScriptedModel([Turn.say("helped")])
    )
    call = ToolCall("helper", {"request": "help"})
    lead = Agent(
        name="lead",
        instructions="Lead.",
        model=ScriptedModel([Turn.call(call), Turn.say("led")]),
        tools=[openai_agents_agent_tool(helper, return_mode="last")],
    )
    seen_by_user: list[str] = []

    def user_filter(data: Any) -> Any:  # the user's own filter still sees every call
        seen_by_user.append(data.agent.name)
        return data.model_data

    report: list[Any] = []

    async def main() -> None:
        async with run_scope("run-chars") as state:
            top = ToolCall("lead", {"request": "go on"})
            boss = Agent(
                name="boss",
                model=ScriptedModel([Turn.call(top), Turn.say("done")]),
                tools=[openai_agents_agent_tool(lead, return_mode="last")],
            )
            config = RunConfig(tracing_disabled=True, call_model_input_filter=user_filter)
            await Runner.run(boss, "go", run_config=config)
            report.append(state.report.as_dict()["per_path"])

    asyncio.run(main())
    per_path = report[0]
    assert per_path["lead/helper"]["input_chars"] >= 5000
    assert per_path["lead"]["input_chars"] < 5000
    assert sorted(seen_by_user) == ["boss", "boss", "helper", "lead", "lead"]


def test_child_tools_share_the_parent_run_id_and_nest_their_path() -> None:
    contexts: list[CallContext] = []

    async def probe(ctx: CallContext) -> str:
        contexts.append(ctx)
        return "probed"

    spec = ToolSpec(
        name="probe",
        description="d",
        handler=probe,
        input_schema={"type": "object", "properties": {}},
    )
    child = Agent(
        name="worker",
        model=ScriptedModel([Turn.call(ToolCall("probe", {})), Turn.say("ok")]),
        tools=[openai_agents_tool(spec, executor=Executor())],
    )
    call = ToolCall("worker", {"request": "go"})
    parent = Agent(
        name="boss",
        model=ScriptedModel([Turn.call(call, ToolCall("probe", {})), Turn.say("done")]),
        tools=[openai_agents_agent_tool(child, name="worker"), openai_agents_tool(spec)],
    )
    asyncio.run(
        Runner.run(parent, "go", run_config=RunConfig(trace_id="trace_0123", tracing_disabled=True))
    )
    by_path = {c.path: c for c in contexts}
    assert set(by_path) == {(), ("worker",)}
    assert {c.run_id for c in contexts} == {"trace_0123"}


def test_depth_is_guarded_where_the_sdk_only_bounds_turns() -> None:
    inner = Agent(name="inner", model=ScriptedModel([Turn.say("deep")]))
    middle = Agent(
        name="middle",
        # the second turn echoes what middle's model was sent, inner's tool result included
        model=ScriptedModel([Turn.call(ToolCall("inner", {"request": "x"})), Turn.echo()]),
        tools=[openai_agents_agent_tool(inner, name="inner")],
    )
    call = ToolCall("middle", {"request": "go"})
    parent = Agent(
        name="boss",
        model=ScriptedModel([Turn.call(call), Turn.say("done")]),
        tools=[openai_agents_agent_tool(middle, name="middle")],
    )

    async def run_it() -> Any:
        async with run_scope(limits=HierarchyLimits(max_depth=1)):
            return await Runner.run(parent, "go", run_config=RunConfig(tracing_disabled=True))

    result = asyncio.run(run_it())
    assert '"depth-exceeded"' in outputs(result)[call.id]
    assert result.final_output == "done"
