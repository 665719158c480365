"""Tool export: real 0.24 traps (repr results, ToolContext annotation, raw tools that raise),
error signals, concurrency settings, plugin registration and version checks."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from agents import Agent, FunctionTool, RunConfig, Runner
from agents.exceptions import UserError
from agents.run_config import ToolExecutionConfig
from agents.tool_context import ToolContext
from agents.tracing import Span, Trace, TracingProcessor, add_trace_processor

from agent_sdk import (
    AutoApprove,
    CallContext,
    ConfigurationError,
    Executor,
    IntegrationError,
    ToolSpec,
    get_integration,
    tool_error,
)
from agent_sdk.integration import Requirement
from agent_sdk.testing import ToolCall, Turn
from agent_sdk_openai_agents import (
    ERROR_DATA_KEY,
    INTEGRATION,
    NativeApproval,
    openai_agents_tool,
    openai_agents_tools,
)
from agent_sdk_openai_agents._integration import OpenAIAgentsIntegration
from agent_sdk_openai_agents.testing import ScriptedModel


def run(tools: list[Any], turns: list[Turn], **config: Any) -> Any:
    agent = Agent(name="o", model=ScriptedModel(turns), tools=tools)
    rc = RunConfig(**{"tracing_disabled": True, **config})
    return asyncio.run(Runner.run(agent, "go", run_config=rc))


def outputs(result: Any) -> dict[str, Any]:
    return {
        i.call_id: i for i in result.new_items if getattr(i, "type", "") == "tool_call_output_item"
    }


def spec_of(handler: Any, name: str = "t", **props: Any) -> ToolSpec:
    schema = {"type": "object", "properties": props, "required": list(props)}
    return ToolSpec(name=name, description="d", handler=handler, input_schema=schema)


def test_structured_results_are_json_not_a_python_repr() -> None:
    tool = openai_agents_tool(spec_of(lambda: {"temp": 21, "ok": True, "tags": ("a",)}))
    call = ToolCall("t", {})
    out = outputs(run([tool], [Turn.call(call), Turn.say("done")]))[call.id]
    assert out.output == '{"temp": 21, "ok": true, "tags": ["a"]}'


def test_the_handler_sees_the_call_id_from_the_tool_context() -> None:
    seen: list[CallContext] = []

    async def who(ctx: CallContext) -> str:
        seen.append(ctx)
        return "me"

    tool = openai_agents_tool(spec_of(who))
    params = list(__import__("inspect").signature(tool.on_invoke_tool).parameters.values())
    assert params[0].annotation in (ToolContext[Any], "ToolContext[Any]")
    call = ToolCall("t", {})
    run([tool], [Turn.call(call), Turn.say("done")], trace_id="trace_feedface")
    assert seen[0].call_id == call.id and seen[0].run_id == "trace_feedface"


def test_integration_binds_a_context_from_a_tool_context() -> None:
    bound: list[CallContext] = []

    async def on_invoke(ctx: ToolContext[Any], args: str) -> str:
        bound.append(INTEGRATION.bind_context(ctx))
        return "ok"

    native = FunctionTool(
        name="n",
        description="d",
        params_json_schema={"type": "object", "properties": {}},
        on_invoke_tool=on_invoke,
    )
    call = ToolCall("n", {})
    run([native], [Turn.call(call), Turn.say("done")], trace_id="trace_abc")
    assert bound[0].call_id == call.id and bound[0].run_id == "trace_abc"


def test_a_raw_function_tool_that_raises_fails_the_run_ours_does_not() -> None:
    async def boom(ctx: ToolContext[Any], args: str) -> str:
        raise RuntimeError("raw boom")

    raw = FunctionTool(
        name="raw",
        description="d",
        params_json_schema={"type": "object", "properties": {}},
        on_invoke_tool=boom,
    )
    with pytest.raises(UserError) as info:
        run([raw], [Turn.call(ToolCall("raw", {})), Turn.say("done")])
    assert isinstance(info.value.__cause__, RuntimeError)

    def explode() -> str:
        raise RuntimeError("our boom")

    ours = openai_agents_tool(spec_of(explode, name="ours"))
    call = ToolCall("ours", {})
    result = run([ours], [Turn.call(call), Turn.say("recovered")])
    item = outputs(result)[call.id]
    assert result.final_output == "recovered"
    assert '"kind": "tool-failed"' in item.output and "our boom" in item.output
    assert item.custom_data == {
        ERROR_DATA_KEY: {
            "is_error": True,
            "kind": "tool-failed",
            "message": "tool 'ours' failed: RuntimeError: our boom",
        }
    }
    error = tool_error(call.id)
    assert error is not None and isinstance(error.cause, RuntimeError)


class Collect(TracingProcessor):
    def __init__(self) -> None:
        self.ended: list[Span[Any]] = []

    def on_trace_start(self, trace: Trace) -> None: ...
    def on_trace_end(self, trace: Trace) -> None: ...
    def on_span_start(self, span: Span[Any]) -> None: ...
    def on_span_end(self, span: Span[Any]) -> None:
        self.ended.append(span)

    def shutdown(self) -> None: ...
    def force_flush(self) -> None: ...


def test_a_failed_call_sets_the_sdk_function_span_error() -> None:
    collect = Collect()
    add_trace_processor(collect)  # the conftest fixture restores the processor list

    def explode() -> str:
        raise ValueError("nope")

    tool = openai_agents_tool(spec_of(explode))
    run([tool], [Turn.call(ToolCall("t", {})), Turn.say("done")], tracing_disabled=False)
    fn = [s for s in collect.ended if s.span_data.type == "function"]
    assert len(fn) == 1 and fn[0].error is not None
    assert fn[0].error["data"]["kind"] == "tool-failed"


@pytest.mark.parametrize("limit,most", [(None, 3), (1, 1)])
def test_max_function_tool_concurrency_is_kept(limit: int | None, most: int) -> None:
    running = [0]
    peak = [0]
    all_in = asyncio.Event()

    async def nap(label: str) -> str:
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        if running[0] == 3:
            all_in.set()
        try:
            # Unlimited: each call waits until all three run at once. Limited: one at a time
            # (a short wait each, ended by the timeout since the others cannot start).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(all_in.wait(), 0.2 if limit else 30)
            return label
        finally:
            running[0] -= 1

    tool = openai_agents_tool(spec_of(nap, name="nap", label={"type": "string"}))
    calls = [ToolCall("nap", {"label": f"n{i}"}) for i in range(3)]
    run(
        [tool],
        [Turn.call(*calls), Turn.say("done")],
        tool_execution=ToolExecutionConfig(max_function_tool_concurrency=limit),
    )
    assert peak[0] == most


def test_tools_from_a_registry_share_one_executor() -> None:
    from agent_sdk import Registry

    registry = Registry()

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    @registry.tool
    def neg(a: int) -> int:
        """Negate."""
        return -a

    tools = openai_agents_tools(registry)
    assert [t.name for t in tools] == ["add", "neg"]
    calls = [ToolCall("add", {"a": 1, "b": 2}), ToolCall("neg", {"a": 4})]
    out = outputs(run(tools, [Turn.call(*calls), Turn.say("done")]))
    assert [out[c.id].output for c in calls] == ["3", "-4"]


def test_the_plugin_is_found_through_its_entry_point() -> None:
    found = get_integration("openai-agents")
    assert (
        found is INTEGRATION
        and found.harness == "agent_sdk_openai_agents.testing:OpenAIAgentsHarness"
    )
    assert isinstance(INTEGRATION.bind_approval(AutoApprove()), NativeApproval)
    tool = INTEGRATION.export_tool(spec_of(lambda: "x"), executor=Executor())
    assert isinstance(tool, FunctionTool)
    with pytest.raises(ConfigurationError):
        INTEGRATION.tool(spec_of(lambda: "x"), middleware=[object()])


def test_a_framework_outside_the_supported_range_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    newer = OpenAIAgentsIntegration(requires=Requirement("openai-agents", ">=0.25,<0.26"))
    with pytest.raises(IntegrationError, match=r"0\.25"):
        newer.tool(spec_of(lambda: "x"))  # what openai_agents_tool is, on that integration
    with pytest.raises(IntegrationError):
        newer.agent_tool(Agent(name="a"))


def test_a_framework_without_a_symbol_we_read_is_refused() -> None:
    gone = Requirement("openai-agents", ">=0.24,<0.25", symbols=("agents:FunctionTool.gone",))
    with pytest.raises(IntegrationError, match=r"FunctionTool\.gone"):
        OpenAIAgentsIntegration(requires=gone).tool(spec_of(lambda: "x"))
    assert INTEGRATION.check_framework() == "0.24.0"
