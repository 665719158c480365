"""Exported tools in a real AssistantAgent: schema, arguments, errors, context, plugin hooks."""

from __future__ import annotations

import asyncio
import copy
import importlib.metadata as md
import json
import logging
import threading
from typing import Any

import pytest
from autogen_agentchat.messages import ToolCallExecutionEvent
from autogen_core import EVENT_LOGGER_NAME, CancellationToken, FunctionCall
from autogen_core.models import FunctionExecutionResultMessage
from autogen_ext.models.openai._openai_client import convert_tools
from opentelemetry import trace

from agent_sdk import (
    AutoApprove,
    CallContext,
    ConfigurationError,
    Executor,
    IntegrationError,
    Registry,
    ToolSpec,
    current_context,
    get_integration,
    tool_error,
)
from agent_sdk.integration import Requirement
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk_autogen import (
    INTEGRATION,
    AutogenTool,
    autogen_run,
    autogen_tool,
    autogen_tools,
    collect_tool_errors,
)
from agent_sdk_autogen._integration import AutogenIntegration
from agent_sdk_autogen.testing import ScriptedChatCompletionClient, scripted_agent

SCHEMA = {
    "type": "object",
    "title": "Lookup",
    "properties": {
        "q": {"type": "string", "description": "what to look up"},
        "limit": {"type": "integer", "minimum": 1, "default": 3},
    },
    "required": ["q"],
}


def lookup_spec(calls: list[dict[str, Any]] | None = None) -> ToolSpec:
    async def lookup(q: str, limit: int = 3) -> str:
        if calls is not None:
            calls.append({"q": q, "limit": limit})
        return f"{q}:{limit}"

    return ToolSpec(
        name="lookup", description="Look a thing up.", handler=lookup, input_schema=SCHEMA
    )


def results_of(result: Any) -> list[Any]:
    return [r for m in result.messages if isinstance(m, ToolCallExecutionEvent) for r in m.content]


async def test_the_model_client_receives_the_neutral_schema_verbatim() -> None:
    tool = autogen_tool(lookup_spec())
    agent = scripted_agent("asker", [Turn.say("hi")], tools=[tool])
    await agent.run(task="go")
    client = agent._model_client
    assert isinstance(client, ScriptedChatCompletionClient)
    sent = client.create_calls[0]["tools"]
    assert sent == [{"name": "lookup", "description": "Look a thing up.", "parameters": SCHEMA}]
    # The OpenAI adapter passes the parameters on unchanged (title included), strict off.
    function = convert_tools([tool])[0]["function"]
    assert function["parameters"] == SCHEMA and function["strict"] is False


async def test_the_schema_is_a_fresh_copy_on_every_read() -> None:
    tool = autogen_tool(lookup_spec())
    tool.schema["parameters"]["properties"].clear()
    assert tool.schema["parameters"] == SCHEMA


async def test_arguments_are_validated_and_coerced_by_the_executor() -> None:
    calls: list[dict[str, Any]] = []
    tool = autogen_tool(lookup_spec(calls))
    good = ToolCall("lookup", {"q": "x", "limit": "2"})
    extra = ToolCall("lookup", {"q": "x", "colour": "red"})
    agent = scripted_agent("asker", [Turn.call(good, extra), Turn.say("done")], tools=[tool])
    result = await agent.run(task="go")
    seen = {r.call_id: r for r in results_of(result)}
    assert calls == [{"q": "x", "limit": 2}]
    assert seen[good.id].content == "x:2" and seen[good.id].is_error is False
    error = json.loads(seen[extra.id].content)["error"]
    assert error["kind"] == "tool-args-invalid" and "colour" in error["message"]
    assert seen[extra.id].is_error is True


async def test_malformed_json_is_refused_by_autogen_before_the_tool() -> None:
    calls: list[dict[str, Any]] = []
    call = ToolCall("lookup", "not json")
    agent = scripted_agent(
        "asker", [Turn.call(call), Turn.say("done")], tools=[autogen_tool(lookup_spec(calls))]
    )
    result = await agent.run(task="go")
    (seen,) = results_of(result)
    assert calls == []
    assert seen.is_error is True and seen.content.startswith("Error: Expecting value")


