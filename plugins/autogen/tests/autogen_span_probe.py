"""Run in a subprocess by test_autogen_tracing.py: it sets the GLOBAL tracer provider, as an
application does, so AutoGen's own spans (scope autogen-core) are recorded next to ours."""

from __future__ import annotations

import asyncio
import json
import sys

from autogen_core.tools import FunctionTool
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent_sdk import ToolSpec, run_scope
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk_autogen import autogen_agent_tool, autogen_run, autogen_tool
from agent_sdk_autogen.testing import scripted_agent

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)


async def add(a: int, b: int) -> int:
    return a + b


async def explode() -> str:
    raise ValueError("bad")


def native_echo(text: str) -> str:
    """AutoGen's own FunctionTool, for contrast."""
    return text


ADD = ToolSpec(
    name="add",
    description="Add.",
    handler=add,
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)
EXPLODE = ToolSpec(
    name="explode", description="Fails.", handler=explode, input_schema={"type": "object"}
)


async def main() -> None:
    leaf = autogen_tool(ADD)
    analyst = autogen_agent_tool(
        lambda: scripted_agent(
            "analyst", [Turn.call(ToolCall("add", {"a": 1, "b": 1})), Turn.say("ok")], tools=[leaf]
        ),
        name="analyst",
        description="Analyses.",
    )
    calls = [
        ToolCall("analyst", {"request": "a"}, id="call_a"),
        ToolCall("analyst", {"request": "b"}, id="call_b"),
        ToolCall("explode", {}, id="call_x"),
        ToolCall("add", {"a": 2, "b": 2}, id="call_add"),
        ToolCall("native_echo", {"text": "hi"}, id="call_native"),
    ]
    native = FunctionTool(native_echo, description="Echo.")
    boss = scripted_agent(
        "boss",
        [Turn.call(*calls), Turn.say("done")],
        tools=[analyst, autogen_tool(EXPLODE), leaf, native],
    )
    async with run_scope("run-probe", name="probe"):
        await autogen_run(boss, task="go")


async def team() -> None:
    """``probe team``: a round-robin team run with AutoGen's own run(), after autogen_instrument."""
    from autogen_agentchat.conditions import MaxMessageTermination
    from autogen_agentchat.teams import RoundRobinGroupChat

    from agent_sdk_autogen import autogen_instrument

    members = [
        scripted_agent("alice", [Turn.say("hi bob")]),
        scripted_agent("bob", [Turn.say("hi")]),
    ]
    chat = autogen_instrument(
        RoundRobinGroupChat(members, termination_condition=MaxMessageTermination(3))
    )
    async with run_scope("run-team", name="team"):
        await chat.run(task="talk")


asyncio.run(team() if sys.argv[1:] == ["team"] else main())
spans = []
for s in exporter.get_finished_spans():
    spans.append(
        {
            "name": s.name,
            "scope": s.instrumentation_scope.name if s.instrumentation_scope else None,
            "id": s.context.span_id,
            "start": s.start_time,
            "parent": s.parent.span_id if s.parent else None,
            "trace": s.context.trace_id,
            "status": s.status.status_code.name,
            "attributes": {
                k: list(v) if isinstance(v, tuple) else v
                for k, v in (s.attributes or {}).items()
                if isinstance(v, (str, int, bool, tuple))
            },
        }
    )
print(json.dumps(spans))
