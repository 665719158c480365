"""``agent-sdk demo``: the contract-review hierarchy through a real framework.

An orchestrator consults legal, tax and technical reviewers (sub-agents with scripted
models) in one turn; each answers a typed opinion as JSON. Legal consults tax, which tries
to consult legal again and gets the recursion error. The harshest verdict is computed in
code, and a confirm tool sends it to the client through the approval port. The final
answer, the run's cost report and the trace tree are printed.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from agent_sdk.approval import ApprovalPort, ApprovalRequest, AutoApprove, CallbackApproval, DenyAll
from agent_sdk.errors import IntegrationError
from agent_sdk.executor import Executor
from agent_sdk.integration import KNOWN_DISTRIBUTIONS, Integration, integrations
from agent_sdk.run import HierarchyLimits, run_scope
from agent_sdk.scripted import Harness, ScriptedAgent, ToolCall, Turn
from agent_sdk.spec import ToolSpec
from agent_sdk.tracing import configure_tracing, format_tree, load_trace_file

DEFAULT_ORDER = ("ag2", "openai-agents", "autogen", "fast-agent")
CLAUSE = (
    "Clause 7: The supplier may change prices at any time without notice, invoices are due "
    "in 7 days, and the customer indemnifies the supplier for all data-protection claims."
)
OPINIONS = {
    "legal": {"verdict": "request_changes", "risk": "one-sided indemnity for data protection"},
    "tax": {"verdict": "approve", "risk": "none beyond standard VAT treatment"},
    "technical": {"verdict": "reject", "risk": "unilateral price changes break the SLA budget"},
}


DEFAULT_SEVERITY = ("approve", "approve_with_changes", "request_changes", "reject")


def harshest(
    verdicts: Sequence[str] | Mapping[str, str], order: Sequence[str] = DEFAULT_SEVERITY
) -> str:
    """The harshest verdict by ``order`` (mildest first). Unknown verdicts are an error."""
    values = list(verdicts.values()) if isinstance(verdicts, Mapping) else list(verdicts)
    if not values:
        raise ValueError("no verdicts to aggregate")
    unknown = [v for v in values if v not in order]
    if unknown:
        raise ValueError(f"unknown verdicts {unknown}; known: {list(order)}")
    return max(values, key=order.index)


def pick_integration(name: str | None) -> Integration:
    available = {i.name: i for i in integrations() if i.harness}
    if name is not None:
        for integration in integrations():
            if name in integration.names:
                return integration
        installed = ", ".join(sorted(available)) or "none"
        known = KNOWN_DISTRIBUTIONS.get(name)
        names = ", ".join(sorted(KNOWN_DISTRIBUTIONS))
        hint = f"pip install {known}" if known else f"known integrations: {names}"
        raise IntegrationError(
            f"no integration named {name!r} is installed (installed: {installed}); {hint}"
        )
    for candidate in DEFAULT_ORDER:
        if candidate in available:
            return available[candidate]
    if available:
        return next(iter(available.values()))
    raise IntegrationError(
        "agent-sdk demo needs a framework integration with a scripted model; none is "
        "installed. Install one, e.g.: pip install agent-sdk-ag2"
    )


def approval_port(mode: str, *, stdin: TextIO, stdout: TextIO) -> ApprovalPort:
    if mode == "auto":
        return AutoApprove()
    if mode == "deny":
        return DenyAll("the demo was run with --approve deny")

    def ask(request: ApprovalRequest) -> bool:
        stdout.write(
            f"\nApprove {request.tool}({json.dumps(request.arguments)}) for run "
            f"{request.run_id}? [y/N] "
        )
        stdout.flush()
        return stdin.readline().strip().lower() in ("y", "yes")

    return CallbackApproval(ask)


def _opinion(name: str) -> str:
    return json.dumps({"reviewer": name, **OPINIONS[name]})


def build_reviewers(harness: Harness) -> dict[str, Any]:
    """The three reviewer tools; legal consults tax, which tries legal again (recursion)."""
    inner_legal = harness.export_agent_tool(
        ScriptedAgent("legal", [Turn.say(_opinion("legal"))], description="Legal reviewer."),
        return_mode="json",
    )
    tax_for_legal = harness.export_agent_tool(
        ScriptedAgent(
            "tax",
            [
                Turn.call(
                    ToolCall("legal", {"request": "Does the indemnity change the tax position?"})
                ),
                Turn.say(_opinion("tax")),
            ],
            description="Tax reviewer.",
            tools=[inner_legal],
        ),
        return_mode="json",
    )
    legal = harness.export_agent_tool(
        ScriptedAgent(
            "legal",
            [
                Turn.call(ToolCall("tax", {"request": "Check the VAT impact of " + CLAUSE})),
                Turn.say(_opinion("legal")),
            ],
            description="Legal reviewer: liability, indemnities, termination.",
            tools=[tax_for_legal],
        ),
        return_mode="json",
    )
    tax = harness.export_agent_tool(
        ScriptedAgent("tax", [Turn.say(_opinion("tax"))], description="Tax reviewer."),
        return_mode="json",
    )
    technical = harness.export_agent_tool(
        ScriptedAgent(
            "technical", [Turn.say(_opinion("technical"))], description="Technical reviewer."
        ),
        return_mode="json",
    )
    return {"legal": legal, "tax": tax, "technical": technical}


def send_verdict_spec(sent: list[dict[str, str]]) -> ToolSpec:
    async def send_verdict(client: str, verdict: str) -> str:
        sent.append({"client": client, "verdict": verdict})
        return f"sent verdict {verdict!r} to {client}"

    return ToolSpec(
        name="send_verdict",
        description="Send the review verdict to the client (needs approval).",
        handler=send_verdict,
        input_schema={
            "type": "object",
            "properties": {"client": {"type": "string"}, "verdict": {"type": "string"}},
            "required": ["client", "verdict"],
        },
        confirm=True,
    )


async def run_demo(
    integration: Integration,
    *,
    approve: str = "auto",
    out: Callable[[str], None] = print,
    stdin: TextIO = sys.stdin,
    stdout: TextIO = sys.stdout,
) -> dict[str, Any]:
    harness: Harness = integration.load_harness()
    reviewers = build_reviewers(harness)
    sent: list[dict[str, str]] = []
    port = approval_port(approve, stdin=stdin, stdout=stdout)
    send = harness.export_tool(send_verdict_spec(sent), executor=Executor(), approval=port)
    limits = HierarchyLimits(max_depth=3, max_model_calls=40, child_timeout=60)
    async with run_scope(limits=limits, name="contract-review") as run:
        calls = [
            ToolCall(name, {"request": f"Review for {name} risks: {CLAUSE}"}) for name in reviewers
        ]
        consult = await harness.run(
            list(reviewers.values()), [Turn.call(*calls), Turn.say("collected")]
        )
        opinions = {}
        for call in calls:
            seen = consult.result(call.id)
            try:
                opinions[call.name] = json.loads(seen.text)
            except ValueError:
                opinions[call.name] = {"verdict": "reject", "risk": f"no opinion: {seen.text}"}
        verdict = harshest({n: o.get("verdict", "reject") for n, o in opinions.items()})
        notify = ToolCall("send_verdict", {"client": "ACME GmbH", "verdict": verdict})
        final = await harness.run(
            [send],
            [
                Turn.call(notify),
                Turn.say(f"Verdict on clause 7: {verdict}. Client notified if approved."),
            ],
        )
        notice = final.result(notify.id).text
    return {
        "framework": integration.name,
        "run_id": run.run_id,
        "opinions": opinions,
        "verdict": verdict,
        "notice": notice,
        "sent": sent,
        "final": final.final_text,
        "report": run.report,
    }


def main(args: Any) -> int:
    with tempfile.TemporaryDirectory(prefix="agent-sdk-demo-") as scratch:
        # Without --trace-file the trace lives in a folder that is removed afterwards.
        return _main(args, Path(args.trace_file) if args.trace_file else Path(scratch) / "t.json")


def _main(args: Any, trace_file: Path) -> int:
    integration = pick_integration(args.framework)
    integration.check()
    provider = configure_tracing(
        "agent-sdk-demo", endpoint=args.otlp, file=trace_file, set_global=True
    )
    try:
        result = asyncio.run(run_demo(integration, approve=args.approve))
    finally:
        provider.force_flush()
        provider.shutdown()
    print(f"framework: {result['framework']}   run: {result['run_id']}")
    print("\nopinions:")
    for name, opinion in result["opinions"].items():
        print(f"  {name:<10} {opinion.get('verdict'):<16} {opinion.get('risk', '')}")
    print(f"\nharshest verdict (computed in code): {result['verdict']}")
    print(f"send_verdict: {result['notice']}")
    print(f"\nfinal answer: {result['final']}")
    print("\ncost report:")
    print(result["report"].format())
    print("\ntrace:")
    print(format_tree(load_trace_file(trace_file)))
    if args.trace_file:
        print(f"\ntrace written to {trace_file} (Jaeger UI: Search > JSON File)")
    if args.otlp:
        print(f"\ntrace exported to {args.otlp} (Jaeger: service agent-sdk-demo,")
        print(f"  tag agent_sdk.run_id={result['run_id']})")
    return 0
