"""agent-sdk spans and fast-agent's own spans form one tree (run in a fresh process each,
as the global tracer provider can be set only once)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

PROBE = Path(__file__).with_name("fast_agent_span_probe.py")


def probe(cwd: Path) -> dict[str, dict[str, Any]]:
    """Both modes, each in its own process (run concurrently: imports dominate)."""
    running = {
        mode: subprocess.Popen(
            [sys.executable, str(PROBE), mode],
            cwd=cwd / mode,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for mode in ("host", "fast-agent")
        if not (cwd / mode).mkdir()
    }
    found = {}
    for mode, process in running.items():
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, (
            f"{mode}: rc={process.returncode}\n{out[-2000:]}\n{err[-3000:]}"
        )
        found[mode] = json.loads(out.strip().splitlines()[-1])
    return found


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return probe(tmp_path_factory.mktemp("probe"))


@pytest.mark.parametrize("mode", ["host", "fast-agent"])
def test_one_tree_with_an_agent_span_and_a_chat_span_per_model_call(
    mode: str, found: dict[str, dict[str, Any]]
) -> None:
    """The orchestrated parent is agent-sdk's ``invoke_agent parent``, each clone the
    ``invoke_agent child`` of its tool call (clone name in ``agent_sdk.clone``), every model
    call a ``chat`` span with fast-agent's token counts; fast-agent's own per-run spans
    (``Agent: 'child[1]' generate``) are left out, its own OTel on or off."""
    spans = found[mode]["spans"]
    by_id = {s["id"]: s for s in spans}

    def parent(span: dict[str, Any]) -> dict[str, Any]:
        return by_id[span["parent"]]

    (root,) = [s for s in spans if s["name"] == "invoke_workflow run"]
    spans = [s for s in spans if s["run_id"] == root["run_id"]]  # not the solo runs
    assert len({s["trace"] for s in spans}) == 1, "one run, one trace"
    names = [s["name"] for s in spans]
    assert not [n for n in names if n.startswith("Agent: ")], names
    (top,) = [s for s in spans if s["name"] == "invoke_agent parent"]
    assert parent(top) is root and top["path"] == "/" and top["provider"] == "fast-agent"
    top_calls = [s for s in spans if s["parent"] == top["id"] and s["name"].startswith("chat ")]
    assert len(top_calls) == 2, "the parent's two model calls"
    invokes = [s for s in spans if s["name"] == "invoke_agent child"]
    assert sorted(s["instance"] for s in invokes) == ["child[1]", "child[2]"]
    for invoke in invokes:
        # clone spans: under their own tool call, path = the template's name
        assert invoke["path"] == "child"
        tool_call = parent(invoke)
        assert tool_call["name"] == "execute_tool child"
        assert parent(tool_call) is top
        under = [s for s in spans if s["parent"] == invoke["id"]]
        assert sorted(s["name"] for s in under) == [
            "chat agent-sdk-scripted",
            "chat agent-sdk-scripted",
            "execute_tool add",
        ]
        for span in under:
            assert span["path"] == ("child/add" if span["name"] == "execute_tool add" else "child")
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert len(chats) == 6
    for chat in chats:
        assert chat["provider"] == "fast-agent", "the scripted model is fast-agent's"
        assert all(isinstance(t, int) for t in chat["tokens"]), chat
        assert chat["tokens"][0] > 0, "characters sent, as the scripted model reports them"
    if mode == "fast-agent":
        # Why the plugin leaves fast-agent's OTel off: it replaces the global propagator with
        # a TraceContext-only one, which drops the baggage carrying run id, path and budget
        # across processes (agent_sdk.tracing.inject).
        assert found[mode]["propagator_before"] == "CompositePropagator"
        assert found[mode]["propagator_after"] == "TraceContextTextMapPropagator"
        assert found[mode]["received"] >= 1, "fast-agent exported to its OTLP endpoint"
    else:
        assert found[mode]["propagator_after"] == "CompositePropagator"


def test_each_top_level_run_without_a_scope_gets_its_own_root(
    found: dict[str, dict[str, Any]],
) -> None:
    """Without the user's run_scope, an orchestrated agent opens one per generate (here
    under fast-agent's own app span, which covers the whole ``fast.run()``)."""
    spans = found["host"]["spans"]
    by_id = {s["id"]: s for s in spans}

    def under(root: dict[str, Any], span: dict[str, Any]) -> bool:
        while span["parent"] in by_id:
            span = by_id[span["parent"]]
            if span is root:
                return True
        return False

    roots = [s for s in spans if s["name"] == "invoke_workflow solo"]
    assert len(roots) == 2, [s["name"] for s in spans]
    assert {by_id[r["parent"]]["name"] for r in roots} == {"probe"}, "fast-agent's app span"
    for root in roots:
        members = [s for s in spans if under(root, s)]
        assert [s["name"] for s in members].count("execute_tool add") == 2
        assert {s["run_id"] for s in members if s["run_id"]} == {root["run_id"]}
        assert root["run_id"].startswith("fa_")
    assert roots[0]["run_id"] != roots[1]["run_id"], "one run per top-level generate"
