"""Approvals of AG2 tools: the gate decides each call once, inside the tool, after every
middleware."""

from __future__ import annotations

from typing import Any

import pytest
from ag2 import MemoryStream
from ag2.context import ConversationContext
from ag2.events import ToolCallEvent
from ag2.middleware import approval_required
from ag2_helpers import call, kind, run_agent, transfer_spec

from agent_sdk import CallbackApproval, Decision, DeferredApproval, Executor
from agent_sdk.approval import AUTHORITY
from agent_sdk.approval.admission import Admission, comparable
from agent_sdk.context import CallContext
from agent_sdk.spec import arguments_digest
from agent_sdk.testing import Turn
from agent_sdk.testing.contract import CountingPort
from agent_sdk_ag2 import ag2_tool


async def test_approved_call_runs_once_with_the_gate_token() -> None:
    calls: list[dict[str, Any]] = []
    gate, own = CountingPort(True), CountingPort(False)
    tool = ag2_tool(transfer_spec(calls), executor=Executor(approval=own), approval=gate)
    c = call("transfer", {"amount": 5, "to": "bob"})
    _, results, _ = await run_agent([tool], [Turn.call(c), Turn.say("done")])
    assert calls == [{"amount": 5, "to": "bob"}] and own.requests == []
    [request] = gate.requests
    assert request["call_id"] == c.id and request["thread_id"] == request["run_id"]
    assert results[0].text == "sent 5 to bob"


async def test_no_token_is_left_behind_after_a_gated_call() -> None:
    before = AUTHORITY.outstanding()
    tool = ag2_tool(transfer_spec([]), approval=CountingPort(True))
    await run_agent([tool], [Turn.call(call("transfer", {"amount": 1, "to": "a"})), Turn.say("ok")])
    assert AUTHORITY.outstanding() == before


async def test_parallel_confirm_calls_each_get_their_own_decision() -> None:
    calls: list[dict[str, Any]] = []

    def reviewer(request: Any) -> bool:
        return request.arguments["amount"] < 10

    tool = ag2_tool(transfer_spec(calls), approval=CallbackApproval(reviewer))
    small, big = (
        call("transfer", {"amount": 3, "to": "a"}),
        call("transfer", {"amount": 300, "to": "b"}),
    )
    _, results, _ = await run_agent([tool], [Turn.call(small, big), Turn.say("done")])
    assert calls == [{"amount": 3, "to": "a"}]
    by_id = {r.call_id: r for r in results}
    assert by_id[small.id].text == "sent 3 to a"
    assert kind(by_id[big.id].text) == "approval-denied" and by_id[big.id].is_error


async def test_confirm_predicate_decides_which_calls_ask_the_port() -> None:
    calls: list[dict[str, Any]] = []
    gate = CountingPort(True)
    spec = transfer_spec(calls, confirm=lambda args: args.amount >= 100)
    tool = ag2_tool(spec, approval=gate)
    turns = [
        Turn.call(
            call("transfer", {"amount": 5, "to": "a"}), call("transfer", {"amount": 500, "to": "b"})
        ),
        Turn.say("ok"),
    ]
    await run_agent([tool], turns)
    assert [r["arguments"]["amount"] for r in gate.requests] == [500]
    assert sorted(c["amount"] for c in calls) == [5, 500]


async def test_deferred_then_replayed_call_runs_exactly_once() -> None:
    calls: list[dict[str, Any]] = []
    port = DeferredApproval()
    tool = ag2_tool(transfer_spec(calls), approval=port)
    stream = MemoryStream()
    from ag2 import Agent

    from agent_sdk_ag2.testing import ScriptedConfig

    first = call("transfer", {"amount": 7, "to": "dan"}, id="call_replay")
    # reply.ask continues the stream with the same client, so one script covers all asks.
    script = [Turn.call(first), Turn.say("waiting")] * 3
    agent = Agent("a", config=ScriptedConfig(script), tools=[tool])
    reply = await agent.ask("pay", stream=stream)
    assert calls == []
    [pending] = port.pending()
    port.resolve(pending.id, approved=True, reviewer="ops")
    # The same call (same stream, call id, tool, arguments) made again runs once...
    await reply.ask("approved, go on")
    assert calls == [{"amount": 7, "to": "dan"}]
    # ...and a replay of it does not run again.
    again = await reply.ask("once more")
    events = await again.history.get_events()
    from agent_sdk_ag2.testing import seen_results

    texts = [r.text for r in seen_results(events)]
    assert "approval required: " + pending.id in texts[0]
    assert texts[1] == "sent 7 to dan"
    assert kind(texts[2]) == "approval-denied" and "already used" in texts[2]
    assert calls == [{"amount": 7, "to": "dan"}]


