"""The demo scenario on the plugin template's minifw (each real framework runs it in tests/e2e)."""

import asyncio
import io

import pytest

from agent_sdk import IntegrationError
from agent_sdk.demo import pick_integration, run_demo
from agent_sdk.plugins import register_plugin, unregister_plugin


@pytest.fixture
def tiny_plugin():
    from agent_sdk_minifw import _integration as _plugin

    register_plugin(_plugin)
    yield
    unregister_plugin(_plugin)


@pytest.mark.parametrize(
    ("approve", "answer", "sent"),
    [("auto", "", True), ("deny", "", False), ("ask", "y\n", True), ("ask", "n\n", False)],
)
def test_demo_runs_the_hierarchy(tiny_plugin, spans, approve, answer, sent):
    prompt = io.StringIO()
    result = asyncio.run(
        run_demo(
            pick_integration("minifw"), approve=approve, stdin=io.StringIO(answer), stdout=prompt
        )
    )
    assert {n: o["verdict"] for n, o in result["opinions"].items()} == {
        "legal": "request_changes",
        "tax": "approve",
        "technical": "reject",
    }
    assert result["verdict"] == "reject"
    assert bool(result["sent"]) is sent
    assert ("sent verdict 'reject'" in result["notice"]) is sent
    assert ("Approve send_verdict" in prompt.getvalue()) is (approve == "ask")
    finished = spans.get_finished_spans()
    recursion = [s for s in finished if s.attributes.get("agent_sdk.outcome") == "recursion"]
    assert [s.attributes["agent_sdk.path"] for s in recursion] == ["legal/tax/legal"]
    assert len({s.context.trace_id for s in finished}) == 1
    report = result["report"]
    assert set(report.per_path) == {"legal", "tax", "technical", "legal/tax"}


def test_demo_without_integrations_says_what_to_install(monkeypatch):
    monkeypatch.setattr("agent_sdk.demo.integrations", lambda: [])
    with pytest.raises(IntegrationError, match="pip install agent-sdk-ag2"):
        pick_integration(None)
    with pytest.raises(IntegrationError, match="no integration named 'zzz'"):
        pick_integration("zzz")
