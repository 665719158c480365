"""MAF's own instrumentation (global provider, scope agent_framework) and agent-sdk's spans
make one tree with nothing twice: MAF's invoke_agent of the top agent and its chat spans with
tokens stay; our tools have only our execute_tool span (MAF's own tool keeps MAF's); a child of
our agent tool has only our invoke_agent (as_tool's child keeps MAF's); run id and path on
every span. The probe runs in a subprocess because it sets the global tracer provider."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

PROBE = Path(__file__).with_name("agent_framework_span_probe.py")


@pytest.fixture(scope="module")
def spans() -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, str(PROBE)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_one_trace_and_run_id_and_path_on_every_span(spans: list[dict[str, Any]]) -> None:
    assert len({s["trace"] for s in spans}) == 1, "one run, one trace"
    missing = [s["name"] for s in spans if "agent_sdk.path" not in s["attributes"]]
    assert missing == [], f"spans without a path: {missing}"
    assert {s["attributes"]["agent_sdk.run_id"] for s in spans} == {"run-probe"}


def test_no_duplicate_execute_tool_or_invoke_agent(spans: list[dict[str, Any]]) -> None:
    by_name = Counter((s["name"], s["scope"]) for s in spans)
    assert by_name[("execute_tool add", "agent_sdk")] == 3, "the top's, analyst's and helper's"
    assert by_name[("execute_tool add", "agent_framework")] == 0, "MAF's own span is replaced"
    assert by_name[("execute_tool native", "agent_framework")] == 1
    assert by_name[("execute_tool analyst", "agent_sdk")] == 1
    assert by_name[("invoke_agent analyst", "agent_sdk")] == 1
    assert by_name[("invoke_agent analyst", "agent_framework")] == 0, "ours stands for MAF's"
    assert by_name[("invoke_agent helper", "agent_framework")] == 1, "as_tool keeps MAF's"
    assert by_name[("invoke_agent orchestrator", "agent_framework")] == 1
    assert by_name[("invoke_agent orchestrator", "agent_sdk")] == 0


def test_maf_chat_spans_are_the_skeletons_chat_spans(spans: list[dict[str, Any]]) -> None:
    by_id = {s["id"]: s for s in spans}
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert chats and {s["scope"] for s in chats} == {"agent_framework"}
    for chat in chats:
        attrs = chat["attributes"]
        assert attrs["gen_ai.operation.name"] == "chat"
        assert attrs["gen_ai.request.model"] == "scripted"
        assert (attrs["gen_ai.usage.input_tokens"], attrs["gen_ai.usage.output_tokens"]) == (10, 5)
    analyst_chats = [c for c in chats if c["attributes"]["agent_sdk.path"] == "analyst"]
    assert len(analyst_chats) == 2
    for chat in analyst_chats:
        parent = by_id[chat["parent"]]
        assert (parent["name"], parent["scope"]) == ("invoke_agent analyst", "agent_sdk")
    [leaf] = [s for s in spans if s["attributes"].get("gen_ai.tool.call.id") == "analyst_add"]
    assert by_id[leaf["parent"]]["name"] == "invoke_agent analyst"
    assert leaf["attributes"]["agent_sdk.path"] == "analyst/add"
