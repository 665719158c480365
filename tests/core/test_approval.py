import asyncio
import dataclasses
import json
import subprocess
import sys
import textwrap
import threading

import pytest

from agent_sdk import (
    ApprovalError,
    ApprovalGate,
    ApprovalToken,
    AutoApprove,
    CallbackApproval,
    CallContext,
    Decision,
    DeferredApproval,
    DenyAll,
    ErrorKind,
    Executor,
    Registry,
)
from agent_sdk.approval import AUTHORITY, TokenAuthority
from agent_sdk.spec import arguments_digest


def run(coro):
    return asyncio.run(coro)


class Port:
    def __init__(self, answer=True):
        self.answer = answer
        self.asked = []

    async def request(self, tool, arguments, **kw):
        self.asked.append((tool, arguments, kw))
        return self.answer if isinstance(self.answer, Decision) else Decision(self.answer)


def make_registry():
    registry = Registry()
    ran = []

    @registry.tool(confirm=lambda args: args.amount > 100)
    async def pay(amount: int, to: str) -> str:
        ran.append((amount, to))
        return f"paid {amount} to {to}"

    return registry, ran


CTX = CallContext(run_id="run-1", thread_id="thread-1", call_id="call-1")


def token_for(spec, args, **overrides):
    fields = {
        "run_id": CTX.run_id,
        "thread_id": CTX.thread_id,
        "call_id": CTX.call_id,
        "tool": spec.name,
        "digest": arguments_digest(spec.name, spec.validate(args)),
    }
    fields.update(overrides)
    return AUTHORITY.mint(**fields)


def test_confirm_rule_over_validated_arguments():
    registry, ran = make_registry()
    port = Port(True)
    ex = Executor(registry, approval=port)
    assert run(ex.run("pay", {"amount": "50", "to": "a"}, CTX)).ok and port.asked == []
    assert run(ex.run("pay", {"amount": 500, "to": "a"}, CTX)).ok
    assert len(port.asked) == 1
    tool, arguments, kw = port.asked[0]
    assert (tool, arguments) == ("pay", {"amount": 500, "to": "a"})
    assert kw["call_id"] == "call-1" and kw["run_id"] == "run-1" and kw["thread_id"] == "thread-1"
    assert ran == [(50, "a"), (500, "a")]


def test_no_port_means_denied():
    registry, ran = make_registry()
    outcome = run(Executor(registry).run("pay", {"amount": 500, "to": "a"}, CTX))
    assert (
        outcome.error.kind is ErrorKind.APPROVAL_DENIED
        and "no approval port" in outcome.error.message
    )
    assert ran == []


def test_a_genuine_token_runs_once_without_asking_the_port():
    registry, ran = make_registry()
    spec = registry.get("pay")
    args = {"amount": 500, "to": "a"}
    port = Port(False)
    ex = Executor(registry, approval=port)
    token = token_for(spec, args)
    assert run(ex.run("pay", args, CTX.evolve(token=token))).ok
    assert port.asked == [] and ran == [(500, "a")]
    # The same token again: replayed, so the port is asked (and denies).
    outcome = run(ex.run("pay", args, CTX.evolve(token=token)))
    assert (
        outcome.error.kind is ErrorKind.APPROVAL_DENIED and len(port.asked) == 1 and len(ran) == 1
    )


@pytest.mark.parametrize(
    "case",
    [
        "forged",
        "replayed",
        "cross-run",
        "cross-thread",
        "cross-call",
        "other-tool",
        "edited-arguments",
        "other-process",
        "truncated",
    ],
)
def test_every_kind_of_bad_token_is_rejected_and_the_port_decides(case):
    registry, ran = make_registry()
    spec = registry.get("pay")
    args = {"amount": 500, "to": "a"}
    token = token_for(spec, args)
    if case == "forged":
        token = dataclasses.replace(token, signature="f" * 64)
    elif case == "replayed":
        assert AUTHORITY.consume(
            token,
            run_id="run-1",
            thread_id="thread-1",
            call_id="call-1",
            tool="pay",
            digest=token.digest,
        )
    elif case == "cross-run":
        token = token_for(spec, args, run_id="run-2")
    elif case == "cross-thread":
        token = token_for(spec, args, thread_id="thread-2")
    elif case == "cross-call":
        token = token_for(spec, args, call_id="call-2")
    elif case == "other-tool":
        token = token_for(spec, args, tool="refund")
    elif case == "edited-arguments":
        token = token_for(spec, {"amount": 5000, "to": "a"})
    elif case == "other-process":
        token = TokenAuthority().mint(
            run_id="run-1", thread_id="thread-1", call_id="call-1", tool="pay", digest=token.digest
        )
    elif case == "truncated":
        token = dataclasses.replace(token, signature=token.signature[:-2])
    for port, expect_ok in [(None, False), (Port(False), False), (Port(True), True)]:
        ran.clear()
        outcome = run(Executor(registry, approval=port).run("pay", args, CTX.evolve(token=token)))
        assert outcome.ok is expect_ok, case
        assert ran == ([(500, "a")] if expect_ok else [])
        if port is not None:
            assert len(port.asked) == 1, (
                "a rejected token sends the call to the executor's own port"
            )


