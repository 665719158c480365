"""The tracing bridge: SDK spans mirrored into OpenTelemetry in the same tree as ours."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner
from agents.tracing import Span, Trace, TracingProcessor, add_trace_processor, get_trace_provider
from opentelemetry.trace import SpanKind

from agent_sdk import Executor, ToolSpec, run_scope
from agent_sdk.testing import ToolCall, Turn
from agent_sdk.testing.contract import ContractSuite
from agent_sdk.tracing import semconv as sc
from agent_sdk_openai_agents import (
    openai_agents_agent_tool,
    openai_agents_instrument,
    openai_agents_tool,
)
from agent_sdk_openai_agents.testing import OpenAIAgentsHarness, ScriptedModel

RC = RunConfig(tracing_disabled=False, workflow_name="review")


def add_spec() -> ToolSpec:
    return ToolSpec(
        name="add",
        description="Add.",
        handler=lambda a, b: a + b,
        input_schema={
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
    )


def ancestors(span: Any, by_id: dict[int, Any]) -> list[str]:
    names = []
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        names.append(span.name)
    return names


def hierarchy() -> tuple[Agent[Any], ToolCall]:
    child = Agent(
        name="analyst",
        model=ScriptedModel(
            [Turn.call(ToolCall("add", {"a": 1, "b": 2})), Turn.say("3")], name="child-model"
        ),
        tools=[openai_agents_tool(add_spec(), executor=Executor())],
    )
    call = ToolCall("analyst", {"request": "add"})
    parent = Agent(
        name="boss",
        model=ScriptedModel([Turn.call(call), Turn.say("done")], name="boss-model"),
        tools=[openai_agents_agent_tool(child, name="analyst")],
    )
    return parent, call


def review_run(**options: Any) -> None:
    """The hierarchy's run inside ``run_scope("run-1", name="review")``, bridged with
    ``openai_agents_instrument(**options)``."""
    bridge = openai_agents_instrument(**options)
    try:
        parent, _ = hierarchy()

        async def main() -> None:
            async with run_scope("run-1", name="review"):
                await Runner.run(parent, "go", run_config=RC)

        asyncio.run(main())
    finally:
        bridge.uninstrument()


def test_sdk_spans_join_our_tree(spans: Any) -> None:
    review_run()
    finished = spans.get_finished_spans()
    by_id = {s.context.span_id: s for s in finished}
    names = [s.name for s in finished]
    assert len({s.context.trace_id for s in finished}) == 1, "one run, one trace"
    # mapped: agent, turn, generation; dropped: task, our tools' function spans, the child's
    # agent span (our invoke_agent stands for it), and the SDK trace's workflow span (the
    # run_scope's stands for the run)
    assert names.count("invoke_workflow review") == 1  # the run_scope's root only
    assert names.count("invoke_agent boss") == 1 and names.count("invoke_agent analyst") == 1
    assert names.count("execute_tool analyst") == 1 and names.count("execute_tool add") == 1
    assert names.count("chat boss-model") == 2 and names.count("chat child-model") == 2
    assert not any(n.startswith("task") for n in names)

    [leaf] = [s for s in finished if s.name == "execute_tool add"]
    assert leaf.attributes[sc.PATH] == "analyst/add" and leaf.attributes[sc.RUN_ID] == "run-1"
    chain = ancestors(leaf, by_id)
    # the SDK's turn spans are left out (turn_spans=False): the skeleton of every integration
    assert chain == [
        "invoke_agent analyst",
        "execute_tool analyst",
        "invoke_agent boss",
        "invoke_workflow review",
    ], chain
    assert not any(n.startswith("turn ") for n in names)
    [chat] = [s for s in finished if s.name == "chat boss-model"][:1]
    assert chat.kind == SpanKind.CLIENT and chat.attributes[sc.GEN_AI_REQUEST_MODEL] == "boss-model"
    assert chat.attributes[sc.GEN_AI_PROVIDER_NAME] == "openai"
    assert chat.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] == 10
    assert chat.attributes[sc.GEN_AI_USAGE_OUTPUT_TOKENS] == 5
    [boss] = [s for s in finished if s.name == "invoke_agent boss"]
    # its own two model calls rolled up (the child's are under agent-sdk's invoke_agent)
    assert boss.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] == 20
    assert boss.attributes[sc.GEN_AI_USAGE_OUTPUT_TOKENS] == 10
    [child_chat] = [
        s
        for s in finished
        if s.name == "chat child-model" and s.attributes.get(sc.GEN_AI_USAGE_INPUT_TOKENS)
    ][:1]
    assert "invoke_agent analyst" in ancestors(child_chat, by_id)
    bridged = [s for s in finished if s.attributes and "openai_agents.span_id" in s.attributes]
    assert bridged, "bridged spans keep the SDK ids as attributes"
    for s in bridged:
        assert format(s.context.span_id, "016x") not in s.attributes["openai_agents.span_id"], (
            "fresh OTel ids"
        )


def test_native_function_spans_are_mapped_and_errors_marked(spans: Any) -> None:
    from agents import function_tool

    @function_tool(failure_error_function=None)
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    bridge = openai_agents_instrument()
    try:
        agent = Agent(
            name="a",
            model=ScriptedModel([Turn.call(ToolCall("shout", {"text": "hi"})), Turn.say("ok")]),
            tools=[shout],
        )
        asyncio.run(Runner.run(agent, "go", run_config=RC))
    finally:
        bridge.uninstrument()
    [fn] = [s for s in spans.get_finished_spans() if s.name == "execute_tool shout"]
    assert fn.attributes[sc.GEN_AI_TOOL_NAME] == "shout"
    assert [
        s.name for s in spans.get_finished_spans() if s.context.span_id == fn.parent.span_id
    ] == ["invoke_agent a"]


def test_turn_spans_on_request_sit_between_the_agent_and_its_calls(spans: Any) -> None:
    review_run(turn_spans=True)
    finished = spans.get_finished_spans()
    by_id = {s.context.span_id: s for s in finished}
    [leaf] = [s for s in finished if s.name == "execute_tool add"]
    chain = ancestors(leaf, by_id)
    assert chain[:4] == ["turn 1", "invoke_agent analyst", "execute_tool analyst", "turn 1"], chain
    assert chain[4:] == ["invoke_agent boss", "invoke_workflow review"], chain
    turns = [s for s in finished if s.name.startswith("turn ")]
    assert {s.attributes[sc.RUN_ID] for s in turns} == {"run-1"}
    [boss] = [s for s in finished if s.name == "invoke_agent boss"]
    # tokens still roll up to the agent through its turns
    assert boss.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] == 20


class Counting(TracingProcessor):
    def __init__(self) -> None:
        self.spans = 0

    def on_trace_start(self, trace: Trace) -> None: ...
    def on_trace_end(self, trace: Trace) -> None: ...
    def on_span_start(self, span: Span[Any]) -> None: ...
    def on_span_end(self, span: Span[Any]) -> None:
        self.spans += 1

    def shutdown(self) -> None: ...
    def force_flush(self) -> None: ...


def processors() -> tuple[Any, ...]:
    return tuple(get_trace_provider()._multi_processor._processors)  # type: ignore[attr-defined]


def test_instrument_keeps_the_users_processors_unless_asked(spans: Any) -> None:
    user = Counting()
    add_trace_processor(user)
    bridge = openai_agents_instrument()
    assert processors() == (user, bridge)
    agent = Agent(name="a", model=ScriptedModel([Turn.say("hi")]))
    asyncio.run(Runner.run(agent, "go", run_config=RC))
    assert user.spans > 0 and spans.get_finished_spans()
    bridge.uninstrument()
    assert processors() == (user,)

    exclusive = openai_agents_instrument(exclusive=True)
    assert processors() == (exclusive,)
    before = user.spans
    asyncio.run(Runner.run(agent, "go", run_config=RC))
    assert user.spans == before, "exclusive replaces the other processors"
    exclusive.uninstrument()
    assert processors() == (user,)


def test_a_resumed_run_gets_a_fresh_root(spans: Any, tmp_path: Any) -> None:
    from agent_sdk import DeferredApproval

    spec = add_spec()
    spec.confirm = True
    port = DeferredApproval(tmp_path / "a.db")
    tool = openai_agents_tool(spec, approval=port)
    agent = Agent(
        name="a",
        model=ScriptedModel([Turn.call(ToolCall("add", {"a": 1, "b": 1})), Turn.say("2")]),
        tools=[tool],
    )
    bridge = openai_agents_instrument()
    try:

        async def main() -> Any:
            first = await Runner.run(agent, "go", run_config=RC)
            port.resolve(port.pending()[0].id, approved=True)
            state = first.to_state()
            state.approve(first.interruptions[0])
            return await Runner.run(agent, state, run_config=RC)  # same process: trace re-attached

        result = asyncio.run(main())
    finally:
        bridge.uninstrument()
    assert result.final_output == "2"
    finished = spans.get_finished_spans()
    roots = [s for s in finished if s.name.startswith("invoke_workflow")]
    assert [r.name for r in roots] == ["invoke_workflow review", "invoke_workflow review (resumed)"]
    by_id = {s.context.span_id: s for s in finished}
    [tool_span] = [
        s for s in finished if s.name == "execute_tool add" and s.attributes.get(sc.OUTCOME) == "ok"
    ]
    assert "invoke_workflow review (resumed)" in ancestors(tool_span, by_id)


def run_ids_and_paths(spans: Any, run: Any) -> tuple[list[Any], dict[str, set[tuple[Any, ...]]]]:
    """The run's spans, and per span name the (run id, path, depth) they carry."""
    finished = spans.get_finished_spans()
    seen: dict[str, set[tuple[Any, ...]]] = {}
    for s in finished:
        attrs = s.attributes or {}
        seen.setdefault(s.name, set()).add(
            (attrs.get(sc.RUN_ID), attrs.get(sc.PATH), attrs.get(sc.DEPTH))
        )
    return finished, seen


