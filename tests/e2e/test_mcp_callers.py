"""Every integration as the caller of agents served over MCP by another process.

The demo's reviewers (legal, which consults tax, which tries legal again) are served by
``agent-sdk serve-mcp`` in their own process (AG2 agents on its in-process scripted model,
exporting their spans over OTLP to a receiver here). Each integration's own agent loop, on
its scripted model, calls them through ``<fw>_tools(await remote_tools(url))``: one trace over
two services with the right parents, the run id and path on every span, recursion across the
boundary caught, a caller budget of 1 held, and a killed server a ``tool-failed`` result the
run goes on after.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import entry_point_name, plugin_dirs
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent_sdk import HierarchyLimits, run_scope
from agent_sdk.demo_distributed import ENV_ENDPOINT, ENV_FRAMEWORK, first_line, stop
from agent_sdk.mcp import remote_tools
from agent_sdk.plugins import get_integration
from agent_sdk.scripted import ScriptedAgent, ToolCall, Turn
from agent_sdk.spec import ToolSpec
from agent_sdk.testing.otlp import OTLPReceiver
from agent_sdk.tracing.run_processor import RunSpanProcessor
from agent_sdk.tracing.spans import use_tracer_provider

CALLERS = sorted(n for n in map(entry_point_name, plugin_dirs()))
SERVICE = "agent-sdk-reviewers"
CALLER_SERVICE = "mcp-caller"
REQUEST = {"request": "Review clause 7 for your area."}

PLAIN_TOOLS = '''
from agent_sdk import ToolSpec


def echo(text: str) -> str:
    """Say the text back."""
    return text


tools = [ToolSpec.coerce(echo)]
'''


def serve(target: str, cwd: Path, *args: str, env: dict[str, str]) -> tuple[Any, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_sdk", "serve-mcp", target, "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=cwd,
        env={**os.environ, **env},
    )
    line = first_line(process, 180) or ""
    if " at http://" not in line:
        stop(process)
        pytest.fail(f"serve-mcp did not start: {line!r}")
    return process, "http://" + line.rsplit(" at http://", 1)[1].strip()


@pytest.fixture(scope="module")
def receiver() -> Iterator[OTLPReceiver]:
    with OTLPReceiver() as received:
        yield received


@pytest.fixture(scope="module")
def reviewers(receiver: OTLPReceiver, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The demo's reviewers served by their own process (one per module)."""
    env = {ENV_FRAMEWORK: "ag2", "OTEL_BSP_SCHEDULE_DELAY": "50"}
    os.environ.pop(ENV_ENDPOINT, None)
    process, url = serve(
        "agent_sdk.demo_distributed:reviewer_tools",
        tmp_path_factory.mktemp("reviewers"),
        "--name",
        SERVICE,
        "--max-depth",
        "4",
        "--otlp",
        receiver.url,
        env=env,
    )
    try:
        yield url
    finally:
        stop(process)


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[ToolSpec]]:
    """A server's URL and the tools it listed, the server killed since."""
    cwd = tmp_path_factory.mktemp("plain")
    (cwd / "plain_tools.py").write_text(PLAIN_TOOLS)
    process, url = serve("plain_tools:tools", cwd, env={})
    specs = asyncio.run(remote_tools(url))
    process.kill()
    process.wait()
    return url, specs


@contextlib.contextmanager
def caller_spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": CALLER_SERVICE}))
    provider.add_span_processor(RunSpanProcessor())
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_tracer_provider(provider)
    try:
        yield exporter
    finally:
        use_tracer_provider(None)
        provider.shutdown()


def served_spans(receiver: OTLPReceiver, run_id: str, roots: int) -> list[dict[str, Any]]:
    """The service's spans of run ``run_id``, once ``roots`` of its calls have arrived (its
    batch processor exports every 50 ms; waits for that event, at most 30 s)."""
    deadline = time.monotonic() + 30
    while True:
        spans = []
        for service, _, span in receiver.spans():
            attrs = {a.key: _value(a.value) for a in span.attributes}
            if attrs.get("agent_sdk.run_id") != run_id:
                continue
            spans.append(
                {
                    "service": service,
                    "name": span.name,
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent": span.parent_span_id.hex() or None,
                    "attrs": attrs,
                }
            )
        if sum(s["name"] == f"invoke_workflow {SERVICE}" for s in spans) >= roots:
            return spans
        if time.monotonic() > deadline:
            pytest.fail(f"the service's spans of {run_id} did not arrive: {spans}")
        time.sleep(0.05)


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind else None


def _caller(span: Any) -> dict[str, Any]:
    return {
        "service": CALLER_SERVICE,
        "name": span.name,
        "trace_id": format(span.context.trace_id, "032x"),
        "span_id": format(span.context.span_id, "016x"),
        "parent": format(span.parent.span_id, "016x") if span.parent else None,
        "attrs": dict(span.attributes or {}),
    }


