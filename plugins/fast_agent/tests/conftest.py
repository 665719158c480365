"""Helpers for the fast-agent plugin tests: real FastAgent apps in library mode with the
scripted model. (``spans``, the in-memory span exporter, comes from agent-sdk's pytest
plugin.)"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import pytest

from agent_sdk.testing import Turn
from agent_sdk_fast_agent.testing import (
    SCRIPTED_MODEL,
    library_app,
    register_scripted_model,
    scripts,
)


@asynccontextmanager
async def scripted_app(
    agents: Mapping[str, Sequence[Turn]],
    *,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> AsyncIterator[Any]:
    """A FastAgent app whose agents (name -> script) all use the scripted model;
    ``options`` adds decorator keyword arguments per agent (``agents=[...]`` etc.)."""
    register_scripted_model()
    fast = library_app("agent-sdk-fast-agent-tests")
    for name in agents:

        async def declaration() -> None:
            return None

        fast.agent(
            name=name,
            instruction=f"You are {name}.",
            model=SCRIPTED_MODEL,
            **dict((options or {}).get(name, {})),
        )(declaration)
    with scripts(agents):
        async with fast.run() as app:
            yield app


@pytest.fixture
def app() -> Any:
    """``async with app({"name": [turns...]}, options={...}) as fa:`` builds a scripted app."""
    return scripted_app
