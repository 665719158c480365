"""The SQLite approval store under faults (issue 15, items 5, 6 and 14): a failed COMMIT
never wedges it, it never blocks the event loop, its file is private, and every failure
says its cause. The event-loop and concurrency tests run over both stores (issue 31):
a SQLite file and a fresh database on a real PostgreSQL server."""

from __future__ import annotations

import asyncio
import sqlite3
import stat
import threading
import time
from collections.abc import Callable

import pytest

from agent_sdk import ApprovalError, DeferredApproval, PendingApproval, SQLiteApprovalStore
from agent_sdk.approval.postgres import TABLE, PostgresApprovalStore, is_dsn
from agent_sdk.approval.store import ApprovalStore


def record(i: int = 0) -> PendingApproval:
    return PendingApproval(
        id=f"apr_{i}",
        tool="pay",
        arguments={"amount": i},
        run_id="r",
        call_id=f"c{i}",
        thread_id=None,
        status="pending",
        created=0.0,
    )


def test_a_failed_commit_rolls_back_and_the_store_recovers(tmp_path):
    path = tmp_path / "approvals.db"
    store = SQLiteApprovalStore(path, busy_timeout=0.05, retries=2)
    store.get_or_create("k0", record(0))
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT * FROM approvals").fetchall()  # holds a read lock: COMMIT fails
    with pytest.raises(ApprovalError, match="locked by another process"):
        store.get_or_create("k1", record(1))
    assert not store._conn.in_transaction  # rolled back, not left open
    reader.execute("COMMIT")
    reader.close()
    # The store works again, and it no longer holds the write lock: others can write.
    assert store.get_or_create("k1", record(1)).id == "apr_1"
    other = SQLiteApprovalStore(path, busy_timeout=0.05, retries=1)
    assert other.get_or_create("k2", record(2)).id == "apr_2"
    assert {e.id for e in store.list(None)} == {"apr_0", "apr_1", "apr_2"}  # nothing lost


def hold_the_write_lock(target: str) -> Callable[[], None]:
    """Take the lock every write to the store at ``target`` needs, from a connection of its
    own as another process would: SQLite's write lock (``BEGIN IMMEDIATE``), PostgreSQL's
    ``LOCK TABLE … IN EXCLUSIVE MODE`` (readers pass, every INSERT and UPDATE waits).
    Returns what releases it (callable from any thread)."""
    if is_dsn(target):
        import psycopg

        conn = psycopg.connect(target, autocommit=True)
        conn.execute("BEGIN")
        conn.execute(f"LOCK TABLE {TABLE} IN EXCLUSIVE MODE")

        def release() -> None:
            conn.execute("COMMIT")
            conn.close()

        return release
    holder = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")

    def release_sqlite() -> None:
        holder.execute("COMMIT")
        holder.close()

    return release_sqlite


def test_the_store_never_blocks_the_event_loop(approval_store_target):
    """While another connection holds the write lock, a deferred approval waits on the
    store's own thread; other coroutines keep running (proved by order, not by time)."""
    target = approval_store_target
    store: ApprovalStore = (
        PostgresApprovalStore(target)
        if is_dsn(target)
        else SQLiteApprovalStore(target, busy_timeout=10.0, retries=1)
    )
    deferred = DeferredApproval(store)
    release = hold_the_write_lock(target)

    async def main() -> tuple[bool, str]:
        request = asyncio.create_task(
            deferred.request("pay", {"amount": 1}, call_id="c", run_id="r")
        )
        for _ in range(5):
            await asyncio.sleep(0)  # the request is now waiting for the lock
        if is_dsn(target):  # the server itself says the request's INSERT waits on the lock
            await wait_until_an_insert_waits_on_a_lock(target)
        ran = asyncio.Event()
        other = asyncio.create_task(asyncio.sleep(0, result=None))
        await other
        ran.set()
        blocked_while_other_ran = not request.done()
        threading.Thread(target=release).start()
        decision = await asyncio.wait_for(request, 30)
        return blocked_while_other_ran and ran.is_set(), decision.pending_id or ""

    try:
        other_ran_first, pending_id = asyncio.run(main())
    finally:
        store.close()
    assert other_ran_first
    assert pending_id.startswith("apr_")


async def wait_until_an_insert_waits_on_a_lock(dsn: str) -> None:
    """Polls ``pg_stat_activity`` from a thread: the loop keeps turning meanwhile."""
    import psycopg

    query = (
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        " AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO%'"
    )
    with psycopg.connect(dsn, autocommit=True) as conn:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            row = await asyncio.to_thread(lambda: conn.execute(query).fetchone())
            if row and row[0]:
                return
            await asyncio.sleep(0.01)  # a poll interval; the order is proved by the server
    raise AssertionError("the request never waited on the lock")


def test_many_concurrent_requests_are_all_recorded(approval_store_target):
    deferred = DeferredApproval(approval_store_target)

    async def main() -> list[str]:
        decisions = await asyncio.gather(
            *(
                deferred.request("pay", {"amount": i}, call_id=f"c{i}", run_id="r")
                for i in range(200)
            )
        )
        return [d.pending_id for d in decisions]

    ids = asyncio.run(main())
    assert len(set(ids)) == 200 and len(deferred.pending()) == 200
    assert {e.id for e in deferred.pending()} == set(ids)
    deferred.store.close()


def test_a_new_store_file_is_private(tmp_path):
    path = tmp_path / "approvals.db"
    SQLiteApprovalStore(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_corrupt_file_is_a_clear_error(tmp_path):
    path = tmp_path / "approvals.db"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(ApprovalError, match="is not an approval store"):
        SQLiteApprovalStore(path)


def test_a_full_disk_reports_its_cause(tmp_path):
    path = tmp_path / "approvals.db"
    store = SQLiteApprovalStore(path)
    store._conn.execute("PRAGMA max_page_count = 3")  # the database cannot grow: 'full'
    big = PendingApproval(**{**record(9).__dict__, "arguments": {"pad": "x" * 50_000}})
    with pytest.raises(ApprovalError) as err:
        store.get_or_create("big", big)
    assert "full" in str(err.value) and "no transaction is active" not in str(err.value)
    assert not store._conn.in_transaction
    assert store.get("apr_0") is None  # still usable
