"""Durable deferred approvals: pending entries in a store (SQLite embedded, PostgreSQL across
hosts), resolved later, maybe elsewhere."""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from agent_sdk.approval.pending import PendingApproval as PendingApproval  # its old home
from agent_sdk.approval.ports import Decision
from agent_sdk.approval.sql_operations import SQLOperations
from agent_sdk.approval.workers import StoreWorkers
from agent_sdk.context import new_id
from agent_sdk.errors import ApprovalError
from agent_sdk.spec import canonical_json

_T = TypeVar("_T")


_SCHEMA = """
CREATE TABLE IF NOT EXISTS approvals (
    id TEXT PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    run_id TEXT NOT NULL,
    call_id TEXT,
    thread_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'used')),
    reviewer TEXT,
    reason TEXT,
    created REAL NOT NULL,
    resolved REAL
)
"""


class ApprovalStore(Protocol):
    """What DeferredApproval and the ``agent-sdk approvals`` command need of a store."""

    async def call(self, fn: Callable[..., _T], *args: Any) -> _T: ...

    def get_or_create(self, key: str, record: PendingApproval) -> PendingApproval: ...

    def claim(self, key: str, record: PendingApproval) -> tuple[PendingApproval, bool]: ...

    def get(self, approval_id: str) -> PendingApproval | None: ...

    def consume(self, approval_id: str) -> bool: ...

    def resolve(
        self, approval_id: str, *, approved: bool, reviewer: str | None, reason: str | None
    ) -> PendingApproval: ...

    def list(self, status: str | None = "pending") -> list[PendingApproval]: ...

    def purge(self, *, older_than: float) -> int: ...

    def close(self) -> None: ...


def open_store(target: str | os.PathLike[str]) -> ApprovalStore:
    """The store a path or DSN names: ``postgresql://…`` (or ``postgres://…``) is a
    PostgresApprovalStore, anything else a SQLite file."""
    from agent_sdk.approval.postgres import PostgresApprovalStore, is_dsn

    if is_dsn(target):
        return PostgresApprovalStore(str(target))
    return SQLiteApprovalStore(Path(target))


