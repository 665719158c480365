"""The native-path C7 checks can fail: a tool whose resumed calls trust the SDK approval
(it falls back to running the handler when the port refuses) fails every tamper case but
the control. Inside a child (C15) the same tool runs a used approval again: every replay
and edited resume fails, the approved call decided by the gate still passes."""

from __future__ import annotations

import json
import textwrap
from typing import Any

BROKEN = """
    import dataclasses
    from agent_sdk import AutoApprove, Executor
    from agent_sdk_openai_agents import openai_agents_tool
    from agent_sdk_openai_agents.testing import OpenAIAgentsHarness

    class Broken(OpenAIAgentsHarness):
        def export_tool(self, spec, *, executor, approval=None):
            good = openai_agents_tool(spec, executor=executor, approval=approval)
            trusting = openai_agents_tool(spec, executor=Executor(approval=AutoApprove()))

            async def invoke(ctx, args_json):
                text = await good.on_invoke_tool(ctx, args_json)
                if '"approval-' in text:  # the SDK approved the call: trust it
                    return await trusting.on_invoke_tool(ctx, args_json)
                return text

            return dataclasses.replace(good, on_invoke_tool=invoke)
"""

SUITE = """
    import pytest
    from broken_impl import Broken
    from agent_sdk.testing.contract import ContractSuite

    class TestBroken(ContractSuite):
        @pytest.fixture
        def harness(self):
            return Broken()
"""

EXPECTED_FAILURES = {
    "test_c7_native_a_decision_for_one_call_does_not_run_another",
    "test_c7_native_a_decision_from_another_run_is_not_used",
    "test_c7_native_a_replayed_resume_does_not_run_again",
    "test_c7_native_edited_arguments_on_resume_are_refused",
    # Inside a child: every case that resumes or reruns a decided call.
    "test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved",
    "test_c15_native_a_child_call_resumes_from_the_serialised_state",
    "test_c15_native_an_approved_child_call_resumes_both_once",
    "test_c15_native_edited_child_arguments_on_resume_are_refused",
}
CONTROLS = {
    "test_c7_native_control_an_approved_paused_call_runs_once",
    "test_c15_a_child_confirm_call_approved_by_the_gate_runs_once",
}


def test_a_tool_trusting_the_sdk_approval_fails_the_native_checks(pytester: Any) -> None:
    pytester.makepyfile(broken_impl=textwrap.dedent(BROKEN), test_broken=textwrap.dedent(SUITE))
    report = pytester.runpytest_inprocess(
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:asyncio",
        "-k",
        "c7_native or c15",
        "--report-log=report.jsonl",
    )
    outcomes: dict[str, set[str]] = {}
    for line in (pytester.path / "report.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if entry.get("$report_type") == "TestReport" and entry["when"] == "call":
            name = entry["nodeid"].split("::")[-1]
            outcomes.setdefault(entry["outcome"], set()).add(name)
    # Exactly the tamper and replay cases fail; the controls pass, so the broken tool does
    # run approved calls and the failures are not a variant that refuses (or breaks)
    # everything.
    assert outcomes.get("failed") == EXPECTED_FAILURES, report.stdout.str()[-3000:]
    assert outcomes.get("passed") == CONTROLS, report.stdout.str()[-3000:]
