"""Load only this plugin's entry point here: other plugins' imports (some take seconds)
are not what these tests are about. The full plugin set is restored afterwards."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from agent_sdk.plugins import ENV_ONLY, reset_plugins


@pytest.fixture(autouse=True, scope="module")
def _only_the_autogen_plugin() -> Iterator[None]:
    before = os.environ.get(ENV_ONLY)
    os.environ[ENV_ONLY] = "autogen"
    reset_plugins()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV_ONLY, None)
        else:
            os.environ[ENV_ONLY] = before
        reset_plugins()