def test_every_bridged_span_carries_the_run_id_and_path(spans: Any) -> None:
    """Filtering by run id keeps the top agent and its model calls (the bridge
    used to leave the SDK's spans without agent_sdk.run_id / agent_sdk.path)."""
    review_run()
    finished, seen = run_ids_and_paths(spans, "run-1")
    assert all((s.attributes or {}).get(sc.RUN_ID) == "run-1" for s in finished), [
        s.name for s in finished if (s.attributes or {}).get(sc.RUN_ID) != "run-1"
    ]
    [scope] = [s for s in finished if s.parent is None]
    root_path = scope.attributes[sc.PATH]  # how agent-sdk names the top of a run
    top = {("run-1", root_path, 0)}
    assert seen["invoke_agent boss"] == top
    assert seen["chat boss-model"] == top
    assert seen["invoke_workflow review"] == top
    assert seen["chat child-model"] == {("run-1", "analyst", 1)}


def test_without_a_run_scope_bridged_spans_carry_the_sdk_trace_id(spans: Any) -> None:
    """The run id our tool calls bind (the SDK trace id) is the one on the SDK's spans."""
    bridge = openai_agents_instrument()
    try:
        parent, _ = hierarchy()
        asyncio.run(Runner.run(parent, "go", run_config=RC))
    finally:
        bridge.uninstrument()
    finished, seen = run_ids_and_paths(spans, None)
    [ours] = [s for s in finished if s.name == "execute_tool add"]
    run_id = ours.attributes[sc.RUN_ID]
    assert run_id.startswith("trace_")
    assert {s.attributes.get(sc.RUN_ID) for s in finished} == {run_id}
    assert {p for _, p, _ in seen["chat child-model"]} == {"analyst"}
    [(_, top_path, depth)] = seen["invoke_agent boss"]
    assert depth == 0 and seen["chat boss-model"] == {(run_id, top_path, 0)}