class SQLiteApprovalStore(SQLOperations):
    """Pending approvals in SQLite: a file survives restarts and is shared between processes.

    Every change runs in its own ``BEGIN IMMEDIATE`` transaction, so concurrent writers
    (threads or processes) serialise and a state change happens at most once. A transaction
    that fails (the file is locked by another process, the disk is full) is rolled back, so
    the store never stays wedged; a locked file is retried ``retries`` times, waiting up to
    ``busy_timeout`` seconds each, then ApprovalError says so. A new file is created
    readable by its owner only (it holds pending arguments). Async callers
    (``DeferredApproval``) run the store on its own worker thread, never on the event loop.
    """

    table = "approvals"
    mark = "?"
    insert = "INSERT OR IGNORE INTO"

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        busy_timeout: float = 5.0,
        retries: int = 3,
    ) -> None:
        self.path = str(path)
        self.retries = max(1, retries)
        self._lock = threading.Lock()
        self._workers = StoreWorkers(1, "agent-sdk-approval-store")
        if self.path != ":memory:" and not self.path.startswith("file:"):
            _create_private(self.path)
        try:
            self._conn = sqlite3.connect(
                self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
            self._run(lambda cur: cur.execute(_SCHEMA))
        except sqlite3.DatabaseError as exc:
            raise ApprovalError(f"{self.path} is not an approval store: {exc}") from None

    async def call(self, fn: Callable[..., _T], *args: Any) -> _T:
        """Run the store method ``fn(*args)`` on the store's worker thread."""
        return await self._workers.call(fn, *args)

    def _run(self, body: Callable[[sqlite3.Cursor], _T]) -> _T:
        """``body`` in one transaction: rolled back on any failure, retried while the file
        is locked by someone else."""
        with self._lock:
            for attempt in range(1, self.retries + 1):
                cur = self._conn.cursor()
                try:
                    cur.execute("BEGIN IMMEDIATE")
                    result = body(cur)
                    cur.execute("COMMIT")
                    return result
                except sqlite3.OperationalError as exc:
                    self._rollback()
                    if _locked(exc) and attempt < self.retries:
                        continue
                    raise ApprovalError(self._describe(exc)) from None
                except BaseException:
                    self._rollback()
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _rollback(self) -> None:
        if self._conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")

    def _describe(self, exc: sqlite3.Error) -> str:
        if _locked(exc):
            return (
                f"approval store {self.path} is locked by another process or connection "
                f"(tried {self.retries} times); try again later"
            )
        return f"approval store {self.path}: {exc}"

    def close(self) -> None:
        self._workers.shutdown()
        self._conn.close()


def _locked(exc: sqlite3.Error) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def _create_private(path: str) -> None:
    """Create a new store file readable by its owner only (it holds pending arguments)."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return
    except OSError as exc:
        raise ApprovalError(f"cannot create approval store {path}: {exc.strerror}") from None
    os.close(fd)


class DeferredApproval:
    """Answers 'pending' with an ``apr_…`` id; a person resolves it later, maybe elsewhere.

    When the same call (same run, call id, tool and arguments) is retried after approval it
    is approved exactly once. ``store`` is a store (SQLiteApprovalStore,
    PostgresApprovalStore), a path for a SQLite file or a ``postgresql://…`` DSN (default:
    SQLite in memory, which does not survive the process).
    """

    def __init__(self, store: ApprovalStore | str | os.PathLike[str] | None = None) -> None:
        if store is None:
            store = SQLiteApprovalStore()
        elif isinstance(store, (str, os.PathLike)):
            store = open_store(store)
        self.store: ApprovalStore = store

    @staticmethod
    def call_key(tool: str, arguments: dict[str, Any], *, run_id: str, call_id: str | None) -> str:
        # canonical_json: a set's members sorted, so every process keys a call the same way.
        text = "\x00".join([run_id, call_id or "", tool, canonical_json(arguments)])
        return hashlib.sha256(text.encode()).hexdigest()

    async def request(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        call_id: str | None,
        run_id: str,
        thread_id: str | None = None,
        path: tuple[str, ...] = (),
    ) -> Decision:
        # All of it on the store's thread: the event loop only hands the call over.
        return await self.store.call(self.decide, tool, dict(arguments), run_id, call_id, thread_id)

    def decide(
        self,
        tool: str,
        arguments: dict[str, Any],
        run_id: str,
        call_id: str | None,
        thread_id: str | None = None,
    ) -> Decision:
        """``request``, blocking: record the call or use its approval."""
        key = self.call_key(tool, arguments, run_id=run_id, call_id=call_id)
        fresh = PendingApproval(
            id=new_id("apr"),
            tool=tool,
            arguments=arguments,
            run_id=run_id,
            call_id=call_id,
            thread_id=thread_id,
            status="pending",
            created=time.time(),
        )
        entry, used = self.store.claim(key, fresh)
        if entry.status == "pending":
            return Decision.pending(entry.id)
        if used:
            return Decision.approve(reviewer=entry.reviewer, reason=entry.reason)
        if entry.status == "denied":
            return Decision.deny(entry.reason or "denied by the reviewer", reviewer=entry.reviewer)
        return Decision.deny(f"approval {entry.id} was already used", reviewer=entry.reviewer)

    def pending(self) -> list[PendingApproval]:
        return self.store.list("pending")

    def resolve(
        self,
        approval_id: str,
        *,
        approved: bool,
        reviewer: str | None = None,
        reason: str | None = None,
    ) -> PendingApproval:
        """Approve or deny a pending entry; a second resolution raises ApprovalError."""
        return self.store.resolve(approval_id, approved=approved, reviewer=reviewer, reason=reason)
