"""One trace skeleton (issue 17): run id and path on every span of a run, framework spans
included; `chat` spans per model call; the GenAI v0.1.0 required attributes on every span
kind we emit; content capture by the standard variable; the C13 skeleton comparison."""

from __future__ import annotations

import asyncio
import time

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from agent_sdk import (
    AgentResponse,
    CallContext,
    Executor,
    Message,
    ToolSpec,
    Usage,
    agent_tool,
    run_scope,
)
from agent_sdk.testing.skeleton import REVIEWERS, difference, from_jaeger, parse
from agent_sdk.tracing import semconv as sc
from agent_sdk.tracing.genai import model_call, record_model_call
from agent_sdk.tracing.run_processor import RunSpanProcessor
from agent_sdk.tracing.spans import capture_content, content_captured, use_tracer_provider


@pytest.fixture
def stamped():
    """A provider with the run stamp, standing in for a global one a framework writes to."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(RunSpanProcessor())
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_tracer_provider(provider)
    yield provider, exporter
    use_tracer_provider(None)
    provider.shutdown()


def _reviewer_with_framework_spans(provider: TracerProvider):
    framework = provider.get_tracer("some-framework")

    async def child(request, ctx: CallContext) -> AgentResponse:
        with framework.start_as_current_span("framework generate"):
            start = time.time_ns()
            await asyncio.sleep(0)
            record_model_call(
                "gpt-x",
                provider="openai",
                start_ns=start,
                usage=Usage(input_tokens=12, output_tokens=3),
                response_model="gpt-x-2026",
                finish_reasons=["stop"],
                server_url="http://127.0.0.1:8080/v1",
            )
        return AgentResponse(messages=[Message("assistant", "ok")])

    return agent_tool(child, name="legal", description="legal reviewer")


def test_framework_spans_inside_a_run_get_run_id_and_path(stamped):
    provider, exporter = stamped
    spec = _reviewer_with_framework_spans(provider)
    framework = provider.get_tracer("some-framework")

    async def main() -> str:
        async with run_scope(name="review") as run:
            with framework.start_as_current_span("framework top agent"):
                with model_call("gpt-x", provider="openai") as call:
                    call.usage = Usage(input_tokens=5, output_tokens=1)
                    call.finish_reasons = ["tool_calls"]
                await Executor().run_spec(spec, {"request": "go"})
            return run.run_id

    run_id = asyncio.run(main())
    with framework.start_as_current_span("framework outside any run"):
        pass
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert spans["framework top agent"].attributes[sc.PATH] == sc.ROOT_PATH
    assert spans["framework generate"].attributes[sc.PATH] == "legal"
    assert spans["framework generate"].attributes[sc.DEPTH] == 1
    assert sc.RUN_ID not in spans["framework outside any run"].attributes
    inside = [s for s in exporter.get_finished_spans() if s.name != "framework outside any run"]
    assert {s.attributes[sc.RUN_ID] for s in inside} == {run_id}
    assert spans["invoke_workflow review"].attributes[sc.PATH] == sc.ROOT_PATH
    chats = [s for s in inside if s.name == "chat gpt-x"]
    assert [c.attributes[sc.PATH] for c in chats] == [sc.ROOT_PATH, "legal"]
    child_chat = next(c for c in chats if c.attributes[sc.PATH] == "legal")
    assert child_chat.parent.span_id == spans["framework generate"].context.span_id
    assert child_chat.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] == 12
    assert child_chat.attributes[sc.GEN_AI_RESPONSE_MODEL] == "gpt-x-2026"
    assert child_chat.attributes[sc.SERVER_PORT] == 8080
    assert child_chat.end_time > child_chat.start_time


def test_every_span_kind_carries_the_required_genai_attributes(stamped):
    provider, exporter = stamped
    spec = _reviewer_with_framework_spans(provider)

    async def lookup(q: str) -> str:
        return q

    tool = ToolSpec.from_function(lookup)

    async def main() -> None:
        async with run_scope(name="review") as run:
            with model_call("gpt-x", provider="openai") as call:
                call.usage = Usage(input_tokens=1, output_tokens=1)
                call.response_model = "gpt-x"
                call.finish_reasons = ["stop"]
            for i, (s, arguments) in enumerate([(spec, {"request": "go"}), (tool, {"q": "x"})]):
                ctx = CallContext(run.run_id, call_id=f"call_{i}")
                await Executor().run_spec(s, arguments, ctx)

    asyncio.run(main())
    seen: set[str] = set()
    for span in exporter.get_finished_spans():
        operation = span.attributes.get(sc.GEN_AI_OPERATION_NAME)
        if operation is None:
            continue
        seen.add(operation)
        missing = (sc.REQUIRED[operation] | sc.RECOMMENDED[operation]) - set(span.attributes)
        assert not missing, f"{span.name}: missing {sorted(missing)}"
    assert seen == set(sc.REQUIRED), f"span kinds emitted: {seen}"


def test_content_capture_follows_the_standard_variable(monkeypatch):
    capture_content(None)
    monkeypatch.delenv(sc.CAPTURE_CONTENT_ENV, raising=False)
    assert content_captured() is False
    monkeypatch.setenv(sc.CAPTURE_CONTENT_ENV, "true")
    assert content_captured() is True
    capture_content(False)  # our own switch wins
    assert content_captured() is False
    capture_content(None)


def test_a_model_call_that_fails_is_marked(stamped):
    _, exporter = stamped
    with pytest.raises(ConnectionError), model_call("m", provider="openai"):
        raise ConnectionError("refused")
    [span] = exporter.get_finished_spans()
    assert span.attributes[sc.ERROR_TYPE] == "ConnectionError"


@pytest.mark.parametrize(
    ("error_type", "outcome"), [("cancelled", "cancelled"), ("error", "error")]
)
def test_a_model_call_a_framework_answered_as_failed_is_marked(stamped, error_type, outcome):
    # Some frameworks turn a cancelled or failed call into a reply instead of raising.
    _, exporter = stamped
    with model_call("m", provider="openai") as call:
        call.finish_reasons = (error_type,)
        call.error_type = error_type
    [span] = exporter.get_finished_spans()
    assert span.attributes[sc.ERROR_TYPE] == error_type
    assert span.attributes[sc.OUTCOME] == outcome
    assert span.status.status_code is StatusCode.ERROR


def test_skeletons_compare_names_and_nesting_not_order():
    a = parse("root\n  b\n    x\n  a\n")
    b = parse("root\n  a\n  b\n    x\n")
    assert difference(a, b) is None
    c = parse("root\n  a\n  b\n")
    assert "expected:" in (difference(a, c) or "")


def test_internal_extras_are_lifted_out_of_the_skeleton():
    traces = [
        {
            "spans": [
                {"spanID": "1", "operationName": "root", "references": [], "tags": []},
                {
                    "spanID": "2",
                    "operationName": "create_agent x",
                    "references": [{"refType": "CHILD_OF", "spanID": "1"}],
                    "tags": [],
                },
                {
                    "spanID": "3",
                    "operationName": "chat gpt-4o",
                    "references": [{"refType": "CHILD_OF", "spanID": "2"}],
                    "tags": [{"key": sc.GEN_AI_OPERATION_NAME, "value": "chat"}],
                },
            ]
        }
    ]
    [root] = from_jaeger(traces, internal=("create_agent ",))
    assert root.canonical() == "root(chat *())"
    assert "invoke_workflow contract-review" in REVIEWERS.canonical()
