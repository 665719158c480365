"""The contract kit catches wrong integrations: each broken harness fails the checks it breaks."""

import json
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).parent

BROKEN = {
    # Leaks the traceback to the model instead of the structured error.
    "leaky": """
        import traceback
        from tiny import TinyHarness, TinyResult, TinyTool, tiny_tool
        class Broken(TinyHarness):
            def export_tool(self, spec, *, executor, approval=None):
                good = tiny_tool(spec, executor=executor, approval=approval)
                async def fn(arguments, call_id, conversation_id):
                    res = await good.fn(arguments, call_id, conversation_id)
                    if res.is_error:
                        return TinyResult("Traceback (most recent call last):\\n  File \\"x.py\\"\\n" + res.text, True, res.exception)
                    return res
                return TinyTool(good.name, good.description, good.parameters, fn)
    """,
    # Skips the executor: no validation, no approval, no structured errors.
    "direct": """
        import json
        from tiny import TinyHarness, TinyResult, TinyTool
        class Broken(TinyHarness):
            def export_tool(self, spec, *, executor, approval=None):
                async def fn(arguments, call_id, conversation_id):
                    kwargs = json.loads(arguments) if arguments.strip().startswith("{") else {}
                    if spec._wants_ctx:
                        kwargs["ctx"] = None
                    value = spec.handler(**kwargs)
                    if hasattr(value, "__await__"):
                        value = await value
                    return TinyResult(str(value))
                return TinyTool(spec.name, spec.description, spec.json_schema(), fn)
    """,
    # Trusts whatever token is in the ambient context and reuses the ambient context.
    "token-trusting": """
        from agent_sdk import current_context, CallContext
        from tiny import TinyHarness, TinyResult, TinyTool
        class Broken(TinyHarness):
            def export_tool(self, spec, *, executor, approval=None):
                async def fn(arguments, call_id, conversation_id):
                    ambient = current_context()
                    if ambient is not None and ambient.approval is not None:
                        value = await spec.handler(**spec.handler_kwargs(spec.validate(arguments), ambient))
                        return TinyResult(str(value))
                    ctx = CallContext(run_id=conversation_id, call_id=call_id)
                    outcome = await executor.run_spec(spec, arguments, ctx)
                    return TinyResult(outcome.text, not outcome.ok)
                return TinyTool(spec.name, spec.description, spec.json_schema(), fn)
    """,
    # Shares one child between calls (history mixes) and ignores the return mode.
    "shared-child": """
        from agent_sdk import AgentResponse, Message, Usage, agent_tool
        from tiny import TinyAgent, TinyHarness, tiny_tool
        class Broken(TinyHarness):
            def export_agent_tool(self, agent, *, return_mode="last", timeout=None, input_schema=None):
                history = []
                async def invoke(request, ctx):
                    history.append(request)
                    run = await TinyAgent(agent.name, agent.turns, agent.tools).run("\\n".join(history))
                    return AgentResponse(messages=[Message(m["role"], m["text"]) for m in run.messages], usage=Usage(model_calls=run.model_calls))
                spec = agent_tool(invoke, name=agent.name, description="d", return_mode="all", timeout=timeout)
                return tiny_tool(spec)
    """,
}

EXPECTED_FAILURES = {
    "leaky": ["test_c3_failing_handler_gives_a_structured_error"],
    "direct": [
        "test_c2_invalid_arguments_never_reach_the_handler",
        "test_c6_denied_never_runs",
        "test_c3_failing_handler_gives_a_structured_error",
        "test_c10_spans_nest_under_the_call_that_started_them",
    ],
    "token-trusting": ["test_c7_foreign_tokens_are_rejected", "test_c5_context_is_bound"],
    "shared-child": [
        "test_c9_last_returns_only_the_final_message",
        "test_c12_clones_do_not_share_history",
    ],
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_integration_fails_the_matching_checks(pytester, name):
    pytester.syspathinsert(HERE)
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
    only = " or ".join(EXPECTED_FAILURES[name])
    report = pytester.runpytest_inprocess(
        "-q", "-p", "no:cacheprovider", "-p", "no:asyncio", "-k", only, "--report-log=report.jsonl"
    )
    failed = set()
    for line in (pytester.path / "report.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry.get("$report_type") == "TestReport" and entry["outcome"] == "failed":
            failed.add(entry["nodeid"].split("::")[-1].split("[")[0])
    for check in EXPECTED_FAILURES[name]:
        assert check in failed, (
            f"{name}: {check} should fail; failed: {sorted(failed)}\n{report.stdout.str()[-3000:]}"
        )
