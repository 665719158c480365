"""Approval ports, durable deferred approvals, and one-use approval tokens.

A tool call from a model (or a remote peer) is a request, never an approval. Only a port's
decision mints a token, in the process that runs the agent. A token is bound to the run,
thread, call, tool and a digest of the validated arguments, HMAC-signed with a per-process
secret, and good for one use.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import inspect
import json
import os
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from agent_sdk.context import new_id
from agent_sdk.errors import ApprovalError, ConfigurationError


@dataclass(frozen=True)
class ApprovalRequest:
    """What a reviewer sees: the tool, the validated arguments, and which call asks."""

    tool: str
    arguments: dict[str, Any]
    call_id: str | None
    run_id: str
    thread_id: str | None = None
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class Decision:
    """A port's answer. ``pending_id`` set means: not decided yet, ask again later."""

    approved: bool
    reason: str | None = None
    reviewer: str | None = None
    arguments: dict[str, Any] | None = None
    pending_id: str | None = None

    @classmethod
    def approve(cls, *, reviewer: str | None = None, reason: str | None = None) -> Decision:
        return cls(True, reason=reason, reviewer=reviewer)

    @classmethod
    def deny(cls, reason: str | None = None, *, reviewer: str | None = None) -> Decision:
        return cls(False, reason=reason, reviewer=reviewer)

    @classmethod
    def pending(cls, approval_id: str) -> Decision:
        return cls(False, pending_id=approval_id)


@runtime_checkable
class ApprovalPort(Protocol):
    """Decides whether a confirm call may run."""

    async def request(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        call_id: str | None,
        run_id: str,
        thread_id: str | None = None,
        path: tuple[str, ...] = (),
    ) -> Decision: ...


class AutoApprove:
    """Approves every call (for tests and trusted tools)."""

    async def request(self, tool: str, arguments: dict[str, Any], **_: Any) -> Decision:
        return Decision.approve(reviewer="auto")


class DenyAll:
    """Denies every call that needs approval."""

    def __init__(self, reason: str = "approvals are switched off") -> None:
        self.reason = reason

    async def request(self, tool: str, arguments: dict[str, Any], **_: Any) -> Decision:
        return Decision.deny(self.reason, reviewer="deny-all")


Reviewer = Callable[[ApprovalRequest], "Decision | bool | Awaitable[Decision | bool]"]


class CallbackApproval:
    """Asks a function. It gets an ApprovalRequest and returns a Decision or a bool.

    An async reviewer is awaited; a sync one runs in a worker thread (it may block on a
    terminal prompt) with the caller's context.
    """

    def __init__(self, reviewer: Reviewer) -> None:
        if not callable(reviewer):
            raise ConfigurationError("CallbackApproval needs a callable reviewer")
        self.reviewer = reviewer
        self._is_async = inspect.iscoroutinefunction(reviewer)

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
        req = ApprovalRequest(tool, dict(arguments), call_id, run_id, thread_id, tuple(path))
        if self._is_async:
            answer = await self.reviewer(req)  # type: ignore[misc]
        else:
            answer = await asyncio.to_thread(self.reviewer, req)
            if inspect.isawaitable(answer):
                answer = await answer
        if isinstance(answer, bool):
            return Decision(answer, reason=None if answer else "denied by the reviewer")
        if isinstance(answer, Decision):
            return answer
        raise ApprovalError(
            f"reviewer returned {type(answer).__name__}; return a Decision or a bool"
        )


# -- durable deferred approvals ------------------------------------------------------------
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


# -- one-use tokens ------------------------------------------------------------------------
@dataclass(frozen=True)
class ApprovalToken:
    """Proof that a port approved one call. Opaque to everyone but the authority that made it."""

    run_id: str
    thread_id: str | None
    call_id: str | None
    tool: str
    digest: str
    nonce: str
    signature: str = field(repr=False)

    def payload(self) -> bytes:
        parts = [self.run_id, self.thread_id or "", self.call_id or "", self.tool, self.digest]
        return "\x00".join([*parts, self.nonce]).encode()

    def encode(self) -> str:
        body = json.dumps(
            [self.run_id, self.thread_id, self.call_id, self.tool, self.digest, self.nonce]
        ).encode()
        return base64.urlsafe_b64encode(body).decode() + "." + self.signature

    @classmethod
    def decode(cls, text: str) -> ApprovalToken:
        try:
            body, signature = text.rsplit(".", 1)
            run_id, thread_id, call_id, tool, digest, nonce = json.loads(
                base64.urlsafe_b64decode(body.encode("ascii"))
            )
            token = cls(run_id, thread_id, call_id, tool, digest, nonce, signature)
        except Exception as exc:
            raise ApprovalError("not an approval token") from exc
        # One token, one spelling: base64 leaves low bits of the last character unused, so
        # several texts decode to the same token. Only the canonical encoding is accepted.
        if token.encode() != text:
            raise ApprovalError("not an approval token")
        return token


class TokenAuthority:
    """Mints and verifies one-use tokens with a secret that never leaves this process."""

    def __init__(self, *, ttl: float = 600.0, secret: bytes | None = None) -> None:
        self._secret = secret or os.urandom(32)
        self._outstanding: dict[str, float] = {}
        self._lock = threading.Lock()
        self.ttl = ttl

    def _sign(self, payload: bytes) -> str:
        return hmac.new(self._secret, payload, hashlib.sha256).hexdigest()

    def mint(
        self, *, run_id: str, thread_id: str | None, call_id: str | None, tool: str, digest: str
    ) -> ApprovalToken:
        unsigned = ApprovalToken(run_id, thread_id, call_id, tool, digest, os.urandom(16).hex(), "")
        token = ApprovalToken(
            run_id, thread_id, call_id, tool, digest, unsigned.nonce, self._sign(unsigned.payload())
        )
        now = time.monotonic()
        with self._lock:
            self._prune(now)
            self._outstanding[token.nonce] = now + self.ttl
        return token

    def consume(
        self,
        token: ApprovalToken,
        *,
        run_id: str,
        thread_id: str | None,
        call_id: str | None,
        tool: str,
        digest: str,
    ) -> bool:
        """True once for a genuine, unexpired token bound to exactly this call."""
        if not isinstance(token, ApprovalToken):
            return False
        try:  # a decoded token may carry anything: non-text fields, non-ASCII signatures
            expected = self._sign(token.payload())
            genuine = hmac.compare_digest(expected.encode(), str(token.signature).encode())
        except (TypeError, ValueError):
            return False
        if not genuine:
            return False
        binding = (token.run_id, token.thread_id, token.call_id, token.tool, token.digest)
        if binding != (run_id, thread_id, call_id, tool, digest):
            return False
        now = time.monotonic()
        with self._lock:
            expires = self._outstanding.pop(token.nonce, None)
        return expires is not None and expires >= now

    def discard(self, token: ApprovalToken | None) -> None:
        """Drop a token that its call did not take."""
        if token is not None:
            with self._lock:
                self._outstanding.pop(token.nonce, None)

    def outstanding(self) -> int:
        with self._lock:
            return len(self._outstanding)

    def _prune(self, now: float) -> None:
        if len(self._outstanding) > 1024:
            for nonce in [n for n, exp in self._outstanding.items() if exp < now]:
                del self._outstanding[nonce]


AUTHORITY = TokenAuthority()
"""The process-wide token authority every gate and executor uses."""
