"""One hand-off: the gate decides a call once and the executor runs exactly what it decided.

Counters prove "once"; an event holds a reviewer mid-decision to prove that what was
approved is what runs; the early-decision store is bounded by count (100,000 calls).
"""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

from agent_sdk import CallbackApproval, Decision, Executor, ToolSpec
from agent_sdk.approval import AUTHORITY, ApprovalGate, TokenAuthority
from agent_sdk.approval.admission import EarlyDecisions
from agent_sdk.context import CallContext


class Counts:
    def __init__(self) -> None:
        self.validated = 0
        self.confirmed = 0
        self.asked = 0
        self.minted = 0
        self.consumed = 0


def counted_spec(counts: Counts, ran: list[dict[str, Any]]) -> ToolSpec:
    class Payment(BaseModel):
        to: str
        amount: int
        notes: list[str] = []

        @field_validator("amount")
        @classmethod
        def count(cls, value: int) -> int:
            counts.validated += 1
            return value

    def confirm(args: Any) -> bool:
        counts.confirmed += 1
        return bool(args.amount > 10)

    async def pay(to: str, amount: int, notes: list[str]) -> str:
        ran.append({"to": to, "amount": amount, "notes": list(notes)})
        return f"paid {amount} to {to}"

    return ToolSpec("pay", "Pay someone.", pay, input_model=Payment, confirm=confirm)


class CountingAuthority(TokenAuthority):
    def __init__(self, counts: Counts) -> None:
        super().__init__()
        self.counts = counts

    def mint(self, **binding: Any) -> Any:
        self.counts.minted += 1
        return super().mint(**binding)

    def consume(self, token: Any, **binding: Any) -> bool:
        self.counts.consumed += 1
        return super().consume(token, **binding)


def counting_port(counts: Counts, answer: bool = True) -> CallbackApproval:
    def reviewer(request: Any) -> bool:
        counts.asked += 1
        return answer

    return CallbackApproval(reviewer)


CTX = CallContext(run_id="run-a", thread_id="thread-a", call_id="call-a")
ARGS = {"to": "bob", "amount": 50, "notes": ["rent"]}


@pytest.mark.parametrize("path", ["tool gate", "executor port", "kept early"])
@pytest.mark.parametrize("form", ["text", "dict"])
async def test_a_confirm_call_is_decided_once(path: str, form: str) -> None:
    counts, ran = Counts(), []
    spec = counted_spec(counts, ran)
    authority = CountingAuthority(counts)
    port = counting_port(counts)
    executor = Executor(approval=port if path == "executor port" else None, authority=authority)
    gate = executor.gate(port) if path != "executor port" else None
    arguments: Any = '{"to": "bob", "amount": 50, "notes": ["rent"]}' if form == "text" else ARGS
    if path == "kept early":
        assert gate is not None
        await gate.decide_early(spec, arguments, CTX)
    outcome = await executor.run_spec(spec, arguments, CTX, gate=gate)
    assert outcome.ok and ran == [ARGS]
    assert (counts.validated, counts.confirmed, counts.asked) == (1, 1, 1)
    assert (counts.minted, counts.consumed) == (1, 1)
    assert authority.outstanding() == 0


async def test_a_call_that_needs_no_approval_is_validated_once_and_mints_nothing() -> None:
    counts, ran = Counts(), []
    spec = counted_spec(counts, ran)
    authority = CountingAuthority(counts)
    executor = Executor(approval=counting_port(counts), authority=authority)
    outcome = await executor.run_spec(spec, {"to": "bob", "amount": 5}, CTX)
    assert outcome.ok and (counts.validated, counts.confirmed, counts.asked) == (1, 1, 0)
    assert (counts.minted, counts.consumed) == (0, 0)


async def test_arguments_changed_while_the_reviewer_decides_change_nothing_that_runs() -> None:
    counts, ran = Counts(), []
    spec = counted_spec(counts, ran)
    deciding, decide = asyncio.Event(), asyncio.Event()
    seen: list[dict[str, Any]] = []

    async def reviewer(request: Any) -> bool:
        seen.append(request.arguments)
        deciding.set()
        await decide.wait()
        return True

    executor = Executor(approval=CallbackApproval(reviewer))
    arguments = {"to": "bob", "amount": 50, "notes": ["rent"]}
    call = asyncio.create_task(executor.run_spec(spec, arguments, CTX))
    await deciding.wait()
    arguments["notes"].append("and everything else")  # the caller's own objects
    arguments["to"] = "mallory"
    decide.set()
    outcome = await call
    assert outcome.ok
    assert ran == [{"to": "bob", "amount": 50, "notes": ["rent"]}] == seen


async def test_a_reviewer_that_edits_the_request_in_place_changes_nothing_that_runs() -> None:
    counts, ran = Counts(), []
    spec = counted_spec(counts, ran)

    def quietly(request: Any) -> bool:
        request.arguments["notes"].append("extra")
        return True

    def openly(request: Any) -> Decision:
        request.arguments["notes"].append("extra")
        return Decision(True, arguments=request.arguments)

    outcome = await Executor(approval=CallbackApproval(quietly)).run_spec(spec, ARGS, CTX)
    assert outcome.ok and ran == [ARGS], "the request is the reviewer's copy"
    outcome = await Executor(approval=CallbackApproval(openly)).run_spec(spec, ARGS, CTX)
    assert outcome.error is not None and outcome.error.kind.value == "approval-denied"
    assert "changed its arguments" in outcome.text and ran == [ARGS]