async def _run(
    fw: str, url: str, limits: HierarchyLimits, *, local_tax: bool = True
) -> tuple[Any, Any, list[Any]]:
    """The caller's orchestrator calls remote legal, and (``local_tax``) a local agent "tax"
    that calls remote legal itself (whose own tax consultation is then recursion across the
    boundary)."""
    integration = get_integration(fw)
    harness = integration.load_harness()
    remote = {s.name: integration.tool(s) for s in await remote_tools(url)}
    tax_agent = harness.export_agent_tool(
        ScriptedAgent(
            "tax",
            [Turn.call(ToolCall("legal", REQUEST)), Turn.say("tax: asked legal")],
            tools=[remote["legal"]],
        )
    )
    legal, tax = ToolCall("legal", REQUEST), ToolCall("tax", REQUEST)
    tools, calls = (
        ([remote["legal"], tax_agent], [legal, tax]) if local_tax else ([remote["legal"]], [legal])
    )
    async with run_scope(limits=limits) as scope:
        try:
            result = await harness.run(tools, [Turn.call(*calls), Turn.say("done")])
        except Exception as exc:  # what a spent budget does to the framework's own loop
            result = exc
    return result, scope, [legal, tax]


@pytest.mark.parametrize("fw", CALLERS)
def test_a_caller_continues_its_run_and_trace_in_the_service(
    fw: str, reviewers: str, receiver: OTLPReceiver
) -> None:
    with caller_spans() as exporter:
        result, scope, (legal, tax) = asyncio.run(
            _run(fw, reviewers, HierarchyLimits(max_depth=4, max_model_calls=40))
        )
    assert not isinstance(result, Exception), result
    assert json.loads(result.result(legal.id).text)["verdict"] == "request_changes"
    assert result.result(tax.id).text == "tax: asked legal"
    assert result.final_text == "done"
    ours = [_caller(s) for s in exporter.get_finished_spans()]
    served = served_spans(receiver, scope.run_id, roots=2)
    # One trace over two services, every span carrying the run id and its path.
    assert {s["trace_id"] for s in ours + served} == {ours[0]["trace_id"]}
    assert {s["service"] for s in served} == {SERVICE}
    for span in ours + served:
        assert span["attrs"].get("agent_sdk.run_id") == scope.run_id, span["name"]
        assert isinstance(span["attrs"].get("agent_sdk.path"), str), span["name"]
    paths = {(s["name"], s["attrs"]["agent_sdk.path"]) for s in served}
    assert ("execute_tool legal", "legal") in paths
    assert ("invoke_agent tax", "legal/tax") in paths
    assert ("execute_tool legal", "tax/legal") in paths
    # Correct parents: each served call's root hangs below the caller's span of that call.
    by_id = {s["span_id"]: s for s in ours}
    roots = [s for s in served if s["name"] == f"invoke_workflow {SERVICE}"]
    sdk_spans = isinstance(trace.get_tracer_provider(), TracerProvider)
    for root in roots:
        parent = by_id.get(root["parent"])
        if parent is None and sdk_spans:
            # Another test set a global SDK provider: the MCP SDK's own CLIENT span (recorded
            # there, not here) is then the parent, a child of ours.
            continue
        assert parent is not None, f"{fw}: the service's root has no parent in the caller"
        assert parent["name"] == "invoke_agent legal", parent["name"]
    served_ids = {s["span_id"] for s in served}
    for span in served:
        assert span["parent"] in served_ids or span in roots, span["name"]
    # Recursion across the boundary: tax (here) -> legal (there) -> tax (there).
    refused = [s for s in served if s["attrs"].get("agent_sdk.outcome") == "recursion"]
    assert sorted(s["attrs"]["agent_sdk.path"] for s in refused) == [
        "legal/tax/legal",
        "tax/legal/tax",
    ]
    # The remote work is charged to the caller's run, by path.
    assert scope.report.per_path["legal"].usage.model_calls >= 2


@pytest.mark.parametrize("fw", CALLERS)
def test_a_caller_budget_of_one_holds_across_the_boundary(
    fw: str, reviewers: str, receiver: OTLPReceiver
) -> None:
    with caller_spans():
        result, scope, _ = asyncio.run(
            _run(fw, reviewers, HierarchyLimits(max_depth=4, max_model_calls=1), local_tax=False)
        )
    # The call reached the service (legal would make 4 model calls there: legal 2, tax 2).
    served = served_spans(receiver, scope.run_id, roots=1)
    chats = [s for s in served if s["name"].startswith("chat ")]
    assert len(chats) <= 1, f"{fw}: the service made {len(chats)} model calls on a budget of 1"
    assert scope.report.model_calls <= 1


@pytest.mark.parametrize("fw", CALLERS)
def test_a_killed_server_is_a_failed_call_and_the_run_goes_on(
    fw: str, killed: tuple[str, list[ToolSpec]]
) -> None:
    url, specs = killed
    integration = get_integration(fw)
    harness = integration.load_harness()

    async def run() -> Any:
        call = ToolCall("echo", {"text": "hello"})
        async with run_scope():
            result = await harness.run(
                [integration.tool(s) for s in specs], [Turn.call(call), Turn.say("done")]
            )
        return result, call

    result, call = asyncio.run(run())
    seen = result.result(call.id)
    error = json.loads(seen.text)["error"]
    assert error["kind"] == "tool-failed"
    assert url in error["message"]
    assert result.final_text == "done"
    if harness.error_flag:
        assert seen.is_error
