"""``remote_tools``: the tools an MCP server serves, as ToolSpecs; a remote agent tool is a
sub-agent on this side (path, depth, recursion, budget), its remote usage charged here."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server

from agent_sdk._compat import wait_for
from agent_sdk.agents import agent_tool
from agent_sdk.context import CallContext, current_context
from agent_sdk.errors import ConfigurationError, ErrorKind, HierarchyLimitError, ToolError
from agent_sdk.mcp._meta import (
    AGENT_KEY,
    RUN_ID,
    RUN_KEY,
    RunClaim,
    read_error,
    read_usage,
)
from agent_sdk.names import TOOL_NAME
from agent_sdk.redaction import safe_message
from agent_sdk.response import AgentResponse, Message, Usage
from agent_sdk.run import current_run, note_usage
from agent_sdk.spec import ToolSpec

MAX_TEXT = 1_000_000
"""A remote result's text is cut to this many characters (a server is not trusted)."""
MAX_ERROR_TEXT = 4000


async def remote_tools(
    target: str | Sequence[str] | Server[Any],
    *,
    names: Sequence[str] | None = None,
    timeout: float | None = None,
    headers: Mapping[str, str] | None = None,
) -> list[ToolSpec]:
    """The tools the MCP server at ``target`` serves, as ToolSpecs (for a ``Registry`` and
    every ``<fw>_tools``); ``names`` picks some (each must exist).

    ``target`` is a streamable-HTTP URL (``http://host:port/mcp``), a stdio command as a
    list of arguments (run with this process's environment), or an ``mcp_server`` of this
    process (in memory, for tests and benchmarks). Each call opens its own
    session (a failed server never leaves a broken one behind); ``timeout`` bounds each
    call, connection included; ``headers`` go with every HTTP request.

    A tool the server marks as an agent is an agent tool here: the run's guards apply
    before it is called, the call carries the run (id, path, depth limit, budget left) in
    ``_meta``, and the remote usage is charged to the run. A timeout, a refused connection
    or a server gone mid-call is ``tool-timeout``/``tool-failed`` naming the endpoint.
    """
    if timeout is not None and not timeout > 0:
        raise ConfigurationError("timeout must be > 0 seconds")
    remote = _Remote(target, timeout=timeout, headers=headers)
    listed = await remote.list_tools()
    by_name = {tool.name: tool for tool in listed}
    if names is not None:
        missing = [n for n in names if n not in by_name]
        if missing:
            known = ", ".join(sorted(by_name)) or "none"
            raise ConfigurationError(
                f"{remote.endpoint} serves no tool named {', '.join(map(repr, missing))} "
                f"(it serves: {known})"
            )
        chosen = [by_name[n] for n in names]
    else:
        chosen = listed
    specs = []
    for tool in chosen:
        if not TOOL_NAME.match(tool.name):
            if names is not None:
                raise ConfigurationError(
                    f"{remote.endpoint} serves {tool.name!r}, which is not a valid tool name"
                )
            continue
        specs.append(remote.spec(tool))
    return specs


