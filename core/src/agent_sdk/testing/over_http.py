"""C14, the contract kit over HTTP: C0-C13 and C15 with every agent on the framework's own
OpenAI client, talking to the scripted server (``agent_sdk.scripted.server``), plain and
streamed.

A plugin whose harness declares ``apis`` subclasses :class:`HttpContractSuite` and names
its harness class::

    class TestMyFrameworkOverHttp(HttpContractSuite):
        harness_class = MyHarness

Each check then runs once per API and streaming mode (``chat``, ``chat-stream``,
``responses``, ``responses-stream``, as the harness supports), each with a fresh server. On
top of the kit's checks, every test checks that the framework sent no request a real
endpoint refuses and that the tool results the harness reports are the ones that crossed
the wire; and the run's cost report must equal the usage the server reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

import pytest

from agent_sdk.executor import Executor
from agent_sdk.run import HierarchyLimits, run_scope
from agent_sdk.scripted import Harness, RunResult, ScriptedAgent, ToolCall, Turn
from agent_sdk.scripted.server import ScriptedServer
from agent_sdk.testing.contract import ContractSuite, Recorder, run


class HttpContractSuite(ContractSuite):
    """C0-C13, C15 (and the wire checks) over HTTP. Set ``harness_class``."""

    harness_class: ClassVar[type[Harness]]
    streams: ClassVar[Sequence[bool]] = (False, True)
    """Streaming modes to run (both by default)."""

    # C0's shape checks are the same whatever carries the model's calls (they configure
    # tools, or call the public functions): they run in process only. Over HTTP C0 keeps
    # the one that drives a confirm call through the framework's loop and counts it.
    test_c0_the_public_functions_take_the_cores_keywords = None  # type: ignore[assignment]
    test_c0_a_plain_function_is_a_tool = None  # type: ignore[assignment]
    test_c0_the_executors_own_authority_accepts_the_gates_token = None  # type: ignore[assignment]
    test_c0_unknown_options_are_refused_naming_them = None  # type: ignore[assignment]
    test_c0_agent_tool_names_follow_the_core_rule = None  # type: ignore[assignment]
    test_c0_history_modes_are_the_cores = None  # type: ignore[assignment]
    test_c0_the_exception_behind_a_model_visible_error_is_kept = None  # type: ignore[assignment]
    test_c0_a_call_the_confirm_rule_lets_through_is_decided_once = None  # type: ignore[assignment]
    test_c0_a_reviewer_changes_nothing_that_runs = None  # type: ignore[assignment]
    # C15 over HTTP: the child's approved call and the native resume and replay, whose
    # answers cross the wire; the store-driven reruns, edited resumes and restored states
    # decide nothing the transport changes (they run in process).
    test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved = None  # type: ignore[assignment]
    test_c15_native_edited_child_arguments_on_resume_are_refused = None  # type: ignore[assignment]
    test_c15_native_a_child_call_resumes_from_the_serialised_state = None  # type: ignore[assignment]

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "transport" in metafunc.fixturenames:
            params = [(api, s) for api in self.harness_class.apis for s in self.streams]
            if not params:
                raise pytest.UsageError(
                    f"{self.harness_class.__name__}.apis is empty: the harness cannot run over HTTP"
                )
            ids = [f"{api}-stream" if s else api for api, s in params]
            metafunc.parametrize("transport", params, ids=ids)

    @pytest.fixture
    def server(self) -> Iterator[ScriptedServer]:
        with ScriptedServer() as server:
            yield server

    @pytest.fixture
    def harness(self, server: ScriptedServer, transport: tuple[str, bool]) -> Iterator[Harness]:
        api, stream = transport
        harness = self.harness_class(server.endpoint(api=api, stream=stream))  # type: ignore[arg-type]
        reported: list[RunResult] = []
        original = harness.run

        async def recording_run(*args: Any, **kwargs: Any) -> RunResult:
            result = await original(*args, **kwargs)
            reported.append(result)
            return result

        harness.run = recording_run  # type: ignore[method-assign]
        yield harness
        refused = [r for r in server.requests if r.status != 200]
        assert not refused, (
            f"the framework sent {len(refused)} request(s) a real endpoint refuses; first: "
            f"{refused[0].status} {refused[0].error}"
        )
        wire = {r.call_id: r.text for r in server.tool_results()}
        for result in reported:
            for seen in result.results:
                if seen.call_id is not None and seen.call_id in wire:
                    assert seen.text == wire[seen.call_id], (
                        f"the harness reports {seen.text!r} for {seen.call_id}, the model was "
                        f"sent {wire[seen.call_id]!r}"
                    )

    # -- C14 usage over the wire ------------------------------------------------------
    def test_c14_cost_report_equals_the_servers_usage(
        self, harness: Harness, server: ScriptedServer
    ) -> None:
        rec = Recorder()
        leaf = harness.export_tool(rec.add_spec(), executor=Executor())
        agent = harness.export_agent_tool(
            ScriptedAgent(
                "counter",
                [Turn.call(ToolCall("add", {"a": 20, "b": 22})), Turn.say("it is 42")],
                tools=[leaf],
            )
        )
        name = str(harness.advertised(agent)["name"])
        calls = [ToolCall(name, {"request": f"count {i}"}) for i in range(2)]

        async def main() -> Any:
            async with run_scope(limits=HierarchyLimits(max_model_calls=20)) as state:
                result = await harness.run([agent], [Turn.call(*calls), Turn.say("done")])
                return state, result

        state, result = run(main())
        assert [result.result(c.id).text for c in calls] == ["it is 42"] * 2
        orchestrator = server.requests[0].key
        children = [r for r in server.calls() if r.key != orchestrator]
        assert len(children) == 4, f"two children of two model calls each: {len(children)}"
        wire_in = sum(r.usage["input_tokens"] for r in children)
        wire_out = sum(r.usage["output_tokens"] for r in children)
        per_child = [
            cost for path, cost in state.report.per_path.items() if path.split("/")[-1] == name
        ]
        assert per_child, f"no cost for {name!r} in {sorted(state.report.per_path)}"
        total_in = sum(c.usage.input_tokens for c in per_child)
        total_out = sum(c.usage.output_tokens for c in per_child)
        assert (total_in, total_out) == (wire_in, wire_out), (
            f"cost report {total_in}/{total_out} tokens, the server reported {wire_in}/{wire_out}"
        )
        assert sum(c.usage.model_calls for c in per_child) == 4


__all__ = ["HttpContractSuite"]
