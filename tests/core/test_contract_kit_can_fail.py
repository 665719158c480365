"""The contract kit catches wrong integrations: each broken variant of the plugin template's
(correct) minifw integration fails the checks it breaks."""

import json
import textwrap

import pytest

BROKEN = {
    # Leaks the traceback to the model instead of the structured error.
    "leaky": """
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool, ToolResult
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                async def fn(event):
                    res = await good.fn(event)
                    if res.is_error:
                        return ToolResult("Traceback (most recent call last):\\n  File \\"x.py\\"\\n" + res.text, True, res.exception)
                    return res
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Skips the executor: no validation, no approval, no structured errors.
    "direct": """
        import json
        from agent_sdk_minifw.framework import Tool, ToolResult
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                async def fn(event):
                    kwargs = json.loads(event.arguments) if event.arguments.strip().startswith("{") else {}
                    if spec._wants_ctx:
                        kwargs["ctx"] = None
                    value = spec.handler(**kwargs)
                    if hasattr(value, "__await__"):
                        value = await value
                    return ToolResult(str(value))
                return Tool(spec.name, spec.description, spec.json_schema(), fn)
    """,
    # Trusts whatever token is in the ambient context and reuses the ambient context.
    "token-trusting": """
        from agent_sdk import current_context, CallContext
        from agent_sdk_minifw.framework import Tool, ToolResult
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                async def fn(event):
                    ambient = current_context()
                    if ambient is not None and ambient.approval is not None:
                        value = await spec.handler(**spec.handler_kwargs(spec.validate(event.arguments), ambient))
                        return ToolResult(str(value))
                    ctx = CallContext(run_id=event.session_id, call_id=event.call_id)
                    outcome = await executor.run_spec(spec, event.arguments, ctx)
                    return ToolResult(outcome.text, not outcome.ok)
                return Tool(spec.name, spec.description, spec.json_schema(), fn)
    """,
    # Shares one child between calls (history mixes) and ignores the return mode.
    "shared-child": """
        from agent_sdk import AgentResponse, Message, Usage, agent_tool
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Agent
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_agent_tool(self, agent, *, return_mode="last", timeout=None, input_schema=None):
                history = []
                async def invoke(request, ctx):
                    history.append(request)
                    session = await Agent(agent.name, agent.turns, agent.tools).run("\\n".join(history))
                    return AgentResponse(messages=[Message(m["role"], m["text"]) for m in session.messages], usage=Usage(model_calls=session.model_calls))
                spec = agent_tool(invoke, name=agent.name, description="d", return_mode="all", timeout=timeout)
                return minifw_tool(spec)
    """,
    # Runs the tool calls of a turn one at a time (a lock around every call).
    "serial": """
        import asyncio
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool
        from agent_sdk_minifw.testing import MiniHarness
        LOCK = []
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                async def fn(event):
                    if not LOCK:
                        LOCK.append(asyncio.Lock())
                    async with LOCK[0]:
                        return await good.fn(event)
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Turns the cancellation into an error result: the run goes on as if nothing happened.
    "swallows-cancel": """
        import asyncio
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool, ToolResult
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                async def fn(event):
                    try:
                        return await good.fn(event)
                    except asyncio.CancelledError:
                        return ToolResult('{"error": {"kind": "tool-failed", "message": "x"}}', True)
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Lets the cancellation through but leaves the handler running in its own task.
    "leaves-handler-running": """
        import asyncio
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                async def fn(event):
                    return await asyncio.shield(asyncio.ensure_future(good.fn(event)))
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Never hands the approval port to the executor: the port is never asked.
    "port-never-asked": """
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                return minifw_tool(spec, executor=executor)
    """,
    # Binds no call id (every call looks the same to the approval binding and the host).
    "no-call-id": """
        from agent_sdk.integration import bind_call
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool, ToolEvent
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                async def fn(event):
                    blank = ToolEvent("", event.tool, event.arguments, event.session_id, event.agent)
                    return await good.fn(blank)
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Binds a run id of its own instead of the framework's conversation (or the run scope's).
    "wrong-run-id": """
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool, ToolEvent
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                async def fn(event):
                    other = ToolEvent(event.call_id, event.tool, event.arguments, "other-session", event.agent)
                    return await good.fn(other)
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Drops the handler's exception: the host cannot find out what failed.
    "drops-exception": """
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool, ToolResult
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                async def fn(event):
                    res = await good.fn(event)
                    return ToolResult(res.text, res.is_error, None)
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Reports failures as successes: the framework's error flag is never set.
    "errors-as-success": """
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool, ToolResult
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                async def fn(event):
                    res = await good.fn(event)
                    return ToolResult(res.text, False, res.exception)
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Reports no usage for its sub-agents: the run's budget and cost report miss them.
    "no-usage": """
        from agent_sdk import AgentResponse, Message, Usage, agent_tool
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Agent
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_agent_tool(self, agent, *, return_mode="last", timeout=None, input_schema=None):
                async def invoke(request, ctx):
                    text = request if isinstance(request, str) else str(request)
                    session = await Agent(agent.name, agent.turns, agent.tools).run(text)
                    return AgentResponse(messages=[Message(m["role"], m["text"]) for m in session.messages], usage=Usage())
                spec = agent_tool(invoke, name=agent.name, description="d", return_mode=return_mode, timeout=timeout, input_schema=input_schema)
                return minifw_tool(spec)
    """,
    # Runs the top agent without the observer: no invoke_agent for it, no chat spans (C13).
    "untraced-top-agent": """
        from agent_sdk.scripted import RunResult
        from agent_sdk_minifw.framework import Agent
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            async def run(self, tools, turns):
                session = await Agent("orchestrator", turns, tools).run("start")
                return RunResult(results=session.results, final_text=session.final_text, run_id=session.id, thread_id=session.id, exceptions=session.exceptions)
    """,
    # Ignores the return mode: always the whole conversation.
    "ignores-return-mode": """
        from agent_sdk_minifw import minifw_agent_tool
        from agent_sdk_minifw.framework import Agent
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_agent_tool(self, agent, *, return_mode="last", timeout=None, input_schema=None):
                return minifw_agent_tool(Agent(agent.name, agent.turns, agent.tools), description=agent.description, return_mode="all", timeout=timeout, input_schema=input_schema)
    """,
}

