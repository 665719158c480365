"""Shared fixtures: only this plugin is loaded, SDK trace export is off for every test, and
nothing global is left changed. (``spans`` and ``only_plugins`` come from agent-sdk's pytest
plugin.)"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from agents.tracing import get_trace_provider, set_trace_processors


@pytest.fixture(autouse=True)
def _only_the_openai_agents_plugin(only_plugins: Callable[..., None]) -> None:
    """Load only this plugin's entry point (other frameworks take seconds to import)."""
    only_plugins("openai-agents")


@pytest.fixture(autouse=True)
def no_sdk_trace_export() -> Iterator[None]:
    """Tests that enable SDK tracing must not export to OpenAI: the processor list is
    emptied for the test and put back afterwards."""
    multi = get_trace_provider()._multi_processor  # type: ignore[attr-defined]
    saved = tuple(multi._processors)
    set_trace_processors([])
    try:
        yield
    finally:
        set_trace_processors(list(saved))
