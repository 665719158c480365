"""Three reviewers as tools of an OpenAI Agents SDK orchestrator; the verdict is aggregated
in code; the trace tree shows the SDK's own spans and agent-sdk's in one tree.

Offline: every agent runs on a scripted model. Run: python contrib/examples/openai_agents_reviewers.py
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Literal

from agents import Agent, RunConfig, Runner
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from pydantic import BaseModel, Field

from agent_sdk import HierarchyLimits, run_scope
from agent_sdk.demo import harshest
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk.tracing import JaegerFileExporter, format_tree, load_trace_file, use_tracer_provider
from agent_sdk_openai_agents import openai_agents_agent_tool, openai_agents_instrument
from agent_sdk_openai_agents.testing import ScriptedModel

CLAUSE = (
    "The supplier guarantees 100% availability of the service and refunds the entire annual "
    "fee for any interruption longer than one minute."
)


class Opinion(BaseModel):
    verdict: Literal["approve", "approve_with_changes", "request_changes", "reject"]
    reason: str
    quote: str = Field(description="The exact part of the text the opinion relies on")


def reviewer(name: str, verdict: str, reason: str) -> Agent[None]:
    answer = json.dumps({"verdict": verdict, "reason": reason, "quote": CLAUSE[:40]})
    return Agent(
        name=name,
        instructions=f"You review contract clauses as the {name} reviewer. Quote the text.",
        output_type=Opinion,
        model=ScriptedModel([Turn.say(answer, delay=0.2)], name=f"{name}-model"),
    )


async def main() -> None:
    reviewers = {
        "legal": reviewer(
            "legal", "request_changes", "A 100% guarantee is an obligation of result."
        ),
        "tax": reviewer("tax", "approve", "Outside my scope."),
        "technical": reviewer("technical", "reject", "No system guarantees 100% availability."),
    }
    tools = [
        openai_agents_agent_tool(agent, name=f"{name}_opinion", return_mode="json")
        for name, agent in reviewers.items()
    ]
    calls = [ToolCall(t.name, {"request": CLAUSE}) for t in tools]  # all three in one turn
    orchestrator = Agent(
        name="coordinator",
        instructions="Consult all three reviewers, then summarise.",
        model=ScriptedModel(
            [Turn.call(*calls), Turn.say("Opinions collected.")], name="coordinator-model"
        ),
        tools=tools,
    )

    trace_file = Path(tempfile.mkdtemp()) / "reviewers-trace.json"
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(JaegerFileExporter(trace_file, "reviewers")))
    use_tracer_provider(provider)  # agent-sdk's spans (and the bridge's) go here only
    bridge = openai_agents_instrument(
        exclusive=True
    )  # SDK spans into OTel; nothing is sent to OpenAI
    try:
        async with run_scope(name="review", limits=HierarchyLimits(max_depth=1)) as run:
            result = await Runner.run(
                orchestrator, CLAUSE, run_config=RunConfig(workflow_name="clause review")
            )
    finally:
        bridge.uninstrument()
        use_tracer_provider(None)
        provider.shutdown()

    # Aggregation in code: the harshest verdict, never an impression of the model.
    opinions = {}
    for item in result.new_items:
        if getattr(item, "type", "") == "tool_call_output_item":
            opinions[item.call_id] = Opinion.model_validate_json(item.output)  # JSON, not a repr
    by_reviewer = {c.name.removesuffix("_opinion"): opinions[c.id] for c in calls}
    overall = harshest({name: o.verdict for name, o in by_reviewer.items()})

    for name, opinion in by_reviewer.items():
        print(f"{name:<10} {opinion.verdict:<16} {opinion.reason}")
    print(f"overall    {overall}")
    print()
    print(run.report.format())
    print()
    print(format_tree(load_trace_file(trace_file)))

    assert set(by_reviewer) == {"legal", "tax", "technical"}, "every reviewer must answer"
    assert overall == "reject"
    assert run.report.model_calls == 3 and run.report.per_path["legal_opinion"].calls == 1
    names = [s["operationName"] for t in load_trace_file(trace_file) for s in t["spans"]]
    assert names.count("invoke_agent legal_opinion") == 1 and "invoke_agent coordinator" in names
    assert len(load_trace_file(trace_file)) == 1, "one run, one trace"


if __name__ == "__main__":
    asyncio.run(main())
