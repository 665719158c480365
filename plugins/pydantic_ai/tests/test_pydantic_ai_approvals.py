"""Approvals over pydantic-ai's own deferred-tool flow, decided by the core's gate: a pending
call pauses the run (``ApprovalRequired`` -> ``DeferredToolRequests``), the host resolves it
in the store and resumes from the history JSON (``DeferredToolResults``); pydantic-ai's
approval only resumes the call, so it runs once, edited arguments and replays are refused,
a child's call pauses and resumes the parent, across a process restart."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter
from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    DeferredToolResults,
    ModelMessagesTypeAdapter,
    Tool,
)
from pydantic_ai.models.function import FunctionModel

from agent_sdk import CallbackApproval, Decision, DeferredApproval, ToolSpec
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_pydantic_ai import (
    INTEGRATION,
    deferred_approval_ids,
    deferred_results,
    pydantic_ai_agent_tool,
    pydantic_ai_tool,
)
from agent_sdk_pydantic_ai.testing import ScriptedFunction, seen_results

HERE = Path(__file__).parent
REQUESTS = TypeAdapter(DeferredToolRequests)


class Ledger:
    def __init__(self) -> None:
        self.paid: list[dict[str, Any]] = []
        self.added: list[int] = []

    def pay(self) -> ToolSpec:
        async def pay(amount: int, to: str) -> str:
            self.paid.append({"amount": amount, "to": to})
            return f"paid {amount} to {to}"

        return ToolSpec(
            name="pay",
            description="Pay someone.",
            handler=pay,
            input_schema={
                "type": "object",
                "properties": {"amount": {"type": "integer"}, "to": {"type": "string"}},
                "required": ["amount", "to"],
            },
            confirm=lambda args: args.amount > 10,
        )

    def add(self) -> ToolSpec:
        async def add(a: int, b: int) -> int:
            self.added.append(a + b)
            return a + b

        return ToolSpec(
            name="add",
            description="Add.",
            handler=add,
            input_schema={
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
            },
        )


def pausable(name: str, turns: list[Turn], tools: list[Any]) -> Agent[Any, Any]:
    return Agent(
        FunctionModel(ScriptedFunction(turns)),
        name=name,
        tools=tools,
        output_type=[str, DeferredToolRequests],
    )


def seen(result: Any) -> dict[str, str]:
    return {r.call_id: r.text for r in seen_results(result.all_messages())[0]}


def test_approved_and_denied_calls_never_pause_the_run() -> None:
    ledger = Ledger()

    def reviewer(req: Any) -> Decision:
        return Decision.approve() if req.arguments["to"] == "ann" else Decision.deny("not bob")

    tool = pydantic_ai_tool(ledger.pay(), approval=CallbackApproval(reviewer))
    ok, no, small = (
        ToolCall("pay", {"amount": 50, "to": "ann"}),
        ToolCall("pay", {"amount": 50, "to": "bob"}),
        ToolCall("pay", {"amount": 5, "to": "bob"}),
    )
    agent = pausable("cashier", [Turn.call(ok, no, small), Turn.say("done")], [tool])
    result = asyncio.run(agent.run("go"))
    assert result.output == "done", "nothing pending: the run does not pause"
    out = seen(result)
    assert out[ok.id] == "paid 50 to ann" and out[small.id] == "paid 5 to bob"
    assert json.loads(out[no.id])["error"]["kind"] == "approval-denied"


def test_a_pending_call_pauses_and_resumes_once_other_calls_of_the_turn_not_again(
    tmp_path: Path,
) -> None:
    # pydantic-ai runs the calls needing no approval in the first run and not again.
    ledger = Ledger()
    port = DeferredApproval(tmp_path / "a.db")
    gated, plain = ToolCall("pay", {"amount": 99, "to": "eve"}), ToolCall("add", {"a": 1, "b": 2})
    tools = [pydantic_ai_tool(ledger.pay(), approval=port), pydantic_ai_tool(ledger.add())]

    def build() -> Agent[Any, Any]:
        return pausable("cashier", [Turn.call(gated, plain), Turn.say("paid")], tools)

    first = asyncio.run(build().run("go"))
    requests = first.output
    assert isinstance(requests, DeferredToolRequests)
    [entry] = port.pending()
    assert deferred_approval_ids(requests) == {gated.id: [entry.id]}
    assert [c.tool_call_id for c in requests.approvals] == [gated.id]
    assert ledger.paid == [] and ledger.added == [3]
    history = first.all_messages_json()
    blob = REQUESTS.dump_json(requests)

    def resume() -> Any:
        return asyncio.run(
            build().run(
                message_history=ModelMessagesTypeAdapter.validate_json(history),
                deferred_tool_results=deferred_results(REQUESTS.validate_json(blob)),
            )
        )

    # Approved in pydantic-ai only: the gate still waits for the store.
    early = resume()
    assert "approval required" in seen(early)[gated.id] and ledger.paid == []
    port.resolve(entry.id, approved=True, reviewer="ops")
    result = resume()
    assert result.output == "paid" and seen(result)[gated.id] == "paid 99 to eve"
    assert ledger.paid == [{"amount": 99, "to": "eve"}] and ledger.added == [3]
    assert result.conversation_id == first.conversation_id != None  # noqa: E711
    assert result.run_id != first.run_id, "a resumption is a new pydantic-ai run"
    replay = resume()
    assert json.loads(seen(replay)[gated.id])["error"]["kind"] == "approval-denied"
    assert ledger.paid == [{"amount": 99, "to": "eve"}], "pydantic-ai has no one-use rule: ours"


def test_an_edited_approval_is_refused(tmp_path: Path) -> None:
    ledger = Ledger()
    port = DeferredApproval(tmp_path / "a.db")
    call = ToolCall("pay", {"amount": 99, "to": "eve"})
    tools = [pydantic_ai_tool(ledger.pay(), approval=port)]
    first = asyncio.run(pausable("c", [Turn.call(call), Turn.say("paid")], tools).run("go"))
    [entry] = port.pending()
    port.resolve(entry.id, approved=True)
    edited = deferred_results(first.output, edit={call.id: {"amount": 999, "to": "mallory"}})
    result = asyncio.run(
        pausable("c", [Turn.call(call), Turn.say("paid")], tools).run(
            message_history=first.all_messages(), deferred_tool_results=edited
        )
    )
    assert ledger.paid == []
    assert "approval required" in seen(result)[call.id], "the edited call is a new request"
    assert {e.arguments["amount"] for e in port.pending()} == {999}


def test_a_pydantic_ai_denial_never_runs_the_call(tmp_path: Path) -> None:
    ledger = Ledger()
    port = DeferredApproval(tmp_path / "a.db")
    call = ToolCall("pay", {"amount": 99, "to": "eve"})
    tools = [pydantic_ai_tool(ledger.pay(), approval=port)]
    first = asyncio.run(pausable("c", [Turn.call(call), Turn.say("done")], tools).run("go"))
    [entry] = port.pending()
    port.resolve(entry.id, approved=True)
    from pydantic_ai import ToolDenied

    result = asyncio.run(
        pausable("c", [Turn.call(call), Turn.say("done")], tools).run(
            message_history=first.all_messages(),
            deferred_tool_results=DeferredToolResults(
                approvals={call.id: ToolDenied("no payments today")}
            ),
        )
    )
    assert seen(result)[call.id] == "no payments today" and ledger.paid == []


def test_a_childs_call_pauses_the_parent_and_resumes_both(tmp_path: Path) -> None:
    ledger = Ledger()
    port = DeferredApproval(tmp_path / "a.db")
    child_call = ToolCall("pay", {"amount": 40, "to": "zed"})
    child = Agent(
        FunctionModel(ScriptedFunction([Turn.call(child_call), Turn.say("child paid")])),
        name="payer",
        tools=[pydantic_ai_tool(ledger.pay(), approval=port)],
    )
    call = ToolCall("payer", {"request": "pay zed 40"})

    def parent() -> Agent[Any, Any]:
        return pausable(
            "boss", [Turn.call(call), Turn.say("all done")], [pydantic_ai_agent_tool(child)]
        )

    first = asyncio.run(parent().run("go"))
    requests = first.output
    assert isinstance(requests, DeferredToolRequests)
    [entry] = port.pending()
    assert [c.tool_call_id for c in requests.approvals] == [call.id], "the parent's own call"
    assert deferred_approval_ids(requests) == {call.id: [entry.id]}
    assert entry.call_id == child_call.id and entry.arguments == {"amount": 40, "to": "zed"}
    assert ledger.paid == []
    port.resolve(entry.id, approved=True)
    result = asyncio.run(
        parent().run(
            message_history=first.all_messages(), deferred_tool_results=deferred_results(requests)
        )
    )
    assert ledger.paid == [{"amount": 40, "to": "zed"}]
    assert seen(result)[call.id] == "child paid" and result.output == "all done"


def test_a_resumed_childs_state_that_does_not_check_out_is_refused(tmp_path: Path) -> None:
    ledger = Ledger()
    port = DeferredApproval(tmp_path / "a.db")
    child_call = ToolCall("pay", {"amount": 40, "to": "zed"})
    child = Agent(
        FunctionModel(ScriptedFunction([Turn.call(child_call), Turn.say("child paid")])),
        name="payer",
        tools=[pydantic_ai_tool(ledger.pay(), approval=port)],
    )
    call = ToolCall("payer", {"request": "pay zed 40"})
    tools = [pydantic_ai_agent_tool(child)]
    first = asyncio.run(pausable("boss", [Turn.call(call), Turn.say("done")], tools).run("go"))
    [entry] = port.pending()
    port.resolve(entry.id, approved=True)
    state = first.output.metadata[call.id]["agent_sdk"]["child"]
    for broken in ({**state, "history": "not json"}, {**state, "agent": "other"}, "junk"):
        metadata = {
            call.id: {"agent_sdk": {**first.output.metadata[call.id]["agent_sdk"], "child": broken}}
        }
        result = asyncio.run(
            pausable("boss", [Turn.call(call), Turn.say("done")], tools).run(
                message_history=first.all_messages(),
                deferred_tool_results=DeferredToolResults(
                    approvals={call.id: True}, metadata=metadata
                ),
            )
        )
        error = json.loads(seen(result)[call.id])["error"]
        assert error["kind"] == "approval-denied" and "cannot be resumed" in error["message"]
        assert "Traceback" not in seen(result)[call.id]
    assert ledger.paid == []


def test_bind_approval_decides_pydantic_ais_own_requires_approval_tools() -> None:
    wiped: list[str] = []

    def wipe(target: str) -> str:
        """Wipe a target."""
        wiped.append(target)
        return "wiped"

    asked: list[tuple[str, dict[str, Any]]] = []

    def reviewer(req: Any) -> bool:
        asked.append((req.tool, req.arguments))
        return req.arguments["target"] == "tmp"

    ok, bad = ToolCall("wipe", {"target": "tmp"}), ToolCall("wipe", {"target": "prod"})
    agent = Agent(
        FunctionModel(ScriptedFunction([Turn.call(ok, bad), Turn.say("done")])),
        tools=[Tool(wipe, requires_approval=True)],
        capabilities=[INTEGRATION.bind_approval(CallbackApproval(reviewer))],
    )
    result = asyncio.run(agent.run("go"))
    assert wiped == ["tmp"] and result.output == "done"
    assert json.loads(seen(result)[bad.id])["error"]["kind"] == "approval-denied"
    assert sorted(asked, key=str) == [("wipe", {"target": "prod"}), ("wipe", {"target": "tmp"})]


def test_across_a_process_restart_a_childs_and_a_parents_call_run_once(tmp_path: Path) -> None:
    """Two processes (a host restarted between the pause and the resumption): the history
    and the deferred requests written as JSON, the approvals in a shared SQLite store.
    Slow for a test (two interpreters importing pydantic-ai), and what the issue asks for."""

    def app(step: str) -> Any:
        done = subprocess.run(
            [sys.executable, str(HERE / "restart_app.py"), step, str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    waiting = app("pause")["waiting"]
    port = DeferredApproval(tmp_path / "approvals.db")
    pending = {e.call_id: e for e in port.pending()}
    assert set(pending) == {"call_child_pay", "call_own_pay"}
    assert waiting == {
        "call_payer": [pending["call_child_pay"].id],
        "call_own_pay": [pending["call_own_pay"].id],
    }, "the parent's own call and its child's, as the parent's deferred calls"
    assert not (tmp_path / "ledger.txt").exists()
    for entry in pending.values():
        port.resolve(entry.id, approved=True, reviewer="ops")
    first, replay = app("resume")
    assert first["output"] == "all done"
    assert first["seen"]["call_payer"] == "child paid zed"
    assert first["seen"]["call_own_pay"] == "paid 7 to ann"
    ledger = (tmp_path / "ledger.txt").read_text().splitlines()
    assert sorted(json.loads(line)["to"] for line in ledger) == ["ann", "zed"], "once each"
    assert replay["refused"] == {
        "call_child_pay": "approval-denied",
        "call_own_pay": "approval-denied",
    }
    assert json.loads(replay["seen"]["call_own_pay"])["error"]["kind"] == "approval-denied"
    assert {e.status for e in port.store.list(None)} == {"used"}


def test_an_edited_childs_call_is_refused(tmp_path: Path) -> None:
    # deferred_results(edit=...) reaches a paused child's call too (its state is handed back
    # with the edit; the child's call resumes with ToolApproved(override_args=...)).
    ledger = Ledger()
    port = DeferredApproval(tmp_path / "a.db")
    child_call = ToolCall("pay", {"amount": 40, "to": "zed"})
    child = Agent(
        FunctionModel(ScriptedFunction([Turn.call(child_call), Turn.say("child paid")])),
        name="payer",
        tools=[pydantic_ai_tool(ledger.pay(), approval=port)],
    )
    call = ToolCall("payer", {"request": "pay zed 40"})
    tools = [pydantic_ai_agent_tool(child)]
    first = asyncio.run(pausable("boss", [Turn.call(call), Turn.say("done")], tools).run("go"))
    [entry] = port.pending()
    port.resolve(entry.id, approved=True)
    edited = deferred_results(first.output, edit={child_call.id: {"amount": 4000, "to": "zed"}})
    asyncio.run(
        pausable("boss", [Turn.call(call), Turn.say("done")], tools).run(
            message_history=first.all_messages(), deferred_tool_results=edited
        )
    )
    assert ledger.paid == [], "an approval of other arguments must not run the edited call"
    assert [e.arguments["amount"] for e in port.pending()] == [4000], "a new request"


def test_a_paused_childs_own_requires_approval_call_waits_on_a_resolvable_id(
    tmp_path: Path,
) -> None:
    # A child's call of pydantic-ai's own requires_approval tool, left pending by the gate
    # (bind_approval), pauses the parent on the id the store holds (it was a placeholder
    # no store knew); approved there, the resumption runs it once, a replay not again.
    wiped: list[str] = []

    def wipe(target: str) -> str:
        """Wipe a target."""
        wiped.append(target)
        return "wiped"

    port = DeferredApproval(tmp_path / "approvals.db")
    child = Agent(
        FunctionModel(
            ScriptedFunction(
                [Turn.call(ToolCall("wipe", {"target": "tmp"}, id="call_wipe")), Turn.say("ok")]
            )
        ),
        name="cleaner",
        tools=[Tool(wipe, requires_approval=True)],
        capabilities=[INTEGRATION.bind_approval(port)],
    )
    delegate = ToolCall("cleaner", {"request": "clean"}, id="call_cleaner")
    parent = Agent(
        FunctionModel(ScriptedFunction([Turn.call(delegate), Turn.say("all done")])),
        name="boss",
        tools=[pydantic_ai_agent_tool(child)],
        output_type=[str, DeferredToolRequests],
    )
    paused = asyncio.run(parent.run("go"))
    requests = paused.output
    assert isinstance(requests, DeferredToolRequests) and wiped == []
    [entry] = port.pending()
    assert entry.tool == "wipe" and entry.call_id == "call_wipe"
    assert deferred_approval_ids(requests) == {"call_cleaner": [entry.id]}
    port.resolve(entry.id, approved=True, reviewer="ops")

    def resume() -> Any:
        return asyncio.run(
            parent.run(
                None,
                message_history=paused.all_messages(),
                deferred_tool_results=deferred_results(requests),
            )
        )

    assert resume().output == "all done" and wiped == ["tmp"]
    resume()
    assert wiped == ["tmp"], "a replayed approval runs nothing"