async def test_a_failure_reaches_the_model_as_the_json_error_with_the_error_flag() -> None:
    async def explode() -> str:
        raise RuntimeError("ledger offline")

    spec = ToolSpec(
        name="explode", description="Fails.", handler=explode, input_schema={"type": "object"}
    )
    call = ToolCall("explode", {})
    agent = scripted_agent("asker", [Turn.call(call), Turn.say("ok")], tools=[autogen_tool(spec)])
    with collect_tool_errors() as errors:
        await agent.run(task="go")
    sent = agent._model_client.create_calls[1]["messages"][-1]  # type: ignore[attr-defined]
    assert isinstance(sent, FunctionExecutionResultMessage)
    (result,) = sent.content
    assert result.is_error is True
    assert json.loads(result.content) == {
        "error": {
            "kind": "tool-failed",
            "message": "tool 'explode' failed: RuntimeError: ledger offline",
        }
    }
    (failure,) = errors
    assert failure.call_id == call.id and failure.tool == "explode"
    assert isinstance(failure.exception, RuntimeError) and failure.__cause__ is failure.exception
    assert tool_error(call.id) is failure.error, "the core keeps the same error by call id"


async def test_a_sync_handler_gets_the_call_context_and_the_span(spans: Any) -> None:
    seen: dict[str, Any] = {}

    def where(ctx: CallContext) -> str:
        seen["ctx"], seen["current"] = ctx, current_context()
        seen["thread"] = threading.current_thread() is threading.main_thread()
        seen["span"] = trace.get_current_span().get_span_context().span_id
        return "here"

    spec = ToolSpec(
        name="where", description="Where am I?", handler=where, input_schema={"type": "object"}
    )
    call = ToolCall("where", {})
    token = CancellationToken()
    agent = scripted_agent("asker", [Turn.call(call), Turn.say("ok")], tools=[autogen_tool(spec)])
    await autogen_run(agent, task="go", cancellation_token=token)
    assert seen["thread"] is False, "a sync handler runs in a worker thread"
    assert seen["ctx"].call_id == call.id and seen["current"] == seen["ctx"]
    assert seen["ctx"].run_id == INTEGRATION.bind_context(token).run_id
    (span,) = [s for s in spans.get_finished_spans() if s.name == "execute_tool where"]
    assert seen["span"] == span.context.span_id


async def test_success_is_logged_as_autogen_tool_call_event(
    caplog: pytest.LogCaptureFixture,
) -> None:
    call = ToolCall("lookup", {"q": "x"})
    agent = scripted_agent(
        "asker", [Turn.call(call), Turn.say("ok")], tools=[autogen_tool(lookup_spec())]
    )
    with caplog.at_level(logging.INFO, logger=EVENT_LOGGER_NAME):
        await agent.run(task="go")
    events = [
        json.loads(str(r.msg)) for r in caplog.records if type(r.msg).__name__ == "ToolCallEvent"
    ]
    assert events and events[0]["tool_name"] == "lookup" and events[0]["result"] == "x:3"


def test_copies_share_the_spec_executor_and_gate() -> None:
    executor = Executor()
    tool = autogen_tool(lookup_spec(), executor=executor, approval=AutoApprove())
    for clone in (copy.copy(tool), copy.deepcopy(tool)):
        assert clone is not tool and isinstance(clone, AutogenTool)
        assert clone.spec is tool.spec and clone.executor is executor
        assert clone._gate is tool._gate


def test_dump_component_says_why_it_is_not_supported() -> None:
    with pytest.raises(NotImplementedError, match="cannot be dumped as an AutoGen component"):
        autogen_tool(lookup_spec()).dump_component()


def test_autogen_tools_exports_a_registry_with_one_executor() -> None:
    registry = Registry()
    registry.add(lookup_spec())

    @registry.tool
    async def ping() -> str:
        """Ping."""
        return "pong"

    tools = autogen_tools(registry)
    assert [t.name for t in tools] == ["lookup", "ping"]
    assert tools[0].executor is tools[1].executor and tools[0].executor.registry is registry