def test_token_encoding_round_trip_and_garbage():
    registry, _ = make_registry()
    token = token_for(registry.get("pay"), {"amount": 500, "to": "a"})
    assert ApprovalToken.decode(token.encode()) == token
    with pytest.raises(ApprovalError):
        ApprovalToken.decode("garbage")
    AUTHORITY.discard(token)


def test_concurrent_consumption_succeeds_once():
    authority = TokenAuthority()
    token = authority.mint(run_id="r", thread_id=None, call_id="c", tool="t", digest="d")
    wins = []
    barrier = threading.Barrier(16)

    def worker():
        barrier.wait()
        wins.append(
            authority.consume(token, run_id="r", thread_id=None, call_id="c", tool="t", digest="d")
        )

    threads = [threading.Thread(target=worker) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wins.count(True) == 1 and authority.outstanding() == 0


def test_gate_asks_once_and_hands_the_call_a_token():
    registry, ran = make_registry()
    spec = registry.get("pay")
    gate_port, own = Port(True), Port(False)
    ex = Executor(registry, approval=own)
    before = AUTHORITY.outstanding()
    outcome = run(ex.run_spec(spec, {"amount": 500, "to": "a"}, CTX, gate=ApprovalGate(gate_port)))
    assert outcome.ok and len(gate_port.asked) == 1 and own.asked == [] and ran == [(500, "a")]
    assert AUTHORITY.outstanding() == before


def test_gate_token_not_taken_is_discarded():
    registry, _ = make_registry()
    spec = registry.get("pay")
    gate = ApprovalGate(Port(True))
    before = AUTHORITY.outstanding()
    token = run(gate.decide(spec, {"amount": 500, "to": "a"}, CTX)).token
    assert isinstance(token, ApprovalToken) and AUTHORITY.outstanding() == before + 1
    gate.discard(token)
    assert AUTHORITY.outstanding() == before
    assert not AUTHORITY.consume(
        token,
        run_id="run-1",
        thread_id="thread-1",
        call_id="call-1",
        tool="pay",
        digest=token.digest,
    )


@pytest.mark.parametrize(
    ("decision", "kind", "needle"),
    [
        (
            Decision.deny("too much", reviewer="ann"),
            ErrorKind.APPROVAL_DENIED,
            "denied by ann: too much",
        ),
        (
            Decision(True, arguments={"amount": 1, "to": "a"}),
            ErrorKind.APPROVAL_DENIED,
            "changed its arguments",
        ),
        (Decision.pending("apr_123"), ErrorKind.APPROVAL_PENDING, "approval required: apr_123"),
    ],
)
def test_decisions_other_than_plain_approval(decision, kind, needle):
    registry, ran = make_registry()
    for gate in (None, ApprovalGate(Port(decision))):
        outcome = run(
            Executor(registry, approval=Port(decision)).run_spec(
                registry.get("pay"), {"amount": 500, "to": "a"}, CTX, gate=gate
            )
        )
        assert outcome.error.kind is kind and needle in outcome.error.message
    assert ran == []


def test_builtin_ports():
    registry, ran = make_registry()
    assert run(
        Executor(registry, approval=AutoApprove()).run("pay", {"amount": 500, "to": "a"}, CTX)
    ).ok
    outcome = run(
        Executor(registry, approval=DenyAll()).run("pay", {"amount": 500, "to": "a"}, CTX)
    )
    assert outcome.error.kind is ErrorKind.APPROVAL_DENIED


def test_callback_approval_sync_async_and_bad_answers():
    registry, ran = make_registry()
    requests = []

    def sync_reviewer(req):
        requests.append(req)
        return req.arguments["amount"] < 1000

    async def async_reviewer(req):
        return Decision.deny("async says no", reviewer="bot")

    ex = Executor(registry, approval=CallbackApproval(sync_reviewer))
    assert run(ex.run("pay", {"amount": 500, "to": "a"}, CTX)).ok
    assert not run(ex.run("pay", {"amount": 5000, "to": "a"}, CTX)).ok
    assert (
        requests[0].tool == "pay"
        and requests[0].call_id == "call-1"
        and requests[0].run_id == "run-1"
    )
    outcome = run(
        Executor(registry, approval=CallbackApproval(async_reviewer)).run(
            "pay", {"amount": 500, "to": "a"}, CTX
        )
    )
    assert "async says no" in outcome.error.message
    outcome = run(
        Executor(registry, approval=CallbackApproval(lambda r: "yes")).run(
            "pay", {"amount": 500, "to": "a"}, CTX
        )
    )
    # A reviewer that answers nonsense denies the call (fail closed), saying why.
    assert (
        outcome.error.kind is ErrorKind.APPROVAL_DENIED
        and "return a Decision" in outcome.error.message
    )


# The durable-store tests run once per store (the kit's ``approval_store_target``): a SQLite
# file, then a fresh database on a real PostgreSQL server the session starts.


def test_deferred_approval_runs_exactly_once_after_resolution(approval_store_target):
    registry, ran = make_registry()
    port = DeferredApproval(approval_store_target)
    ex = Executor(registry, approval=port)
    args = {"amount": 500, "to": "a"}
    first = run(ex.run("pay", args, CTX))
    assert first.error.kind is ErrorKind.APPROVAL_PENDING
    apr = first.error.approval_id
    assert apr.startswith("apr_") and f"approval required: {apr}" in first.text
    again = run(ex.run("pay", args, CTX))
    assert again.error.approval_id == apr, "the same call keeps its pending id"
    other = run(ex.run("pay", args, CTX.evolve(call_id="call-9")))
    assert other.error.approval_id != apr, "another call is another approval"
    assert [p.id for p in port.pending()] == [apr, other.error.approval_id]
    port.resolve(apr, approved=True, reviewer="ann")
    assert run(ex.run("pay", args, CTX)).ok
    replay = run(ex.run("pay", args, CTX))
    assert replay.error.kind is ErrorKind.APPROVAL_DENIED and "already used" in replay.error.message
    assert ran == [(500, "a")]
    with pytest.raises(ApprovalError, match="already resolved"):
        port.resolve(apr, approved=False)
    with pytest.raises(ApprovalError, match="no approval"):
        port.resolve("apr_missing", approved=True)
    port.resolve(other.error.approval_id, approved=False, reviewer="bob", reason="wrong account")
    denied = run(ex.run("pay", args, CTX.evolve(call_id="call-9")))
    assert "wrong account" in denied.error.message and len(ran) == 1


SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys
    from agent_sdk import CallContext, DeferredApproval, Executor, Registry
    db, step, log = sys.argv[1], sys.argv[2], sys.argv[3]
    registry = Registry()

    @registry.tool(confirm=True)
    def pay(amount: int) -> str:
        with open(log, "a") as f:
            f.write(f"ran {amount}\\n")
        return "paid"

    port = DeferredApproval(db)
    ctx = CallContext(run_id="run-p", thread_id="t", call_id="call-p")
    if step == "resolve":
        pending = port.pending()
        port.resolve(pending[0].id, approved=True, reviewer="other-process")
        print(json.dumps({"resolved": pending[0].id}))
    else:
        outcome = asyncio.run(Executor(registry, approval=port).run("pay", {"amount": 7}, ctx))
        print(json.dumps({"text": outcome.text, "ok": outcome.ok}))
    """
)


def _proc(tmp_path, *args):
    script = tmp_path / "worker.py"
    script.write_text(SCRIPT)
    out = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_deferred_approval_survives_restart_and_is_resolved_by_another_process(
    tmp_path, approval_store_target
):
    db, log = approval_store_target, str(tmp_path / "ran.log")
    first = _proc(tmp_path, db, "request", log)  # process 1 asks, then exits
    assert not first["ok"] and "approval required: apr_" in first["text"]
    resolved = _proc(tmp_path, db, "resolve", log)  # process 2 resolves
    assert resolved["resolved"] in first["text"]
    retry = _proc(tmp_path, db, "request", log)  # process 3 (a restart) retries: runs once
    assert retry["ok"] and retry["text"] == "paid"
    again = _proc(tmp_path, db, "request", log)
    assert not again["ok"] and "already used" in again["text"]
    assert (tmp_path / "ran.log").read_text() == "ran 7\n"


def test_concurrent_resolution_one_wins(approval_store_target):
    store_path = approval_store_target
    port = DeferredApproval(store_path)
    run(port.request("pay", {"amount": 1}, call_id="c", run_id="r"))
    apr = port.pending()[0].id
    results = []
    barrier = threading.Barrier(8)

    def resolver(i):
        other = DeferredApproval(store_path)  # a reviewer's own connection
        barrier.wait(60)  # every reviewer decides at once
        try:
            other.resolve(apr, approved=True, reviewer=f"r{i}")
            results.append("won")
        except ApprovalError as exc:
            results.append(str(exc))
        finally:
            other.store.close()

    threads = [threading.Thread(target=resolver, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("won") == 1
    assert all("already resolved" in r for r in results if r != "won")
    assert port.store.get(apr).status == "approved"


def test_store_purges_finished_entries(approval_store_target):
    port = DeferredApproval(approval_store_target)
    store = port.store
    run(port.request("t", {}, call_id="c", run_id="r"))
    apr = port.pending()[0].id
    port.resolve(apr, approved=False)
    still = run(port.request("t", {}, call_id="c2", run_id="r")).pending_id
    assert store.purge(older_than=3600) == 0, "only entries older than the limit go"
    assert store.purge(older_than=-1) == 1
    assert [e.id for e in store.list(None)] == [still], "a pending entry is never purged"