def test_a_native_function_span_is_pathed_like_our_tool_spans(spans: Any) -> None:
    from agents import function_tool

    @function_tool
    def shout(text: str) -> str:
        """Shout."""
        return text.upper()

    bridge = openai_agents_instrument()
    try:
        agent = Agent(
            name="a",
            model=ScriptedModel([Turn.call(ToolCall("shout", {"text": "hi"})), Turn.say("ok")]),
            tools=[shout],
        )

        async def main() -> None:
            async with run_scope("run-2"):
                await Runner.run(agent, "go", run_config=RC)

        asyncio.run(main())
    finally:
        bridge.uninstrument()
    _, seen = run_ids_and_paths(spans, "run-2")
    assert seen["execute_tool shout"] == {("run-2", "shout", 0)}


def test_a_resumed_run_inside_a_run_scope_nests_under_the_scope(spans: Any, tmp_path: Any) -> None:
    """The run scope stands for the run: neither the SDK trace nor its re-attachment on
    resume adds a workflow span; both runs' agent spans hang off the scope's."""
    from agent_sdk import DeferredApproval

    spec = add_spec()
    spec.confirm = True
    port = DeferredApproval(tmp_path / "a.db")
    agent = Agent(
        name="a",
        model=ScriptedModel([Turn.call(ToolCall("add", {"a": 1, "b": 1})), Turn.say("2")]),
        tools=[openai_agents_tool(spec, approval=port)],
    )
    bridge = openai_agents_instrument()
    try:

        async def main() -> Any:
            async with run_scope("run-r", name="review"):
                first = await Runner.run(agent, "go", run_config=RC)
                port.resolve(port.pending()[0].id, approved=True)
                state = first.to_state()
                state.approve(first.interruptions[0])
                return await Runner.run(agent, state, run_config=RC)

        result = asyncio.run(main())
    finally:
        bridge.uninstrument()
    assert result.final_output == "2"
    finished = spans.get_finished_spans()
    [scope] = [s for s in finished if s.name.startswith("invoke_workflow")]
    assert scope.parent is None
    agents = [s for s in finished if s.name == "invoke_agent a"]
    assert len(agents) == 2 and all(s.parent.span_id == scope.context.span_id for s in agents)
    assert {s.attributes[sc.RUN_ID] for s in finished} == {"run-r"}


