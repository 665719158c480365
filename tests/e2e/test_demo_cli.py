"""`agent-sdk demo` through every installed framework, as the README runs it."""

import json
import subprocess
import sys

import pytest
from e2e_helpers import entry_point_name, plugin_dirs

FRAMEWORKS = [entry_point_name(p) for p in plugin_dirs()]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_demo_prints_answer_report_and_tree(framework, tmp_path):
    trace = tmp_path / "trace.json"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_sdk.cli",
            "demo",
            "--framework",
            framework,
            "--trace-file",
            str(trace),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    text = out.stdout
    assert f"framework: {framework}" in text
    assert "harshest verdict (computed in code): reject" in text
    assert "send_verdict: sent verdict 'reject' to ACME GmbH" in text
    assert "cost report:" in text and "legal/tax" in text
    tree = text.split("\ntrace:\n", 1)[1]
    assert "invoke_workflow contract-review" in tree
    assert "invoke_agent legal" in tree and "invoke_agent technical" in tree
    assert "outcome=recursion" in tree and "path=legal/tax/legal" in tree
    doc = json.loads(trace.read_text())
    run_ids = {
        tag["value"]
        for t in doc["data"]
        for s in t["spans"]
        for tag in s["tags"]
        if tag["key"] == "agent_sdk.run_id"
    }
    assert len(doc["data"]) == 1 and len(run_ids) == 1, "one run, one trace"


def test_demo_deny_does_not_send(tmp_path):
    assert FRAMEWORKS, "the framework plugins are part of this repository"
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_sdk.cli",
            "demo",
            "--framework",
            FRAMEWORKS[0],
            "--approve",
            "deny",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    assert (
        "approval-denied" in out.stdout
        and "sent verdict" not in out.stdout.split("final answer")[0]
    )