# Every check each variant fails, and only those: the variants are coarse (each breaks
# several promises), so the set is the whole list of what it breaks.
EXPECTED_FAILURES = {
    "leaky": [
        "test_c2_invalid_arguments_never_reach_the_handler",
        "test_c3_failing_handler_gives_a_structured_error",
        "test_c6_an_approval_that_edits_arguments_is_denied",
        "test_c6_denied_never_runs",
        "test_c6_without_approval_the_executor_port_decides",
        "test_c7_foreign_tokens_are_rejected",
    ],
    "direct": [
        "test_c10_spans_nest_under_the_call_that_started_them",
        "test_c2_invalid_arguments_never_reach_the_handler",
        "test_c2_valid_arguments_are_coerced",
        "test_c3_failing_handler_gives_a_structured_error",
        "test_c5_context_is_bound",
        "test_c5_run_scope_sets_the_run_id",
        "test_c6_an_approval_that_edits_arguments_is_denied",
        "test_c6_approved_runs_once_and_executor_does_not_ask_again",
        "test_c6_deferred_returns_the_approval_id",
        "test_c6_denied_never_runs",
        "test_c6_without_approval_the_executor_port_decides",
        "test_c7_foreign_tokens_are_rejected",
        "test_c8_copies_share_spec_executor_and_tokens",
        "test_c9_pending_approvals_in_the_child_are_not_hidden",
        "test_c13_the_reviewers_trace_has_the_reference_skeleton",
    ],
    "token-trusting": [
        "test_c10_spans_nest_under_the_call_that_started_them",
        "test_c3_failing_handler_gives_a_structured_error",
        "test_c4_cancellation_propagates_and_leaves_nothing_behind",
        "test_c5_context_is_bound",
        "test_c5_run_scope_sets_the_run_id",
        "test_c6_approved_runs_once_and_executor_does_not_ask_again",
        "test_c6_deferred_returns_the_approval_id",
        "test_c7_foreign_tokens_are_rejected",
        "test_c8_copies_share_spec_executor_and_tokens",
        "test_c9_pending_approvals_in_the_child_are_not_hidden",
        "test_c13_the_reviewers_trace_has_the_reference_skeleton",
    ],
    "serial": ["test_c12_calls_in_one_turn_run_concurrently"],
    "untraced-top-agent": ["test_c13_the_reviewers_trace_has_the_reference_skeleton"],
    "ignores-return-mode": [
        "test_c9_callable_and_bad_modes",
        "test_c9_last_returns_only_the_final_message",
    ],
    "no-usage": [
        "test_c11_budget_exhaustion_stops_the_run",
        "test_c13_the_reviewers_trace_has_the_reference_skeleton",
    ],
    "errors-as-success": [
        "test_c3_failing_handler_gives_a_structured_error",
    ],
    "drops-exception": [
        "test_c3_failing_handler_gives_a_structured_error",
    ],
    "wrong-run-id": [
        "test_c5_context_is_bound",
    ],
    "no-call-id": [
        "test_c5_context_is_bound",
        "test_c6_approved_runs_once_and_executor_does_not_ask_again",
    ],
    "port-never-asked": [
        "test_c4_cancellation_propagates_and_leaves_nothing_behind",
        "test_c6_approved_runs_once_and_executor_does_not_ask_again",
        "test_c6_deferred_returns_the_approval_id",
        "test_c8_copies_share_spec_executor_and_tokens",
        "test_c9_pending_approvals_in_the_child_are_not_hidden",
    ],
    "leaves-handler-running": [
        "test_c4_cancellation_propagates_and_leaves_nothing_behind",
    ],
    "swallows-cancel": [
        "test_c4_cancellation_propagates_and_leaves_nothing_behind",
    ],
    "shared-child": [
        "test_c12_clones_do_not_share_history",
        "test_c9_callable_and_bad_modes",
        "test_c9_last_returns_only_the_final_message",
        "test_c13_the_reviewers_trace_has_the_reference_skeleton",
    ],
}


