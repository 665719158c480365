"""pydantic-ai's own spans and ours in one tree: the top agent's invoke_agent and chat spans
from pydantic_ai_instrument(), each sub-agent's chat spans under agent-sdk's invoke_agent,
one execute_tool span per call (the executor's for our tools, pydantic-ai's for its own),
and message content only on agent-sdk's opt-in (pydantic-ai records it by default)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import AbstractCapability, Instrumentation
from pydantic_ai.models.function import FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings

from agent_sdk import run_scope
from agent_sdk.integration import tracing_enabled
from agent_sdk.testing import ToolCall, Turn
from agent_sdk.testing.recording import recording_spans
from agent_sdk.tracing import capture_content
from agent_sdk.tracing import semconv as sc
from agent_sdk_pydantic_ai import (
    AgentSdkInstrumentation,
    TracedAgent,
    pydantic_ai_agent_tool,
    pydantic_ai_instrument,
    pydantic_ai_tool,
)
from agent_sdk_pydantic_ai.testing import ScriptedFunction

SECRET = "the launch code is 0000"


@pytest.fixture
def stamped() -> Iterator[Any]:
    with recording_spans(stamp_runs=True) as exporter:
        yield exporter


@pytest.fixture
def content() -> Iterator[None]:
    capture_content(True)
    try:
        yield
    finally:
        capture_content(None)


def scripted(turns: list[Turn], name: str, **kw: Any) -> Agent[Any, Any]:
    return Agent(FunctionModel(ScriptedFunction(turns)), name=name, **kw)


def hierarchy(
    *, child_capabilities: list[Any] | None = None, instrumented: bool = True
) -> Agent[Any, Any]:
    """boss -> analyst (calls our add and pydantic-ai's own shout); the boss with
    ``pydantic_ai_instrument()`` unless not ``instrumented``."""

    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    def shout(text: str) -> str:
        return text.upper()

    child = scripted(
        [
            Turn.call(ToolCall("add", {"a": 1, "b": 1}), ToolCall("shout", {"text": "x"})),
            Turn.say("ok"),
        ],
        "analyst",
        tools=[pydantic_ai_tool(add), shout],
        capabilities=child_capabilities or [],
    )
    call = ToolCall("analyst", {"request": SECRET})
    return scripted(
        [Turn.call(call, ToolCall("add", {"a": 2, "b": 2})), Turn.say("done")],
        "boss",
        tools=[pydantic_ai_agent_tool(child), pydantic_ai_tool(add)],
        capabilities=[pydantic_ai_instrument()] if instrumented else [],
    )


def run(agent: Agent[Any, Any]) -> str:
    async def main() -> str:
        async with run_scope("run-trace"):
            result = await agent.run(SECRET)
            return str(result.output)

    return asyncio.run(main())


def tree(exporter: Any) -> tuple[list[Any], dict[int, Any]]:
    spans = list(exporter.get_finished_spans())
    return spans, {s.context.span_id: s for s in spans}


def parent_name(span: Any, by_id: dict[int, Any]) -> str | None:
    parent = by_id.get(span.parent.span_id) if span.parent else None
    return parent.name if parent is not None else None


def test_one_tree_with_pydantic_ais_spans_and_ours(stamped: Any) -> None:
    assert run(hierarchy()) == "done"
    spans, by_id = tree(stamped)
    assert len({s.context.trace_id for s in spans}) == 1, "one run, one trace"
    names = Counter(s.name for s in spans)
    # One invoke_agent per agent run: pydantic-ai's for the top agent, ours for the child.
    assert names["invoke_agent boss"] == 1 and names["invoke_agent analyst"] == 1
    # One execute_tool per call: the executor's for our tools, pydantic-ai's for its own.
    assert names["execute_tool add"] == 2 and names["execute_tool analyst"] == 1
    assert names["execute_tool shout"] == 1
    chats = [s for s in spans if s.attributes.get(sc.GEN_AI_OPERATION_NAME) == "chat"]
    assert Counter(parent_name(s, by_id) for s in chats) == {
        "invoke_agent boss": 2,
        "invoke_agent analyst": 2,
    }
    assert parent_name(by_id_named(spans, "invoke_agent analyst"), by_id) == "execute_tool analyst"
    assert parent_name(by_id_named(spans, "execute_tool shout"), by_id) == "invoke_agent analyst"
    for span in spans:
        attrs = span.attributes
        assert attrs.get(sc.RUN_ID) == "run-trace", f"{span.name}: not stamped"
        operation = attrs.get(sc.GEN_AI_OPERATION_NAME)
        missing = sc.REQUIRED.get(str(operation), frozenset()) - attrs.keys()
        assert not missing, f"{span.name}: {sorted(missing)}"
    top = by_id_named(spans, "invoke_agent boss")
    assert top.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] > 0
    shout = by_id_named(spans, "execute_tool shout")
    assert shout.attributes[sc.PATH] == "analyst"


def by_id_named(spans: list[Any], name: str) -> Any:
    [span] = [s for s in spans if s.name == name]
    return span


def test_content_is_recorded_only_on_agent_sdks_opt_in(stamped: Any) -> None:
    run(hierarchy())
    leaked = [
        (s.name, k)
        for s in stamped.get_finished_spans()
        for k, v in s.attributes.items()
        if SECRET in str(v)
    ]
    assert leaked == [], f"content recorded without the opt-in: {leaked}"


def test_content_is_recorded_with_the_opt_in(stamped: Any, content: None) -> None:
    run(hierarchy())
    carrying = {
        s.name
        for s in stamped.get_finished_spans()
        if any(SECRET in str(v) for v in s.attributes.values())
    }
    assert "invoke_agent boss" in carrying and any(n.startswith("chat ") for n in carrying)


def test_a_childs_own_instrumentation_gives_no_second_agent_span(stamped: Any) -> None:
    # pydantic-ai's Instrumentation() on the child would open its own invoke_agent span under
    # ours (and a second execute_tool span per call of our tools): the plugin's capability,
    # given to the child's run, replaces it (a subclass under its id would fail the run).
    assert run(hierarchy(child_capabilities=[Instrumentation()])) == "done"
    spans = stamped.get_finished_spans()
    names = Counter(s.name for s in spans)
    assert names["invoke_agent analyst"] == 1 and names["execute_tool add"] == 2, names
    delegated = [s for s in spans if s.name == "execute_tool analyst"]
    assert [s.attributes.get(sc.OUTCOME) for s in delegated] == ["ok"], "the child ran"


def test_with_instrument_all_on_no_second_instrumentation_is_injected(stamped: Any) -> None:
    # logfire.instrument_pydantic_ai() calls Agent.instrument_all(): pydantic-ai then injects
    # an Instrumentation into every run that has none (and refuses two under one id).
    Agent.instrument_all()
    try:
        assert run(hierarchy()) == "done"
    finally:
        Agent.instrument_all(False)
    names = Counter(s.name for s in stamped.get_finished_spans())
    assert names["invoke_agent boss"] == 1 and names["invoke_agent analyst"] == 1, names
    assert names["execute_tool add"] == 2 and names["execute_tool analyst"] == 1, names


def test_an_explicit_tracer_provider_gets_pydantic_ais_spans() -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument = pydantic_ai_instrument(tracer_provider=provider)
    agent = scripted([Turn.say("hi")], "solo", capabilities=[instrument])
    asyncio.run(agent.run("go"))
    names = [s.name for s in exporter.get_finished_spans()]
    assert len(names) == 2 and names[0].startswith("chat ") and names[1] == "invoke_agent solo"


@dataclass
class RunTree(AbstractCapability[Any]):
    """Notes, at the start of every run, the capabilities pydantic-ai dispatches its hooks to."""

    runs: list[list[AbstractCapability[Any]]] = field(default_factory=list)

    async def before_run(self, ctx: RunContext[Any]) -> None:
        found: list[AbstractCapability[Any]] = []
        assert ctx.root_capability is not None
        ctx.root_capability.apply(found.append)
        self.runs.append(found)


def instrumented_in(tree: list[AbstractCapability[Any]]) -> list[str]:
    return [type(c).__name__ for c in tree if isinstance(c, Instrumentation)]


def test_a_run_that_records_nothing_goes_without_the_capability() -> None:
    # pydantic-ai copies the RunContext for every capability at every hook (several per tool
    # call), whatever the hook does: a run agent-sdk records nothing of runs without it.
    assert not tracing_enabled(), "this test needs agent-sdk's tracing off"
    probe = RunTree()
    agent = scripted([Turn.say("hi")], "solo", capabilities=[pydantic_ai_instrument(), probe])
    asyncio.run(agent.run("go"))
    with recording_spans() as exporter:
        asyncio.run(agent.run("go"))
    asyncio.run(agent.run("go"))
    assert [instrumented_in(run) for run in probe.runs] == [
        [],
        ["AgentSdkInstrumentation"],
        [],
    ]
    names = [s.name for s in exporter.get_finished_spans()]
    assert names == ["chat function:ScriptedFunction:", "invoke_agent solo"], names


def test_standing_in_for_the_agents_own_instrumentation_it_stays_and_records_nothing() -> None:
    # Given to a run, ours replaces the agent's Instrumentation(): leaving the run would let
    # that one record (content included) while agent-sdk records nothing.
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    assert not tracing_enabled(), "this test needs agent-sdk's tracing off"
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    own = Instrumentation(settings=InstrumentationSettings(tracer_provider=provider))
    probe = RunTree()
    agent = scripted([Turn.say("hi")], "solo", capabilities=[own, probe])
    asyncio.run(agent.run("go", capabilities=[pydantic_ai_instrument()]))
    assert exporter.get_finished_spans() == ()
    [tree] = probe.runs
    assert [type(c) for c in tree if isinstance(c, Instrumentation)] == [AgentSdkInstrumentation]
    asyncio.run(agent.run("go"))  # without ours, the agent's own records
    assert len(exporter.get_finished_spans()) == 2


# -- pydantic_ai_instrument(agent): the skeleton's spans without a capability ------------------
def lean_hierarchy() -> Any:
    """boss -> analyst, as ``hierarchy()``, the top agent traced with
    ``pydantic_ai_instrument(agent)`` instead of the capability."""
    return pydantic_ai_instrument(hierarchy(instrumented=False))


def test_a_traced_agent_gives_the_skeleton_with_no_capability_in_the_run(stamped: Any) -> None:
    probe = RunTree()
    traced = lean_hierarchy()
    assert isinstance(traced, TracedAgent)
    assert run(traced) == "done"
    spans, by_id = tree(stamped)
    assert len({s.context.trace_id for s in spans}) == 1, "one run, one trace"
    names = Counter(s.name for s in spans)
    assert names["invoke_agent boss"] == 1 and names["invoke_agent analyst"] == 1, names
    assert names["execute_tool add"] == 2 and names["execute_tool analyst"] == 1, names
    chats = [s for s in spans if s.attributes.get(sc.GEN_AI_OPERATION_NAME) == "chat"]
    assert Counter(parent_name(s, by_id) for s in chats) == {
        "invoke_agent boss": 2,
        "invoke_agent analyst": 2,
    }
    for span in spans:
        attrs = span.attributes
        assert attrs.get(sc.RUN_ID) == "run-trace", f"{span.name}: not stamped"
        missing = sc.REQUIRED.get(str(attrs.get(sc.GEN_AI_OPERATION_NAME)), frozenset()) - set(
            attrs
        )
        assert not missing, f"{span.name}: {sorted(missing)}"
        assert SECRET not in str(dict(attrs)), f"{span.name}: content recorded"
    top = by_id_named(spans, "invoke_agent boss")
    own = [s for s in chats if parent_name(s, by_id) == "invoke_agent boss"]
    # The top agent's tokens are its own model calls' (the child's are on the child's span).
    assert top.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] == sum(
        s.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] for s in own
    )
    assert top.attributes[sc.GEN_AI_USAGE_OUTPUT_TOKENS] > 0
    # No capability of ours in the top run: pydantic-ai dispatches to none.
    asyncio.run(traced.run(SECRET, capabilities=[probe]))
    assert instrumented_in(probe.runs[0]) == []


def test_a_traced_agent_records_nothing_and_wraps_nothing_while_agent_sdk_records_nothing() -> None:
    assert not tracing_enabled(), "this test needs agent-sdk's tracing off"
    seen: list[Any] = []

    def look(messages: list[Any], info: Any) -> Any:
        from pydantic_ai.messages import ModelResponse, TextPart

        seen.append(info.model_request_parameters)
        return ModelResponse(parts=[TextPart("hi")])

    model = FunctionModel(look)
    traced = pydantic_ai_instrument(Agent(model, name="solo"))
    result = asyncio.run(traced.run("go"))
    assert result.output == "hi" and len(seen) == 1
    with recording_spans() as exporter:
        assert asyncio.run(traced.run("go")).output == "hi"
    names = [s.name for s in exporter.get_finished_spans()]
    assert names == ["chat function:look:", "invoke_agent solo"], names


@pytest.mark.parametrize("on", ["traced", "wrapped"])
def test_an_overriding_model_gets_the_chat_spans(stamped: Any, on: str) -> None:
    # Agent.override(model=...) wins over the model a run is given: on the traced agent or
    # on the agent it wraps, the overriding model is the one with the chat spans.
    traced = pydantic_ai_instrument(scripted([Turn.say("first")], "solo"))
    other = FunctionModel(ScriptedFunction([Turn.say("second")]), model_name="other")
    with (traced if on == "traced" else traced.wrapped).override(model=other):
        assert run(traced) == "second"
    names = [s.name for s in stamped.get_finished_spans()]
    assert names[:2] == ["chat other", "invoke_agent solo"], names


def test_a_traced_agent_streams_with_its_chat_spans(stamped: Any) -> None:
    async def words(messages: list[Any], info: Any) -> Any:
        yield "stream"
        yield "ed"

    traced = pydantic_ai_instrument(Agent(FunctionModel(stream_function=words), name="solo"))

    async def main() -> str:
        async with run_scope("run-trace"), traced.run_stream("go") as stream:
            return str(await stream.get_output())

    assert asyncio.run(main()) == "streamed"
    spans = list(stamped.get_finished_spans())
    [chat] = [s for s in spans if s.name.startswith("chat ")]
    assert chat.attributes[sc.GEN_AI_USAGE_OUTPUT_TOKENS] > 0
    by_id = {s.context.span_id: s for s in spans}
    assert parent_name(chat, by_id) == "invoke_agent solo"


def test_a_traced_agent_as_a_sub_agent_has_agent_sdks_agent_span_only(stamped: Any) -> None:
    child = pydantic_ai_instrument(scripted([Turn.say("child says")], "helper"))
    boss = scripted(
        [Turn.call(ToolCall("helper", {"request": "go"})), Turn.say("done")],
        "boss",
        tools=[pydantic_ai_agent_tool(child)],
    )
    assert run(pydantic_ai_instrument(boss)) == "done"
    names = Counter(s.name for s in stamped.get_finished_spans())
    assert names["invoke_agent helper"] == 1 and names["invoke_agent boss"] == 1, names


def test_the_agent_form_takes_no_tracer_provider() -> None:
    from opentelemetry.sdk.trace import TracerProvider

    from agent_sdk import ConfigurationError

    with pytest.raises(ConfigurationError, match="tracer_provider"):
        pydantic_ai_instrument(scripted([Turn.say("x")], "solo"), tracer_provider=TracerProvider())
