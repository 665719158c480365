"""The core's own defaults, registered through the same hooks third-party plugins use."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from agent_sdk.extraction import AgentResponse, extract_all, extract_json, extract_last
from agent_sdk.hookspecs import hookimpl


@hookimpl
def agent_sdk_output_modes() -> Mapping[str, Callable[[AgentResponse], str]]:
    return {"all": extract_all, "last": extract_last, "json": extract_json}
