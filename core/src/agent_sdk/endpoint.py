"""Where a framework's OpenAI-compatible client sends its model calls: a real endpoint
(OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio) or the scripted server.

A harness built with an ``Endpoint`` (``Integration.load_harness(endpoint=...)``) builds
every agent on the framework's own OpenAI client with these settings, so tool calls, tool
results and usage cross real HTTP.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from agent_sdk.errors import ConfigurationError

if TYPE_CHECKING:
    from agent_sdk.scripted import Turn
    from agent_sdk.scripted_server import ScriptedServer

Api = Literal["chat", "responses"]


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible endpoint and how to talk to it."""

    base_url: str
    """e.g. ``https://api.openai.com/v1`` or ``http://localhost:11434/v1`` (Ollama)."""
    model: str
    api_key: str = "unused"
    api: Api = "chat"
    """``chat`` (Chat Completions, every provider) or ``responses`` (the Responses API)."""
    stream: bool = False
    """Stream model responses (server-sent events)."""
    server: ScriptedServer | None = None
    """Set when the endpoint is a scripted server of this process: agents' turns are then
    registered with it (``instructions``). None for real and external endpoints."""

    def __post_init__(self) -> None:
        if self.api not in ("chat", "responses"):
            raise ConfigurationError(f"api must be 'chat' or 'responses', not {self.api!r}")
        if not self.base_url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"base_url must be an http(s) URL such as https://api.openai.com/v1, "
                f"not {self.base_url!r}"
            )
        if not self.model:
            raise ConfigurationError("model must name the model or deployment to call")

    @classmethod
    def from_env(
        cls,
        base_url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        api: Api = "chat",
        stream: bool = False,
    ) -> Endpoint:
        """An endpoint whose API key is read from ``api_key_env`` (``unused`` if unset, as
        local servers such as Ollama need none)."""
        return cls(
            base_url.rstrip("/"), model, os.environ.get(api_key_env) or "unused", api, stream
        )

    def with_options(self, *, api: Api | None = None, stream: bool | None = None) -> Endpoint:
        return replace(
            self,
            api=self.api if api is None else api,
            stream=self.stream if stream is None else stream,
        )

    def instructions(self, text: str, turns: Sequence[Turn] = ()) -> str:
        """The system prompt to give an agent with ``text`` as its instructions. With a
        scripted server of this process, ``turns`` are registered with it and the prompt
        carries the key that selects them; elsewhere the text is the prompt."""
        if self.server is None:
            return text
        key = self.server.script(turns)
        return f"{text}\n\n{key}" if text else key

    def __repr__(self) -> str:  # never print the key
        return (
            f"Endpoint(base_url={self.base_url!r}, model={self.model!r}, api={self.api!r}, "
            f"stream={self.stream})"
        )


__all__ = ["Api", "Endpoint"]