class _Remote:
    """One MCP endpoint: how to reach it and how a call to it is made."""

    def __init__(
        self,
        target: str | Sequence[str] | Server[Any],
        *,
        timeout: float | None,
        headers: Mapping[str, str] | None,
    ) -> None:
        self._server: Server[Any] | None = None
        self._command: list[str] | None = None
        if isinstance(target, Server):
            self._server = target
            self.endpoint = f"in-process:{target.name}"
        elif isinstance(target, str):
            if not target.startswith(("http://", "https://")):
                raise ConfigurationError(
                    f"an MCP target is an http(s) URL or a command as a list, not {target!r}"
                )
            self.endpoint = target
        else:
            command = list(target)
            if not command or not all(isinstance(a, str) for a in command):
                raise ConfigurationError("a stdio MCP target is a non-empty list of strings")
            self._command = command
            self.endpoint = f"stdio:{os.path.basename(command[0])}"
        self.target = target
        self.timeout = timeout
        self.headers = dict(headers or {})
        self._discover: types.DiscoverResult | None = None
        self._output_schemas: dict[str, dict[str, Any] | None] = {}
        self._http_client: tuple[asyncio.AbstractEventLoop, httpx2.AsyncClient] | None = None

    def _http(self) -> httpx2.AsyncClient:
        """One HTTP client per event loop for every session to this endpoint: a new client
        per call costs ~50 ms (its TLS context) and a new connection."""
        loop = asyncio.get_running_loop()
        if self._http_client is None or self._http_client[0] is not loop:
            # The MCP SDK's own defaults: 30 s to connect, 300 s to read (a held stream).
            client = httpx2.AsyncClient(
                headers=self.headers, timeout=httpx2.Timeout(30.0, read=300.0)
            )
            self._http_client = (loop, client)
        return self._http_client[1]

    def _client(self) -> Client:
        if self._server is not None:
            return Client(self._server)
        if self._command is not None:
            transport: Any = StdioServerParameters(
                command=self._command[0], args=self._command[1:], env=dict(os.environ)
            )
        else:
            transport = streamable_http_client(str(self.target), http_client=self._http())
        if self._discover is not None and self._discover.supported_versions:
            # The handshake was done when listing: each call's session skips it.
            return Client(
                transport,
                mode=self._discover.supported_versions[-1],
                prior_discover=self._discover,
            )
        return Client(transport)

    async def list_tools(self) -> list[types.Tool]:
        async def listing() -> list[types.Tool]:
            async with self._client() as client:
                tools = list((await client.list_tools()).tools)
                self._output_schemas = {t.name: t.output_schema for t in tools}
                discover = getattr(client.session, "_discover_result", None)
                if isinstance(discover, types.DiscoverResult):
                    self._discover = discover
                return tools

        try:
            return await (listing() if self.timeout is None else wait_for(listing(), self.timeout))
        except TimeoutError:
            raise ConfigurationError(
                f"{self.endpoint} did not list its tools within {self.timeout:g}s"
            ) from None
        except Exception as exc:
            raise ConfigurationError(
                f"cannot list the tools of {self.endpoint}: {_reason(exc)}"
            ) from exc

    async def call(
        self, name: str, arguments: dict[str, Any], claim: RunClaim | None
    ) -> tuple[str, Usage]:
        """The remote result's text and usage; ToolError for a failed call (its usage noted
        for the running sub-agent)."""
        meta: dict[str, Any] = {RUN_KEY: claim.to_meta()} if claim is not None else {}

        async def calling() -> types.CallToolResult:
            async with self._client() as client:
                # A new session lists the tools again before its first result, to learn
                # the output schema: give it the one the listing said (a round trip less).
                known = getattr(client.session, "_tool_output_schemas", None)
                if isinstance(known, dict) and name in self._output_schemas:
                    known.setdefault(name, self._output_schemas[name])
                return await client.call_tool(name, arguments, meta=meta)  # type: ignore[arg-type]

        try:
            if self.timeout is None:
                result = await calling()
            else:
                result = await wait_for(calling(), self.timeout)
        except TimeoutError:
            raise ToolError(
                ErrorKind.TOOL_TIMEOUT,
                f"tool '{name}' at {self.endpoint} did not answer within {self.timeout:g}s; "
                "answer without it and say what is missing",
                tool=name,
                detail=f"remote call: no answer within {self.timeout:g}s",
            ) from None
        except Exception as exc:
            raise ToolError(
                ErrorKind.TOOL_FAILED,
                f"tool '{name}' at {self.endpoint} failed: {_reason(exc)}",
                tool=name,
                cause=exc,
                detail="remote call failed",
            ) from None
        usage = read_usage(result.meta)
        text = "".join(c.text for c in result.content if isinstance(c, types.TextContent))
        if not result.is_error:
            return text[:MAX_TEXT], usage
        note_usage(usage)
        kind, approval_id = read_error(result.meta)
        message = _error_message(text)
        if kind is ErrorKind.BUDGET_EXHAUSTED:
            raise HierarchyLimitError(message, tool=name, detail="remote: budget spent")
        raise ToolError(
            kind,
            message,
            tool=name,
            approval_id=approval_id,
            detail=f"remote {kind.value} from {self.endpoint}",
        )

    def spec(self, tool: types.Tool) -> ToolSpec:
        name = tool.name
        description = (tool.description or name)[:MAX_ERROR_TEXT]
        schema = dict(tool.input_schema or {"type": "object"})
        if (tool.meta or {}).get(AGENT_KEY) is True:
            return self._agent_spec(name, description, schema)

        async def call_remote(**arguments: Any) -> str:
            ctx = current_context() or CallContext.new()
            text, usage = await self.call(name, arguments, _claim(ctx.path, ctx, held=False))
            run = current_run()
            if run is not None and (usage.model_calls or usage.input_tokens or usage.output_tokens):
                run.record_usage((*ctx.path, name), usage)
            return text

        return ToolSpec(
            name=name, description=description, handler=call_remote, input_schema=schema
        )

    def _agent_spec(self, name: str, description: str, schema: dict[str, Any]) -> ToolSpec:
        async def invoke(request: Any, child: CallContext) -> AgentResponse:
            arguments = request if isinstance(request, dict) else {"request": request}
            # The server adds the agent to the path itself (and checks it there again).
            claim = _claim(child.path[:-1], child, held=True)
            text, usage = await self.call(name, arguments, claim)
            return AgentResponse(messages=[Message("assistant", text)], usage=usage)

        return agent_tool(
            invoke,
            name=name,
            description=description,
            input_schema=schema,
            provider="mcp",
        )


def _claim(path: tuple[str, ...], ctx: CallContext, *, held: bool) -> RunClaim | None:
    """What this call tells the server about the run; None outside any run."""
    run = current_run()
    if run is None:
        return None
    budget = run.remaining
    if budget is not None and held:
        budget += 1  # the model call call_agent holds for this very sub-agent is the server's
    call_id = ctx.call_id if ctx.call_id and RUN_ID.match(ctx.call_id) else None
    return RunClaim(
        run_id=ctx.run_id,
        path=path,
        max_depth=run.limits.max_depth,
        budget=budget,
        call_id=call_id,
    )


def _error_message(text: str) -> str:
    """The message of agent-sdk's error JSON, else the server's text (both cut)."""
    try:
        error = json.loads(text).get("error")
        message = error.get("message") if isinstance(error, dict) else None
    except (ValueError, AttributeError, RecursionError):
        message = None
    if not isinstance(message, str) or not message:
        message = text or "the remote tool failed without a message"
    return message[:MAX_ERROR_TEXT]


def _reason(exc: BaseException) -> str:
    """The innermost cause of a failed connection, as safe text (the MCP SDK wraps it in
    exception groups)."""
    inner = getattr(exc, "exceptions", None)
    while isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException):
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return safe_message(exc, limit=300)
