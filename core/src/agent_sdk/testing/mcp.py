"""MCP servers for tests: ``mcp_process`` starts ``agent-sdk serve-mcp`` in a subprocess on
a free port, ``serving`` serves an ``mcp_server`` over loopback HTTP in this process."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any

_SERVING = re.compile(r"serving .* at (http://\S+/mcp)\s*$")


@dataclass
class McpProcess:
    url: str
    process: subprocess.Popen[str]

    def kill(self) -> None:
        """Kill the server at once (no graceful shutdown): a crashed host."""
        self.process.kill()
        self.process.wait(10)


@contextmanager
def mcp_process(
    target: str,
    *args: str,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    start_timeout: float = 30.0,
) -> Iterator[McpProcess]:
    """``agent-sdk serve-mcp TARGET --port 0 ARGS...`` in a subprocess; yields its URL (read
    from the one line it prints) and process; stopped (SIGTERM, so its trace file is
    flushed) when the block ends."""
    command = [sys.executable, "-m", "agent_sdk", "serve-mcp", target, "--port", "0", *args]
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = _read_url(process, start_timeout)
        yield McpProcess(url, process)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        if process.stdout is not None:
            process.stdout.close()


def _read_url(process: subprocess.Popen[str], timeout: float) -> str:
    import threading

    found: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = _SERVING.search(line)
        if match:
            found.append(match.group(1))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    if not found:
        process.kill()
        process.wait(5)
        raise RuntimeError(
            f"agent-sdk serve-mcp did not say where it serves within {timeout:g}s "
            f"(exit code {process.returncode})"
        )
    return found[0]


@asynccontextmanager
async def serving(server: Any, *, host: str = "127.0.0.1") -> AsyncIterator[str]:
    """Serve ``server`` (an ``mcp_server``) over streamable HTTP on a free loopback port of
    this process for the block; yields its URL."""
    import uvicorn

    app = server.streamable_http_app(stateless_http=True, json_response=True, host=host)
    config = uvicorn.Config(app, host=host, port=0, lifespan="on", log_level="warning")
    http = uvicorn.Server(config)
    task = asyncio.create_task(http.serve())
    try:
        while not http.started:
            if task.done():
                task.result()  # raises what kept it from starting
                raise RuntimeError("the MCP server stopped before it started")
            await asyncio.sleep(0.005)
        port = http.servers[0].sockets[0].getsockname()[1]
        yield f"http://{host}:{port}/mcp"
    finally:
        http.should_exit = True
        await task


def serve_command(target: str, *args: str) -> Sequence[str]:
    """The stdio command serving ``target`` (a ``remote_tools`` target)."""
    return [sys.executable, "-m", "agent_sdk", "serve-mcp", target, "--stdio", *args]


__all__ = ["McpProcess", "mcp_process", "serve_command", "serving"]
