"""Three reviewers as tools of a Microsoft Agent Framework orchestrator, run with Agent.run;
legal consults tax, which consults legal again (a circle); the verdict is aggregated in code;
MAF's own spans and agent-sdk's form one trace per run.

Run twice: with max_depth=2 the circle is cut as depth-exceeded, with max_depth=3 as
recursion; both runs end, and the opinions reach the orchestrator as JSON (return_mode).

Offline: every agent runs on a scripted chat client.
Run: python contrib/examples/agent_framework_reviewers.py [--trace-file FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from agent_framework import Agent

from agent_sdk import HierarchyLimits, run_scope
from agent_sdk.demo import harshest
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk.tracing import configure_tracing, format_tree, load_trace_file
from agent_sdk_agent_framework import agent_framework_agent_tool, agent_framework_instrument
from agent_sdk_agent_framework.testing import ScriptedChatClient

CLAUSE = "The customer indemnifies the supplier for all data-protection claims."
OPINIONS = {
    "legal": {"verdict": "request_changes", "reason": "one-sided indemnity"},
    "tax": {"verdict": "approve", "reason": "no VAT impact"},
    "technical": {"verdict": "reject", "reason": "no budget for unlimited claims"},
}


def opinion(name: str) -> Turn:
    return Turn.say(json.dumps({"reviewer": name, **OPINIONS[name]}))


def reviewer(name: str, turns: list[Turn], tools: list[Any] = ()) -> Any:  # type: ignore[assignment]
    agent = Agent(
        client=ScriptedChatClient(turns, name=name),
        name=name,
        description=f"The {name} reviewer.",
        instructions=f"You review contract clauses as the {name} reviewer. Answer JSON.",
        tools=list(tools),
    )
    return agent_framework_agent_tool(agent, return_mode="json")


def build() -> tuple[Agent[Any], list[ToolCall]]:
    legal_again = reviewer("legal", [opinion("legal")])
    tax_for_legal = reviewer(
        "tax",
        [
            Turn.call(ToolCall("legal", {"request": "Does the indemnity change tax?"})),
            opinion("tax"),
        ],
        [legal_again],
    )
    legal = reviewer(
        "legal",
        [Turn.call(ToolCall("tax", {"request": "VAT impact of " + CLAUSE})), opinion("legal")],
        [tax_for_legal],
    )
    tools = [
        legal,
        reviewer("tax", [opinion("tax")]),
        reviewer("technical", [opinion("technical")]),
    ]
    calls = [ToolCall(t.name, {"request": CLAUSE}) for t in tools]  # all three in one turn
    orchestrator = Agent(
        client=ScriptedChatClient([Turn.call(*calls), Turn.say("collected")], name="orchestrator"),
        name="orchestrator",
        instructions="Consult the three reviewers in one turn, then say: collected.",
        tools=tools,
    )
    return agent_framework_instrument(orchestrator), calls


async def review(max_depth: int) -> tuple[Any, Any, list[ToolCall]]:
    orchestrator, calls = build()
    limits = HierarchyLimits(max_depth=max_depth, max_model_calls=40)
    async with run_scope(name=f"review depth {max_depth}", limits=limits) as run:
        response = await orchestrator.run(CLAUSE, session=orchestrator.create_session())
    return run, response, calls


def results(response: Any) -> dict[str, str]:
    return {
        c.call_id: str(c.result)
        for m in response.messages
        for c in m.contents
        if c.type == "function_result"
    }


def main(trace_file: Path) -> None:
    # An application sets the global provider: MAF's spans and agent-sdk's go to one place.
    provider = configure_tracing("maf-reviewers", file=trace_file, set_global=True)
    outcomes: dict[int, Any] = {}
    for max_depth in (2, 3):
        run, response, calls = asyncio.run(review(max_depth))
        seen = results(response)
        opinions = {c.name: json.loads(seen[c.id]) for c in calls}  # JSON, per the return mode
        verdict = harshest({name: o["verdict"] for name, o in opinions.items()})
        print(f"max_depth={max_depth}: {response.text!r}, harshest verdict (in code): {verdict}")
        for name, o in opinions.items():
            print(f"  {name:<10} {o['verdict']:<16} {o['reason']}")
        print(run.report.format())
        outcomes[max_depth] = (run.run_id, response.text, verdict)
    provider.force_flush()
    provider.shutdown()
    traces = load_trace_file(trace_file)
    print()
    print(format_tree(traces))

    cut = {}
    for t in traces:
        for s in t["spans"]:
            tags = {tag["key"]: tag["value"] for tag in s.get("tags", [])}
            if tags.get("agent_sdk.path") == "legal/tax/legal" and s["operationName"].startswith(
                "execute_tool"
            ):
                cut[tags["agent_sdk.run_id"]] = tags.get("agent_sdk.outcome")
    assert cut == {outcomes[2][0]: "depth-exceeded", outcomes[3][0]: "recursion"}, cut
    assert all(text == "collected" and v == "reject" for _, text, v in outcomes.values())
    assert len(traces) == 2, "one trace per run"
    for t in traces:
        names = [s["operationName"] for s in t["spans"]]
        assert names.count("invoke_agent legal") == 1, "no duplicate invoke_agent"
        assert names.count("invoke_agent orchestrator") == 1, "MAF's own span of the top agent"
        assert names.count("execute_tool legal") == 2, "the outer call and the cut one"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trace-file", type=Path, default=None)
    args = parser.parse_args()
    main(args.trace_file or Path(tempfile.mkdtemp()) / "maf-reviewers.json")
