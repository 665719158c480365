"""Three AG2 reviewers as agent tools, called in one turn; the harshest verdict in code.

Run:  python contrib/examples/ag2_reviewers.py     (offline: scripted AG2 models)

* legal, tax and technical reviewers are AG2 Agents exported with ``ag2_agent_tool``
  (return_mode="json": each answers {"verdict", "reason"}); every call runs the reviewer on
  a fresh stream (history="fresh") under the run's guards (depth, recursion, model-call
  budget, timeout);
* the orchestrator's scripted model calls all three in ONE turn, so AG2 runs them
  concurrently; the verdict that counts is computed in code with ``agent_sdk.harshest``,
  not left to the model;
* the orchestrator also has AG2's own TelemetryMiddleware: its invoke_agent/chat spans and
  our execute_tool/invoke_agent spans form one trace, printed as a tree (one tool span per
  call), plus the run's cost report.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path

from ag2 import Agent, MemoryStream
from ag2.events import ToolCallEvent, ToolResultsEvent
from ag2.middleware import TelemetryMiddleware
from ag2.testing import TestConfig

from agent_sdk import HierarchyLimits, run_scope
from agent_sdk.demo import harshest
from agent_sdk.tracing import configure_tracing, format_tree, load_trace_file, use_tracer_provider
from agent_sdk_ag2 import ag2_agent_tool

VERDICTS = {
    "legal": {"verdict": "approve_with_changes", "reason": "clause 7 caps liability too low"},
    "tax": {"verdict": "approve", "reason": "VAT treatment is correct"},
    "technical": {"verdict": "request_changes", "reason": "the SLA has no uptime figure"},
}


def reviewer(name: str) -> Agent:
    return Agent(
        name,
        f"You are the {name} reviewer. Answer with JSON: verdict and reason.",
        config=TestConfig(json.dumps(VERDICTS[name])),
    )


def orchestrator(telemetry: TelemetryMiddleware) -> Agent:
    tools = [
        ag2_agent_tool(reviewer(name), return_mode="json", history="fresh", timeout=10)
        for name in ("legal", "tax", "technical")
    ]
    request = "Review the attached supplier contract and give a verdict."
    model = TestConfig(
        [  # one model turn, three tool calls: AG2 runs them concurrently
            ToolCallEvent(name, arguments=json.dumps({"request": request}), id=f"call_{name}")
            for name in ("legal", "tax", "technical")
        ],
        "The reviewers have answered; see the verdict.",
        raise_tool_errors=False,
    )
    return Agent("orchestrator", config=model, tools=tools, middleware=[telemetry])


async def main() -> None:
    trace_file = Path(tempfile.mkdtemp()) / "ag2_reviewers.json"
    provider = configure_tracing("ag2-reviewers", file=trace_file, set_global=False)
    try:
        agent = orchestrator(
            TelemetryMiddleware(tracer_provider=provider, agent_name="orchestrator")
        )
        stream = MemoryStream()
        started = time.monotonic()
        async with run_scope(limits=HierarchyLimits(max_depth=2, max_model_calls=10)) as run:
            await agent.ask("Review the supplier contract.", stream=stream)
        wall = time.monotonic() - started
    finally:
        provider.shutdown()
        use_tracer_provider(None)

    events = await stream.history.get_events()
    answers = {
        r.name: json.loads(r.result.parts[0].content)
        for e in events
        if isinstance(e, ToolResultsEvent)
        for r in e.results
    }
    for name, answer in answers.items():
        print(f"{name:<10} {answer['verdict']:<22} {answer['reason']}")
    verdict = harshest({name: a["verdict"] for name, a in answers.items()})
    print(f"\nharshest verdict: {verdict}   ({wall:.2f}s for three reviewers in one turn)\n")
    print(run.report.format(), "\n")
    traces = load_trace_file(trace_file)
    print(format_tree(traces))

    assert answers == VERDICTS
    assert verdict == "request_changes"
    assert run.report.model_calls == 3 and set(run.report.per_path) == set(VERDICTS)
    [trace] = traces
    names = [s["operationName"] for s in trace["spans"]]
    for name in VERDICTS:
        assert names.count(f"execute_tool {name}") == 1, "one tool span per call"
        assert names.count(f"invoke_agent {name}") == 1
    assert names.count("invoke_agent orchestrator") == 1 and "invoke_workflow run" in names


if __name__ == "__main__":
    asyncio.run(main())
