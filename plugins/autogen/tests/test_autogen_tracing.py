"""One clean tree with AutoGen's own spans: no duplicate execute_tool or invoke_agent spans,
and a chat span per model call.

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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PROBE = Path(__file__).with_name("autogen_span_probe.py")


def _probe(*args: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, str(PROBE), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def spans() -> list[dict[str, Any]]:
    return _probe()


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


def _chats_under(spans: list[dict[str, Any]], parent: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in spans if s["name"].startswith("chat ") and s["parent"] == parent["id"]]


def test_every_model_call_has_one_chat_span_under_its_agent(spans: list[dict[str, Any]]) -> None:
    (boss,) = [s for s in spans if s["name"] == "invoke_agent boss"]
    analysts = [s for s in spans if s["name"] == "invoke_agent analyst"]
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert len(chats) == 6  # boss: tool calls + answer; each analyst: add + answer
    for agent in (boss, *analysts):
        first, last = sorted(_chats_under(spans, agent), key=lambda s: s["start"])
        assert first["attributes"]["gen_ai.response.finish_reasons"] == ["tool_calls"]
        assert last["attributes"]["gen_ai.response.finish_reasons"] == ["stop"]
    for chat in chats:
        attrs = chat["attributes"]
        assert chat["name"] == "chat scripted" and chat["scope"] == "agent_sdk"
        assert attrs["gen_ai.operation.name"] == "chat"
        assert attrs["gen_ai.request.model"] == "scripted"
        assert attrs["gen_ai.provider.name"] == "autogen"  # AutoGen's replay client: no provider
        assert attrs["agent_sdk.run_id"] == "run-probe"
        assert isinstance(attrs["gen_ai.usage.input_tokens"], int)
        assert isinstance(attrs["gen_ai.usage.output_tokens"], int)
    paths = sorted(c["attributes"]["agent_sdk.path"] for c in chats)
    assert paths == ["/", "/", "analyst", "analyst", "analyst", "analyst"]


def test_autogens_agent_span_gets_the_provider_and_its_tokens(
    spans: list[dict[str, Any]],
) -> None:
    (boss,) = [s for s in spans if s["name"] == "invoke_agent boss"]
    attrs = boss["attributes"]
    assert attrs["gen_ai.provider.name"] == "autogen"
    chats = _chats_under(spans, boss)
    assert attrs["agent_sdk.usage.model_calls"] == len(chats) == 2
    for key in ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"):
        assert attrs[key] == sum(c["attributes"][key] for c in chats)
    assert attrs["gen_ai.usage.input_tokens"] > 0  # the replay client counts words
    # The create_agent spans stay AutoGen's, untouched (C13 drops them: internal_spans).
    assert all(
        "gen_ai.provider.name" not in s["attributes"]
        for s in spans
        if s["name"].startswith("create_agent ")
    )


def test_each_team_member_turn_is_autogens_invoke_agent_with_its_chat_span() -> None:
    spans = _probe("team")
    turns = [s for s in spans if s["name"] in ("invoke_agent alice", "invoke_agent bob")]
    assert sorted(s["name"] for s in turns) == ["invoke_agent alice", "invoke_agent bob"]
    for turn in turns:
        attrs = turn["attributes"]
        assert turn["scope"] == "autogen-core" and attrs["gen_ai.provider.name"] == "autogen"
        (chat,) = _chats_under(spans, turn)
        assert chat["attributes"]["agent_sdk.run_id"] == "run-team"
        assert chat["attributes"]["gen_ai.usage.output_tokens"] > 0
        assert (
            attrs["gen_ai.usage.output_tokens"] == chat["attributes"]["gen_ai.usage.output_tokens"]
        )
    assert len([s for s in spans if s["name"].startswith("chat ")]) == 2


# -- in process, on agent-sdk's own provider (AutoGen's spans go to the unset global one) ----
@pytest.fixture
def exported() -> Iterator[Any]:
    """An in-memory exporter for agent-sdk's spans (as its ``spans`` fixture, which this
    module's shadows)."""
    from agent_sdk.testing.recording import recording_spans

    with recording_spans() as exporter:
        yield exporter


async def test_a_streamed_model_call_is_one_chat_span_with_its_usage(exported: Any) -> None:
    from agent_sdk import run_scope
    from agent_sdk.scripted import Turn
    from agent_sdk_autogen import autogen_run
    from agent_sdk_autogen.testing import scripted_agent

    agent = scripted_agent("streamer", [Turn.say("one two three")], model_client_stream=True)
    async with run_scope("run-stream"):
        await autogen_run(agent, task="count to three")
    (chat,) = [s for s in exported.get_finished_spans() if s.name.startswith("chat ")]
    attrs = dict(chat.attributes or {})
    assert chat.name == "chat scripted"
    assert attrs["gen_ai.response.finish_reasons"] == ("stop",)
    assert attrs["gen_ai.usage.output_tokens"] == 3  # the replay client counts words
    assert attrs["gen_ai.usage.input_tokens"] > 0
    assert attrs["agent_sdk.run_id"] == "run-stream" and attrs["agent_sdk.path"] == "/"
    assert chat.end_time is not None and chat.start_time is not None
    assert chat.end_time >= chat.start_time


async def test_a_failed_model_call_is_a_chat_span_with_its_error(exported: Any) -> None:
    from agent_sdk import run_scope
    from agent_sdk_autogen import autogen_run
    from agent_sdk_autogen.testing import scripted_agent

    agent = scripted_agent("mute", [])  # AutoGen's replay client: no response left
    with pytest.raises(ValueError):
        async with run_scope("run-fail"):
            await autogen_run(agent, task="say something")
    (chat,) = [s for s in exported.get_finished_spans() if s.name.startswith("chat ")]
    assert chat.status.status_code.name == "ERROR"
    assert dict(chat.attributes or {})["error.type"] == "ValueError"
