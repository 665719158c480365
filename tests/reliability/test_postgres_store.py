"""What only the PostgreSQL approval store has, against a real server the session starts
(issue 31): its schema version, a wrong DSN, the server stopped and restarted mid-run,
processes racing for one approval, a process killed inside its transaction.

The durability and concurrency tests both stores share are the SQLite store's own, run over
both (the kit's ``approval_store_target``): tests/core/test_approval.py and
tests/reliability/test_approval_store.py."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agent_sdk import ApprovalError, CallContext, DeferredApproval, ErrorKind, Executor, Registry
from agent_sdk.approval import PostgresApprovalStore, SQLiteApprovalStore


def make_executor(port: DeferredApproval) -> tuple[Executor, list[int]]:
    registry, ran = Registry(), []

    @registry.tool(confirm=True)
    def pay(amount: int) -> str:
        ran.append(amount)
        return "paid"

    return Executor(registry, approval=port), ran


CTX = CallContext(run_id="run-1", thread_id="t", call_id="call-1")


def test_a_newer_schema_is_a_clear_error(postgres_dsn: str) -> None:
    import psycopg

    PostgresApprovalStore(postgres_dsn).close()
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute("UPDATE agent_sdk_schema SET version = 99 WHERE component = 'approvals'")
    with pytest.raises(ApprovalError, match="schema version 99, newer than this agent-sdk"):
        PostgresApprovalStore(postgres_dsn)


def test_a_wrong_dsn_is_one_line_with_the_password_masked(postgres_server: Any) -> None:
    dsn = f"postgresql://postgres:hunter2secret@127.0.0.1:{postgres_server.port}/no_such_db"
    with pytest.raises(ApprovalError) as err:
        DeferredApproval(dsn)
    message = str(err.value)
    assert "hunter2secret" not in message and "postgres:***@" in message
    assert "\n" not in message and "no_such_db" in message


def test_the_server_restarted_mid_run_fails_closed_then_recovers(
    postgres_server: Any, postgres_dsn: str
) -> None:
    """No restart of the host: the same executor and store, before, during, after."""
    port = DeferredApproval(PostgresApprovalStore(postgres_dsn, connect_timeout=2))
    ex, ran = make_executor(port)
    apr = asyncio.run(ex.run("pay", {"amount": 1}, CTX)).error.approval_id
    port.resolve(apr, approved=True)
    postgres_server.stop()
    try:
        down = asyncio.run(ex.run("pay", {"amount": 1}, CTX))
        assert not down.ok and down.error.kind is ErrorKind.APPROVAL_DENIED
        assert "approval store postgresql://" in down.error.message
        assert "\n" not in down.error.message and "Traceback" not in down.error.message
        with pytest.raises(ApprovalError, match="is unreachable"):
            port.pending()
    finally:
        postgres_server.start()
    assert ran == []  # down: never an allow
    assert asyncio.run(ex.run("pay", {"amount": 1}, CTX)).ok  # the approval was not lost
    assert ran == [1] and port.store.get(apr).status == "used"


RACER = textwrap.dedent(
    """
    import asyncio
    from agent_sdk import CallContext, DeferredApproval

    def race(dsn, ids, barrier, results):
        port = DeferredApproval(dsn)
        for n, apr in enumerate(ids):
            barrier.wait(60)  # every process starts round n together
            d = asyncio.run(port.request("pay", {"n": n}, call_id=f"c{n}", run_id="race"))
            results.put((n, bool(d.approved)))
    """
)


def _race(dsn: str, rounds: int, tmp_path: Path) -> None:
    port = DeferredApproval(dsn)
    ids = []
    for n in range(rounds):
        apr = asyncio.run(port.request("pay", {"n": n}, call_id=f"c{n}", run_id="race"))
        port.resolve(str(apr.pending_id), approved=True)
        ids.append(apr.pending_id)
    (tmp_path / "racer.py").write_text(RACER)
    # A spawned process finds ``racer`` on the sys.path its parent had when it started.
    sys.path.insert(0, str(tmp_path))
    try:
        import racer  # type: ignore[import-not-found]

        ctx = multiprocessing.get_context("spawn")
        barrier, results = ctx.Barrier(4), ctx.Queue()
        procs = [
            ctx.Process(target=racer.race, args=(dsn, ids, barrier, results)) for _ in range(4)
        ]
        for p in procs:
            p.start()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("racer", None)
    got = [results.get(timeout=120) for _ in range(4 * rounds)]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    winners = {n: sum(won for m, won in got if m == n) for n in range(rounds)}
    assert winners == dict.fromkeys(range(rounds), 1)
    assert {e.status for e in port.store.list(None)} == {"used"}


def test_four_processes_race_to_consume_one_approval(postgres_dsn: str, tmp_path: Path) -> None:
    _race(postgres_dsn, 5, tmp_path)


@pytest.mark.long
def test_four_processes_race_fifty_times(postgres_dsn: str, tmp_path: Path) -> None:
    _race(postgres_dsn, 50, tmp_path)


KILLED = textwrap.dedent(
    """
    import sys, psycopg
    from agent_sdk import DeferredApproval

    dsn, apr, needle = sys.argv[1], sys.argv[2], sys.argv[3]
    execute = psycopg.Cursor.execute

    def hooked(self, query, *args, **kwargs):
        result = execute(self, query, *args, **kwargs)
        if needle in str(query):
            print("inside", flush=True)  # the UPDATE ran; its COMMIT has not
            sys.stdin.readline()  # the test kills this process here
        return result

    psycopg.Cursor.execute = hooked
    port = DeferredApproval(dsn)
    if needle == "SET status = %s":
        port.resolve(apr, approved=True, reviewer="killed")
    else:
        import asyncio
        asyncio.run(port.request("pay", {"amount": 3}, call_id="call-1", run_id="run-1"))
    """
)


@pytest.mark.parametrize("step", ["resolve", "consume"])
def test_a_process_killed_inside_the_transaction_loses_and_doubles_nothing(
    postgres_dsn: str, tmp_path: Path, step: str
) -> None:
    port = DeferredApproval(postgres_dsn)
    ex, ran = make_executor(port)
    apr = asyncio.run(ex.run("pay", {"amount": 3}, CTX)).error.approval_id
    if step == "consume":
        port.resolve(apr, approved=True, reviewer="ann")
    needle = "SET status = %s" if step == "resolve" else "SET status = 'used'"
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    proc = subprocess.Popen(
        [sys.executable, str(script), postgres_dsn, apr, needle],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line != "inside\n":
        proc.kill()
        pytest.fail(f"the worker never got inside the transaction: {proc.communicate()[1][-2000:]}")
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    # Rolled back: still pending (resolve) or still approved (consume), decided once now.
    assert port.store.get(apr).status == ("pending" if step == "resolve" else "approved")
    if step == "resolve":
        port.resolve(apr, approved=True, reviewer="ann")
    assert asyncio.run(ex.run("pay", {"amount": 3}, CTX)).ok
    assert "already used" in asyncio.run(ex.run("pay", {"amount": 3}, CTX)).error.message
    assert ran == [3] and [(e.status, e.reviewer) for e in port.store.list(None)] == [
        ("used", "ann")
    ]


def test_the_target_selects_the_store(postgres_dsn: str, tmp_path: Path) -> None:
    assert isinstance(DeferredApproval().store, SQLiteApprovalStore)  # embedded default
    assert isinstance(DeferredApproval(tmp_path / "a.db").store, SQLiteApprovalStore)
    for dsn in (postgres_dsn, postgres_dsn.replace("postgresql://", "postgres://", 1)):
        store = DeferredApproval(dsn).store
        assert isinstance(store, PostgresApprovalStore)
        store.close()
