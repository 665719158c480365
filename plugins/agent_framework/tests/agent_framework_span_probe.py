"""Run in a subprocess by test_agent_framework_tracing.py: it sets the GLOBAL tracer provider,
as an application does, so MAF's own spans (scope agent_framework) are recorded next to ours,
with RunSpanProcessor first (as configure_tracing adds it). Prints every span as JSON."""

from __future__ import annotations

import asyncio
import json

from agent_framework import Agent, tool
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent_sdk import Executor, ToolSpec, run_scope
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk.tracing.run_processor import RunSpanProcessor
from agent_sdk_agent_framework import agent_framework_agent_tool, agent_framework_tool
from agent_sdk_agent_framework.testing import ScriptedChatClient

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(RunSpanProcessor())
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)


async def add(a: int, b: int) -> int:
    return a + b


@tool(name="native", description="MAF's own tool, for contrast.")
def native(text: str) -> str:
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


def child(name: str) -> Agent:
    leaf = agent_framework_tool(ADD, executor=Executor())
    turns = [Turn.call(ToolCall("add", {"a": 1, "b": 2}, id=f"{name}_add")), Turn.say("3")]
    return Agent(client=ScriptedChatClient(turns, name=name), name=name, tools=[leaf])


async def main() -> None:
    tools = [
        agent_framework_tool(ADD, executor=Executor()),
        native,
        agent_framework_agent_tool(child("analyst")),
        child("helper").as_tool(),
    ]
    calls = [
        ToolCall("add", {"a": 2, "b": 2}, id="top_add"),
        ToolCall("native", {"text": "hi"}, id="top_native"),
        ToolCall("analyst", {"request": "sum"}, id="top_analyst"),
        ToolCall("helper", {"task": "sum"}, id="top_helper"),
    ]
    top = Agent(
        client=ScriptedChatClient([Turn.call(*calls), Turn.say("done")], name="orchestrator"),
        name="orchestrator",
        tools=tools,
    )
    async with run_scope("run-probe", name="probe"):
        await top.run("go", session=top.create_session())


asyncio.run(main())
provider.force_flush()
print(
    json.dumps(
        [
            {
                "name": s.name,
                "scope": s.instrumentation_scope.name,
                "id": s.context.span_id,
                "parent": s.parent.span_id if s.parent else None,
                "trace": s.context.trace_id,
                "attributes": {
                    k: v for k, v in (s.attributes or {}).items() if isinstance(v, (str, int))
                },
            }
            for s in exporter.get_finished_spans()
        ]
    )
)
