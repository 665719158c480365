"""Three reviewers as tools of a pydantic-ai orchestrator, run with Agent.run; legal
consults tax, which consults legal again (a circle); each reviewer answers a typed Opinion
(a structured output_type, passed on as JSON); the verdict is aggregated in code;
pydantic-ai's own spans and agent-sdk's form one trace per run.

Run twice: with max_depth=2 the circle is cut as depth-exceeded, with max_depth=3 as
recursion; both runs end. A third run on a budget of two model calls shows the budget holds
across delegates called in parallel: the run stops, with no more children started.

Offline: every agent runs on a scripted FunctionModel.
Run: python contrib/examples/pydantic_ai_reviewers.py [--trace-file FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent_sdk import HierarchyLimitError, HierarchyLimits, run_scope
from agent_sdk.demo import harshest
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk.tracing import configure_tracing, format_tree, load_trace_file
from agent_sdk_pydantic_ai import pydantic_ai_agent_tool, pydantic_ai_instrument
from agent_sdk_pydantic_ai.testing import ScriptedFunction, seen_results

CLAUSE = "The customer indemnifies the supplier for all data-protection claims."
OPINIONS = {
    "legal": {"verdict": "request_changes", "reason": "one-sided indemnity"},
    "tax": {"verdict": "approve", "reason": "no VAT impact"},
    "technical": {"verdict": "reject", "reason": "no budget for unlimited claims"},
}


class Opinion(BaseModel):
    reviewer: str
    verdict: Literal["approve", "approve_with_changes", "request_changes", "reject"]
    reason: str


def reviewer(name: str, consults: Any = None) -> Agent[None, Opinion]:
    """A reviewer whose scripted model first consults ``consults`` (an agent tool), then
    answers its Opinion through pydantic-ai's output tool."""

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        turn = sum(isinstance(m, ModelResponse) for m in messages)
        if consults is not None and turn == 0:
            ask = ToolCall(consults.name, {"request": f"Your view on: {CLAUSE}"})
            return ModelResponse(parts=[ToolCallPart(ask.name, ask.arguments, tool_call_id=ask.id)])
        [output] = info.output_tools
        answer = {"reviewer": name, **OPINIONS[name]}
        return ModelResponse(parts=[ToolCallPart(output.name, answer, tool_call_id=f"out_{name}")])

    return Agent(
        FunctionModel(model, model_name=f"{name}-model"),
        name=name,
        description=f"The {name} reviewer.",
        output_type=Opinion,
        tools=[consults] if consults is not None else [],
    )


def reviewer_tools() -> list[Any]:
    """legal -> tax -> legal: each built fresh, each an agent tool answering JSON."""
    inner_legal = pydantic_ai_agent_tool(reviewer("legal"), return_mode="json")
    tax_for_legal = pydantic_ai_agent_tool(reviewer("tax", inner_legal), return_mode="json")
    return [
        pydantic_ai_agent_tool(reviewer("legal", tax_for_legal), return_mode="json"),
        pydantic_ai_agent_tool(reviewer("tax"), return_mode="json"),
        pydantic_ai_agent_tool(reviewer("technical"), return_mode="json"),
    ]


def orchestrator() -> tuple[Agent[None, str], list[ToolCall]]:
    tools = reviewer_tools()
    calls = [ToolCall(t.name, {"request": f"Review: {CLAUSE}"}) for t in tools]  # one turn
    agent = Agent(
        FunctionModel(
            ScriptedFunction([Turn.call(*calls), Turn.say("collected")]), model_name="lead"
        ),
        name="orchestrator",
        tools=tools,
        capabilities=[pydantic_ai_instrument()],  # pydantic-ai's spans in agent-sdk's trace
    )
    return agent, calls


async def review(max_depth: int) -> dict[str, Any]:
    agent, calls = orchestrator()
    async with run_scope(
        name="contract-review", limits=HierarchyLimits(max_depth=max_depth)
    ) as run:
        result = await agent.run(CLAUSE)
    seen = {r.call_id: r.text for r in seen_results(result.all_messages())[0]}
    opinions = {c.name: Opinion.model_validate_json(seen[c.id]) for c in calls}  # JSON, not a repr
    return {"run": run, "output": result.output, "opinions": opinions}


async def on_a_budget() -> tuple[BaseException | None, Any]:
    agent, _ = orchestrator()
    async with run_scope(name="budget", limits=HierarchyLimits(max_model_calls=2)) as run:
        try:
            await agent.run(CLAUSE)
        except BaseException as exc:  # the budget ends the run
            return exc, run
    return None, run


def outcomes(trace: Any, tool: str) -> list[tuple[str, str]]:
    return [
        (tags.get("agent_sdk.path"), tags.get("agent_sdk.outcome"))
        for s in trace["spans"]
        if s["operationName"] == f"execute_tool {tool}"
        for tags in [{t["key"]: t["value"] for t in s.get("tags", [])}]
    ]


async def main(trace_file: Path) -> None:
    provider = configure_tracing("pydantic-ai-reviewers", file=trace_file)
    try:
        shallow = await review(max_depth=2)
        deep = await review(max_depth=3)
        stopped, budget = await on_a_budget()
    finally:
        provider.shutdown()

    for label, done in (("max_depth=2", shallow), ("max_depth=3", deep)):
        verdict = harshest({n: o.verdict for n, o in done["opinions"].items()})
        print(f"{label}: {done['output']}; harshest verdict (in code): {verdict}")
        for name, opinion in done["opinions"].items():
            print(f"  {name:<10} {opinion.verdict:<16} {opinion.reason}")
        assert verdict == "reject" and set(done["opinions"]) == set(OPINIONS)
    print(f"\nbudget of 2 model calls: {type(stopped).__name__}: {stopped}")
    print(budget.report.format())

    traces = load_trace_file(trace_file)
    print()
    print(format_tree(traces))
    assert len(traces) == 3, "one trace per run"
    circle = [o for t in traces for o in outcomes(t, "legal")]
    assert ("legal/tax/legal", "depth-exceeded") in circle, circle
    assert ("legal/tax/legal", "recursion") in circle, circle
    assert isinstance(stopped, HierarchyLimitError) or any(
        isinstance(e, HierarchyLimitError) for e in getattr(stopped, "exceptions", ())
    ), repr(stopped)
    assert budget.spent <= 2 and budget.active == 0, "the budget held across parallel delegates"
    assert shallow["run"].report.per_path["legal"].calls == 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-file", type=Path, default=None)
    args = parser.parse_args()
    asyncio.run(main(args.trace_file or Path(tempfile.mkdtemp()) / "reviewers-trace.json"))
