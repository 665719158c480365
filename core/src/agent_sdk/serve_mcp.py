"""``agent-sdk serve-mcp MODULE:ATTR``: tools and agent tools served over MCP (streamable
HTTP at ``http://HOST:PORT/mcp``, or stdio), in one line saying where."""

from __future__ import annotations

import argparse
import asyncio
import errno
import importlib
import os
import signal
import socket
import sys
import threading
from typing import Any

from agent_sdk.errors import AgentSDKError, ConfigurationError
from agent_sdk.executor import Executor
from agent_sdk.run import HierarchyLimits
from agent_sdk.spec import Registry, ToolSpec


class ServeError(AgentSDKError):
    """What keeps ``serve-mcp`` from serving, in words (the CLI prints it, exit 2)."""


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    serve = sub.add_parser(
        "serve-mcp",
        parents=[common],
        help="serve tools and agent tools over MCP (streamable HTTP or stdio)",
    )
    serve.add_argument(
        "target",
        metavar="MODULE:ATTR",
        help="a Registry, a ToolSpec, a list of them, an Executor (its registry, served "
        "under its approvals), or a callable returning one",
    )
    serve.add_argument("--host", default="127.0.0.1")
    where = serve.add_mutually_exclusive_group()
    where.add_argument("--port", type=int, default=0, help="0-65535 (default 0: a free port)")
    where.add_argument("--stdio", action="store_true", help="serve over stdin/stdout")
    serve.add_argument("--name", default="agent-sdk", help="the server's name (and service name)")
    serve.add_argument(
        "--max-depth", type=int, help="this server's depth limit (callers can only lower it)"
    )
    serve.add_argument(
        "--max-model-calls",
        type=int,
        help="this server's model-call budget per call (callers can only lower it)",
    )
    serve.add_argument("--trace-file", metavar="FILE", help="write the trace as Jaeger JSON")
    serve.add_argument("--otlp", metavar="URL", help="export the trace over OTLP/HTTP")
    serve.add_argument("--service-name", help="the OpenTelemetry service name (default: --name)")
    serve.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from agent_sdk.mcp import mcp_server

    tools = load_target(args.target)
    try:
        limits = HierarchyLimits(
            **({"max_depth": args.max_depth} if args.max_depth is not None else {}),
            max_model_calls=args.max_model_calls,
        )
    except ConfigurationError as exc:
        raise ServeError(f"serve-mcp: {exc}") from None
    provider = None
    if args.trace_file or args.otlp:
        from agent_sdk.tracing import configure_tracing

        provider = configure_tracing(
            args.service_name or args.name, endpoint=args.otlp, file=args.trace_file
        )
    try:
        executor = tools if isinstance(tools, Executor) else None
        served = tools.registry if isinstance(tools, Executor) else tools
        server = mcp_server(served, name=args.name, executor=executor, limits=limits)
        names = ", ".join(sorted(t.name for t in _listed(served)))
        if args.stdio:
            # stdout is the protocol: the one line goes to stderr.
            print(f"agent-sdk serve-mcp: serving {names} over stdio", file=sys.stderr, flush=True)
            asyncio.run(_serve_stdio(server))
        else:
            sock = _bound(args.host, args.port)
            port = sock.getsockname()[1]
            host = f"[{args.host}]" if ":" in args.host else args.host
            print(
                f"agent-sdk serve-mcp: serving {names} at http://{host}:{port}/mcp",
                flush=True,
            )
            asyncio.run(_serve_http(server, sock, args.host))
    finally:
        if provider is not None:
            provider.shutdown()
    return 0


def load_target(target: str) -> Registry | ToolSpec | list[ToolSpec] | Executor:
    """``MODULE:ATTR`` (ATTR may be dotted) as what ``mcp_server`` serves."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ServeError(f"serve-mcp: {target!r} is not MODULE:ATTR (e.g. myapp.tools:registry)")
    if os.getcwd() not in sys.path:  # as uvicorn and gunicorn do: modules of the working dir
        sys.path.insert(0, os.getcwd())
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ServeError(f"serve-mcp: cannot import {module_name!r}: {exc}") from None
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise ServeError(f"serve-mcp: {module_name!r} has no attribute {attr!r}") from None
    if callable(value) and not isinstance(value, (Registry, ToolSpec, Executor)):
        value = value()
    if isinstance(value, (Registry, ToolSpec, Executor)):
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, ToolSpec) for v in value):
        return list(value)
    raise ServeError(
        f"serve-mcp: {target} is a {type(value).__name__}; serve a Registry, a ToolSpec, a "
        "list of them, an Executor, or a callable returning one"
    )


def _listed(tools: Registry | ToolSpec | list[ToolSpec]) -> list[ToolSpec]:
    return [tools] if isinstance(tools, ToolSpec) else list(tools)


def _bound(host: str, port: int) -> socket.socket:
    where = f"{host}:{port}"
    if not 0 <= port <= 65535:
        raise ServeError(f"serve-mcp: cannot serve on {where}: --port must be 0-65535")
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise ServeError(f"serve-mcp: unknown host {host!r} ({exc.strerror})") from None
    sock = socket.socket(info[0], socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(info[4])
    except OSError as exc:
        sock.close()
        hint = {
            errno.EADDRINUSE: "the port is in use; pick another --port, or 0 for a free one",
            errno.EACCES: "permission denied (ports below 1024 need privileges)",
            errno.EADDRNOTAVAIL: f"{host} is not an address of this machine",
        }.get(exc.errno or 0, exc.strerror or str(exc))
        raise ServeError(f"serve-mcp: cannot serve on {where}: {hint}") from None
    sock.listen(2048)  # connections wait in the backlog from the moment the line is printed
    return sock


async def _serve_http(server: Any, sock: socket.socket, host: str) -> None:
    import uvicorn

    app = server.streamable_http_app(stateless_http=True, json_response=True, host=host)
    # A stop waits at most 5 s for calls still running (a hung tool never blocks it).
    config = uvicorn.Config(app, lifespan="on", log_level="warning", timeout_graceful_shutdown=5)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            # uvicorn re-raises a captured SIGTERM once it has shut down, which kills the
            # process before the trace is flushed: a SIGTERM is a clean stop here.
            if sig == signal.SIGTERM:
                self.should_exit = True
            else:
                super().handle_exit(sig, frame)

    await Server(config).serve(sockets=[sock])


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    def stop(sig: int, frame: Any) -> None:
        raise KeyboardInterrupt  # the trace is still flushed on the way out

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