async def test_an_approval_that_edits_arguments_is_denied() -> None:
    calls: list[dict[str, Any]] = []
    edit = CountingPort(Decision(True, arguments={"amount": 1, "to": "bob"}))
    tool = ag2_tool(transfer_spec(calls), approval=edit)
    _, results, _ = await run_agent(
        [tool], [Turn.call(call("transfer", {"amount": 9, "to": "bob"})), Turn.say("x")]
    )
    assert calls == [] and kind(results[0].text) == "approval-denied"


@pytest.mark.parametrize("answer", ["y", "always"])
async def test_ag2_approval_required_answered_yes_is_not_an_approval(answer: str) -> None:
    calls: list[dict[str, Any]] = []
    asked: list[str] = []

    def hitl(request: Any) -> str:
        asked.append(request.content)
        return answer

    # No approval= and no executor port: AG2's human "yes" only lets the call through
    # AG2's gate; the executor still decides, and with no port it denies.
    tool = ag2_tool(transfer_spec(calls), middleware=[approval_required()])
    _, results, _ = await run_agent(
        [tool],
        [Turn.call(call("transfer", {"amount": 4, "to": "eve"})), Turn.say("x")],
        hitl_hook=hitl,
    )
    assert len(asked) == 1 and calls == []
    assert kind(results[0].text) == "approval-denied"
    # With an executor port, that port is asked as well (AG2's answer adds a gate only).
    own = CountingPort(True)
    tool = ag2_tool(
        transfer_spec(calls), executor=Executor(approval=own), middleware=[approval_required()]
    )
    await run_agent(
        [tool],
        [Turn.call(call("transfer", {"amount": 4, "to": "eve"})), Turn.say("x")],
        hitl_hook=hitl,
    )
    assert len(own.requests) == 1 and calls == [{"amount": 4, "to": "eve"}]


async def test_a_decision_kept_for_another_call_or_stream_is_not_taken() -> None:
    calls: list[dict[str, Any]] = []
    port = CountingPort(False)
    tool = ag2_tool(transfer_spec(calls), approval=port)
    stream = MemoryStream()
    event = ToolCallEvent("transfer", arguments='{"amount": 5, "to": "bob"}', id="call_mine")
    context = ConversationContext(stream=stream)
    gate = tool._gate
    assert gate is not None
    arguments = {"amount": 5, "to": "bob"}
    validated = tool.spec.validate(arguments)
    digest = arguments_digest("transfer", validated)
    kept = []
    for thread_id, call_id in [(str(stream.id), "call_other"), ("other-stream", "call_mine")]:
        ctx = CallContext(run_id=thread_id, thread_id=thread_id, call_id=call_id)
        token = AUTHORITY.mint(
            run_id=ctx.run_id, thread_id=thread_id, call_id=call_id, tool="transfer", digest=digest
        )
        admission = Admission(tool.spec, ctx, validated, token=token, digest=digest)
        admission.arguments = comparable(arguments)
        assert gate.early.keep(admission) == []
        kept.append(token)
    try:
        result = await tool(event, context)  # the tool object itself, as AG2 calls it
        assert kind(result.result.parts[0].content) == "approval-denied"
        assert calls == [] and len(port.requests) == 1, "the gate decided this call itself"
        assert len(gate.early) == 2, "the decisions kept for the other calls are still there"
    finally:
        for token in kept:
            AUTHORITY.discard(token)
