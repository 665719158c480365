"""Deferred approvals in PostgreSQL: many processes on many hosts share one store."""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from agent_sdk.approval.sql_operations import SQLOperations
from agent_sdk.approval.workers import StoreWorkers
from agent_sdk.errors import ApprovalError

if TYPE_CHECKING:
    import psycopg

_T = TypeVar("_T")

SCHEMA_VERSION = 1
TABLE = "agent_sdk_approvals"
VERSION_TABLE = "agent_sdk_schema"

# Migrations by the version they create; each runs once, in order, in one transaction.
_MIGRATIONS = {
    1: f"""
    CREATE TABLE {TABLE} (
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
        created DOUBLE PRECISION NOT NULL,
        resolved DOUBLE PRECISION
    );
    CREATE INDEX {TABLE}_status ON {TABLE} (status, created);
    """,
}
# Any constant: the transaction-scoped advisory lock that serialises hosts migrating at once.
_MIGRATION_LOCK = 0x61677364  # "agsd"

_URL_PASSWORD = re.compile(r"(://[^:/@?#]*:)[^@/?#]*@")
_KV_PASSWORD = re.compile(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)


def mask_dsn(dsn: str) -> str:
    """The DSN with its password replaced by ``***`` (URL or ``key=value`` form)."""
    return _KV_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1***@", dsn))


def is_dsn(target: object) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


class PostgresApprovalStore(SQLOperations):
    """Pending approvals in PostgreSQL, for requesters and reviewers on many hosts.

    The same interface as ``SQLiteApprovalStore``. Every change is one transaction and
    every state change a conditional ``UPDATE … WHERE status = …``, so across processes
    and hosts an approval is resolved once and used once (the database's row lock decides,
    not a process lock). The store creates and migrates its tables (``agent_sdk_schema``
    holds the version); a database migrated by a newer agent-sdk is refused.

    Async callers run the store on its ``pool_size`` worker threads, each with its own
    connection, never on the event loop. A lost connection fails the operation with
    ApprovalError (so a deferred call is denied, never allowed) in one line with the
    password masked; the next operation connects again, so the store recovers on its own
    when the server is back. Needs ``psycopg`` (``pip install 'agent-sdk[postgres]'``).
    """

    table = TABLE
    mark = "%s"
    insert = "INSERT INTO"
    insert_tail = " ON CONFLICT (key) DO NOTHING"

    def __init__(self, dsn: str, *, pool_size: int = 4, connect_timeout: float = 5.0) -> None:
        try:
            import psycopg
        except ImportError:
            raise ApprovalError(
                "a PostgreSQL approval store needs psycopg: pip install 'agent-sdk[postgres]'"
            ) from None
        self._psycopg = psycopg
        self.dsn = dsn
        self.display = mask_dsn(dsn)
        self.connect_timeout = connect_timeout
        self._local = threading.local()
        self._connections: list[psycopg.Connection[Any]] = []
        self._connections_lock = threading.Lock()
        self._workers = StoreWorkers(pool_size, "agent-sdk-approval-store")
        self._run(self._migrate)

    # -- connections and transactions

    def _connection(self) -> tuple[psycopg.Connection[Any], bool]:
        """This thread's connection, and whether it was just opened."""
        conn = getattr(self._local, "conn", None)
        if conn is not None and not conn.closed:
            return conn, False
        try:
            conn = self._psycopg.connect(
                self.dsn, autocommit=True, connect_timeout=max(1, round(self.connect_timeout))
            )
        except self._psycopg.Error as exc:
            raise ApprovalError(self._describe(exc, "is unreachable")) from None
        self._local.conn = conn
        with self._connections_lock:
            self._connections.append(conn)
        return conn, True

    def _drop(self, conn: psycopg.Connection[Any]) -> None:
        with contextlib.suppress(Exception):
            conn.close()
        self._local.conn = None
        with self._connections_lock, contextlib.suppress(ValueError):
            self._connections.remove(conn)

    def _run(self, body: Callable[[psycopg.Cursor[Any]], _T]) -> _T:
        """``body`` in one transaction; rolled back on any failure. A connection found dead
        at BEGIN (the server restarted since its last use) is replaced once: nothing ran."""
        psycopg = self._psycopg
        for attempt in (1, 2):
            conn, fresh = self._connection()
            try:
                conn.execute("BEGIN")
            except psycopg.Error as exc:
                self._drop(conn)
                if fresh or attempt == 2:
                    raise ApprovalError(self._describe(exc, "is unreachable")) from None
                continue
            try:
                with conn.cursor() as cur:
                    result = body(cur)
                conn.execute("COMMIT")
                return result
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                # The connection broke mid-transaction: the server rolls it back (or, if the
                # COMMIT got there, it happened once); either way this caller is told no.
                self._drop(conn)
                raise ApprovalError(self._describe(exc, "lost its connection")) from None
            except psycopg.Error as exc:
                self._rollback(conn)
                raise ApprovalError(self._describe(exc, "failed")) from None
            except BaseException:
                self._rollback(conn)
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _rollback(self, conn: psycopg.Connection[Any]) -> None:
        try:
            conn.execute("ROLLBACK")
        except Exception:
            self._drop(conn)

    def _describe(self, exc: Exception, what: str) -> str:
        detail = " ".join(str(exc).split())
        password = self._password()
        if password:
            detail = detail.replace(password, "***")
        return f"approval store {self.display} {what}: {detail or type(exc).__name__}"[:500]

    def _password(self) -> str | None:
        with contextlib.suppress(Exception):
            password = self._psycopg.conninfo.conninfo_to_dict(self.dsn).get("password")
            return str(password) if password else None
        return None

    def _migrate(self, cur: psycopg.Cursor[Any]) -> None:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
        cur.execute(
            f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} "
            "(component TEXT PRIMARY KEY, version INTEGER NOT NULL)"
        )
        row = cur.execute(
            f"SELECT version FROM {VERSION_TABLE} WHERE component = 'approvals'"
        ).fetchone()
        current = row[0] if row else 0
        if current > SCHEMA_VERSION:
            raise ApprovalError(
                f"approval store {self.display} has schema version {current}, newer than this "
                f"agent-sdk knows ({SCHEMA_VERSION}): upgrade agent-sdk on this host"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            cur.execute(_MIGRATIONS[version])
        if current < SCHEMA_VERSION:
            cur.execute(
                f"INSERT INTO {VERSION_TABLE} (component, version) VALUES ('approvals', %s) "
                "ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version",
                (SCHEMA_VERSION,),
            )

    # -- the store interface (as SQLiteApprovalStore)

    async def call(self, fn: Callable[..., _T], *args: Any) -> _T:
        """Run the store method ``fn(*args)`` on one of the store's worker threads."""
        return await self._workers.call(fn, *args)

    def close(self) -> None:
        self._workers.shutdown()
        with self._connections_lock:
            connections, self._connections = self._connections, []
        for conn in connections:
            with contextlib.suppress(Exception):
                conn.close()
