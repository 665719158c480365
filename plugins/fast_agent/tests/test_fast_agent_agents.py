"""fast_agent_agent_tool: clones, history modes, usage, timeouts, structured output, spans."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel

from agent_sdk import ConfigurationError, HierarchyLimits, run_scope
from agent_sdk.testing import ToolCall, Turn
from agent_sdk.testing.contract import error_of
from agent_sdk.tracing import semconv as sc
from agent_sdk_fast_agent import INTEGRATION, fast_agent_agent_tool, fast_agent_instrument
from agent_sdk_fast_agent._agents import _HISTORY


def ask(name: str, request: str, id: str | None = None) -> ToolCall:
    return ToolCall(name, {"request": request}, id=id or f"{name}-{request}")


def results(agent: Any) -> dict[str, tuple[str, bool]]:
    out = {}
    for message in agent.last_turn_messages:
        for call_id, result in (message.tool_results or {}).items():
            out[call_id] = ("".join(b.text for b in result.content), bool(result.is_error))
    return out


def test_history_modes_map_onto_fast_agents_settings() -> None:
    from fast_agent.agents.workflow.agents_as_tools_agent import AgentsAsToolsOptions

    assert tuple(_HISTORY) == INTEGRATION.history_modes == ("fresh", "fork", "shared")
    for mode, (source, target) in _HISTORY.items():
        options = AgentsAsToolsOptions(history_source=source, history_merge_target=target)
        assert (options.history_source.value, options.history_merge_target.value) == {
            "fresh": ("none", "none"),
            "fork": ("child", "none"),
            "shared": ("child", "child"),
        }[mode]
    with pytest.raises(ConfigurationError, match="'fresh', 'fork', 'shared'"):
        fast_agent_agent_tool(lambda: None, name="x", history="share")


@pytest.mark.parametrize("history", ["fresh", "fork", "shared"])
async def test_history_modes(app: Any, history: str) -> None:
    from fast_agent.mcp.prompt import Prompt

    scripts = {
        "orch": [
            Turn.call(ask("memo", "first")),
            Turn.call(ask("memo", "second")),
            Turn.say("done"),
        ],
        "memo": [Turn.echo()],
    }
    async with app(scripts) as fa:
        fa.memo.load_message_history([Prompt.user("earlier note"), Prompt.assistant("noted")])
        agent = fast_agent_instrument(
            fa.orch, tools=[fast_agent_agent_tool(fa.memo, history=history)]
        )
        await agent.send("go")
        first, second = results(agent)["memo-first"][0], results(agent)["memo-second"][0]
        template = [m.all_text() for m in fa.memo.message_history]
    if history == "fresh":
        assert first == "first" and second == "second"
    else:
        assert first.startswith("earlier note") and first.endswith("first")
    if history == "shared":
        assert "first" in second and second.endswith("second"), "the 2nd clone saw the 1st call"
        assert template[:2] == ["earlier note", "noted"] and "second" in template
    else:
        assert "first" not in second
        assert template == ["earlier note", "noted"], "the template's history is untouched"


async def test_parallel_calls_run_as_separate_clones(app: Any, spans: Any) -> None:
    scripts = {
        "orch": [Turn.call(ask("researcher", "a"), ask("researcher", "b")), Turn.say("done")],
        "researcher": [Turn.echo(delay=0.3)],
    }
    async with app(scripts) as fa:
        agent = fast_agent_instrument(fa.orch, tools=[fast_agent_agent_tool(fa.researcher)])
        async with run_scope("run-clones") as state:
            await agent.send("go")
        seen = results(agent)
        template_turns = len(fa.researcher.usage_accumulator.turns)
    assert seen == {"researcher-a": ("a", False), "researcher-b": ("b", False)}
    invokes = [s for s in spans.get_finished_spans() if s.name == "invoke_agent researcher"]
    assert sorted(s.attributes[sc.CLONE] for s in invokes) == [
        "researcher[1]",
        "researcher[2]",
    ]
    first, second = sorted(invokes, key=lambda s: s.start_time)
    assert second.start_time < first.end_time, "the two clones ran at the same time"
    assert {s.attributes[sc.PATH] for s in invokes} == {"researcher"}
    assert {s.attributes[sc.GEN_AI_PROVIDER_NAME] for s in invokes} == {"fast-agent"}
    # usage of the clones: merged into the template (as fast-agent does) and the run's report
    assert template_turns == 2
    cost = state.report.per_path["researcher"]
    assert cost.calls == 2 and cost.usage.model_calls == 2
    assert cost.usage.input_tokens == 2 and cost.usage.output_tokens == 2  # scripted: chars
    assert cost.usage.input_chars >= len("You are researcher.") * 2 + 2


async def test_timeout_gives_tool_timeout_and_the_run_goes_on(app: Any) -> None:
    scripts = {
        "orch": [
            Turn.call(ask("slow", "late", id="t1"), ask("quick", "fast", id="t2")),
            Turn.call(ask("quick", "again", id="t3")),
            Turn.say("done"),
        ],
        "slow": [Turn.say("too late", delay=20)],
        "quick": [Turn.echo()],
    }
    async with app(scripts) as fa:
        agent = fast_agent_instrument(
            fa.orch,
            tools=[fast_agent_agent_tool(fa.slow, timeout=0.3), fast_agent_agent_tool(fa.quick)],
        )
        assert await agent.send("go") == "done"
        seen = results(agent)
    err = error_of(seen["t1"][0])
    assert err is not None and err["kind"] == "tool-timeout" and "slow" in err["message"]
    assert seen["t1"][1] is True
    assert seen["t2"] == ("fast", False) and seen["t3"] == ("again", False)


class Verdict(BaseModel):
    verdict: str
    score: int


async def test_output_model_gives_structured_json(app: Any) -> None:
    scripts = {
        "orch": [Turn.call(ask("judge", "rate it", id="j1")), Turn.say("done")],
        "judge": [Turn.say('{"verdict": "approve", "score": 3}')],
    }
    async with app(scripts) as fa:
        tool = fast_agent_agent_tool(fa.judge, return_mode="json", output_model=Verdict)
        agent = fast_agent_instrument(fa.orch, tools=[tool])
        await agent.send("go")
        text, is_error = results(agent)["j1"]
    assert not is_error and json.loads(text) == {"verdict": "approve", "score": 3}


class CountedVerdict(Verdict):
    schemas_made: ClassVar[int] = 0

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        cls.schemas_made += 1
        return super().model_json_schema(*args, **kwargs)


async def test_output_schema_made_once_each_call_its_own_child(app: Any) -> None:
    # Three concurrent calls of one structured agent tool: the schema is made once for the
    # tool, yet every call is a fresh clone answering its own request (the judge echoes it).
    asked = {f"j{i}": {"verdict": f"v{i}", "score": i} for i in range(3)}
    scripts = {
        "orch": [
            Turn.call(*(ask("judge", json.dumps(v), id=k) for k, v in asked.items())),
            Turn.say("done"),
        ],
        "judge": [Turn.echo()],
    }
    async with app(scripts) as fa:
        tool = fast_agent_agent_tool(fa.judge, return_mode="json", output_model=CountedVerdict)
        agent = fast_agent_instrument(fa.orch, tools=[tool])
        await agent.send("go")
        seen = results(agent)
        assert fa.judge.message_history == []  # fresh: nothing merged into the template
    assert CountedVerdict.schemas_made == 1
    assert {k: (json.loads(text), err) for k, (text, err) in seen.items()} == {
        k: (v, False) for k, v in asked.items()
    }


class Ticket(BaseModel):
    title: str
    priority: int


async def test_input_schema_and_agent_description(app: Any) -> None:
    scripts = {
        "orch": [
            Turn.call(ToolCall("triage", {"title": "disk full", "priority": "2"}, id="i1")),
            Turn.say("ok"),
        ],
        "triage": [Turn.echo()],
    }
    async with app(scripts) as fa:
        tool = fast_agent_agent_tool(fa.triage, input_schema=Ticket)
        assert tool.name == "triage" and tool.description == "You are triage."
        assert tool.parameters == Ticket.model_json_schema()
        agent = fast_agent_instrument(fa.orch, tools=[tool])
        await agent.send("go")
        text, _ = results(agent)["i1"]
    assert json.loads(text) == {"priority": 2, "title": "disk full"}


def test_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="give name="):
        fast_agent_agent_tool(lambda: None)
    with pytest.raises(ConfigurationError, match="not a fast-agent agent"):
        fast_agent_agent_tool(object())
    with pytest.raises(ConfigurationError, match="output_model"):
        fast_agent_agent_tool(lambda: None, name="x", output_model=dict)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        fast_agent_agent_tool(lambda: None, name="x", return_mode="first")  # type: ignore[arg-type]


async def test_max_parallel_from_the_run_limits(app: Any) -> None:
    scripts = {
        "orch": [Turn.call(*(ask("napper", f"r{i}") for i in range(3))), Turn.say("done")],
        "napper": [Turn.say("ok", delay=0.2)],
    }
    async with app(scripts) as fa:
        agent = fast_agent_instrument(
            fa.orch,
            tools=[fast_agent_agent_tool(fa.napper)],
            limits=HierarchyLimits(max_parallel=1),
        )
        t0 = time.monotonic()
        await agent.send("go")
        assert time.monotonic() - t0 >= 0.55, (
            "fast_agent_instrument(limits=...) applies to its implicit run"
        )


async def test_cancelling_the_parent_cancels_the_clone(app: Any) -> None:
    scripts = {
        "orch": [Turn.call(ask("sleeper", "zz")), Turn.say("done")],
        "sleeper": [Turn.say("late", delay=30)],
    }
    async with app(scripts) as fa:
        agent = fast_agent_instrument(fa.orch, tools=[fast_agent_agent_tool(fa.sleeper)])
        task = asyncio.ensure_future(agent.send("go"))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
