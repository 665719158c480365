"""Durable deferred approvals: pending entries in SQLite, resolved later, maybe elsewhere."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_sdk.approval.ports import Decision
from agent_sdk.context import new_id
from agent_sdk.errors import ApprovalError


@dataclass(frozen=True)
class PendingApproval:
    id: str
    tool: str
    arguments: dict[str, Any]
    run_id: str
    call_id: str | None
    thread_id: str | None
    status: str
    created: float
    reviewer: str | None = None
    reason: str | None = None


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


class SQLiteApprovalStore:
    """Pending approvals in SQLite: a file survives restarts and is shared between processes.

    Every change runs in its own ``BEGIN IMMEDIATE`` transaction, so concurrent writers
    (threads or processes) serialise and a state change happens at most once.
    """

    def __init__(self, path: str | os.PathLike[str] = ":memory:") -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            self.path, timeout=30.0, isolation_level=None, check_same_thread=False
        )
        with self._transaction() as cur:
            cur.execute(_SCHEMA)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")

    def get_or_create(self, key: str, record: PendingApproval) -> PendingApproval:
        with self._transaction() as cur:
            cur.execute(
                "INSERT OR IGNORE INTO approvals (id, key, tool, arguments, run_id, call_id,"
                " thread_id, status, created) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
                (
                    record.id,
                    key,
                    record.tool,
                    json.dumps(record.arguments, sort_keys=True, default=str),
                    record.run_id,
                    record.call_id,
                    record.thread_id,
                    record.created,
                ),
            )
            row = cur.execute(f"SELECT {_COLUMNS} FROM approvals WHERE key = ?", (key,)).fetchone()
        return _row(row)

    def get(self, approval_id: str) -> PendingApproval | None:
        with self._transaction() as cur:
            row = cur.execute(
                f"SELECT {_COLUMNS} FROM approvals WHERE id = ?", (approval_id,)
            ).fetchone()
        return _row(row) if row else None

    def consume(self, approval_id: str) -> bool:
        """Turn an approved entry into a used one; True for exactly one caller."""
        with self._transaction() as cur:
            cur.execute(
                "UPDATE approvals SET status = 'used' WHERE id = ? AND status = 'approved'",
                (approval_id,),
            )
            return cur.rowcount == 1

    def resolve(
        self, approval_id: str, *, approved: bool, reviewer: str | None, reason: str | None
    ) -> PendingApproval:
        with self._transaction() as cur:
            cur.execute(
                "UPDATE approvals SET status = ?, reviewer = ?, reason = ?, resolved = ?"
                " WHERE id = ? AND status = 'pending'",
                ("approved" if approved else "denied", reviewer, reason, time.time(), approval_id),
            )
            changed = cur.rowcount == 1
            row = cur.execute(
                f"SELECT {_COLUMNS} FROM approvals WHERE id = ?", (approval_id,)
            ).fetchone()
        if row is None:
            raise ApprovalError(f"no approval with id {approval_id!r}")
        entry = _row(row)
        if not changed:
            by = f" by {entry.reviewer}" if entry.reviewer else ""
            raise ApprovalError(f"approval {approval_id} was already resolved ({entry.status}{by})")
        return entry

    def list(self, status: str | None = "pending") -> list[PendingApproval]:
        with self._transaction() as cur:
            if status is None:
                rows = cur.execute(f"SELECT {_COLUMNS} FROM approvals ORDER BY created").fetchall()
            else:
                rows = cur.execute(
                    f"SELECT {_COLUMNS} FROM approvals WHERE status = ? ORDER BY created",
                    (status,),
                ).fetchall()
        return [_row(r) for r in rows]

    def purge(self, *, older_than: float) -> int:
        """Delete finished (denied or used) entries older than ``older_than`` seconds."""
        with self._transaction() as cur:
            cur.execute(
                "DELETE FROM approvals WHERE status IN ('denied', 'used') AND created < ?",
                (time.time() - older_than,),
            )
            return cur.rowcount

    def close(self) -> None:
        self._conn.close()


_COLUMNS = "id, tool, arguments, run_id, call_id, thread_id, status, created, reviewer, reason"


def _row(row: Any) -> PendingApproval:
    return PendingApproval(
        id=row[0],
        tool=row[1],
        arguments=json.loads(row[2]),
        run_id=row[3],
        call_id=row[4],
        thread_id=row[5],
        status=row[6],
        created=row[7],
        reviewer=row[8],
        reason=row[9],
    )


class DeferredApproval:
    """Answers 'pending' with an ``apr_…`` id; a person resolves it later, maybe elsewhere.

    When the same call (same run, call id, tool and arguments) is retried after approval it
    is approved exactly once. ``store`` is a SQLiteApprovalStore or a path for one (default:
    in memory, which does not survive the process).
    """

    def __init__(self, store: SQLiteApprovalStore | str | os.PathLike[str] | None = None) -> None:
        if store is None:
            store = SQLiteApprovalStore()
        elif not isinstance(store, SQLiteApprovalStore):
            store = SQLiteApprovalStore(Path(store))
        self.store = store

    @staticmethod
    def call_key(tool: str, arguments: dict[str, Any], *, run_id: str, call_id: str | None) -> str:
        canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
        text = "\x00".join([run_id, call_id or "", tool, canonical])
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
        key = self.call_key(tool, arguments, run_id=run_id, call_id=call_id)
        fresh = PendingApproval(
            id=new_id("apr"),
            tool=tool,
            arguments=dict(arguments),
            run_id=run_id,
            call_id=call_id,
            thread_id=thread_id,
            status="pending",
            created=time.time(),
        )
        entry = self.store.get_or_create(key, fresh)
        if entry.status == "pending":
            return Decision.pending(entry.id)
        if entry.status == "approved" and self.store.consume(entry.id):
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
