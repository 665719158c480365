"""Three fast-agent reviewers as tools, called in parallel by a lead agent; the verdict is
aggregated in code (the harshest wins), and the trace tree is printed.

Offline: every agent uses agent-sdk's scripted fast-agent model (no keys, no network, no
config file, no files written outside a temporary directory).

    python contrib/examples/fast_agent_reviewers.py
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from agent_sdk import HierarchyLimits, Registry, run_scope
from agent_sdk.demo import harshest
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk.tracing import configure_tracing, format_tree, load_trace_file
from agent_sdk_fast_agent import fast_agent_agent_tool, fast_agent_instrument, fast_agent_tools
from agent_sdk_fast_agent.testing import (
    SCRIPTED_MODEL,
    library_app,
    register_scripted_model,
    scripts,
)

REVIEWERS = ("security", "style", "tests")
CHANGE = "Adds a retry loop around the payment client; bumps requests to 2.31."


class Review(BaseModel):
    verdict: str
    summary: str


tools = Registry()


@tools.tool
def lookup_cve(package: str, version: str) -> str:
    """Known vulnerabilities of a package version."""
    return "none known" if (package, version) == ("requests", "2.31") else "unknown package"


def review(verdict: str, summary: str) -> str:
    return json.dumps({"verdict": verdict, "summary": summary})


SCRIPTS = {
    "lead": [
        Turn.call(
            *(ToolCall(f"{name}_review", {"request": CHANGE}, id=f"r-{name}") for name in REVIEWERS)
        ),
        Turn.say("Reviews collected."),
    ],
    "security": [
        Turn.call(ToolCall("lookup_cve", {"package": "requests", "version": "2.31"})),
        Turn.say(review("approve", "requests 2.31 has no known CVEs"), delay=0.4),
    ],
    "style": [Turn.say(review("approve_with_changes", "name the retry constant"), delay=0.4)],
    "tests": [Turn.say(review("request_changes", "no test covers the retry path"), delay=0.4)],
}


async def main(trace_file: Path) -> str:
    register_scripted_model()
    fast = library_app("reviewers")
    for name in ("lead", *REVIEWERS):

        async def declaration() -> None:
            return None

        fast.agent(name=name, instruction=f"You are the {name} reviewer.", model=SCRIPTED_MODEL)(
            declaration
        )

    with scripts(SCRIPTS):
        async with fast.run() as app:
            app.security.add_tool(fast_agent_tools(tools)[0])
            lead = fast_agent_instrument(
                app.lead,
                tools=[
                    fast_agent_agent_tool(
                        app[name], name=f"{name}_review", return_mode="json", output_model=Review
                    )
                    for name in REVIEWERS
                ],
            )
            started = time.monotonic()
            async with run_scope(
                "review-run", limits=HierarchyLimits(max_model_calls=10), name="review"
            ) as run:
                await lead.send("Review this change.")
            wall = time.monotonic() - started

            verdicts: dict[str, Review] = {}
            for message in lead.last_turn_messages:
                for call_id, result in (message.tool_results or {}).items():
                    assert not result.is_error, result
                    text = "".join(block.text for block in result.content)
                    verdicts[call_id.removeprefix("r-")] = Review.model_validate_json(text)

    decision = harshest({name: r.verdict for name, r in verdicts.items()})
    print(f"change: {CHANGE}\n")
    for name in REVIEWERS:
        print(f"  {name:<9} {verdicts[name].verdict:<21} {verdicts[name].summary}")
    print(f"\ndecision (harshest, in code): {decision}")
    print(f"wall: {wall:.2f}s for three 0.4 s reviewers (parallel clones)\n")
    print(run.report.format())

    assert set(verdicts) == set(REVIEWERS)
    assert decision == "request_changes"
    assert run.report.per_path["security_review"].usage.model_calls == 2
    return decision


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        provider = configure_tracing("fast-agent-reviewers", file=path, set_global=False)
        try:
            asyncio.run(main(path))
        finally:
            provider.shutdown()
        traces = load_trace_file(path)
        print()
        print(format_tree(traces))
        spans = [s for t in traces for s in t["spans"]]
        names = [s["operationName"] for s in spans]
        assert len(traces) == 1, "one run, one trace"
        assert names.count("invoke_agent security_review") == 1
        assert sum(n.startswith("invoke_agent ") for n in names) == 4  # the lead and three
        assert names.count("execute_tool lookup_cve") == 1
        reviews = [
            s
            for s in spans
            if s["operationName"].startswith("invoke_agent ")
            and s["operationName"] != "invoke_agent lead"
        ]
        last_start = max(s["startTime"] for s in reviews)
        first_end = min(s["startTime"] + s["duration"] for s in reviews)
        assert last_start < first_end, "the three reviewers ran at the same time"
