"""A host for the two-process approval tests: ``python restart_app.py pause DIR`` runs the
boss until it pauses on two confirm calls, its own ``pay`` and the one its ``payer`` child
makes, and writes the history and the deferred requests to DIR (as a host persists them);
``python restart_app.py resume DIR`` resumes from those files, twice (the second time is a
replay of the same state), printing what each resumption did as JSON. The approvals live in
``DIR/approvals.db``, what ran in ``DIR/ledger.txt``."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter
from pydantic_ai import Agent, DeferredToolRequests, ModelMessagesTypeAdapter
from pydantic_ai.models.function import FunctionModel

from agent_sdk import DeferredApproval, ToolSpec, tool_error
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_pydantic_ai import (
    deferred_approval_ids,
    deferred_results,
    pydantic_ai_agent_tool,
    pydantic_ai_tool,
)
from agent_sdk_pydantic_ai.testing import ScriptedFunction, seen_results

REQUESTS = TypeAdapter(DeferredToolRequests)
CHILD_PAY = ToolCall("pay", {"amount": 40, "to": "zed"}, id="call_child_pay")
OWN_PAY = ToolCall("pay", {"amount": 7, "to": "ann"}, id="call_own_pay")
DELEGATE = ToolCall("payer", {"request": "pay zed 40"}, id="call_payer")


def build(folder: Path) -> Agent[Any, Any]:
    """The same app in every process: new objects, the same files."""
    ledger = folder / "ledger.txt"

    async def pay(amount: int, to: str) -> str:
        with ledger.open("a") as out:
            out.write(json.dumps({"amount": amount, "to": to}) + "\n")
        return f"paid {amount} to {to}"

    spec = ToolSpec(
        name="pay",
        description="Pay someone.",
        handler=pay,
        input_schema={
            "type": "object",
            "properties": {"amount": {"type": "integer"}, "to": {"type": "string"}},
            "required": ["amount", "to"],
        },
        confirm=True,
    )
    port = DeferredApproval(folder / "approvals.db")
    child = Agent(
        FunctionModel(ScriptedFunction([Turn.call(CHILD_PAY), Turn.say("child paid zed")])),
        name="payer",
        tools=[pydantic_ai_tool(spec, approval=port)],
    )
    return Agent(
        FunctionModel(ScriptedFunction([Turn.call(DELEGATE, OWN_PAY), Turn.say("all done")])),
        name="boss",
        tools=[pydantic_ai_agent_tool(child), pydantic_ai_tool(spec, approval=port)],
        output_type=[str, DeferredToolRequests],
    )


async def pause(folder: Path) -> dict[str, Any]:
    result = await build(folder).run("pay zed and ann")
    assert isinstance(result.output, DeferredToolRequests), result.output
    (folder / "history.json").write_bytes(result.all_messages_json())
    (folder / "requests.json").write_bytes(REQUESTS.dump_json(result.output))
    return {"waiting": deferred_approval_ids(result.output)}


async def resume(folder: Path) -> list[dict[str, Any]]:
    done = []
    for _ in range(2):  # the second time replays the same written state
        agent = build(folder)
        history = ModelMessagesTypeAdapter.validate_json((folder / "history.json").read_bytes())
        requests = REQUESTS.validate_json((folder / "requests.json").read_bytes())
        result = await agent.run(
            message_history=history, deferred_tool_results=deferred_results(requests)
        )
        seen = {r.call_id: r.text for r in seen_results(result.all_messages())[0]}
        refused = {c.id: getattr(tool_error(c.id), "kind", None) for c in (CHILD_PAY, OWN_PAY)}
        done.append(
            {
                "output": result.output,
                "seen": seen,
                "refused": {k: v.value if v else None for k, v in refused.items()},
            }
        )
    return done


if __name__ == "__main__":
    step, folder = sys.argv[1], Path(sys.argv[2])
    answer = asyncio.run(pause(folder) if step == "pause" else resume(folder))
    print(json.dumps(answer))
