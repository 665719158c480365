"""Serve over MCP from real processes (``agent-sdk serve-mcp``), call with ``remote_tools``
through the core executor: guards across the boundary, failures, stdio, one trace."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from agent_sdk import AgentResponse, Executor, HierarchyLimitError, Message, Registry, Usage
from agent_sdk.agents import agent_tool
from agent_sdk.context import CallContext, use_context
from agent_sdk.mcp import mcp_server, remote_tools
from agent_sdk.run import HierarchyLimits, run_scope
from agent_sdk.testing.mcp import McpProcess, mcp_process, serve_command, serving
from agent_sdk.testing.recording import recording_spans
from agent_sdk.tracing import load_trace_file

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpProcess]:
    approvals = tmp_path_factory.mktemp("mcp") / "approvals.db"
    with mcp_process(
        "mcp_served:tools",
        "--max-depth",
        "3",
        cwd=HERE,
        env={"MCP_TEST_APPROVALS": str(approvals)},
    ) as process:
        yield process


async def _executor(url: str, **kwargs: Any) -> Executor:
    return Executor(Registry(await remote_tools(url, **kwargs)))


async def test_tools_and_agents_are_listed_and_run(served: McpProcess) -> None:
    executor = await _executor(served.url)
    assert {s.name for s in executor.registry} == {"add", "boom", "slow", "transfer", "deep", "tax"}
    assert "agent" in executor.registry.get("tax").tags
    assert "agent" not in executor.registry.get("add").tags
    async with run_scope() as run:
        assert (await executor.run("add", {"a": 2, "b": 3})).text == "5"
        tax = await executor.run("tax", {"request": "check"})
    assert tax.ok and tax.text == f"tax at tax (run {run.run_id})"
    assert run.report.per_path["tax"].usage.model_calls == 2  # the remote usage, charged here


async def test_failures_and_bad_arguments_are_our_structured_errors(served: McpProcess) -> None:
    async with Client(served.url) as client:  # past the caller's own validation
        bad = await client.call_tool("add", {"a": "two", "b": 3})
        boom = await client.call_tool("boom", {})
    for result, kind in ((bad, "tool-args-invalid"), (boom, "tool-failed")):
        assert result.is_error
        assert json.loads(result.content[0].text)["error"]["kind"] == kind
    assert "the tool broke" in boom.content[0].text
    outcome = await (await _executor(served.url)).run("boom", {})
    assert outcome.error is not None and outcome.error.kind.value == "tool-failed"
    assert "the tool broke" in outcome.text


async def test_a_caller_budget_of_one_holds(served: McpProcess) -> None:
    executor = await _executor(served.url)
    async with run_scope(limits=HierarchyLimits(max_model_calls=1)) as run:
        with pytest.raises(HierarchyLimitError):  # deep's leaf (5 calls) is never started
            await executor.run("deep", {"request": "go"})
    assert run.report.model_calls == 1  # deep's own call, reported back


async def test_the_servers_max_depth_wins_over_a_looser_caller(served: McpProcess) -> None:
    executor = await _executor(served.url)
    async with run_scope(limits=HierarchyLimits(max_depth=10)) as run:
        with use_context(CallContext(run_id=run.run_id, path=("a", "b", "c"))):
            outcome = await executor.run("tax", {"request": "x"})
    assert outcome.error is not None and outcome.error.kind.value == "depth-exceeded"
    assert "limited to depth 3" in outcome.text


async def test_a_tighter_caller_wins_over_the_server(served: McpProcess) -> None:
    executor = await _executor(served.url)
    async with run_scope(limits=HierarchyLimits(max_depth=2)) as run:
        with use_context(CallContext(run_id=run.run_id, path=("a",))):
            outcome = await executor.run("deep", {"request": "x"})
    assert outcome.ok  # deep at depth 2; its leaf at depth 3 is refused by the caller's 2
    assert "depth-exceeded" in outcome.text and "limited to depth 2" in outcome.text


async def test_a_pending_approval_answers_its_id(served: McpProcess) -> None:
    outcome = await (await _executor(served.url)).run("transfer", {"amount": 5})
    assert outcome.error is not None and outcome.error.kind.value == "approval-pending"
    assert outcome.error.approval_id and re.fullmatch(r"apr_\w+", outcome.error.approval_id)


async def test_recursion_across_hosts_is_caught() -> None:
    calls: list[tuple[str, ...]] = []

    async def legal(request: Any, ctx: CallContext) -> AgentResponse:
        calls.append(ctx.path)
        outcome = await Executor(Registry(await remote_tools(host2.url, names=["tax"]))).run(
            "tax", {"request": "the tax clause"}
        )
        return AgentResponse(
            messages=[Message("assistant", outcome.text)], usage=Usage(model_calls=1)
        )

    spec = agent_tool(legal, name="legal", description="The legal reviewer.")
    async with serving(mcp_server(spec)) as host1:
        with mcp_process(
            "mcp_served:tools", "--max-depth", "5", cwd=HERE, env={"MCP_TEST_BACK_URL": host1}
        ) as host2:
            async with run_scope(limits=HierarchyLimits(max_depth=5)):
                outcome = await Executor(Registry([spec])).run("legal", {"request": "review"})
    assert calls == [("legal",)]  # host 2 refused to call legal back: host 1 never served it
    assert "tax at legal/tax" in outcome.text
    assert '"kind": "recursion"' in outcome.text and "legal/tax/legal" in outcome.text


async def test_a_killed_server_is_tool_failed_naming_it_and_the_run_goes_on() -> None:
    local = Registry()

    @local.tool
    def echo(text: str) -> str:
        return text

    with mcp_process("mcp_served:tools", cwd=HERE) as server:
        remote = await remote_tools(server.url, names=["add"])
        server.kill()
    executor = Executor(Registry([*remote, *local]))
    async with run_scope():
        failed = await executor.run("add", {"a": 1, "b": 2})
        after = await executor.run("echo", {"text": "still here"})
    assert failed.error is not None and failed.error.kind.value == "tool-failed"
    assert server.url in failed.text
    assert after.text == "still here"


async def test_a_remote_timeout_is_tool_timeout_naming_the_endpoint(served: McpProcess) -> None:
    executor = await _executor(served.url, names=["slow"], timeout=0.5)
    outcome = await executor.run("slow", {"seconds": 3})
    assert outcome.error is not None and outcome.error.kind.value == "tool-timeout"
    assert served.url in outcome.text


async def test_over_stdio(monkeypatch: pytest.MonkeyPatch) -> None:
    # ~2-5 s: a stdio session is a process, and listing plus one call are two sessions.
    monkeypatch.setenv("PYTHONPATH", str(HERE))
    executor = Executor(Registry(await remote_tools(serve_command("mcp_served:tools"))))
    async with run_scope() as run:  # a process per session: one call
        tax = await executor.run("tax", {"request": "x"})
    assert tax.text == f"tax at tax (run {run.run_id})"


async def test_one_trace_over_two_processes(tmp_path: Path) -> None:
    trace_file = tmp_path / "server.json"
    with (
        recording_spans(stamp_runs=True) as exporter,
        mcp_process(
            "mcp_served:tools",
            "--trace-file",
            str(trace_file),
            "--service-name",
            "reviewers",
            cwd=HERE,
        ) as server,
    ):
        executor = await _executor(server.url)
        async with run_scope() as run:
            assert (await executor.run("tax", {"request": "x"})).ok
    ours = exporter.get_finished_spans()
    theirs = [s for t in load_trace_file(trace_file) for s in _spans(t)]
    trace_ids = {format(s.context.trace_id, "032x") for s in ours}
    assert len(trace_ids) == 1
    by_id = {format(s.context.span_id, "016x"): s for s in ours}
    caller_tools = [s for s in ours if s.name == "execute_tool tax"]
    assert len(caller_tools) == 1
    assert [s["operationName"] for s in theirs].count("execute_tool tax") == 1
    root = next(s for s in theirs if s["operationName"].startswith("invoke_workflow"))
    assert root["traceID"] in trace_ids
    parent = root["references"][0]["spanID"]
    assert by_id[parent].name == "invoke_agent tax"  # the caller's sub-agent span
    for span in theirs:
        tags = {t["key"]: t["value"] for t in span["tags"]}
        assert tags["agent_sdk.run_id"] == run.run_id
        assert "agent_sdk.path" in tags


def _spans(trace: Any) -> list[dict[str, Any]]:
    return list(trace["spans"]) if isinstance(trace, dict) else list(trace.spans)
