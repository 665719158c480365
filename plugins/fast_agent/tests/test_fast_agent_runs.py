"""Orchestrated runs: conversation and run ids, budget stops, hooks, display, the plugin."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fast_agent.agents.tool_runner import ToolRunnerHooks
from fast_agent.tools.invocation_context import LocalToolInvocationContext

import agent_sdk_fast_agent
from agent_sdk import (
    CallContext,
    ConfigurationError,
    Executor,
    HierarchyLimitError,
    HierarchyLimits,
    IntegrationError,
    Requirement,
    ToolSpec,
    get_integration,
    run_scope,
)
from agent_sdk.testing import ToolCall, Turn
from agent_sdk.testing.contract import Recorder
from agent_sdk_fast_agent import (
    INTEGRATION,
    AgentSDKTool,
    ToolGate,
    conversation,
    fast_agent_agent_tool,
    fast_agent_instrument,
    fast_agent_tool,
    fast_agent_tools,
)
from agent_sdk_fast_agent._integration import FastAgentIntegration


def add_calls(*ids: str) -> Turn:
    return Turn.call(*(ToolCall("add", {"a": 1, "b": 1}, id=i) for i in ids))


async def test_each_top_level_generate_is_one_conversation(app: Any) -> None:
    rec = Recorder()
    script = [
        add_calls("a1", "a2"),
        add_calls("a3"),
        Turn.say("one"),
        add_calls("b1"),
        Turn.say("two"),
    ]
    async with app({"orch": script}) as fa:
        agent = fast_agent_instrument(fa.orch, tools=[fast_agent_tool(rec.add_spec())])
        await agent.send("first")
        await agent.send("second")
    ctxs: list[CallContext] = rec.contexts  # type: ignore[assignment]
    assert [c.call_id for c in ctxs[:2]] in (["a1", "a2"], ["a2", "a1"])
    first, second = {c.run_id for c in ctxs[:3]}, {c.run_id for c in ctxs[3:]}
    assert len(first) == 1 and len(second) == 1 and first != second
    assert next(iter(first)).startswith("fa_")
    assert all(c.thread_id == c.run_id and c.path == () for c in ctxs)


async def test_run_scope_and_parent_run_ids_take_precedence(app: Any) -> None:
    rec = Recorder()
    async with app({"orch": [add_calls("c1"), Turn.say("done")]}) as fa:
        agent = fast_agent_instrument(fa.orch, tools=[fast_agent_tool(rec.add_spec())])
        async with run_scope("run-outer"):
            await agent.send("go")
    (ctx,) = rec.contexts
    assert ctx is not None and ctx.run_id == "run-outer"
    assert ctx.thread_id is not None and ctx.thread_id.startswith("fa_"), (
        "thread = minted conversation"
    )


async def test_conversation_names_the_run(app: Any) -> None:
    rec = Recorder()
    async with app({"orch": [add_calls("c1"), Turn.say("done")]}) as fa:
        agent = fast_agent_instrument(fa.orch, tools=[fast_agent_tool(rec.add_spec())])
        with conversation("session-42") as conv:
            await agent.send("go")
    assert conv.id == "session-42"
    assert [(c.run_id, c.thread_id) for c in rec.contexts if c] == [("session-42", "session-42")]


async def test_clones_carry_the_run_id_on_their_own_conversation(app: Any) -> None:
    rec = Recorder()
    scripts = {
        "orch": [Turn.call(ToolCall("worker", {"request": "x"})), Turn.say("done")],
        "worker": [add_calls("w1"), Turn.say("worked")],
    }
    async with app(scripts) as fa:
        fa.worker.add_tool(fast_agent_tool(rec.add_spec()))
        agent = fast_agent_instrument(fa.orch, tools=[fast_agent_agent_tool(fa.worker)])
        with conversation("conv-top"):
            assert await agent.send("go") == "done"
    (ctx,) = rec.contexts
    assert ctx is not None and ctx.run_id == "conv-top" and ctx.path == ("worker",)
    assert ctx.thread_id and ctx.thread_id != "conv-top", "a clone runs on its own conversation"


async def test_fast_agents_own_clones_carry_the_run_id(app: Any) -> None:
    """Native Agents-as-Tools (agent__helper) clones run inside the parent's turn."""
    rec = Recorder()
    scripts = {
        "orch": [Turn.call(ToolCall("agent__helper", {"message": "x"}, id="h1")), Turn.say("done")],
        "helper": [add_calls("hx"), Turn.say("helped")],
    }
    async with app(scripts, options={"orch": {"agents": ["helper"]}}) as fa:
        fa.helper.add_tool(fast_agent_tool(rec.add_spec()))
        agent = fast_agent_instrument(fa.orch)
        with conversation("conv-native"):
            await agent.send("go")
    (ctx,) = rec.contexts
    assert ctx is not None and ctx.run_id == "conv-native" and ctx.call_id == "hx"


