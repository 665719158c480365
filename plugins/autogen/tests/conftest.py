"""Load only this plugin's entry point here: other plugins' imports (some take seconds) are
not what these tests are about. (``spans`` and ``only_plugins`` come from agent-sdk's pytest
plugin.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest


@pytest.fixture(autouse=True)
def _only_the_autogen_plugin(only_plugins: Callable[..., None]) -> None:
    only_plugins("autogen")