def test_the_harness_mirrors_the_sdk_traces_to_otel_only_while_it_runs(spans: Any) -> None:
    """The contract harness traces every run through an exclusive bridge: the top agent's
    invoke_agent and one chat span per model call with tokens; the user's processors see
    nothing (nothing goes to OpenAI) and are back afterwards."""
    from agent_sdk_openai_agents.testing import OpenAIAgentsHarness

    user = Counting()
    add_trace_processor(user)
    harness = OpenAIAgentsHarness()
    tool = harness.export_tool(add_spec(), executor=Executor())

    async def main() -> None:
        async with run_scope("run-h", name="review"):
            await harness.run([tool], [Turn.call(ToolCall("add", {"a": 1, "b": 2})), Turn.say("3")])

    asyncio.run(main())
    assert user.spans == 0 and processors() == (user,)
    finished = spans.get_finished_spans()
    names = [s.name for s in finished]
    assert names.count("invoke_agent orchestrator") == 1 and names.count("execute_tool add") == 1
    chats = [s for s in finished if s.name == "chat orchestrator"]
    assert len(chats) == 2
    assert all(s.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] == 10 for s in chats)
    assert not any(n.startswith("invoke_workflow agent-sdk") for n in names)
    assert {s.attributes[sc.RUN_ID] for s in finished} == {"run-h"}


# -- the lean mode: the skeleton's spans without the SDK's trace --------------------------
def skeleton_of(finished: Any) -> list[tuple[str, list[str], dict[str, Any]]]:
    """Every span as (name, its ancestors' names, the skeleton's attributes)."""
    by_id = {s.context.span_id: s for s in finished}
    keys = (
        sc.GEN_AI_OPERATION_NAME,
        sc.GEN_AI_PROVIDER_NAME,
        sc.GEN_AI_AGENT_NAME,
        sc.GEN_AI_REQUEST_MODEL,
        sc.GEN_AI_USAGE_INPUT_TOKENS,
        sc.GEN_AI_USAGE_OUTPUT_TOKENS,
        sc.RUN_ID,
        sc.PATH,
        sc.DEPTH,
    )
    return sorted(
        (
            s.name,
            ancestors(s, by_id),
            {k: s.attributes[k] for k in keys if k in (s.attributes or {})},
        )
        for s in finished
    )


