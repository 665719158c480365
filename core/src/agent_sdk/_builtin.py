"""The core's own defaults, registered through the same hooks third-party plugins use."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from agent_sdk.extraction import _BUILTIN_FUNCTIONS, AgentResponse
from agent_sdk.hookspecs import hookimpl


@hookimpl
def agent_sdk_output_modes() -> Mapping[str, Callable[[AgentResponse], str]]:
    return dict(_BUILTIN_FUNCTIONS)
