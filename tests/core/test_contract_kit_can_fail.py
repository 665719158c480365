"""The contract kit catches wrong integrations: each broken variant of the plugin template's
(correct) minifw integration fails the checks it breaks."""

import json
import textwrap

import pytest

from agent_sdk.plugins import loading_only


@pytest.fixture(autouse=True)
def _the_template_plugin_loads():
    """C0 finds the integration by name (``get_integration``): the template's plugin loads,
    and only it (core tests load no installed plugin)."""
    with loading_only("minifw"):
        yield


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
                    if ambient is not None and ambient.token is not None:
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
    # Skips the core's refusal of undeclared options and drops them without a word (C0): a
    # typo'd option does nothing.
    "lax-options": """
        from agent_sdk.integration import hookimpl
        from agent_sdk_minifw._integration import MiniIntegration
        from agent_sdk_minifw.testing import MiniHarness
        class Lax(MiniIntegration):
            def _refuse_other_options(self, declared, what, options):
                pass
            def export_tool(self, spec, *, executor=None, gate=None, **options):
                return super().export_tool(spec, executor=executor, gate=gate)
            def agent_spec(self, agent, settings, **options):
                return super().agent_spec(agent, settings)
        LAX = Lax("minifw-lax")
        @hookimpl
        def agent_sdk_integrations():
            return [LAX]
        class Broken(MiniHarness):
            integration = "minifw-lax"
    """,
    # Rewrites an invalid explicit agent tool name and takes any history mode (C0).
    "lax-agent-tool": """
        from agent_sdk.integration import hookimpl
        from agent_sdk.names import tool_name_from
        from agent_sdk_minifw._integration import MiniIntegration
        from agent_sdk_minifw.testing import MiniHarness
        class Lax(MiniIntegration):
            def agent_tool(self, agent, *, name=None, history="fresh", **kwargs):
                return super().agent_tool(agent, name=tool_name_from(name) if name else None, **kwargs)
        LAX = Lax("minifw-lax")
        @hookimpl
        def agent_sdk_integrations():
            return [LAX]
        class Broken(MiniHarness):
            integration = "minifw-lax"
    """,
    # Writes its public functions out again and lets them drift from the core's keywords
    # (C0): one keyword lost, one default changed.
    "drifted-keywords": """
        from agent_sdk.integration import hookimpl
        from agent_sdk_minifw._integration import MiniIntegration
        from agent_sdk_minifw.testing import MiniHarness
        class Drifted(MiniIntegration):
            pass
        DRIFTED = Drifted("minifw-lax")
        def minifw_lax_tool(spec_or_function, *, executor=None):
            return DRIFTED.tool(spec_or_function, executor=executor)
        def minifw_lax_agent_tool(agent, *, name=None, return_mode="all", **options):
            return DRIFTED.agent_tool(agent, name=name, return_mode=return_mode, **options)
        @hookimpl
        def agent_sdk_integrations():
            return [DRIFTED]
        class Broken(MiniHarness):
            integration = "minifw-lax"
    """,
    # Keeps an error of its own for the host: tool_error(call_id) loses the kind and cause.
    "loses-exception": """
        from agent_sdk import ErrorKind, ToolError
        from agent_sdk.integration import record_failure
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                async def fn(event):
                    res = await good.fn(event)
                    if res.is_error:
                        record_failure(event.call_id, ToolError(ErrorKind.TOOL_FAILED, res.text))
                    return res
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Checks the arguments itself before the executor does: every call validated twice.
    "validates-twice": """
        from agent_sdk import ToolError
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool, ToolResult
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                async def fn(event):
                    try:
                        spec.validate(event.arguments)
                    except ToolError as exc:
                        return ToolResult(exc.to_model_text(), True, exc)
                    return await good.fn(event)
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Decides confirm tools early on its own (as AG2 and openai-agents each did before 0.2):
    # asks the port with the dict it parsed, then runs that dict as the reviewer left it.
    "own-early-approval": """
        import json
        from agent_sdk import AutoApprove
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.framework import Tool, ToolEvent
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = minifw_tool(spec, executor=executor, approval=approval)
                if approval is None or spec.confirm is False:
                    return good
                approved = minifw_tool(spec, executor=executor, approval=AutoApprove())
                async def fn(event):
                    try:
                        arguments = json.loads(event.arguments)
                    except ValueError:
                        return await good.fn(event)
                    decision = await approval.request(
                        spec.name, arguments, call_id=event.call_id, run_id=event.session_id,
                        thread_id=event.session_id, path=())
                    if decision.approved and decision.arguments is None and not decision.pending_id:
                        again = ToolEvent(event.call_id, event.tool, json.dumps(arguments), event.session_id, event.agent)
                        return await approved.fn(again)
                    return await good.fn(event)
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Answers a child's pending approval with plain text of its own (C9, C15): the parent's
    # model is never told which approval the child waits on.
    "swallows-child-approval": """
        from agent_sdk_minifw.framework import Tool, ToolResult
        from agent_sdk_minifw.testing import MiniHarness
        class Broken(MiniHarness):
            def export_agent_tool(self, agent, **options):
                good = super().export_agent_tool(agent, **options)
                async def fn(event):
                    res = await good.fn(event)
                    if "approval required" in res.text:
                        return ToolResult("the payment waits for a reviewer")
                    return res
                return Tool(good.name, good.description, good.parameters, fn)
    """,
    # Remembers the approvals its port gave, by run, call, tool and arguments, and gives them
    # again itself (to spare the reviewer): a child's used approval, replayed, runs again.
    "replays-child-approval": """
        import json
        from agent_sdk import Decision
        from agent_sdk_minifw import minifw_tool
        from agent_sdk_minifw.testing import MiniHarness
        class Remembering:
            def __init__(self, port):
                self.port, self.approved = port, set()
            async def request(self, tool, arguments, **kw):
                key = (kw["run_id"], kw["call_id"], tool, json.dumps(arguments, sort_keys=True))
                if key in self.approved:
                    return Decision.approve()
                decision = await self.port.request(tool, arguments, **kw)
                if decision.approved and decision.arguments is None:
                    self.approved.add(key)
                return decision
        class Broken(MiniHarness):
            def export_tool(self, spec, *, executor, approval=None):
                port = None if approval is None else Remembering(approval)
                return minifw_tool(spec, executor=executor, approval=port)
    """,
}

# Every check each variant fails, and only those: the variants are coarse (each breaks
# several promises), so the set is the whole list of what it breaks.
EXPECTED_FAILURES = {
    "leaky": [
        "test_c0_the_exception_behind_a_model_visible_error_is_kept",
        "test_c2_invalid_arguments_never_reach_the_handler",
        "test_c3_failing_handler_gives_a_structured_error",
        "test_c6_an_approval_that_edits_arguments_is_denied",
        "test_c6_denied_never_runs",
        "test_c6_without_approval_the_executor_port_decides",
        "test_c7_foreign_tokens_are_rejected",
    ],
    "direct": [
        "test_c0_a_call_the_confirm_rule_lets_through_is_decided_once",
        "test_c0_a_confirm_call_is_decided_once",
        "test_c0_a_reviewer_changes_nothing_that_runs",
        "test_c0_the_exception_behind_a_model_visible_error_is_kept",
        "test_c0_the_executors_own_authority_accepts_the_gates_token",
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
        "test_c15_a_child_confirm_call_approved_by_the_gate_runs_once",
        "test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved",
    ],
    "token-trusting": [
        "test_c0_a_confirm_call_is_decided_once",
        "test_c0_a_reviewer_changes_nothing_that_runs",
        "test_c0_the_executors_own_authority_accepts_the_gates_token",
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
        "test_c15_a_child_confirm_call_approved_by_the_gate_runs_once",
        "test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved",
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
        "test_c0_the_exception_behind_a_model_visible_error_is_kept",
        "test_c5_context_is_bound",
        "test_c6_approved_runs_once_and_executor_does_not_ask_again",
        "test_c15_a_child_confirm_call_approved_by_the_gate_runs_once",
        "test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved",
    ],
    "port-never-asked": [
        "test_c0_a_confirm_call_is_decided_once",
        "test_c0_a_reviewer_changes_nothing_that_runs",
        "test_c0_the_executors_own_authority_accepts_the_gates_token",
        "test_c4_cancellation_propagates_and_leaves_nothing_behind",
        "test_c6_approved_runs_once_and_executor_does_not_ask_again",
        "test_c6_deferred_returns_the_approval_id",
        "test_c8_copies_share_spec_executor_and_tokens",
        "test_c9_pending_approvals_in_the_child_are_not_hidden",
        "test_c15_a_child_confirm_call_approved_by_the_gate_runs_once",
        "test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved",
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
    "lax-options": ["test_c0_unknown_options_are_refused_naming_them"],
    "lax-agent-tool": [
        "test_c0_agent_tool_names_follow_the_core_rule",
        "test_c0_history_modes_are_the_cores",
    ],
    "drifted-keywords": ["test_c0_the_public_functions_take_the_cores_keywords"],
    "loses-exception": [
        "test_c0_the_exception_behind_a_model_visible_error_is_kept",
        "test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved",
    ],
    "validates-twice": [
        "test_c0_a_call_the_confirm_rule_lets_through_is_decided_once",
        "test_c0_a_confirm_call_is_decided_once",
    ],
    "own-early-approval": [
        "test_c0_a_call_the_confirm_rule_lets_through_is_decided_once",
        "test_c0_a_reviewer_changes_nothing_that_runs",
        "test_c15_a_child_confirm_call_approved_by_the_gate_runs_once",
        "test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved",
    ],
    "swallows-child-approval": [
        "test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved",
        "test_c9_pending_approvals_in_the_child_are_not_hidden",
    ],
    "replays-child-approval": [
        "test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved",
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
            import broken_impl
            from broken_impl import Broken
            from agent_sdk.plugins import register_plugin, unregister_plugin
            from agent_sdk.testing.contract import ContractSuite

            @pytest.fixture(autouse=True)
            def broken_plugin():
                # A variant declaring an integration of its own is a plugin during each test.
                declares = hasattr(broken_impl, "agent_sdk_integrations")
                if declares:
                    register_plugin(broken_impl, name="broken")
                yield
                if declares:
                    unregister_plugin(broken_impl)

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