async def test_budget_exhausted_deep_in_the_hierarchy_stops_every_agent(app: Any) -> None:
    calls_to_inner = [Turn.call(ToolCall("inner", {"request": f"r{i}"})) for i in range(3)]
    scripts = {
        "orch": [
            Turn.call(ToolCall("outer", {"request": "go"})),
            Turn.say("orchestrator finished"),
        ],
        "outer": [*calls_to_inner, Turn.say("outer finished")],
        "inner": [Turn.say("inner done")],
    }
    async with app(scripts) as fa:
        fa.outer.add_tool(fast_agent_agent_tool(fa.inner))
        agent = fast_agent_instrument(fa.orch, tools=[fast_agent_agent_tool(fa.outer)])
        async with run_scope(limits=HierarchyLimits(max_model_calls=2)) as state:
            with pytest.raises(HierarchyLimitError):
                await agent.send("go")
        # outer holds one call of the budget while it runs, so inner runs once and the
        # second inner call cannot be afforded. outer failed, and still pays the two model
        # calls it made (seen live through its before_llm_call hook): 1 + 2.
        assert state.spent == 3 and state.active == 0 and state.reserved == 0
        assert state.report.per_path["outer/inner"].calls == 1
        assert state.report.per_path["outer"].usage.model_calls == 2
        assert len(fa.orch.usage_accumulator.turns) == 1
        assert len(fa.outer.usage_accumulator.turns) == 2, (
            "outer's clone stopped before its 3rd call"
        )


async def test_orchestrate_merges_with_the_agents_own_hooks(app: Any) -> None:
    seen: list[str] = []

    async def before(runner: Any, messages: Any) -> None:
        seen.append("before_llm_call")

    async def after_turn(runner: Any, message: Any) -> None:
        seen.append("after_turn_complete")

    async with app({"orch": [add_calls("c1"), Turn.say("done")]}) as fa:
        builtin = fa.orch.tool_runner_hooks.after_turn_complete
        assert builtin is not None, "fast-agent installs its own after_turn_complete hook"
        fa.orch.tool_runner_hooks = ToolRunnerHooks(
            before_llm_call=before,
            after_turn_complete=_chained(builtin, after_turn),
        )
        fast_agent_instrument(fa.orch, tools=[fast_agent_tool(Recorder().add_spec())])
        hooks, run_tools = fa.orch.tool_runner_hooks, fa.orch.run_tools
        fast_agent_instrument(fa.orch)  # idempotent: nothing is wrapped twice
        assert fa.orch.tool_runner_hooks is hooks and fa.orch.run_tools is run_tools
        await fa.orch.send("go")
    assert seen == ["before_llm_call", "before_llm_call", "after_turn_complete"]


def _chained(*hooks: Any) -> Any:
    async def run(runner: Any, payload: Any) -> None:
        for hook in hooks:
            await hook(runner, payload)

    return run


