"""(5) Input multiplier: what a hierarchy sends to its models versus one generalist agent.

Worker: ``python -m benchmarks.bench_input --framework ag2 [--out f.json]``.

The three-reviewer scenario with a 1,000-character clause, through the framework's real
loop (the plugin's contract harness). An ``orchestrator`` sub-agent sends the clause to the
``legal``, ``tax`` and ``technical`` reviewer sub-agents in one turn; each reviewer writes
working notes while it calls a ``cite`` tool, then answers a JSON opinion; the orchestrator
then answers. The ``generalist`` is one agent that does the same work alone (notes for all
three aspects, three ``cite`` calls, the three opinions). Both run as agent tools under a
``run_scope``, over HTTP through the framework's own OpenAI client against the scripted
endpoint: the run's ``RunReport`` gives each plugin's own usage accounting (characters
sent, tokens), and the endpoint's usage the input tokens a provider would bill (issue 33:
every framework's hierarchy within 1.10x of the smallest). The reviewers' ``return_mode``
is all, last or json.

Tool definitions: the bytes of ``tools`` in the request for one ``cite`` tool, ours against
the framework's own tool made from the same function (target: ours no larger).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from agent_sdk import Executor, HierarchyLimits, ToolSpec, get_integration, run_scope
from agent_sdk.scripted import ScriptedAgent, ToolCall, Turn
from agent_sdk.scripted.server import ScriptedServer
from benchmarks.common import emit, quiet_frameworks, versions

REVIEWERS = ("legal", "tax", "technical")
MODES = ("all", "last", "json")
_BASE = (
    "Clause 7 (Prices, payment and indemnity). The supplier may change its prices at any time "
    "and without notice; changed prices apply to every order not yet delivered. Invoices are "
    "due within seven days of issue; late payment bears interest at twelve percent a year and "
    "entitles the supplier to suspend delivery. The customer indemnifies the supplier against "
    "all claims, fines and costs arising from data-protection law, whatever their cause, "
    "including breaches by the supplier's subcontractors. "
)
CLAUSE = (_BASE * 3)[:1000]
NOTES = {
    name: (
        f"Working notes ({name}): the clause combines unilateral price changes, a short payment "
        "term with a suspension right and an unlimited data-protection indemnity. I will check "
        f"precedent for the {name} aspects before giving an opinion, in particular whether the "
        "indemnity survives termination and whether suspension needs prior notice to be valid."
    )
    for name in REVIEWERS
}
OPINIONS = {
    "legal": {"verdict": "request_changes", "risk": "unlimited one-sided indemnity"},
    "tax": {"verdict": "approve", "risk": "none beyond standard VAT treatment"},
    "technical": {"verdict": "reject", "risk": "unilateral price changes break the budget"},
}
PRECEDENT = (
    "Precedent digest: courts read one-sided indemnities narrowly where the indemnified party "
    "caused the loss; unilateral price-change rights need a termination right to be fair; "
    "suspension of delivery for late payment generally requires written notice first."
)


DESCRIPTION = "Look up precedent on a topic."


async def cite(topic: str) -> str:
    return f"{PRECEDENT} (topic: {topic})"


def cite_spec() -> ToolSpec:
    return ToolSpec(
        name="cite",
        description=DESCRIPTION,
        handler=cite,
        input_schema={
            "type": "object",
            "properties": {"topic": {"type": "string"}},
            "required": ["topic"],
        },
    )


def opinion(name: str) -> str:
    return json.dumps({"reviewer": name, **OPINIONS[name]})


async def run_hierarchy(framework: str, mode: str, server: ScriptedServer) -> dict[str, Any]:
    harness = get_integration(framework).load_harness(server.endpoint())
    cite = harness.export_tool(cite_spec(), executor=Executor())
    reviewers = [
        harness.export_agent_tool(
            ScriptedAgent(
                name,
                [
                    Turn.call(ToolCall("cite", {"topic": name}), text=NOTES[name]),
                    Turn.say(opinion(name)),
                ],
                description=f"The {name} reviewer.",
                tools=[cite],
            ),
            return_mode=mode,
        )
        for name in REVIEWERS
    ]
    calls = [
        ToolCall(name, {"request": f"Review the {name} risks of this clause:\n{CLAUSE}"})
        for name in REVIEWERS
    ]
    orchestrator = harness.export_agent_tool(
        ScriptedAgent(
            "orchestrator",
            [
                Turn.call(*calls),
                Turn.say("Verdict: reject (technical); legal asks for changes; tax approves."),
            ],
            description="Reviews contract clauses with a team of reviewers.",
            tools=reviewers,
        ),
        return_mode="last",
    )
    return await _drive(harness, orchestrator, "orchestrator", server)


async def run_generalist(framework: str, server: ScriptedServer) -> dict[str, Any]:
    harness = get_integration(framework).load_harness(server.endpoint())
    cite = harness.export_tool(cite_spec(), executor=Executor())
    generalist = harness.export_agent_tool(
        ScriptedAgent(
            "generalist",
            [
                Turn.call(
                    *(ToolCall("cite", {"topic": name}) for name in REVIEWERS),
                    text="\n".join(NOTES[name] for name in REVIEWERS),
                ),
                Turn.say(json.dumps([json.loads(opinion(name)) for name in REVIEWERS])),
            ],
            description="Reviews contract clauses alone.",
            tools=[cite],
        ),
        return_mode="last",
    )
    return await _drive(harness, generalist, "generalist", server)


async def _drive(harness: Any, tool: Any, name: str, server: ScriptedServer) -> dict[str, Any]:
    request = f"Review this clause for legal, tax and technical risks:\n{CLAUSE}"
    call = ToolCall(name, {"request": request})
    before = len(server.calls())
    async with run_scope(limits=HierarchyLimits(max_depth=3)) as run:
        result = await harness.run([tool], [Turn.call(call), Turn.say("done")])
    seen = result.result(call.id).text
    if '"error"' in seen:
        raise AssertionError(f"{name} failed: {seen}")
    per_path = {
        path: {
            "calls": cost.calls,
            "model_calls": cost.usage.model_calls,
            "input_chars": cost.usage.input_chars,
            "input_tokens": cost.usage.input_tokens,
            "output_tokens": cost.usage.output_tokens,
        }
        for path, cost in sorted(run.report.per_path.items())
    }
    total = run.report.total
    billed = server.calls()[before:]  # the harness's own top agent's calls included
    return {
        "per_path": per_path,
        "total": {
            "model_calls": total.model_calls,
            "input_chars": total.input_chars,
            "input_tokens": total.input_tokens,
        },
        "endpoint": {
            "model_calls": len(billed),
            "input_tokens": sum(r.usage.get("input_tokens", 0) for r in billed),
        },
    }


async def tool_definition_bytes(framework: str, server: ScriptedServer) -> dict[str, int]:
    """Bytes of the request's ``tools`` for one ``cite`` tool: ours, and the framework's
    own tool made from the same function (the benchmark driver's ``native_tool``)."""
    from benchmarks.frameworks import DRIVERS

    out = {}
    for kind in ("native", "ours"):
        harness = get_integration(framework).load_harness(server.endpoint())
        tool = (
            DRIVERS[framework]().native_tool(cite, name="cite", description=DESCRIPTION)
            if kind == "native"
            else harness.export_tool(cite_spec(), executor=Executor())
        )
        before = len(server.calls())
        await harness.run([tool], [Turn.say("done")])
        body = server.calls()[before].body
        out[kind] = len(json.dumps(body.get("tools"), separators=(",", ":")))
    return out


async def measure(framework: str) -> dict[str, Any]:
    out: dict[str, Any] = {"framework": framework, "clause_chars": len(CLAUSE), "modes": {}}
    with ScriptedServer() as server:
        out["generalist"] = await run_generalist(framework, server)
        for mode in MODES:
            out["modes"][mode] = await run_hierarchy(framework, mode, server)
        out["tool_definition_bytes"] = await tool_definition_bytes(framework, server)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--framework", required=True)
    parser.add_argument("--quick", action="store_true", help="accepted for symmetry; one run")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    quiet_frameworks()
    result = asyncio.run(measure(args.framework))
    result["versions"] = versions("agent-sdk")
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
