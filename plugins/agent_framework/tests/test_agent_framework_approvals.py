"""Native approvals: MAF's own function-approval flow as an adapter over the core's one gate.

A pending confirm call stops a run that has a session with MAF's request; ``session.to_dict()``
carries the run (and a paused child's session) across a process restart; MAF's approval only
resumes the call, the store stays the authority: approved once, a replay refused, edited
arguments a new request. Without a session (or with ``pause=False``) the gate answers in the
tool. MAF's own tools are gated by ``INTEGRATION.bind_approval(port)``. A child's MAF-native
approval, which ``Agent.as_tool`` fails as "Error: Function failed.", fails closed saying why.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agent_framework import Agent, Message, tool

from agent_sdk import CallbackApproval, Decision, DeferredApproval, Executor, ToolSpec
from agent_sdk.scripted import ScriptedAgent, ToolCall, Turn
from agent_sdk_agent_framework import (
    INTEGRATION,
    agent_framework_agent_tool,
    agent_framework_tool,
)
from agent_sdk_agent_framework.testing import ScriptedChatClient, seen_results

PROBE = Path(__file__).with_name("agent_framework_restart_probe.py")


def probe(phase: str, scenario: str, workdir: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(PROBE), phase, scenario, str(workdir)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def ran(workdir: Path) -> list[dict[str, Any]]:
    path = workdir / "ran.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# ~5 s each: four fresh interpreters (pause, an early resume, the resume, the replay), the
# restart being what is under test.
@pytest.mark.parametrize("scenario", ["tool", "child"])
def test_a_paused_run_resumes_in_another_process_once(scenario: str, tmp_path: Path) -> None:
    paused = probe("pause", scenario, tmp_path)
    [request] = paused["requests"]
    assert paused["text"] == "" and request["type"] == "function_approval_request"
    data = request["additional_properties"]["agent_sdk"]
    expected_tool = "transfer" if scenario == "tool" else "payer"
    assert request["function_call"]["name"] == expected_tool
    [call] = data["calls"]  # the child's own call, for an agent tool
    assert (call["call_id"], call["tool"], call["arguments"]) == (
        "call_pay",
        "transfer",
        {"amount": 250, "to": "ACME"},
    )
    store = DeferredApproval(tmp_path / "approvals.db")
    [entry] = store.pending()
    assert entry.id == data["approval_id"] == call["approval_id"] and ran(tmp_path) == []
    # MAF's approval alone resumes the call, but the store has not decided: nothing runs.
    early = probe("resume", scenario, tmp_path)
    assert ran(tmp_path) == [] and "approval required" in json.dumps(early["results"])
    store.resolve(entry.id, approved=True, reviewer="cfo")
    resumed = probe("resume", scenario, tmp_path)
    assert ran(tmp_path) == [{"amount": 250, "to": "ACME"}]
    assert resumed["text"] == "paid ACME" and resumed["requests"] == 0
    top_call = "call_pay" if scenario == "tool" else "call_ask"
    expected = "sent 250 to ACME" if scenario == "tool" else "payer: done"
    assert resumed["results"][top_call] == expected
    replay = probe("resume", scenario, tmp_path)  # the same written state, a third process
    assert ran(tmp_path) == [{"amount": 250, "to": "ACME"}], "approved once: the replay is refused"
    if scenario == "tool":
        assert json.loads(replay["results"][top_call])["error"]["kind"] == "approval-denied"
    assert [e.status for e in store.store.list(None)] == ["used"]


def transfer_spec(ran: list[dict[str, Any]]) -> ToolSpec:
    async def transfer(amount: int, to: str) -> str:
        ran.append({"amount": amount, "to": to})
        return f"sent {amount} to {to}"

    return ToolSpec.from_function(transfer, confirm=True)


def run(agent: Agent[Any], *, session: bool = True, given: Any = "start") -> Any:
    async def main() -> Any:
        return await agent.run(given, session=agent.create_session() if session else None)

    return asyncio.run(main())


@pytest.mark.parametrize("how", ["no session", "pause=False"])
def test_without_maf_flow_the_gate_answers_in_the_tool(how: str) -> None:
    paid: list[dict[str, Any]] = []
    store = DeferredApproval()
    options = {"pause": False} if how == "pause=False" else {}
    pay = agent_framework_tool(transfer_spec(paid), approval=store, **options)
    call = ToolCall("transfer", {"amount": 5, "to": "bob"})
    agent = Agent(client=ScriptedChatClient([Turn.call(call), Turn.say("ok")]), tools=[pay])
    response = run(agent, session=how != "no session")
    assert response.user_input_requests == [] and response.text == "ok"
    [seen] = seen_results([response])[0]
    assert "approval required: apr_" in seen.text and paid == []
    assert [p.tool for p in store.pending()] == ["transfer"]


def test_an_approved_or_denied_call_never_pauses() -> None:
    paid: list[dict[str, Any]] = []
    answers = iter([True, False])
    port = CallbackApproval(lambda request: next(answers))
    pay = agent_framework_tool(transfer_spec(paid), approval=port)
    a, b = (
        ToolCall("transfer", {"amount": 1, "to": "ann"}),
        ToolCall("transfer", {"amount": 2, "to": "bo"}),
    )
    agent = Agent(
        client=ScriptedChatClient([Turn.call(a), Turn.call(b), Turn.say("ok")]), tools=[pay]
    )
    response = run(agent)
    assert response.user_input_requests == [] and paid == [{"amount": 1, "to": "ann"}]
    out = {r.call_id: r.text for r in seen_results([response])[0]}
    assert (
        out[a.id] == "sent 1 to ann" and json.loads(out[b.id])["error"]["kind"] == "approval-denied"
    )


# -- MAF's own tools through the same gate ---------------------------------------------------
@tool(approval_mode="always_require")
def rm(path: str) -> str:
    """Remove a file (MAF's own tool, MAF asks for approval)."""
    removed.append(path)
    return f"removed {path}"


@tool
def archive(path: str) -> str:
    """Archive a file (MAF's own tool, no approval of MAF's)."""
    removed.append(f"archived {path}")
    return f"archived {path}"


removed: list[str] = []


@pytest.fixture(autouse=True)
def _no_files_removed() -> None:
    removed.clear()


def _native_run(
    tools: list[Any], call: ToolCall, middleware: Any, answer: bool = True
) -> tuple[Any, Any]:
    agent = Agent(
        client=ScriptedChatClient([Turn.call(call), Turn.say("ok")]),
        tools=tools,
        middleware=[middleware],
    )

    async def main() -> tuple[Any, Any]:
        session = agent.create_session()
        first = await agent.run("start", session=session)
        answers = [
            r.to_function_approval_response(approved=answer) for r in first.user_input_requests
        ]
        second = await agent.run(Message(role="user", contents=answers), session=session)
        return first, second

    return asyncio.run(main())


@pytest.mark.parametrize("decision", [Decision(True), Decision(False, reason="not today")])
def test_maf_approval_of_its_own_tool_only_resumes_it_and_the_gate_decides(
    decision: Decision,
) -> None:
    asked: list[Any] = []

    def decide(request: Any) -> Decision:
        asked.append((request.tool, request.arguments, request.call_id))
        return decision

    call = ToolCall("rm", {"path": "scratch/x"})
    first, second = _native_run([rm], call, INTEGRATION.bind_approval(CallbackApproval(decide)))
    assert [r.function_call.name for r in first.user_input_requests] == ["rm"]
    assert asked == [("rm", {"path": "scratch/x"}, call.id)], "asked once, after MAF's approval"
    [seen] = seen_results([second])[0]
    if decision.approved:
        assert removed == ["scratch/x"] and seen.text == "removed scratch/x"
    else:
        assert removed == [] and json.loads(seen.text)["error"]["kind"] == "approval-denied"
        assert "not today" in seen.text


def test_a_named_maf_tool_pending_in_the_store_pauses_natively() -> None:
    store = DeferredApproval()
    gate = INTEGRATION.bind_approval(store)
    from agent_sdk_agent_framework import ApprovalMiddleware

    middleware = ApprovalMiddleware(gate.gate, tools=["archive"])
    call = ToolCall("archive", {"path": "/srv/a"})
    first, second = _native_run([archive], call, middleware)
    [request] = first.user_input_requests
    [entry] = store.pending()
    assert request.additional_properties["agent_sdk"]["approval_id"] == entry.id
    # Approved in MAF, still pending in the store: the model is told, nothing runs.
    [seen] = seen_results([second])[0]
    assert removed == [] and f"approval required: {entry.id}" in seen.text


def test_a_childs_maf_approval_fails_closed_saying_why() -> None:
    # Agent.as_tool: the parent's model sees only "Error: Function failed.".
    child = Agent(
        client=ScriptedChatClient([Turn.call(ToolCall("rm", {"path": "/x"})), Turn.say("never")]),
        name="janitor",
        tools=[rm],
    )
    native, ours = (
        ToolCall("janitor", {"task": "clean"}),
        ToolCall("janitor_sdk", {"request": "clean"}),
    )
    parent = Agent(
        client=ScriptedChatClient([Turn.call(native, ours), Turn.say("done")]),
        tools=[
            child.as_tool(),
            agent_framework_agent_tool(child, name="janitor_sdk", executor=Executor()),
        ],
    )
    response = run(parent)
    out = {r.call_id: r for r in seen_results([response])[0]}
    assert out[native.id].text == "Error: Function failed."
    error = json.loads(out[ours.id].text)["error"]
    assert error["kind"] == "approval-denied" and "rm" in error["message"]
    assert "approval=port" in error["message"] and removed == []
    assert response.user_input_requests == [] and response.text == "done"


def test_a_tampered_child_state_is_refused_and_nothing_runs() -> None:
    # The parent's session is the host's file: a child state that is not one we wrote
    # cannot be resumed, and the model is told so (no traceback).
    from agent_sdk_agent_framework.testing import AgentFrameworkHarness, PausedRun

    harness, paid = AgentFrameworkHarness(), []
    pay = harness.export_tool(transfer_spec(paid), executor=Executor(), approval=DeferredApproval())
    payer = harness.export_agent_tool(
        ScriptedAgent(
            "payer",
            [Turn.call(ToolCall("transfer", {"amount": 5, "to": "bob"})), Turn.say("ok")],
            tools=[pay],
        )
    )
    call = ToolCall("payer", {"request": "pay"})
    paused = asyncio.run(harness.pause([payer], [Turn.call(call), Turn.say("done")]))
    blob = json.loads(paused.session)
    blob["state"]["agent_sdk"]["children"][call.id]["session"] = "not a session"
    tampered = PausedRun(paused.agent, json.dumps(blob), paused.requests)
    result = asyncio.run(harness.resume(tampered))
    error = json.loads(result.result(call.id).text)["error"]
    assert error["kind"] == "tool-failed" and "cannot be resumed" in error["message"]
    assert "Traceback" not in result.result(call.id).text and paid == []
