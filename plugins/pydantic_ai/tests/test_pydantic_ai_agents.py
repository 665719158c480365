"""Agents as tools: a fresh child run per call, usage merged into the parent's RunUsage and
charged to the run, structured output as JSON, deps, the budget across delegates under
parallel calls, and pydantic-ai's name inference kept off the user's agent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, RunContext, UsageLimits
from pydantic_ai.models.function import FunctionModel

from agent_sdk import ConfigurationError, HierarchyLimitError, HierarchyLimits, run_scope
from agent_sdk.testing import ToolCall, Turn
from agent_sdk.testing.contract import exception_chain
from agent_sdk_pydantic_ai import pydantic_ai_agent_tool, pydantic_ai_tool
from agent_sdk_pydantic_ai.testing import ScriptedFunction, seen_results


def scripted(turns: list[Turn], name: str | None = None, **kw: Any) -> Agent[Any, Any]:
    return Agent(FunctionModel(ScriptedFunction(turns)), name=name, **kw)


def seen(result: Any) -> dict[str, str]:
    return {r.call_id: r.text for r in seen_results(result.all_messages())[0]}


def add_tool() -> Any:
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    return pydantic_ai_tool(add)


def test_the_childs_usage_is_merged_into_the_parents_and_charged_to_the_run() -> None:
    child = scripted(
        [Turn.call(ToolCall("add", {"a": 1, "b": 2})), Turn.say("three")],
        "counter",
        tools=[add_tool()],
    )
    calls = [ToolCall("counter", {"request": f"count {i}"}) for i in range(2)]
    parent = scripted(
        [Turn.call(*calls), Turn.say("done")], "boss", tools=[pydantic_ai_agent_tool(child)]
    )

    async def main() -> Any:
        async with run_scope() as run:
            return await parent.run("go"), run

    result, run = asyncio.run(main())
    assert [seen(result)[c.id] for c in calls] == ["three", "three"]
    # pydantic-ai's own pattern (usage=ctx.usage): the parent's RunUsage holds the children's.
    assert result.usage.requests == 2 + 2 * 2 and result.usage.tool_calls == 2 + 2
    [cost] = [c for path, c in run.report.per_path.items() if path == "counter"]
    assert cost.calls == 2 and cost.usage.model_calls == 4
    assert cost.usage.input_tokens > 0, "FunctionModel's estimate, charged as it is"


def test_the_characters_a_child_sends_are_charged_as_every_plugin_counts_them() -> None:
    # Each model request carries the instructions and the whole conversation so far: the
    # prompt before the first call; prompt, the tool call and its result before the second.
    instructions, prompt = "Count what you are asked to.", "count to three"
    child = scripted(
        [Turn.call(ToolCall("add", {"a": 1, "b": 2})), Turn.say("three")],
        "counter",
        tools=[add_tool()],
        instructions=instructions,
    )
    parent = scripted(
        [Turn.call(ToolCall("counter", {"request": prompt})), Turn.say("done")],
        "boss",
        tools=[pydantic_ai_agent_tool(child)],
    )

    async def main() -> Any:
        async with run_scope() as run:
            await parent.run("go")
            return run

    run = asyncio.run(main())
    sent_first = len(instructions) + len(prompt)
    sent_second = sent_first + len('{"a":1,"b":2}') + len("3")
    assert run.report.per_path["counter"].usage.input_chars == sent_first + sent_second


class Verdict(BaseModel):
    verdict: str
    score: int


def test_a_structured_output_type_is_json_in_json_mode() -> None:
    def judge_model(messages: Any, info: Any) -> Any:
        from pydantic_ai.messages import ModelResponse, ToolCallPart

        [output] = info.output_tools
        return ModelResponse(
            parts=[ToolCallPart(output.name, {"verdict": "approve", "score": 3}, tool_call_id="o1")]
        )

    judge = Agent(FunctionModel(judge_model), name="judge", output_type=Verdict)
    call = ToolCall("judge", {"request": "judge it"})
    parent = scripted(
        [Turn.call(call), Turn.say("done")],
        "boss",
        tools=[pydantic_ai_agent_tool(judge, return_mode="json")],
    )
    result = asyncio.run(parent.run("go"))
    assert json.loads(seen(result)[call.id]) == {"verdict": "approve", "score": 3}


def test_deps_from_the_parents_run_context() -> None:
    got: list[Any] = []

    def whoami(ctx: RunContext[dict[str, str]]) -> str:
        got.append(ctx.deps)
        return "ok"

    child = scripted([Turn.call(ToolCall("whoami", {})), Turn.say("fine")], "child", tools=[whoami])
    call = ToolCall("child", {"request": "who?"})
    tool = pydantic_ai_agent_tool(child, deps=lambda ctx: ctx.deps)
    parent = scripted([Turn.call(call), Turn.say("done")], "boss", tools=[tool])
    asyncio.run(parent.run("go", deps={"tenant": "acme"}))
    assert got == [{"tenant": "acme"}]


def test_the_budget_across_delegates_holds_under_parallel_calls() -> None:
    started: list[str] = []

    def worker_model(messages: Any, info: Any) -> Any:
        from pydantic_ai.messages import ModelResponse, TextPart

        started.append("model call")
        return ModelResponse(parts=[TextPart("worked")])

    worker = Agent(FunctionModel(worker_model), name="worker")
    calls = [ToolCall("worker", {"request": f"job {i}"}) for i in range(6)]
    parent = scripted(
        [Turn.call(*calls), Turn.say("done")], "boss", tools=[pydantic_ai_agent_tool(worker)]
    )

    async def main() -> Any:
        async with run_scope(limits=HierarchyLimits(max_model_calls=3)) as run:
            try:
                await parent.run("go")
            except BaseException as exc:
                return exc, run
            return None, run

    exc, run = asyncio.run(main())
    assert any(isinstance(e, HierarchyLimitError) for e in exception_chain(exc)), repr(exc)
    assert len(started) <= 3, f"{len(started)} children called their model on a budget of 3"
    assert run.spent <= 3 and run.reserved == 0 and run.active == 0


def test_the_parents_usage_limits_see_the_childrens_requests() -> None:
    child = scripted([Turn.say("one")], "one")
    calls = [ToolCall("one", {"request": str(i)}) for i in range(3)]
    parent = scripted(
        [Turn.call(*calls), Turn.say("done")], "boss", tools=[pydantic_ai_agent_tool(child)]
    )
    from pydantic_ai.exceptions import UsageLimitExceeded

    with pytest.raises(UsageLimitExceeded):
        asyncio.run(parent.run("go", usage_limits=UsageLimits(request_limit=4)))
    assert asyncio.run(parent.run("go", usage_limits=UsageLimits(request_limit=5))).output == "done"


def test_pydantic_ai_does_not_name_the_users_agent_after_our_variable() -> None:
    # agent.run() names an unnamed agent after the caller's variable (infer_name=True).
    unnamed = scripted([Turn.say("hi")])

    async def native(agent: Agent[Any, Any]) -> None:
        await agent.run("go")

    asyncio.run(native(unnamed))
    assert unnamed.name == "agent", "the trap: pydantic-ai inferred a name"
    child = scripted([Turn.say("hi")])
    with pytest.raises(ConfigurationError, match="pass name="):
        pydantic_ai_agent_tool(child)
    call = ToolCall("helper", {"request": "hello"})
    parent = scripted(
        [Turn.call(call), Turn.say("done")],
        "boss",
        tools=[pydantic_ai_agent_tool(child, name="helper")],
    )
    assert seen(asyncio.run(parent.run("go")))[call.id] == "hi"
    assert child.name is None, "the child run must not rename the user's agent"


def test_nested_children_are_charged_once_each_on_their_own_path() -> None:
    # The grandchild's usage is merged into its parent's RunUsage (so the top run's holds
    # every call): the child's own cost is what is left, never the grandchild's twice.
    tax = scripted([Turn.say("no VAT impact")], "tax")
    legal = scripted(
        [Turn.call(ToolCall("tax", {"request": "VAT?"})), Turn.say("one-sided")],
        "legal",
        tools=[pydantic_ai_agent_tool(tax)],
    )
    call = ToolCall("legal", {"request": "review"})
    boss = scripted(
        [Turn.call(call), Turn.say("done")], "boss", tools=[pydantic_ai_agent_tool(legal)]
    )

    async def main() -> Any:
        async with run_scope() as run:
            return await boss.run("go"), run

    result, run = asyncio.run(main())
    per_path = {path: cost.usage.model_calls for path, cost in run.report.per_path.items()}
    assert per_path == {"legal": 2, "legal/tax": 1}
    assert result.usage.requests == 2 + 2 + 1, "the top run's RunUsage holds every call"
    charged = run.report.total
    assert charged.input_tokens + charged.output_tokens < result.usage.total_tokens
