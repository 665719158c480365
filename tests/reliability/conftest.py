"""Reliability and security tests (issue 9).

``--run-long`` runs the long variants (marker ``long``) as well. Without it they are
deselected, not skipped: the summary says how many were left out and how to run them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agent-sdk reliability")
    group.addoption(
        "--run-long",
        action="store_true",
        default=False,
        help="also run the long reliability variants (marker 'long'); they grow sizes",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-long"):
        return
    long_items = [i for i in items if i.get_closest_marker("long") is not None]
    if not long_items:
        return
    config.hook.pytest_deselected(items=long_items)
    items[:] = [i for i in items if i.get_closest_marker("long") is None]
    config._agent_sdk_long_deselected = len(long_items)  # type: ignore[attr-defined]


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    count = getattr(config, "_agent_sdk_long_deselected", 0)
    if count:
        terminalreporter.write_line(
            f"reliability: {count} long variant(s) deselected (not run); run them with --run-long"
        )


@pytest.fixture
def long_run(request: pytest.FixtureRequest) -> bool:
    """True when the long variants were asked for (tests that only grow sizes use this)."""
    return bool(request.config.getoption("--run-long"))


class SpanLedger:
    """A span processor and exporter in one: counts starts and ends, keeps finished spans."""

    def __init__(self) -> None:
        self.started = 0
        self.ended = 0
        self.finished: list[Any] = []

    # SpanProcessor
    def on_start(self, span: Any, parent_context: Any = None) -> None:
        self.started += 1

    def on_end(self, span: Any) -> None:
        self.ended += 1
        self.finished.append(span)

    def _on_ending(self, span: Any) -> None:
        return None

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True

    def clear(self) -> None:
        self.started = self.ended = 0
        self.finished.clear()

    def open(self) -> int:
        return self.started - self.ended


@pytest.fixture
def spans() -> Iterator[SpanLedger]:
    """This SDK's spans go to a fresh provider with a counting processor (global untouched)."""
    from opentelemetry.sdk.trace import TracerProvider

    from agent_sdk.tracing import use_tracer_provider

    ledger = SpanLedger()
    provider = TracerProvider()
    provider.add_span_processor(ledger)  # type: ignore[arg-type]
    use_tracer_provider(provider)
    try:
        yield ledger
    finally:
        use_tracer_provider(None)
        provider.shutdown()


@pytest.fixture(autouse=True)
def _core_only_unless_asked(request: pytest.FixtureRequest) -> Iterator[None]:
    """Installed plugins are not loaded unless a test asks for one (a ``harness`` fixture
    using ``only_plugin``): the executor's approval-policy hook would otherwise import every
    framework (seconds)."""
    import os

    from agent_sdk.plugins import ENV_NO_AUTOLOAD, reset_plugins

    if "harness" in request.fixturenames:
        yield
        return

    before = os.environ.get(ENV_NO_AUTOLOAD)
    os.environ[ENV_NO_AUTOLOAD] = "1"
    reset_plugins()
    yield
    if before is None:
        os.environ.pop(ENV_NO_AUTOLOAD, None)
    else:
        os.environ[ENV_NO_AUTOLOAD] = before
    reset_plugins()


@pytest.fixture(autouse=True)
def _no_token_left_behind() -> Iterator[None]:
    """Every test leaves the process-wide token authority as it found it."""
    from agent_sdk.approval import AUTHORITY

    before = AUTHORITY.outstanding()
    yield
    assert AUTHORITY.outstanding() == before, "a test left approval tokens usable"