def test_the_unmodified_template_passes_the_whole_kit(pytester):
    """The control: what the variants change is what makes them fail."""
    pytester.makepyfile(
        test_template=textwrap.dedent(
            """
            import pytest
            from agent_sdk_minifw.testing import MiniHarness
            from agent_sdk.testing.contract import ContractSuite

            class TestTemplate(ContractSuite):
                @pytest.fixture
                def harness(self):
                    return MiniHarness()
            """
        ),
    )
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider", "-p", "no:asyncio")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("error", 0) == 0, outcomes
    assert outcomes["passed"] >= 30  # the whole kit ran


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_integration_fails_the_matching_checks(pytester, name):
    pytester.makepyfile(
        broken_impl=textwrap.dedent(BROKEN[name]),
        test_broken=textwrap.dedent(
            """
            import pytest
            from broken_impl import Broken
            from agent_sdk.testing.contract import ContractSuite

            class TestBroken(ContractSuite):
                @pytest.fixture
                def harness(self):
                    return Broken()
            """
        ),
    )
    report = pytester.runpytest_inprocess(
        "-q", "-p", "no:cacheprovider", "-p", "no:asyncio", "--report-log=report.jsonl"
    )
    failed = set()
    for line in (pytester.path / "report.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry.get("$report_type") == "TestReport" and entry["outcome"] == "failed":
            failed.add(entry["nodeid"].split("::")[-1].split("[")[0])
    # Exactly the named checks fail: a variant that failed for another reason (an error in
    # the variant itself) would fail everything and prove nothing.
    assert failed == set(EXPECTED_FAILURES[name]), (
        f"{name}: expected {sorted(EXPECTED_FAILURES[name])}, failed {sorted(failed)}\n"
        f"{report.stdout.str()[-3000:]}"
    )
