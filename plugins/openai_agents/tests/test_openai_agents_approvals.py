"""Native approvals: the port decides through needs_approval; a pending approval pauses the
run as an SDK interruption that survives RunState.to_string(), is approved elsewhere, and
resumes to run the tool exactly once. Child approvals surface in the parent's run."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from agents import Agent, RunConfig, Runner, function_tool
from agents.run_state import RunState

from agent_sdk import CallbackApproval, Decision, DeferredApproval, Executor, ToolSpec, run_scope
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_openai_agents import INTEGRATION, openai_agents_agent_tool, openai_agents_tool
from agent_sdk_openai_agents.testing import ScriptedModel


class Ledger:
    def __init__(self) -> None:
        self.paid: list[dict[str, Any]] = []

    def spec(self) -> ToolSpec:
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


def outputs(result: Any) -> dict[str, str]:
    return {
        i.call_id: i.output
        for i in result.new_items
        if getattr(i, "type", "") == "tool_call_output_item"
    }


def agent_with(tools: list[Any], turns: list[Turn], name: str = "cashier") -> Agent[Any]:
    return Agent(name=name, model=ScriptedModel(turns), tools=tools)


RC = RunConfig(
    tracing_disabled=False
)  # SDK tracing on (export off, see conftest): run id = trace id


def test_approved_and_denied_calls_never_pause_the_run() -> None:
    ledger = Ledger()
    asked: list[str] = []

    def reviewer(req: Any) -> Decision:
        asked.append(req.call_id)
        return Decision.approve() if req.arguments["to"] == "ann" else Decision.deny("not bob")

    tool = openai_agents_tool(ledger.spec(), approval=CallbackApproval(reviewer))
    ok, no, small = (
        ToolCall("pay", {"amount": 50, "to": "ann"}),
        ToolCall("pay", {"amount": 50, "to": "bob"}),
        ToolCall("pay", {"amount": 5, "to": "bob"}),
    )
    result = asyncio.run(
        Runner.run(
            agent_with([tool], [Turn.call(ok, no, small), Turn.say("done")]), "go", run_config=RC
        )
    )
    assert result.interruptions == [] and result.final_output == "done"
    out = outputs(result)
    assert out[ok.id] == "paid 50 to ann" and out[small.id] == "paid 5 to bob"
    assert json.loads(out[no.id])["error"]["kind"] == "approval-denied"
    assert sorted(asked) == sorted([ok.id, no.id]), "only confirm calls are asked, once each"
    assert sorted(ledger.paid, key=str) == sorted(
        [{"amount": 50, "to": "ann"}, {"amount": 5, "to": "bob"}], key=str
    )


def test_pending_pauses_and_a_resume_after_approval_runs_the_tool_once(tmp_path: Path) -> None:
    ledger = Ledger()
    port = DeferredApproval(tmp_path / "approvals.db")
    tool = openai_agents_tool(ledger.spec(), approval=port)
    call = ToolCall("pay", {"amount": 99, "to": "eve"})
    agent = agent_with([tool], [Turn.call(call), Turn.say("paid")])
    app_context = {"tenant": "acme"}

    async def first() -> str:
        result = await Runner.run(agent, "go", context=app_context, run_config=RC)
        assert [i.call_id for i in result.interruptions] == [call.id]
        return result.to_state().to_string()

    blob = asyncio.run(first())
    assert ledger.paid == []
    [entry] = port.pending()
    assert entry.call_id == call.id and entry.arguments == {"amount": 99, "to": "eve"}

    # another process resolves the approval in the shared store
    resolve = f"from agent_sdk import DeferredApproval; DeferredApproval({str(tmp_path / 'approvals.db')!r}).resolve({entry.id!r}, approved=True, reviewer='ops')"
    subprocess.run([sys.executable, "-c", resolve], check=True, timeout=60)

    async def resume() -> Any:
        state = await RunState.from_string(agent, blob)
        for item in state.get_interruptions():
            state.approve(item)
        return await Runner.run(agent, state, context=app_context, run_config=RC)

    result = asyncio.run(resume())
    assert result.final_output == "paid" and result.context_wrapper.context is app_context
    assert outputs(result)[call.id] == "paid 99 to eve"
    assert ledger.paid == [{"amount": 99, "to": "eve"}]

    # replaying the same serialised state cannot pay twice: the approval was used
    replay = asyncio.run(resume())
    assert json.loads(outputs(replay)[call.id])["error"]["kind"] == "approval-denied"
    assert ledger.paid == [{"amount": 99, "to": "eve"}]


def test_approving_only_in_the_sdk_does_not_bypass_the_port(tmp_path: Path) -> None:
    ledger = Ledger()
    port = DeferredApproval(tmp_path / "a.db")
    tool = openai_agents_tool(ledger.spec(), approval=port)
    call = ToolCall("pay", {"amount": 99, "to": "eve"})
    agent = agent_with([tool], [Turn.call(call), Turn.say("done")])

    async def main() -> Any:
        result = await Runner.run(agent, "go", run_config=RC)
        state = result.to_state()
        state.approve(result.interruptions[0])
        return await Runner.run(agent, state, run_config=RC)

    result = asyncio.run(main())
    assert "approval required: apr_" in outputs(result)[call.id]
    assert ledger.paid == []


def test_an_sdk_rejection_never_runs_the_tool(tmp_path: Path) -> None:
    ledger = Ledger()
    tool = openai_agents_tool(ledger.spec(), approval=DeferredApproval(tmp_path / "a.db"))
    call = ToolCall("pay", {"amount": 99, "to": "eve"})
    agent = agent_with([tool], [Turn.call(call), Turn.say("done")])

    async def main() -> Any:
        result = await Runner.run(agent, "go", run_config=RC)
        state = result.to_state()
        state.reject(result.interruptions[0], rejection_message="no payments today")
        return await Runner.run(agent, state, run_config=RC)

    result = asyncio.run(main())
    assert outputs(result)[call.id] == "no payments today" and ledger.paid == []


def test_bind_approval_gates_a_native_sdk_tool() -> None:
    ran: list[str] = []

    @function_tool
    def wipe(target: str) -> str:
        """Wipe a target."""
        ran.append(target)
        return "wiped"

    asked: list[tuple[str, dict[str, Any]]] = []

    def reviewer(req: Any) -> bool:
        asked.append((req.tool, req.arguments))
        return req.arguments["target"] == "tmp"

    wipe.needs_approval = INTEGRATION.bind_approval(CallbackApproval(reviewer))
    ok, bad = ToolCall("wipe", {"target": "tmp"}), ToolCall("wipe", {"target": "prod"})
    result = asyncio.run(
        Runner.run(agent_with([wipe], [Turn.call(ok, bad), Turn.say("done")]), "go", run_config=RC)
    )
    assert ran == ["tmp"]
    assert [i.call_id for i in result.interruptions] == [bad.id], "a denial pauses for the host"
    assert ("wipe", {"target": "prod"}) in asked


def test_child_approvals_surface_in_the_parent_and_resume_the_child(tmp_path: Path) -> None:
    ledger = Ledger()
    port = DeferredApproval(tmp_path / "a.db")
    child_call = ToolCall("pay", {"amount": 40, "to": "zed"})
    child = agent_with(
        [openai_agents_tool(ledger.spec(), approval=port, executor=Executor())],
        [Turn.call(child_call), Turn.say("child paid")],
        name="payer",
    )
    agent_tool = openai_agents_agent_tool(child, name="payer")
    call = ToolCall("payer", {"request": "pay zed 40"})
    parent = agent_with([agent_tool], [Turn.call(call), Turn.say("all done")], name="boss")

    async def main() -> Any:
        result = await Runner.run(parent, "go", run_config=RC)
        assert [(i.tool_name, i.call_id) for i in result.interruptions] == [("pay", child_call.id)]
        assert result.interruptions[0].agent.name == "payer"
        blob = result.to_state().to_string()
        [entry] = port.pending()
        port.resolve(entry.id, approved=True)
        state = await RunState.from_string(parent, blob)
        for item in state.get_interruptions():
            state.approve(item)
        return await Runner.run(parent, state, run_config=RC)

    result = asyncio.run(main())
    assert ledger.paid == [{"amount": 40, "to": "zed"}]
    assert outputs(result)[call.id] == "child paid"
    assert result.final_output == "all done"


def native_wipe(ran: list[str]) -> Any:
    @function_tool
    def wipe(target: str) -> str:
        """Wipe a target."""
        ran.append(target)
        return "wiped"

    return wipe


def test_native_approval_decides_as_the_core_does() -> None:
    # An approval that repeats the arguments is a plain approval (0.1 paused it); one that
    # changes them is a denial (edited approvals cannot be applied), as for every confirm call.
    ran: list[str] = []
    wipe = native_wipe(ran)

    def reviewer(req: Any) -> Decision:
        if req.arguments["target"] == "tmp":
            return Decision(True, arguments=dict(req.arguments))
        return Decision(True, arguments={"target": "tmp"})

    native = INTEGRATION.bind_approval(CallbackApproval(reviewer))
    wipe.needs_approval = native
    same, edited = ToolCall("wipe", {"target": "tmp"}), ToolCall("wipe", {"target": "prod"})
    result = asyncio.run(
        Runner.run(
            agent_with([wipe], [Turn.call(same, edited), Turn.say("done")]), "go", run_config=RC
        )
    )
    assert ran == ["tmp"] and native.refusal(same.id) is None
    assert [i.call_id for i in result.interruptions] == [edited.id]
    refusal = native.refusal(edited.id)
    assert refusal is not None and refusal.kind.value == "approval-denied"
    assert "changed its arguments" in refusal.message

    async def reject() -> Any:
        state = result.to_state()
        for item in result.interruptions:
            state.reject(item, rejection_message=native.refusal(item.call_id).to_model_text())
        return await Runner.run(result.last_agent, state, run_config=RC)

    after = asyncio.run(reject())
    assert json.loads(outputs(after)[edited.id])["error"]["kind"] == "approval-denied"
    assert ran == ["tmp"] and after.final_output == "done"


def test_a_failing_port_pauses_a_native_call_as_denied_instead_of_crashing_the_run() -> None:
    ran: list[str] = []
    wipe = native_wipe(ran)

    def broken(req: Any) -> bool:
        raise OSError("reviewer service down")

    native = INTEGRATION.bind_approval(CallbackApproval(broken))
    wipe.needs_approval = native
    call = ToolCall("wipe", {"target": "tmp"})
    result = asyncio.run(
        Runner.run(agent_with([wipe], [Turn.call(call), Turn.say("done")]), "go", run_config=RC)
    )
    assert [i.call_id for i in result.interruptions] == [call.id] and ran == []
    refusal = native.refusal(call.id)
    assert refusal is not None and refusal.kind.value == "approval-denied"
    assert "reviewer service down" in refusal.message


def test_a_pending_native_call_pauses_with_its_approval_id(tmp_path: Path) -> None:
    ran: list[str] = []
    wipe = native_wipe(ran)
    port = DeferredApproval(tmp_path / "a.db")
    native = INTEGRATION.bind_approval(port)
    wipe.needs_approval = native
    call = ToolCall("wipe", {"target": "prod"})
    agent = agent_with([wipe], [Turn.call(call), Turn.say("done")])
    result = asyncio.run(Runner.run(agent, "go", run_config=RC))
    [entry] = port.pending()
    refusal = native.refusal(call.id)
    assert refusal is not None and refusal.approval_id == entry.id
    assert entry.tool == "wipe" and entry.arguments == {"target": "prod"}

    port.resolve(entry.id, approved=True)

    async def resume() -> Any:
        state = result.to_state()
        for item in result.interruptions:
            state.approve(item)
        return await Runner.run(agent, state, run_config=RC)

    after = asyncio.run(resume())
    assert ran == ["prod"] and after.final_output == "done"


def test_with_sdk_tracing_off_a_run_scope_names_the_run_across_a_resume(tmp_path: Path) -> None:
    """Issue 15, item 13: without an SDK trace every Runner.run had a random run id, so a
    resumed call never matched its deferred approval. The run scope names the run (the
    SDK keeps no id of its own then); without one, the resumed call is asked again and
    never runs on an approval it was not given."""
    ledger = Ledger()
    port = DeferredApproval(tmp_path / "approvals.db")
    tool = openai_agents_tool(ledger.spec(), approval=port)
    call = ToolCall("pay", {"amount": 99, "to": "eve"})
    agent = agent_with([tool], [Turn.call(call), Turn.say("paid")])
    off = RunConfig(tracing_disabled=True, trace_id="trace_fixed_by_the_host")

    async def first(run_id: str | None) -> str:
        async with run_scope(run_id) if run_id else contextlib.nullcontext():
            result = await Runner.run(agent, "go", run_config=off)
        assert [i.call_id for i in result.interruptions] == [call.id]
        return result.to_state().to_string()

    async def resume(blob: str, run_id: str | None) -> Any:
        state = await RunState.from_string(agent, blob)
        for item in state.get_interruptions():
            state.approve(item)
        async with run_scope(run_id) if run_id else contextlib.nullcontext():
            return await Runner.run(agent, state, run_config=off)

    # With a run scope: approved in the store, resumed, run once.
    blob = asyncio.run(first("run-pay-1"))
    [entry] = port.pending()
    port.resolve(entry.id, approved=True, reviewer="ops")
    result = asyncio.run(resume(blob, "run-pay-1"))
    assert outputs(result)[call.id] == "paid 99 to eve"
    assert ledger.paid == [{"amount": 99, "to": "eve"}] and port.pending() == []

    # Without one: the resumed run is a new run; its call waits for its own approval.
    blob = asyncio.run(first(None))
    [entry] = port.pending()
    port.resolve(entry.id, approved=True, reviewer="ops")
    result = asyncio.run(resume(blob, None))
    assert json.loads(outputs(result)[call.id])["error"]["kind"] == "approval-pending"
    assert len(ledger.paid) == 1
