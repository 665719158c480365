"""Our spans and AG2's TelemetryMiddleware spans form one tree, one tool span per call.

Decision (see the plugin README): for tools exported by agent-sdk the executor's
``execute_tool`` span is the tool span, and AG2's telemetry is left out of those tools'
middleware chain; AG2 keeps its ``invoke_agent``/``chat`` spans and its spans for its own
tools. A sub-agent call is our ``invoke_agent`` span (the call: guards, usage, path); if the
child agent has telemetry, its AG2 ``invoke_agent`` span (its turn) nests inside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from ag2 import Agent, tool
from ag2.middleware import TelemetryMiddleware
from ag2_helpers import call
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from agent_sdk import ToolSpec, run_scope
from agent_sdk.testing import Turn
from agent_sdk.testing.skeleton import Node, difference, parse
from agent_sdk.tracing import semconv as sc
from agent_sdk_ag2 import ag2_agent_tool, ag2_instrument, ag2_tool
from agent_sdk_ag2.testing import ScriptedConfig

AG2_SCOPE = "opentelemetry.instrumentation.ag2"


@pytest.fixture
def ag2_provider(spans: Any) -> Iterator[TracerProvider]:
    """A tracer provider for AG2's TelemetryMiddleware, exporting to the core's ``spans``
    exporter (where agent-sdk's own spans go): both land in one list."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    yield provider
    provider.shutdown()


def _add_spec() -> ToolSpec:
    async def add(a: int, b: int) -> int:
        return a + b

    return ToolSpec(
        name="add",
        description="Add.",
        handler=add,
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    )


def _explode_spec() -> ToolSpec:
    async def explode() -> str:
        raise ValueError("bad")

    return ToolSpec(
        name="explode", description="Fails.", handler=explode, input_schema={"type": "object"}
    )


def _parent(spans: list[ReadableSpan], span: ReadableSpan) -> ReadableSpan | None:
    if span.parent is None:
        return None
    return next((s for s in spans if s.context.span_id == span.parent.span_id), None)


def _skeleton(spans: list[ReadableSpan], span: ReadableSpan) -> Node:
    children = [_skeleton(spans, s) for s in spans if _parent(spans, s) is span]
    name = "chat *" if span.name.startswith("chat ") else span.name
    return Node(name, {}, children)


def _scope(span: ReadableSpan) -> str:
    return span.instrumentation_scope.name if span.instrumentation_scope else ""


async def test_one_tree_and_one_tool_span_per_call_with_ag2_telemetry(
    spans: Any, ag2_provider: TracerProvider
) -> None:
    tracer_provider, exporter = ag2_provider, spans

    @tool
    def native(x: int) -> int:
        """An AG2 tool of the user's own."""
        return x

    add = ag2_tool(_add_spec())
    child = Agent(
        "analyst",
        config=ScriptedConfig([Turn.call(call("add", {"a": 1, "b": 2})), Turn.say("3")]),
        tools=[add],
        middleware=[TelemetryMiddleware(tracer_provider=tracer_provider, agent_name="analyst")],
    )
    calls = [
        call("analyst", {"request": "sum"}),
        call("add", {"a": 1, "b": 1}),
        call("explode"),
        call("native", {"x": 7}),
    ]
    boss = Agent(
        "boss",
        config=ScriptedConfig([Turn.call(*calls), Turn.say("done")]),
        tools=[ag2_agent_tool(child), add, ag2_tool(_explode_spec()), native],
        middleware=[TelemetryMiddleware(tracer_provider=tracer_provider, agent_name="boss")],
    )
    async with run_scope("run-tree"):
        reply = await boss.ask("go")
    assert reply.body == "done"

    spans = list(exporter.get_finished_spans())
    assert len({s.context.trace_id for s in spans}) == 1, "one run, one trace"
    [root] = [s for s in spans if s.parent is None]
    assert root.name == "invoke_workflow run"

    tool_spans = [s for s in spans if s.name.startswith("execute_tool ")]
    by_call: dict[str, list[ReadableSpan]] = {}
    for s in tool_spans:
        by_call.setdefault(str(s.attributes.get(sc.GEN_AI_TOOL_CALL_ID)), []).append(s)
    for c in calls:
        assert len(by_call[c.id]) == 1, f"exactly one tool span for {c.name}"
    # Our tools' span is ours; AG2's own tool keeps AG2's span.
    assert [_scope(s) for s in by_call[calls[3].id]] == [AG2_SCOPE]
    for c in calls[:3]:
        [span] = by_call[c.id]
        assert _scope(span) == "agent_sdk" and span.attributes[sc.RUN_ID] == "run-tree"
        parent = _parent(spans, span)
        assert (
            parent is not None
            and parent.name == "invoke_agent boss"
            and _scope(parent) == AG2_SCOPE
        )
    [failed] = by_call[calls[2].id]
    assert failed.status.status_code.name == "ERROR" and failed.attributes[sc.ERROR_TYPE]

    # The sub-agent: our invoke_agent under its tool call; AG2's turn span of the child inside.
    [ours] = [s for s in spans if s.name == "invoke_agent analyst" and _scope(s) == "agent_sdk"]
    assert _parent(spans, ours).context.span_id == by_call[calls[0].id][0].context.span_id  # type: ignore[union-attr]
    [child_turn] = [s for s in spans if s.name == "invoke_agent analyst" and _scope(s) == AG2_SCOPE]
    assert _parent(spans, child_turn).context.span_id == ours.context.span_id  # type: ignore[union-attr]
    leaf = [s for s in tool_spans if s.attributes.get(sc.PATH) == "analyst/add"]
    assert len(leaf) == 1 and _parent(spans, leaf[0]).context.span_id == child_turn.context.span_id  # type: ignore[union-attr]
    assert any(s.name.startswith("chat") and _parent(spans, s) is not None for s in spans)


async def test_without_ag2_telemetry_our_spans_hang_off_the_run_scope(spans: Any) -> None:
    exporter = spans
    boss = Agent(
        "boss",
        config=ScriptedConfig([Turn.call(call("add", {"a": 2, "b": 2})), Turn.say("4")]),
        tools=[ag2_tool(_add_spec())],
    )
    async with run_scope("run-plain"):
        await boss.ask("go")
    spans = list(exporter.get_finished_spans())
    assert [_scope(s) for s in spans] == ["agent_sdk", "agent_sdk"], "AG2 emits nothing unasked"
    tool_span = next(s for s in spans if s.name == "execute_tool add")
    assert _parent(spans, tool_span).name == "invoke_workflow run"  # type: ignore[union-attr]


async def test_an_instrumented_top_agent_and_its_sub_agent_give_the_reference_skeleton(
    spans: Any,
) -> None:
    """ag2_instrument: invoke_agent for the top agent, a chat span per model call of every
    agent (the child's from the plugin), one invoke_agent per sub-agent call (agent-sdk's)."""
    exporter = spans
    child = Agent(
        "analyst",
        config=ScriptedConfig([Turn.call(call("add", {"a": 1, "b": 2})), Turn.say("3")]),
        tools=[ag2_tool(_add_spec())],
    )
    boss = ag2_instrument(
        Agent(
            "boss",
            config=ScriptedConfig([Turn.call(call("analyst", {"request": "sum"})), Turn.say("ok")]),
            tools=[ag2_agent_tool(child)],
        )
    )
    assert ag2_instrument(boss) is boss and len(boss.middleware) == 1, "added once"
    async with run_scope("run-instrumented"):
        await boss.ask("go")

    finished = list(exporter.get_finished_spans())
    [root] = [s for s in finished if s.parent is None]
    assert difference(parse(SKELETON), _skeleton(finished, root)) is None
    by_name = {s.name: s for s in finished if not s.name.startswith("chat")}
    top = by_name["invoke_agent boss"]
    assert _parent(finished, top) is root
    assert top.attributes[sc.GEN_AI_PROVIDER_NAME] == "ag2"
    chats = [s for s in finished if s.name.startswith("chat ")]
    assert len(chats) == 4, "two model calls of each agent"
    for chat in chats:
        attrs = chat.attributes
        assert chat.name == "chat scripted" and attrs[sc.GEN_AI_OPERATION_NAME] == "chat"
        assert attrs[sc.GEN_AI_REQUEST_MODEL] == "scripted" and attrs[sc.GEN_AI_PROVIDER_NAME]
        assert attrs[sc.RUN_ID] == "run-instrumented" and sc.PATH in attrs
        assert "gen_ai.input.messages" not in attrs, "content is never captured"
    child_chats = [c for c in chats if _parent(finished, c).name == "invoke_agent analyst"]  # type: ignore[union-attr]
    assert len(child_chats) == 2 and {c.attributes[sc.PATH] for c in child_chats} == {"analyst"}


SKELETON = """
invoke_workflow run
  invoke_agent boss
    chat *
    execute_tool analyst
      invoke_agent analyst
        chat *
        execute_tool add
        chat *
    chat *
"""


async def test_a_sub_agent_with_ag2_telemetry_keeps_its_chat_spans_and_gets_no_second_ones(
    spans: Any, ag2_provider: TracerProvider
) -> None:
    child = Agent(
        "analyst",
        config=ScriptedConfig([Turn.say("3")]),
        middleware=[TelemetryMiddleware(tracer_provider=ag2_provider, agent_name="analyst")],
    )
    boss = Agent(
        "boss",
        config=ScriptedConfig([Turn.call(call("analyst", {"request": "x"})), Turn.say("ok")]),
        tools=[ag2_agent_tool(child)],
    )
    async with run_scope("run-adopt"):
        await boss.ask("go")
    chats = [s for s in spans.get_finished_spans() if s.name.startswith("chat")]
    assert [_scope(s) for s in chats] == [AG2_SCOPE], "AG2's chat span of the child, no second"


async def test_a_failed_model_call_gets_a_chat_span_with_its_error(spans: Any) -> None:
    boss = ag2_instrument(Agent("boss", config=ScriptedConfig([])))  # no turn: the call fails
    async with run_scope("run-failed"):
        with pytest.raises(RuntimeError, match="no turn left"):
            await boss.ask("go")
    finished = list(spans.get_finished_spans())
    [chat] = [s for s in finished if s.name.startswith("chat ")]
    assert chat.attributes[sc.ERROR_TYPE] == "RuntimeError"
    assert chat.status.status_code.name == "ERROR"
    assert _parent(finished, chat).name == "invoke_agent boss"  # type: ignore[union-attr]
