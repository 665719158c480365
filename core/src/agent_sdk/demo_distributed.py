"""``agent-sdk demo --distributed``: the contract review across two processes.

The reviewers (legal, tax, technical) run as their own MCP service: ``agent-sdk serve-mcp
agent_sdk.demo_distributed:reviewer_tools`` in a process the demo starts and stops, with its
own OpenTelemetry service name. The orchestrator runs in the demo's process and calls them
over loopback HTTP as remote agent tools, so legal's consultation of tax, which asks legal
again, runs in the service under the demo's run id and path, and the recursion is caught
there. Both processes' agents use the same model endpoint (the demo's scripted server, or
``--base-url``).

Each process writes its own trace file and the demo merges them into one (one trace, two
services: the service's spans hang below the orchestrator's remote calls); with ``--otlp``
both processes export to the same collector.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from agent_sdk._integration import Integration
from agent_sdk.demo import DEFAULT_ORDER, DemoError, build_reviewers, load_demo_harness
from agent_sdk.errors import ConfigurationError
from agent_sdk.scripted import ScriptedAgent
from agent_sdk.scripted.endpoint import Endpoint
from agent_sdk.spec import ToolSpec

SERVICE = "agent-sdk-reviewers"
"""The reviewers' service: its MCP server name and its OpenTelemetry service name."""
ENV_FRAMEWORK = "AGENT_SDK_DEMO_REVIEWERS_FRAMEWORK"
ENV_ENDPOINT = "AGENT_SDK_DEMO_REVIEWERS_ENDPOINT"
"""JSON: base_url, model, api, stream, api_key_env (the key itself stays in its variable)."""
ALONE_UNSUPPORTED = frozenset({"fast-agent"})
"""Integrations whose agents exist only inside their app's run, so a server cannot run them
on their own: their reviewers are served by another installed integration."""
START_TIMEOUT = 180.0
"""Seconds the service may take to say where it serves (it imports its framework first)."""


def reviewer_tools() -> list[ToolSpec]:
    """What the reviewers' service serves: the demo's three reviewers as agent ToolSpecs of
    the integration named in ``AGENT_SDK_DEMO_REVIEWERS_FRAMEWORK``, on the endpoint in
    ``AGENT_SDK_DEMO_REVIEWERS_ENDPOINT`` (none: the framework's in-process scripted model).
    Legal's own tax consultant and its inner legal are local agent tools of the service."""
    from agent_sdk.plugins import get_integration

    name = os.environ.get(ENV_FRAMEWORK)
    if not name:
        raise ConfigurationError(f"the reviewers' service needs {ENV_FRAMEWORK}")
    integration = get_integration(name)
    harness = load_demo_harness(integration, _endpoint_from_env())
    options = harness.agent_tool_options()

    def served(agent: ScriptedAgent) -> ToolSpec:
        return integration.agent_tool_spec(
            harness.native_agent(agent),
            name=agent.name,
            description=agent.description,
            return_mode="json",
            **options,
        )

    return list(build_reviewers(harness, export=served).values())


