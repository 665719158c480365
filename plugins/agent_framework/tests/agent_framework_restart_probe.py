"""Run in subprocesses by test_agent_framework_approvals.py: one process pauses a run on a
pending approval and writes ``session.to_dict()`` and the requests to a file, exactly as a
host does; later processes build everything anew, read the file and resume.

    python agent_framework_restart_probe.py pause|resume SCENARIO WORKDIR

SCENARIO is ``tool`` (our confirm tool on the top agent) or ``child`` (it is in a child an
agent tool runs). The approval store is ``WORKDIR/approvals.db``; the handler appends each
run to ``WORKDIR/ran.jsonl``. Prints one JSON line: what the run stopped on, or what the
model saw.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from agent_framework import Agent, AgentSession, Content, Message

from agent_sdk import DeferredApproval, Executor, ToolSpec
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk_agent_framework import agent_framework_agent_tool, agent_framework_tool
from agent_sdk_agent_framework.testing import ScriptedChatClient, seen_results

PAY = ToolCall("transfer", {"amount": 250, "to": "ACME"}, id="call_pay")
ASK = ToolCall("payer", {"request": "pay ACME 250"}, id="call_ask")


def build(scenario: str, workdir: Path) -> Agent[Any]:
    ran = workdir / "ran.jsonl"

    async def transfer(amount: int, to: str) -> str:
        with ran.open("a") as f:
            f.write(json.dumps({"amount": amount, "to": to}) + "\n")
        return f"sent {amount} to {to}"

    spec = ToolSpec(
        name="transfer",
        description="Send money; needs approval.",
        handler=transfer,
        input_schema={
            "type": "object",
            "properties": {"amount": {"type": "integer"}, "to": {"type": "string"}},
            "required": ["amount", "to"],
        },
        confirm=True,
    )
    store = DeferredApproval(workdir / "approvals.db")
    pay = agent_framework_tool(spec, executor=Executor(), approval=store)
    if scenario == "tool":
        client = ScriptedChatClient([Turn.call(PAY), Turn.say("paid ACME")], name="boss")
        return Agent(client=client, name="boss", tools=[pay])
    child = Agent(
        client=ScriptedChatClient([Turn.call(PAY), Turn.say("payer: done")], name="payer"),
        name="payer",
        description="Pays suppliers.",
        tools=[pay],
    )
    client = ScriptedChatClient([Turn.call(ASK), Turn.say("paid ACME")], name="boss")
    return Agent(client=client, name="boss", tools=[agent_framework_agent_tool(child)])


async def pause(scenario: str, workdir: Path) -> dict[str, Any]:
    agent = build(scenario, workdir)
    session = agent.create_session()
    response = await agent.run("Pay ACME", session=session)
    requests = [r.to_dict() for r in response.user_input_requests]
    state = {"session": session.to_dict(), "requests": requests}
    (workdir / "paused.json").write_text(json.dumps(state))
    return {"text": response.text, "requests": requests}


async def resume(scenario: str, workdir: Path) -> dict[str, Any]:
    agent = build(scenario, workdir)
    state = json.loads((workdir / "paused.json").read_text())
    session = AgentSession.from_dict(state["session"])
    answers = [
        Content.from_dict(r).to_function_approval_response(approved=True) for r in state["requests"]
    ]
    response = await agent.run(Message(role="user", contents=answers), session=session)
    results, _ = seen_results([response])
    return {
        "text": response.text,
        "results": {r.call_id: r.text for r in results},
        "requests": len(response.user_input_requests),
    }


def main() -> None:
    phase, scenario, workdir = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out = asyncio.run((pause if phase == "pause" else resume)(scenario, workdir))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
