"""Three AutoGen reviewers as agent tools, called in parallel; the verdict is aggregated in code.

A lead AssistantAgent asks a security, a style and a test reviewer about one diff in a
single turn (three tool calls that run concurrently, each on a fresh reviewer). Each
reviewer answers with structured output (``return_mode="json"``); the security reviewer
first calls a real tool. The harshest verdict wins, computed in code, not by a model. The
models are scripted (offline); the trace tree of the run is printed at the end.

Run: python contrib/examples/autogen_reviewers.py [--trace-file reviewers.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import ToolCallExecutionEvent
from autogen_core import EVENT_LOGGER_NAME
from autogen_core.tools import BaseTool
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from pydantic import BaseModel

from agent_sdk import HierarchyLimits, ToolSpec, run_scope
from agent_sdk.demo import harshest
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk.tracing import JaegerFileExporter, format_tree, load_trace_file, use_tracer_provider
from agent_sdk_autogen import autogen_agent_tool, autogen_run, autogen_tool
from agent_sdk_autogen.testing import ScriptedChatCompletionClient

DIFF = """\
+ API_KEY = "sk-live-1234"
+ def total(items): return sum(i.price for i in items)
"""


class Review(BaseModel):
    verdict: str
    summary: str


async def scan_secrets(text: str) -> list[str]:
    """Find lines that look like credentials."""
    return [
        line.strip() for line in text.splitlines() if re.search(r"(KEY|TOKEN|SECRET)\s*=", line)
    ]


SCAN = ToolSpec(
    name="scan_secrets",
    description="Find lines of a diff that look like credentials.",
    handler=scan_secrets,
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
)


def reviewer(
    name: str, focus: str, turns: list[Turn], tools: Sequence[BaseTool[Any, Any]] = ()
) -> AssistantAgent:
    return AssistantAgent(
        name,
        ScriptedChatCompletionClient(turns),
        tools=list(tools) or None,
        description=f"Reviews a diff for {focus}; answers with a verdict.",
        system_message=f"You review code for {focus}.",
        output_content_type=Review,
        max_tool_iterations=len(turns),
    )


def verdict(text: str, summary: str, delay: float = 0.2) -> Turn:
    return Turn.say(json.dumps({"verdict": text, "summary": summary}), delay=delay)


def security() -> AssistantAgent:
    return reviewer(
        "security",
        "security",
        [
            Turn.call(ToolCall("scan_secrets", {"text": DIFF}), text="scanning for secrets"),
            verdict("request_changes", "a live API key is committed"),
        ],
        tools=[autogen_tool(SCAN)],
    )


def style() -> AssistantAgent:
    return reviewer(
        "style", "style", [verdict("approve_with_changes", "one-line def; add a docstring")]
    )


def tests() -> AssistantAgent:
    return reviewer("tests", "test coverage", [verdict("approve", "total() is covered")])


async def review(trace_file: Path) -> str:
    provider = TracerProvider()
    provider.add_span_processor(
        SimpleSpanProcessor(JaegerFileExporter(trace_file, "autogen-reviewers"))
    )
    use_tracer_provider(provider)  # this SDK's spans only; the global provider is untouched

    # A factory per reviewer: every call runs a new reviewer (its name and description are
    # read from one built at configuration time).
    tools: list[Any] = [
        autogen_agent_tool(make, return_mode="json") for make in (security, style, tests)
    ]
    calls = [
        ToolCall(t.name, {"request": f"Review this diff:\n{DIFF}"}, id=f"call_{t.name}")
        for t in tools
    ]
    lead = AssistantAgent(
        "lead",
        ScriptedChatCompletionClient([Turn.call(*calls), Turn.say("Collected three reviews.")]),
        tools=tools,
        system_message="Ask every reviewer, then stop.",
        max_tool_iterations=2,
    )
    try:
        async with run_scope(name="review", limits=HierarchyLimits(max_model_calls=10)) as run:
            result = await autogen_run(lead, task="Review the diff.")
    finally:
        use_tracer_provider(None)
        provider.shutdown()

    reviews = {
        r.name: Review.model_validate_json(r.content)
        for m in result.messages
        if isinstance(m, ToolCallExecutionEvent)
        for r in m.content
    }
    print("Reviews:")
    for name, r in reviews.items():
        print(f"  {name:<9} {r.verdict:<21} {r.summary}")
    final = harshest({name: r.verdict for name, r in reviews.items()})
    print(f"\nAggregated verdict (harshest, computed in code): {final}\n")
    print("Cost per path:")
    print(run.report.format())

    traces = load_trace_file(trace_file)
    print("\nTrace tree:")
    print(format_tree(traces))

    # What the example shows, checked.
    assert set(reviews) == {"security", "style", "tests"}
    assert final == "request_changes"
    assert len(traces) == 1, "one run, one trace"
    spans = traces[0]["spans"]
    invokes = [s for s in spans if s["operationName"].startswith("invoke_agent ")]
    assert len(invokes) == 3
    starts = [s["startTime"] for s in invokes]
    ends = [s["startTime"] + s["duration"] for s in invokes]
    assert max(starts) < min(ends), "the three reviewers ran concurrently"
    assert any(s["operationName"] == "execute_tool scan_secrets" for s in spans)
    assert run.report.model_calls == 4, run.report.as_dict()
    return final


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-file", type=Path, help="write the Jaeger JSON trace here")
    args = parser.parse_args()
    # The scripted model warns that it counts tokens of text content only.
    logging.getLogger(EVENT_LOGGER_NAME).setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        trace_file = args.trace_file or Path(tmp) / "reviewers.json"
        asyncio.run(review(trace_file))
        if args.trace_file:
            print(f"\nJaeger JSON: {trace_file} (Jaeger UI: Search > Upload)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
