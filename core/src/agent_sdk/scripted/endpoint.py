"""Where a framework's OpenAI-compatible client sends its model calls: a real endpoint
(OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio) or the scripted server.

A harness built with an ``Endpoint`` (``Integration.load_harness(endpoint=...)``) builds
every agent on the framework's own OpenAI client with these settings, so tool calls, tool
results and usage cross real HTTP.
"""

from __future__ import annotations

import functools
import os
import ssl
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, Protocol

from agent_sdk.errors import ConfigurationError
from agent_sdk.scripted.turns import Turn

Api = Literal["chat", "responses"]


class Scripts(Protocol):
    """What an endpoint needs of the scripted server behind it (``ScriptedServer``): it
    registers an agent's turns and answers the key that selects them."""

    def script(self, turns: Sequence[Turn]) -> str: ...


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
    server: Scripts | None = None
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

    def problem(self, exc: BaseException) -> str | None:
        """One line saying what went wrong talking to this endpoint and what to check, if
        ``exc`` (or an exception it wraps) is an HTTP client error; else None."""
        for cause in _chain(exc):
            names = {c.__name__ for c in type(cause).__mro__}
            status = getattr(cause, "status_code", None)
            where = f"{self.base_url} (model {self.model!r})"
            if names & {"APIConnectionError", "ConnectError", "ConnectTimeout", "APITimeoutError"}:
                return (
                    f"cannot reach the model endpoint {self.base_url}: {_first_line(cause)}; "
                    "check --base-url and that the server is running"
                )
            if "AuthenticationError" in names or status == 401:
                return (
                    f"the endpoint {where} refused the API key (401); check the key in the "
                    "environment variable named by --api-key-env (default OPENAI_API_KEY)"
                )
            if "PermissionDeniedError" in names or status == 403:
                return f"the endpoint {where} denied access (403): {_first_line(cause)}"
            if "NotFoundError" in names or status == 404:
                return (
                    f"the endpoint {self.base_url} does not know the model {self.model!r} "
                    "(404); check --model (on Azure OpenAI: the deployment name) and that "
                    "--base-url ends in /v1 where the server needs it"
                )
            if "RateLimitError" in names or status == 429:
                return f"the endpoint {where} is rate limiting (429): {_first_line(cause)}"
            if "BadRequestError" in names or status == 400:
                return f"the endpoint {where} refused a request (400): {_first_line(cause)}"
            if isinstance(status, int) and status >= 500:
                return f"the endpoint {where} failed ({status}): {_first_line(cause)}"
        return None

    def diagnose(self, timeout: float = 5.0) -> str | None:
        """One line on what is wrong with the endpoint, found by listing its models
        (``GET {base_url}/models``), for frameworks that answer a failed model call with
        text instead of raising; None when nothing is found wrong."""
        import json
        import urllib.error
        import urllib.request

        request = urllib.request.Request(
            f"{self.base_url.rstrip('/')}/models",
            headers={"authorization": f"Bearer {self.api_key}", "api-key": self.api_key},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                listing = json.load(answer)
        except urllib.error.HTTPError as exc:
            exc.status_code = exc.code  # type: ignore[attr-defined]
            return self.problem(exc) if exc.code in (401, 403) else None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            return (
                f"cannot reach the model endpoint {self.base_url}: {reason}; check --base-url "
                "and that the server is running"
            )
        except ValueError:
            return None
        models = [m.get("id") for m in listing.get("data", []) if isinstance(m, dict)]
        if models and self.model not in models:
            shown = ", ".join(str(m) for m in models[:8])
            return (
                f"the endpoint {self.base_url} does not know the model {self.model!r} "
                f"(it lists {shown}); check --model (on Azure OpenAI: the deployment name)"
            )
        return None

    def openai_client(self) -> Any:
        """An ``openai.AsyncOpenAI`` for this endpoint (needs the ``openai`` package, which
        the frameworks that talk to OpenAI bring), on ``http_client()``. For a scripted
        server of this process: answers are final (no retries with backoff)."""
        from openai import AsyncOpenAI

        options: dict[str, Any] = {"max_retries": 0} if self.server is not None else {}
        http = self.http_client()
        if http is not None:
            options["http_client"] = http
        return AsyncOpenAI(base_url=self.base_url, api_key=self.api_key, **options)

    def http_client(self) -> Any:
        """The ``httpx`` client an OpenAI client for this endpoint is given where the
        openai package's default wastes time: over plain HTTP (a scripted server, a local
        model server) one that loads no CA bundle, which costs ~20-50 ms per client and is
        never used; None over HTTPS (the default, verifying certificates)."""
        if not self.base_url.lower().startswith("http://"):
            return None
        from openai import DefaultAsyncHttpxClient

        return DefaultAsyncHttpxClient(verify=_unused_tls())

    def __repr__(self) -> str:  # never print the key
        return (
            f"Endpoint(base_url={self.base_url!r}, model={self.model!r}, api={self.api!r}, "
            f"stream={self.stream})"
        )


@functools.cache
def _unused_tls() -> ssl.SSLContext:
    """A TLS context without CA certificates, for plain-HTTP clients that never use it."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and every exception it wraps (causes, contexts, exception groups)."""
    seen: list[BaseException] = []
    todo = [exc]
    while todo and len(seen) < 100:
        current = todo.pop(0)
        if any(current is s for s in seen):
            continue
        seen.append(current)
        todo.extend(getattr(current, "exceptions", ()) or ())
        todo.extend(c for c in (current.__cause__, current.__context__) if c is not None)
    return seen


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= 200 else line[:199] + "…"


__all__ = ["Api", "Endpoint"]
