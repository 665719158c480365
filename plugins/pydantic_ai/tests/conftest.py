"""Shared fixtures: only this plugin is loaded. (``spans`` and ``only_plugins`` come from
agent-sdk's pytest plugin.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture(autouse=True)
def _only_the_pydantic_ai_plugin(only_plugins: Callable[..., None]) -> None:
    """Load only this plugin's entry point (other frameworks take seconds to import)."""
    only_plugins("pydantic-ai")