def test_lean_mode_has_the_mirrors_skeleton_and_the_sdk_traces_nothing(spans: Any) -> None:
    """Same span names, parents and skeleton attributes as the mirror (its SDK ids aside),
    and no SDK trace or span at all: a processor of the user's sees nothing."""
    review_run()
    mirrored = skeleton_of(spans.get_finished_spans())
    spans.clear()
    user = Counting()
    user_traces: list[str] = []
    user.on_trace_start = lambda trace: user_traces.append(trace.trace_id)  # type: ignore[method-assign]
    add_trace_processor(user)
    review_run(mode="lean")
    finished = spans.get_finished_spans()
    assert user.spans == 0 and user_traces == [], "the SDK built no trace and no span"
    assert processors() == (user,), "the lean mode adds no processor"
    assert not any("openai_agents.span_id" in (s.attributes or {}) for s in finished)
    assert skeleton_of(finished) == mirrored
    [chat] = [s for s in finished if s.name == "chat boss-model"][:1]
    assert chat.kind == SpanKind.CLIENT
    assert chat.attributes[sc.GEN_AI_RESPONSE_ID].startswith("resp_")
    [boss] = [s for s in finished if s.name == "invoke_agent boss"]
    assert boss.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] == 20  # its own two calls only
    # each chat span lies within its agent's span, timed on the request
    for c in (s for s in finished if s.name.startswith("chat ")):
        parent = next(s for s in finished if s.context.span_id == c.parent.span_id)
        assert parent.start_time <= c.start_time <= c.end_time <= parent.end_time


def test_lean_mode_leaves_the_sdk_as_it_was(spans: Any) -> None:
    """Installed: the SDK's default runner and model resolution are wrapped, the user's
    global tracing setting untouched; removed with the last installation."""
    from agents.run import get_default_agent_runner
    from agents.run_internal import run_loop
    from agents.tracing import get_trace_provider

    runner, resolve = get_default_agent_runner(), run_loop.get_model
    disabled = get_trace_provider()._disabled  # type: ignore[attr-defined]
    first = openai_agents_instrument(mode="lean")
    second = openai_agents_instrument(mode="lean")
    assert get_default_agent_runner() is not runner and run_loop.get_model is not resolve
    first.uninstrument()
    first.uninstrument()  # twice: once only
    assert get_default_agent_runner() is not runner, "still one installation on"
    second.uninstrument()
    assert get_default_agent_runner() is runner and run_loop.get_model is resolve
    assert get_trace_provider()._disabled == disabled  # type: ignore[attr-defined]
    # and the mirror works as before
    review_run()
    assert any("openai_agents.span_id" in (s.attributes or {}) for s in spans.get_finished_spans())