async def test_orchestrated_agents_print_nothing(
    app: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    async with app({"orch": [add_calls("p1", "p2", "p3"), Turn.say("done")]}) as fa:
        fast_agent_instrument(fa.orch, tools=[fast_agent_tool(Recorder().add_spec())])
        await fa.orch.send("go")
    out, err = capfd.readouterr()
    assert out == "" and err == ""


async def test_bind_context_maps_fast_agent_invocations(app: Any) -> None:
    event = LocalToolInvocationContext(tool_name="add", arguments={}, tool_use_id="toolu_9")
    with conversation("conv-b"):
        ctx = get_integration("fast-agent").bind_context(event)
        assert (ctx.call_id, ctx.run_id, ctx.thread_id) == ("toolu_9", "conv-b", "conv-b")
        assert INTEGRATION.bind_context("toolu_10").call_id == "toolu_10"
    with pytest.raises(IntegrationError):
        INTEGRATION.bind_context(object())


def test_the_plugin_is_found_through_its_entry_point() -> None:
    integration = get_integration("fast-agent")
    assert integration is INTEGRATION and get_integration("fast_agent") is INTEGRATION
    assert isinstance(integration, FastAgentIntegration)
    assert integration.framework == "fast-agent-mcp"
    assert integration.history_modes == ("fresh", "fork", "shared")
    spec = Recorder().add_spec()
    tool = integration.tool(spec)
    assert isinstance(tool, AgentSDKTool) and tool.spec is spec
    assert isinstance(integration.bind_approval(_Port()), ToolGate)
    assert integration.load_harness().integration == "fast-agent"
    with pytest.raises(
        ConfigurationError, match=r"fast_agent_tool: unknown option\(s\) middleware"
    ):
        integration.tool(spec, middleware=[object()])


class _Port:
    async def request(self, tool: str, arguments: dict[str, Any], **_: Any) -> Any:
        raise AssertionError("not asked here")


def test_a_framework_outside_the_supported_range_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    newer = FastAgentIntegration(requires=Requirement("fast-agent-mcp", ">=0.11,<0.12"))
    spec = Recorder().add_spec()  # fast_agent_tool & co. are these methods, on that integration
    with pytest.raises(IntegrationError, match=r"supports fast-agent-mcp >=0\.11"):
        newer.tool(spec)
    with pytest.raises(IntegrationError):
        newer.tools([spec])
    with pytest.raises(IntegrationError):
        newer.agent_tool(lambda: None, name="x")


def test_a_fast_agent_lacking_a_symbol_we_read_is_refused() -> None:
    missing = Requirement(
        "fast-agent-mcp",
        ">=0.10,<0.11",
        symbols=("fast_agent.agents.tool_agent:ToolAgent.no_such_method",),
    )
    with pytest.raises(IntegrationError, match=r"lacks .*no_such_method"):
        FastAgentIntegration(requires=missing).tool(Recorder().add_spec())


async def test_tools_share_one_executor_and_copies_share_it(app: Any) -> None:
    import copy

    rec = Recorder()
    specs = [rec.add_spec(), rec.add_spec(name="plus")]
    tools = fast_agent_tools(specs)
    assert tools[0].executor is tools[1].executor
    clone = copy.deepcopy(tools[0])
    assert clone.binding is tools[0].binding and clone.spec is specs[0]


async def test_cancelling_a_run_cancels_the_tool_and_leaves_no_scope(app: Any) -> None:
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def wait() -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "never"

    spec = ToolSpec(
        name="wait", description="Waits.", handler=wait, input_schema={"type": "object"}
    )
    async with app({"orch": [Turn.call(ToolCall("wait", {})), Turn.say("done")]}) as fa:
        agent = fast_agent_instrument(fa.orch, tools=[fast_agent_tool(spec, executor=Executor())])
        task = asyncio.ensure_future(agent.send("go"))
        await asyncio.wait_for(started.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert cancelled == [True]
    assert agent_sdk_fast_agent.current_conversation() is None


def test_listing_plugins_does_not_import_fast_agent() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from agent_sdk.plugins import integrations\n"
        "assert 'fast-agent' in [i.name for i in integrations()]\n"
        "assert [m for m in sys.modules if m.split('.')[0] == 'fast_agent'] == []\n"
        "import agent_sdk_fast_agent\n"
        "assert agent_sdk_fast_agent.conversation and 'fast_agent' not in sys.modules\n"
        "agent_sdk_fast_agent.orchestrate\n"
        "assert 'fast_agent' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
