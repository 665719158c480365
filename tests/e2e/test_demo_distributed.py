"""`agent-sdk demo --distributed`: the reviewers in their own MCP service process, the
orchestrator in the demo's; one trace file holding both services in one tree, the circular
legal -> tax -> legal caught in the service under the demo's run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_sdk import ConfigurationError
from agent_sdk.demo_distributed import SERVICE, reviewers_integration
from agent_sdk.plugins import get_integration
from agent_sdk.tracing.trace_file import merge_trace_files

ROOT = Path(__file__).resolve().parents[2]


def agent_sdk(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_sdk", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD": ""},
    )


def tags(span: dict[str, Any]) -> dict[str, Any]:
    return {t["key"]: t["value"] for t in span["tags"]}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    cwd = tmp_path_factory.mktemp("distributed")
    out = agent_sdk(
        "demo", "--distributed", "--framework", "ag2", "--trace-file", "t.json", cwd=cwd
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out, cwd / "t.json"


def test_one_trace_holds_both_services_in_one_tree(demo: tuple[Any, Path]) -> None:
    out, trace_file = demo
    (trace,) = json.loads(trace_file.read_text())["data"]
    services = {p["serviceName"] for p in trace["processes"].values()}
    assert services == {"agent-sdk-demo", SERVICE}
    spans = {s["spanID"]: s for s in trace["spans"]}
    service_ids = {k for k, p in trace["processes"].items() if p["serviceName"] == SERVICE}
    (root,) = [s for s in spans.values() if not s["references"]]
    assert root["operationName"] == "invoke_workflow contract-review"
    run_id = tags(root)["agent_sdk.run_id"]
    assert f"run: {run_id}" in out.stdout
    served = [s for s in spans.values() if s["processID"] in service_ids]
    assert {s["operationName"] for s in served} >= {
        "execute_tool legal",
        "invoke_agent tax",
        "execute_tool technical",
    }
    pictured = json.loads((ROOT / "docs" / "pictures" / "pictures.json").read_text())
    assert len(spans) == pictured["ag2-distributed"]["spans"]  # the docs' picture is this
    for span in served:  # every service span hangs below the demo's root, same run
        assert tags(span)["agent_sdk.run_id"] == run_id, span["operationName"]
        seen, at = set(), span
        while at["references"]:
            at = spans[at["references"][0]["spanID"]]
            assert at["spanID"] not in seen
            seen.add(at["spanID"])
        assert at is root, f"{span['operationName']} is not below the demo's root"
    # The orchestrator's remote call is the parent side: its MCP client span is an ancestor
    # of the service's legal call.
    (served_legal,) = [
        s
        for s in served
        if s["operationName"] == "execute_tool legal" and tags(s)["agent_sdk.path"] == "legal"
    ]
    parent = spans[served_legal["references"][0]["spanID"]]
    grandparent = spans[parent["references"][0]["spanID"]]
    assert grandparent["operationName"] == "MCP send tools/call legal"
    assert grandparent["processID"] not in service_ids


def test_the_circular_consultation_is_caught_in_the_service(demo: tuple[Any, Path]) -> None:
    out, trace_file = demo
    (trace,) = json.loads(trace_file.read_text())["data"]
    service_ids = {k for k, p in trace["processes"].items() if p["serviceName"] == SERVICE}
    refused = [s for s in trace["spans"] if tags(s).get("agent_sdk.outcome") == "recursion"]
    assert len(refused) == 1
    (span,) = refused
    assert span["processID"] in service_ids
    assert tags(span)["agent_sdk.path"] == "legal/tax/legal"
    assert "request_changes" in out.stdout  # legal still answered after the refusal
    assert f"reviewers: ag2 agents served over MCP by {SERVICE} at http://127.0.0.1:" in out.stdout


def test_trace_show_reads_the_merged_file(demo: tuple[Any, Path]) -> None:
    _, trace_file = demo
    shown = agent_sdk("trace", "show", str(trace_file), cwd=trace_file.parent)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[1].startswith("  invoke_workflow contract-review")
    (refusal,) = [line for line in lines if "outcome=recursion" in line]
    assert "path=legal/tax/legal" in refusal
    # the service's spans are nested under the orchestrator's calls, not a second tree
    roots = [line for line in lines if line.startswith("  ") and line[2] != " "]
    assert len(roots) == 1 and lines[0].startswith("trace ")


def test_merging_keeps_each_files_processes_apart(tmp_path: Path) -> None:
    def file(name: str, service: str, spans: list[str]) -> Path:
        path = tmp_path / name
        doc = {
            "data": [
                {
                    "traceID": "t1",
                    "processes": {"p1": {"serviceName": service, "tags": []}},
                    "spans": [{"spanID": s, "processID": "p1", "references": []} for s in spans],
                }
            ]
        }
        path.write_text(json.dumps(doc))
        return path

    out = tmp_path / "merged.json"
    merge_trace_files([file("a.json", "front", ["a"]), file("b.json", "back", ["b", "c"])], out)
    (trace,) = json.loads(out.read_text())["data"]
    by_span = {
        s["spanID"]: trace["processes"][s["processID"]]["serviceName"] for s in trace["spans"]
    }
    assert by_span == {"a": "front", "b": "back", "c": "back"}
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ConfigurationError, match="not a trace file"):
        merge_trace_files([out], tmp_path / "notes.txt")
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_reviewers_of_a_framework_that_cannot_serve_alone_run_on_another() -> None:
    fast_agent = get_integration("fast-agent")
    chosen = reviewers_integration(fast_agent)
    assert chosen.name != "fast-agent" and chosen.harness
    ag2 = get_integration("ag2")
    assert reviewers_integration(ag2) is ag2
