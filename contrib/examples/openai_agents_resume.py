"""Pause an OpenAI Agents SDK run on a pending approval, serialise it, approve from another
process, resume in a new process: the tool runs exactly once.

1. this process: the agent asks to pay 250; the DeferredApproval port answers "pending",
   the run pauses (an SDK interruption) and its RunState is written to a file;
2. another process (a reviewer's console) approves the request in the shared SQLite store;
3. a new process loads the RunState, approves the interruption in the SDK, resumes with its
   live context: the payment runs once; resuming the same file again cannot pay twice.

Offline (scripted model, SDK trace export off). Run: python contrib/examples/openai_agents_resume.py
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from agents import Agent, RunConfig, Runner
from agents.run_state import RunState
from agents.tracing import set_trace_processors

from agent_sdk import DeferredApproval, ToolSpec
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk_openai_agents import openai_agents_tool
from agent_sdk_openai_agents.testing import ScriptedModel

CALL = ToolCall("pay", {"amount": 250, "to": "ACME Ltd"}, id="call_pay_1")


def build_agent(workdir: Path) -> Agent[Any]:
    """The same agent in every process: a payment tool gated by a durable approval store."""

    def pay(amount: int, to: str) -> str:
        with open(workdir / "ledger.txt", "a") as ledger:
            ledger.write(f"{amount} -> {to}\n")
        return f"paid {amount} to {to}"

    spec = ToolSpec(
        name="pay",
        description="Pay a supplier (needs approval above 100).",
        handler=pay,
        input_schema={
            "type": "object",
            "properties": {"amount": {"type": "integer"}, "to": {"type": "string"}},
            "required": ["amount", "to"],
        },
        confirm=lambda args: args.amount > 100,
    )
    tool = openai_agents_tool(spec, approval=DeferredApproval(workdir / "approvals.db"))
    model = ScriptedModel(
        [Turn.call(CALL), Turn.say("The supplier is paid.")], name="cashier-model"
    )
    return Agent(
        name="cashier", instructions="Pay the invoices you are given.", model=model, tools=[tool]
    )


# SDK tracing stays on (its trace id is the run id and survives the RunState round trip,
# so the approval store recognises the resumed call), but nothing is exported.
RUN_CONFIG = RunConfig(workflow_name="invoice payment")


async def start(workdir: Path) -> str:
    agent = build_agent(workdir)
    context = {"invoice": "INV-7"}
    result = await Runner.run(agent, "Pay invoice INV-7", context=context, run_config=RUN_CONFIG)
    assert result.final_output is None and len(result.interruptions) == 1
    item = result.interruptions[0]
    print(f"[run]      paused: {item.tool_name}({item.arguments}) call_id={item.call_id}")
    (workdir / "state.json").write_text(result.to_state().to_string())
    [pending] = DeferredApproval(workdir / "approvals.db").pending()
    print(f"[run]      state saved; approval {pending.id} is pending")
    return pending.id


# What a reviewer's console runs, in its own process, next to the shared approval store.
REVIEWER = """
import sys
from agent_sdk import DeferredApproval
store, approval_id = sys.argv[1], sys.argv[2]
entry = DeferredApproval(store).resolve(approval_id, approved=True, reviewer="cfo")
print(f"[reviewer] approved {entry.id}: {entry.tool} {entry.arguments}")
"""


async def resume(workdir: Path) -> None:
    """Runs in a new process: restore the paused run and finish it."""
    agent = build_agent(workdir)
    context = {"invoice": "INV-7"}  # the live context: the restored state only holds a copy
    outputs = []
    for attempt in ("resume", "replay"):
        state = await RunState.from_string(agent, (workdir / "state.json").read_text())
        for item in state.get_interruptions():
            state.approve(item)  # resume the call; the approval store still decides
        result = await Runner.run(agent, state, context=context, run_config=RUN_CONFIG)
        assert result.context_wrapper.context is context
        [output] = [
            i.output
            for i in result.new_items
            if getattr(i, "call_id", None) == CALL.id and i.type == "tool_call_output_item"
        ]
        print(f"[{attempt}]   tool result: {output}")
        outputs.append(output)
    assert outputs[0] == "paid 250 to ACME Ltd"
    assert json.loads(outputs[1])["error"]["kind"] == "approval-denied", "an approval is used once"


def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="oa-resume-"))
    approval_id = asyncio.run(start(workdir))
    here = str(Path(__file__).resolve())
    store = str(workdir / "approvals.db")
    subprocess.run([sys.executable, "-c", REVIEWER, store, approval_id], check=True, timeout=120)
    subprocess.run([sys.executable, here, "resume", str(workdir)], check=True, timeout=120)
    ledger = (workdir / "ledger.txt").read_text().splitlines()
    print(f"[ledger]   {ledger}")
    assert ledger == ["250 -> ACME Ltd"], "the tool must run exactly once"


if __name__ == "__main__":
    set_trace_processors([])  # this example exports no traces (an application's choice)
    if len(sys.argv) > 1 and sys.argv[1] == "resume":
        asyncio.run(resume(Path(sys.argv[2])))
    else:
        main()