def test_a_framework_outside_the_supported_range_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = md.version
    monkeypatch.setattr(
        md, "version", lambda name: "0.8.0" if name == "autogen-agentchat" else real(name)
    )
    # INTEGRATION checked the real version once already; autogen_tool is a new one's .tool
    unchecked = AutogenIntegration()
    with pytest.raises(IntegrationError, match=r"supports autogen-agentchat >=0.7,<0.8"):
        unchecked.tool(lookup_spec())
    with pytest.raises(IntegrationError):
        unchecked.agent_tool(lambda: None, name="x")
    assert INTEGRATION.check_framework() == real("autogen-agentchat")


def test_an_autogen_lacking_a_symbol_we_read_is_refused() -> None:
    gone = Requirement(
        "autogen-agentchat", ">=0.7,<0.8", symbols=("autogen_core.tools:BaseTool.gone",)
    )
    with pytest.raises(IntegrationError, match=r"lacks autogen_core\.tools:BaseTool\.gone"):
        AutogenIntegration(requires=gone).tool(lookup_spec())
    assert INTEGRATION.requires is not None and INTEGRATION.requires.symbols
    assert (
        INTEGRATION.requires.check_installed("autogen", "agent-sdk-autogen") == "0.7.5"
    )  # every one


def test_the_integration_is_found_by_name_and_alias() -> None:
    assert get_integration("autogen") is INTEGRATION
    assert get_integration("autogen-0.7") is INTEGRATION
    assert INTEGRATION.bind_approval(AutoApprove()) is None
    assert INTEGRATION.load_harness().integration == "autogen"


def test_export_tool_takes_no_options() -> None:
    spec = lookup_spec()
    tool = INTEGRATION.export_tool(spec)
    assert isinstance(tool, AutogenTool) and tool.spec is spec
    with pytest.raises(ConfigurationError, match="no tool middleware"):
        INTEGRATION.tool(spec, middleware=[object()])
    with pytest.raises(ConfigurationError, match=r"autogen_tool: unknown option\(s\) bogus"):
        INTEGRATION.tool(spec, bogus=1)
    with pytest.raises(ConfigurationError, match=r"unknown option\(s\) middleware .*no tool"):
        autogen_tool(spec, middleware=[object()])
    with pytest.raises(ConfigurationError, match=r"autogen_agent_tool: unknown option\(s\) bogus"):
        INTEGRATION.agent_tool(lambda: None, name="x", description="X.", bogus=1)


def test_bind_context_maps_autogen_events() -> None:
    token = CancellationToken()
    by_token = INTEGRATION.bind_context(token)
    assert by_token.run_id == by_token.thread_id and by_token.run_id.startswith("autogen_")
    assert INTEGRATION.bind_context(token).run_id == by_token.run_id, "stable for one run"
    assert INTEGRATION.bind_context(CancellationToken()).run_id != by_token.run_id
    both = INTEGRATION.bind_context({"call_id": "call_9", "cancellation_token": token})
    assert (both.call_id, both.run_id) == ("call_9", by_token.run_id)
    assert (
        INTEGRATION.bind_context(FunctionCall(id="call_7", name="x", arguments="{}")).call_id
        == "call_7"
    )
    with pytest.raises(IntegrationError):
        INTEGRATION.bind_context(object())


async def test_parallel_calls_in_one_turn_overlap() -> None:
    running: list[int] = []
    peak: list[int] = []

    async def work(label: str) -> str:
        running.append(1)
        peak.append(len(running))
        await asyncio.sleep(0.05)
        running.pop()
        return label

    spec = ToolSpec(
        name="work",
        description="Work.",
        handler=work,
        input_schema={
            "type": "object",
            "properties": {"label": {"type": "string"}},
            "required": ["label"],
        },
    )
    calls = [ToolCall("work", {"label": f"w{i}"}) for i in range(3)]
    agent = scripted_agent("asker", [Turn.call(*calls), Turn.say("ok")], tools=[autogen_tool(spec)])
    result = await agent.run(task="go")
    assert [r.content for r in results_of(result)] == ["w0", "w1", "w2"]
    assert max(peak) == 3
