"""The approval store's operations in SQL, shared by the SQLite and PostgreSQL stores.

Every operation is one transaction of the store (``_run``) and every state change a
conditional ``UPDATE … WHERE status = …``: whoever changes the row first wins, in threads,
processes or on other hosts. A store names its table, its parameter marker and its way to
insert a key that may already exist; everything else is here once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from agent_sdk.approval.pending import _COLUMNS, PendingApproval, _row
from agent_sdk.errors import ApprovalError

_T = TypeVar("_T")


class SQLOperations:
    """``get_or_create``, ``claim``, ``get``, ``consume``, ``resolve``, ``list`` and
    ``purge`` over a DB-API cursor whose ``execute`` returns the cursor (sqlite3, psycopg)."""

    table: ClassVar[str]
    mark: ClassVar[str]
    """The driver's parameter marker: ``?`` (sqlite3) or ``%s`` (psycopg)."""
    insert: ClassVar[str]
    """The insert that leaves an existing key alone, up to ``INTO``, e.g. ``INSERT OR IGNORE
    INTO``; ``insert_tail`` follows the values (e.g. ``ON CONFLICT (key) DO NOTHING``)."""
    insert_tail: ClassVar[str] = ""

    def _run(self, body: Callable[[Any], _T]) -> _T:
        """``body(cursor)`` in one transaction of the store."""
        raise NotImplementedError

    def get_or_create(self, key: str, record: PendingApproval) -> PendingApproval:
        return _row(self._run(lambda cur: self._insert_and_read(cur, key, record)))

    def claim(self, key: str, record: PendingApproval) -> tuple[PendingApproval, bool]:
        """``get_or_create`` and, for an approved entry, ``consume`` in one transaction:
        the entry, and whether this caller used the approval."""

        def body(cur: Any) -> tuple[PendingApproval, bool]:
            entry = _row(self._insert_and_read(cur, key, record))
            return entry, entry.status == "approved" and self._use(cur, entry.id)

        return self._run(body)

    def get(self, approval_id: str) -> PendingApproval | None:
        row = self._run(lambda cur: self._select(cur, "id", approval_id))
        return _row(row) if row else None

    def consume(self, approval_id: str) -> bool:
        """Turn an approved entry into a used one; True for exactly one caller."""
        return self._run(lambda cur: self._use(cur, approval_id))

    def resolve(
        self, approval_id: str, *, approved: bool, reviewer: str | None, reason: str | None
    ) -> PendingApproval:
        p = self.mark

        def body(cur: Any) -> tuple[bool, Any]:
            cur.execute(
                f"UPDATE {self.table} SET status = {p}, reviewer = {p}, reason = {p}, "
                f"resolved = {p} WHERE id = {p} AND status = 'pending'",
                ("approved" if approved else "denied", reviewer, reason, time.time(), approval_id),
            )
            changed = cur.rowcount == 1
            return changed, self._select(cur, "id", approval_id)

        changed, row = self._run(body)
        if row is None:
            raise ApprovalError(f"no approval with id {approval_id!r}")
        entry = _row(row)
        if not changed:
            by = f" by {entry.reviewer}" if entry.reviewer else ""
            raise ApprovalError(f"approval {approval_id} was already resolved ({entry.status}{by})")
        return entry

    def list(self, status: str | None = "pending") -> list[PendingApproval]:
        def body(cur: Any) -> list[Any]:
            if status is None:
                return cur.execute(  # type: ignore[no-any-return]
                    f"SELECT {_COLUMNS} FROM {self.table} ORDER BY created"
                ).fetchall()
            return cur.execute(  # type: ignore[no-any-return]
                f"SELECT {_COLUMNS} FROM {self.table} WHERE status = {self.mark} ORDER BY created",
                (status,),
            ).fetchall()

        return [_row(r) for r in self._run(body)]

    def purge(self, *, older_than: float) -> int:
        """Delete finished (denied or used) entries older than ``older_than`` seconds."""

        def body(cur: Any) -> int:
            cur.execute(
                f"DELETE FROM {self.table} WHERE status IN ('denied', 'used') "
                f"AND created < {self.mark}",
                (time.time() - older_than,),
            )
            return int(cur.rowcount)

        return self._run(body)

    # -- statements

    def _select(self, cur: Any, column: str, value: str) -> Any:
        return cur.execute(
            f"SELECT {_COLUMNS} FROM {self.table} WHERE {column} = {self.mark}", (value,)
        ).fetchone()

    def _insert_and_read(self, cur: Any, key: str, record: PendingApproval) -> Any:
        p = self.mark
        cur.execute(
            f"{self.insert} {self.table} (id, key, tool, arguments, run_id, call_id, "
            f"thread_id, status, created) VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}, "
            f"'pending', {p}){self.insert_tail}",
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
        return self._select(cur, "key", key)

    def _use(self, cur: Any, approval_id: str) -> bool:
        cur.execute(
            f"UPDATE {self.table} SET status = 'used' WHERE id = {self.mark} "
            "AND status = 'approved'",
            (approval_id,),
        )
        return bool(cur.rowcount == 1)