async def test_a_kept_decision_is_taken_once_by_its_own_call_only() -> None:
    counts, ran = Counts(), []
    spec = counted_spec(counts, ran)
    gate = Executor().gate(counting_port(counts))
    before = AUTHORITY.outstanding()
    await gate.decide_early(spec, ARGS, CTX)
    other_call = CTX.evolve(call_id="call-b")
    other_run = CTX.evolve(run_id="run-b")
    other_spec = counted_spec(counts, ran)
    assert gate.take(spec, ARGS, other_call) is None
    assert gate.take(spec, ARGS, other_run) is None
    assert len(gate.early) == 1 and AUTHORITY.outstanding() == before + 1
    # The same call id with other arguments, or another spec of the same name: not this
    # decision; it is dropped with its token (the call is decided again if it comes).
    assert gate.take(spec, {**ARGS, "amount": 60}, CTX) is None
    assert len(gate.early) == 0 and AUTHORITY.outstanding() == before
    await gate.decide_early(spec, ARGS, CTX)
    assert gate.take(other_spec, ARGS, CTX) is None
    assert len(gate.early) == 0 and AUTHORITY.outstanding() == before
    await gate.decide_early(spec, ARGS, CTX)
    taken = gate.take(spec, '{"to": "bob", "amount": 50, "notes": ["rent"]}', CTX)
    assert taken is not None and taken.token is not None
    assert gate.take(spec, ARGS, CTX) is None, "once"
    gate.discard(taken.token)
    assert AUTHORITY.outstanding() == before


async def test_a_pending_call_is_not_kept() -> None:
    from agent_sdk import DeferredApproval

    counts, ran = Counts(), []
    port = DeferredApproval()
    gate = Executor().gate(port)
    admission = await gate.decide_early(counted_spec(counts, ran), ARGS, CTX)
    assert admission.pending and len(gate.early) == 0


def test_early_decisions_expire(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_sdk.approval import admission as module
    from agent_sdk.approval.admission import Admission

    now = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    counts, ran = Counts(), []
    spec = counted_spec(counts, ran)
    store = EarlyDecisions(ttl=10.0)
    first = Admission(spec, CTX, arguments=ARGS)
    assert store.keep(first) == []
    now[0] += 11
    assert store.take(spec, ARGS, CTX) == (None, first), "too old to be taken"
    second = Admission(spec, CTX.evolve(call_id="call-2"), arguments=ARGS)
    assert store.keep(second) == []
    now[0] += 11
    third = Admission(spec, CTX, arguments=ARGS)
    assert store.keep(third) == [second], "keeping prunes what expired"
    assert store.take(spec, ARGS, CTX) == (third, None)


async def test_the_gate_store_is_bounded_over_100000_calls() -> None:
    """Decisions kept for calls that never run: the store stays bounded, and the interpreter
    holds as many memory blocks after 100,000 calls as after 10,000; kept approvals drop
    their tokens when they are pushed out."""
    counts, ran = Counts(), []
    confirm = counted_spec(counts, ran)
    plain = ToolSpec("ping", "Ping.", _ping, input_schema={"type": "object"})
    authority = TokenAuthority()

    class Approve:
        async def request(self, tool: str, arguments: Any, **_: Any) -> Decision:
            counts.asked += 1
            return Decision.approve()

    gate = ApprovalGate(Approve(), authority=authority)
    gate.early.limit = 1000

    async def decide(spec: ToolSpec, arguments: str, first: int, last: int) -> int:
        for i in range(first, last):
            await gate.decide_early(spec, arguments, CTX.evolve(call_id=f"call-{i}"))
        gc.collect()
        return sys.getallocatedblocks()

    # Approvals: every kept one holds a token; pushed out, it drops it.
    await decide(confirm, '{"to": "bob", "amount": 50}', 0, 3000)
    assert len(gate.early) == 1000 and authority.outstanding() == 1000
    assert counts.asked == 3000
    # The steady state over 100,000 calls (no approval needed: the store is what grows).
    await decide(plain, "{}", 3000, 5000)
    assert authority.outstanding() == 0, "the approvals pushed out dropped their tokens"
    at_10k = await decide(plain, "{}", 5000, 15_000)
    at_100k = await decide(plain, "{}", 15_000, 105_000)
    assert len(gate.early) == 1000
    assert at_100k - at_10k < 2000, (at_10k, at_100k)


async def _ping() -> str:
    return "pong"


async def test_deeply_nested_arguments_of_a_confirm_call_are_refused_not_copied_forever() -> None:
    counts, ran = Counts(), []
    spec = counted_spec(counts, ran)
    nested: Any = "x"
    for _ in range(5000):  # far past the recursion limit: the copy stops at the depth limit
        nested = {"n": nested}
    outcome = await Executor(approval=counting_port(counts)).run_spec(
        spec, {**ARGS, "notes": [nested]}, CTX
    )
    assert outcome.error is not None and outcome.error.kind.value == "tool-args-invalid"
    assert "nested deeper" in outcome.text and counts.asked == 0 and ran == []