def test_lean_mode_without_a_run_scope_and_on_failure(spans: Any) -> None:
    """Outside a run scope the run's spans carry one run id (the run config's trace id, as
    the mirror); a failing model call gets an error chat span, its run an error agent span."""

    class Broken(ScriptedModel):
        async def get_response(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("down")

    lean = openai_agents_instrument(mode="lean")
    try:
        agent = Agent(name="a", model=ScriptedModel([Turn.say("hi")], name="m"))
        config = RunConfig(trace_id="trace_0123456789abcdef0123456789abcdef")
        assert asyncio.run(Runner.run(agent, "go", run_config=config)).final_output == "hi"
        broken = Agent(name="b", model=Broken([Turn.say("hi")], name="m"))
        try:
            Runner.run_sync(broken, "go")
        except RuntimeError:
            pass
        else:
            raise AssertionError("the model call should have failed")
    finally:
        lean.uninstrument()
    finished = spans.get_finished_spans()
    first = [
        s
        for s in finished
        if s.name in ("invoke_agent a", "chat m") and s.status.status_code.name != "ERROR"
    ]
    assert sorted(s.name for s in first) == ["chat m", "invoke_agent a"]
    assert {s.attributes[sc.RUN_ID] for s in first} == {"trace_0123456789abcdef0123456789abcdef"}
    assert {s.attributes[sc.PATH] for s in first} == {sc.ROOT_PATH}
    [failed_chat] = [
        s for s in finished if s.name == "chat m" and s.status.status_code.name == "ERROR"
    ]
    assert failed_chat.attributes[sc.ERROR_TYPE] == "RuntimeError"
    [failed] = [s for s in finished if s.name == "invoke_agent b"]
    assert failed.attributes[sc.ERROR_TYPE] == "RuntimeError"
    assert failed_chat.parent.span_id == failed.context.span_id


def test_lean_mode_records_nothing_while_agent_sdk_records_nothing() -> None:
    """No provider: the runs go through untraced, and the SDK still traces nothing."""
    user = Counting()
    add_trace_processor(user)
    lean = openai_agents_instrument(mode="lean")
    try:
        agent = Agent(name="a", model=ScriptedModel([Turn.say("hi")]))
        assert asyncio.run(Runner.run(agent, "go")).final_output == "hi"
    finally:
        lean.uninstrument()
    assert user.spans == 0


class LeanHarness(OpenAIAgentsHarness):
    """The harness in the lean mode (a class of the tests: the contract kit runs its
    trace-skeleton case in this process)."""

    def __init__(self) -> None:
        super().__init__(lean=True)


def test_c13_in_lean_mode(tmp_path: Any) -> None:
    """The reviewers' hierarchy in the lean mode has the reference skeleton (C13)."""
    ContractSuite().test_c13_the_reviewers_trace_has_the_reference_skeleton(LeanHarness(), tmp_path)


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_lean_mode_streamed_over_http(spans: Any, api: str) -> None:
    """A streamed run on the SDK's own OpenAI models in the lean mode: the agent span ends
    with the run loop, every streamed model call has its chat span with tokens."""
    from agents import ModelSettings, OpenAIChatCompletionsModel, OpenAIResponsesModel
    from openai import AsyncOpenAI

    from agent_sdk.scripted.server import ScriptedServer

    with ScriptedServer() as server:

        async def main() -> Any:
            client = AsyncOpenAI(base_url=server.url, api_key="k", max_retries=0)
            kind = OpenAIResponsesModel if api == "responses" else OpenAIChatCompletionsModel
            model = kind(model="scripted", openai_client=client)

            def agent(name: str, turns: list[Turn], **kw: Any) -> Agent[Any]:
                key = server.script(turns)
                return Agent(name=name, instructions=f"You are {name}.\n\n{key}", model=model, **kw)

            child = agent(
                "analyst",
                [Turn.call(ToolCall("add", {"a": 1, "b": 2})), Turn.say("3")],
                tools=[openai_agents_tool(add_spec(), executor=Executor())],
            )
            top = agent(
                "boss",
                [Turn.call(ToolCall("analyst", {"request": "add"})), Turn.say("done")],
                tools=[openai_agents_agent_tool(child, name="analyst")],
                model_settings=ModelSettings(include_usage=True),
            )
            try:
                async with run_scope("run-s", name="review"):
                    result = Runner.run_streamed(top, "go")
                    async for _ in result.stream_events():
                        pass
                    await asyncio.sleep(0)  # the run loop task's done callbacks
                return result
            finally:
                await client.close()

        lean = openai_agents_instrument(mode="lean")
        try:
            result = asyncio.run(main())
        finally:
            lean.uninstrument()
    assert result.final_output == "done"
    finished = spans.get_finished_spans()
    by_id = {s.context.span_id: s for s in finished}
    [boss] = [s for s in finished if s.name == "invoke_agent boss"]
    assert ancestors(boss, by_id) == ["invoke_workflow review"]
    chats = [s for s in finished if s.name == "chat scripted"]
    assert len(chats) == 4 and all(s.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] > 0 for s in chats)
    parents = sorted(ancestors(s, by_id)[0] for s in chats)
    assert parents == ["invoke_agent analyst"] * 2 + ["invoke_agent boss"] * 2
    assert boss.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] == sum(
        s.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS]
        for s in chats
        if ancestors(s, by_id)[0] == "invoke_agent boss"
    )
    assert {s.attributes[sc.RUN_ID] for s in finished} == {"run-s"}