def _endpoint_from_env() -> Endpoint | None:
    raw = os.environ.get(ENV_ENDPOINT)
    if not raw:
        return None
    try:
        given = json.loads(raw)
        return Endpoint.from_env(
            given["base_url"],
            given["model"],
            api_key_env=given.get("api_key_env") or "OPENAI_API_KEY",
            api=given.get("api", "chat"),
            stream=bool(given.get("stream", False)),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigurationError(f"{ENV_ENDPOINT} is not a usable endpoint: {exc}") from None


def reviewers_integration(orchestrator: Integration) -> Integration:
    """The integration the service runs the reviewers with: the orchestrator's, unless its
    agents cannot run outside their app's run (then the first installed that can)."""
    from agent_sdk.plugins import integrations

    if orchestrator.name not in ALONE_UNSUPPORTED:
        return orchestrator
    able = {i.name: i for i in integrations() if i.harness and i.name not in ALONE_UNSUPPORTED}
    for name in (*DEFAULT_ORDER, *sorted(able)):
        if name in able:
            return able[name]
    raise DemoError(
        f"--distributed: the reviewers cannot be served with {orchestrator.name} (its agents "
        "exist only inside its app's run) and no other integration is installed: "
        "pip install agent-sdk-ag2"
    )


class Distributed:
    """The distributed part of one demo run: the service's process, the two trace files and
    their merge: the demo's ``Remote``."""

    service = SERVICE

    def __init__(self, args: Any, scratch: Path) -> None:
        self.args = args
        self.own_trace = scratch / "orchestrator.json"
        self.service_trace = scratch / "reviewers.json"
        self.stderr_file = scratch / "reviewers.log"
        self.url = ""
        self.framework = ""

    def start(
        self,
        stack: contextlib.ExitStack,
        integration: Integration,
        endpoint: Endpoint | None,
        trace_file: Path,
    ) -> dict[str, Any]:
        """Start the service (stopped when ``stack`` closes) and return the orchestrator's
        reviewer tools: the service's agent tools as ``integration``'s native tools."""
        import asyncio

        from agent_sdk.tracing.trace_file import check_trace_path

        check_trace_path(trace_file)  # refused before anything starts, as the demo's own is
        served_by = reviewers_integration(integration)
        served_by.check_framework()
        self.framework = served_by.name
        self.url = stack.enter_context(self._process(served_by, endpoint))
        from agent_sdk.mcp import remote_tools

        specs = asyncio.run(remote_tools(self.url, timeout=START_TIMEOUT))
        return {spec.name: integration.tool(spec) for spec in specs}

    def _command(self) -> list[str]:
        command = [sys.executable, "-m", "agent_sdk", "serve-mcp"]
        command += [f"{__name__}:reviewer_tools", "--port", "0", "--name", SERVICE]
        command += ["--service-name", SERVICE, "--trace-file", str(self.service_trace)]
        command += ["--max-depth", "3"]
        if getattr(self.args, "otlp", None):
            command += ["--otlp", self.args.otlp]
        return command

    @contextlib.contextmanager
    def _process(self, integration: Integration, endpoint: Endpoint | None) -> Any:
        env = {**os.environ, ENV_FRAMEWORK: integration.name}
        env.pop(ENV_ENDPOINT, None)
        if endpoint is not None:
            env[ENV_ENDPOINT] = json.dumps(
                {
                    "base_url": endpoint.base_url,
                    "model": endpoint.model,
                    "api": endpoint.api,
                    "stream": endpoint.stream,
                    "api_key_env": getattr(self.args, "api_key_env", None) or "OPENAI_API_KEY",
                }
            )
        with open(self.stderr_file, "wb") as stderr:
            process = subprocess.Popen(
                self._command(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=env,
                text=True,
            )
            try:
                yield self._served_at(process)
            finally:
                stop(process)

    def _served_at(self, process: subprocess.Popen[str]) -> str:
        """The URL in the service's one line; DemoError with its last words if it ends or
        says nothing in time."""
        line = first_line(process, START_TIMEOUT)
        marker = " at http://"
        if line is not None and marker in line:
            return "http://" + line.rsplit(marker, 1)[1].strip()
        said = self.stderr_file.read_text(errors="replace").strip().splitlines()
        why = said[-1] if said else (line or "").strip() or "no output"
        if line is None and process.poll() is None:
            why = f"it said nothing within {START_TIMEOUT:g}s"
        raise DemoError(f"the reviewers' service did not start: {why[:500]}")

    def merge(self, trace_file: Path) -> None:
        """Both processes' spans into ``trace_file`` (the service's file is complete: its
        process has ended and flushed)."""
        from agent_sdk.tracing.trace_file import merge_trace_files

        files = [self.own_trace] + ([self.service_trace] if self.service_trace.exists() else [])
        merge_trace_files(files, trace_file)

    def describe(self) -> str:
        return f"reviewers: {self.framework} agents served over MCP by {SERVICE} at {self.url}"


def first_line(process: subprocess.Popen[str], timeout: float) -> str | None:
    """The first line ``process`` writes to stdout, or None if it ends or waits longer."""
    lines: queue.Queue[str | None] = queue.Queue()
    stdout = process.stdout
    assert stdout is not None

    def read() -> None:
        try:
            lines.put(stdout.readline() or None)
        except (OSError, ValueError):
            lines.put(None)

    threading.Thread(target=read, name="agent-sdk-demo-service", daemon=True).start()
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        return None


def stop(process: subprocess.Popen[str], *, grace: float = 30.0) -> None:
    """End the service with SIGTERM (serve-mcp then stops cleanly and flushes its trace
    file); killed if it lingers."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()
