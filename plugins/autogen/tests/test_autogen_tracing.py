"""One clean tree with AutoGen's own spans: no duplicate execute_tool or invoke_agent spans.

AutoGen opens `execute_tool` in BaseTool.run_json and `invoke_agent` in run()/run_stream()
on the global tracer provider. Exported tools override run_json and sub-agents are driven
through on_messages_stream, so each call and each child has exactly one span (ours); AutoGen
keeps its spans for the top-level run and for its own tools. The probe sets the global
provider, so it runs in a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PROBE = Path(__file__).with_name("autogen_span_probe.py")


@pytest.fixture(scope="module")
def spans() -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, str(PROBE)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _by_id(spans: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    return {s["id"]: s for s in spans}


def test_every_tool_call_has_exactly_one_execute_tool_span(spans: list[dict[str, Any]]) -> None:
    calls = [
        s["attributes"].get("gen_ai.tool.call.id")
        for s in spans
        if s["name"].startswith("execute_tool ")
    ]
    assert sorted(calls) == sorted(
        ["call_a", "call_b", "call_x", "call_add", "call_native", "call_1", "call_2"]
    )
    scopes = {s["name"]: s["scope"] for s in spans if s["name"].startswith("execute_tool ")}
    assert scopes == {
        "execute_tool analyst": "agent_sdk",
        "execute_tool explode": "agent_sdk",
        "execute_tool add": "agent_sdk",
        "execute_tool native_echo": "autogen-core",  # AutoGen's own tool keeps its own span
    }


def test_each_sub_agent_call_has_one_invoke_agent_span_under_its_tool_call(
    spans: list[dict[str, Any]],
) -> None:
    by_id = _by_id(spans)
    invokes = [s for s in spans if s["name"] == "invoke_agent analyst"]
    assert len(invokes) == 2 and {s["scope"] for s in invokes} == {"agent_sdk"}
    parents = [by_id[s["parent"]] for s in invokes]
    assert {p["name"] for p in parents} == {"execute_tool analyst"}
    assert {p["attributes"]["gen_ai.tool.call.id"] for p in parents} == {"call_a", "call_b"}
    leaves = [s for s in spans if s["attributes"].get("agent_sdk.path") == "analyst/add"]
    assert len(leaves) == 2 and {s["parent"] for s in leaves} == {s["id"] for s in invokes}


def test_autogen_spans_and_ours_form_one_tree(spans: list[dict[str, Any]]) -> None:
    by_id = _by_id(spans)
    (workflow,) = [s for s in spans if s["name"] == "invoke_workflow probe"]
    (boss,) = [s for s in spans if s["name"] == "invoke_agent boss"]
    assert boss["scope"] == "autogen-core" and boss["parent"] == workflow["id"]
    top = [
        s
        for s in spans
        if s["name"].startswith("execute_tool ")
        and "/" not in s["attributes"].get("agent_sdk.path", "")
    ]
    assert {s["parent"] for s in top} == {boss["id"]}
    in_run = [s for s in spans if s["name"] != "create_agent boss"]  # boss is built before the run
    assert len({s["trace"] for s in in_run}) == 1
    assert all(by_id[s["parent"]] for s in in_run if s["parent"] is not None)
    (failed,) = [s for s in spans if s["name"] == "execute_tool explode"]
    assert failed["status"] == "ERROR" and failed["attributes"]["error.type"] == "ValueError"
    assert all(
        s["attributes"].get("agent_sdk.run_id") == "run-probe"
        for s in in_run
        if s["scope"] == "agent_sdk"
    )
