"""Run by test_fast_agent_tracing in a fresh process (the global tracer provider can be set
once per process): a parent with two parallel clones of a child that calls a tool, with
agent-sdk spans and fast-agent's own spans going to the same provider. Prints the spans.

``host``: the application owns the global provider, fast-agent's OTel stays off.
``fast-agent``: fast-agent's own OTel is on (it installs the global provider and exports
to a local OTLP receiver); agent-sdk's spans follow the global provider.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from opentelemetry import propagate, trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent_sdk import ToolSpec, run_scope
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_fast_agent import fast_agent_agent_tool, fast_agent_instrument, fast_agent_tool
from agent_sdk_fast_agent.testing import SCRIPTED_MODEL, register_scripted_model, scripts


class Receiver(BaseHTTPRequestHandler):
    received = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Receiver.received += 1
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        return None


async def main(mode: str) -> dict[str, Any]:
    from fast_agent import FastAgent

    register_scripted_model()
    exporter = InMemorySpanExporter()
    server = None
    if mode == "host":
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        fast = FastAgent("probe", parse_cli_args=False, quiet=True, isolated=True)
    else:
        from fast_agent.config import OpenTelemetrySettings

        server = HTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        fast = FastAgent("probe", parse_cli_args=False, quiet=True, no_home=True)
        fast._settings.otel = OpenTelemetrySettings(
            enabled=True, otlp_endpoint=f"http://127.0.0.1:{server.server_port}/v1/traces"
        )
    fast._settings.llm_retries = 0
    propagator_before = type(propagate.get_global_textmap()).__name__

    async def add(a: int, b: int) -> int:
        return a + b

    spec = ToolSpec(
        name="add",
        description="Add.",
        handler=add,
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    )
    for name in ("parent", "child"):

        async def declaration() -> None:
            return None

        fast.agent(name=name, instruction=name, model=SCRIPTED_MODEL)(declaration)
    table = {
        "parent": [
            Turn.call(ToolCall("child", {"request": "a"}), ToolCall("child", {"request": "b"})),
            Turn.say("done"),
        ],
        "child": [Turn.call(ToolCall("add", {"a": 1, "b": 2})), Turn.say("3")],
    }
    table["solo"] = [
        Turn.call(ToolCall("add", {"a": 1, "b": 1}), ToolCall("add", {"a": 2, "b": 2}))
    ]
    table["solo"] += [Turn.say("done"), *table["solo"], Turn.say("done")]

    async def solo() -> None:
        return None

    fast.agent(name="solo", instruction="solo", model=SCRIPTED_MODEL)(solo)
    with scripts(table):
        async with fast.run() as app:
            if mode != "host":
                trace.get_tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))  # type: ignore[attr-defined]
            app.child.add_tool(fast_agent_tool(spec))
            parent = fast_agent_instrument(app.parent, tools=[fast_agent_agent_tool(app.child)])
            async with run_scope("run-probe"):
                await parent.send("go")
            if mode == "host":
                # Without a run_scope of the user's, each top-level generate opens its own.
                alone = fast_agent_instrument(app.solo, tools=[fast_agent_tool(spec)])
                await alone.send("one")
                await alone.send("two")
    spans = [
        {
            "name": s.name,
            "id": s.context.span_id,
            "parent": s.parent.span_id if s.parent else None,
            "trace": s.context.trace_id,
            "path": (s.attributes or {}).get("agent_sdk.path"),
            "instance": (s.attributes or {}).get("agent_sdk.clone"),
            "provider": (s.attributes or {}).get("gen_ai.provider.name"),
            "tokens": [
                (s.attributes or {}).get("gen_ai.usage.input_tokens"),
                (s.attributes or {}).get("gen_ai.usage.output_tokens"),
            ],
            "run_id": (s.attributes or {}).get("agent_sdk.run_id"),
        }
        for s in exporter.get_finished_spans()
    ]
    provider_now = trace.get_tracer_provider()
    if hasattr(provider_now, "force_flush"):
        provider_now.force_flush()
    if server is not None:
        server.shutdown()
    return {
        "spans": spans,
        "propagator_before": propagator_before,
        "propagator_after": type(propagate.get_global_textmap()).__name__,
        "received": Receiver.received,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
