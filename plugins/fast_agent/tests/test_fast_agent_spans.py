"""The GenAI spans of the agents the plugin runs: one ``invoke_agent`` per top-level run of an
orchestrated agent, one ``chat`` span per model call with fast-agent's usage, and none of
fast-agent's ``Agent: '<name>' generate`` spans in their place."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from agent_sdk import run_scope
from agent_sdk.testing import ToolCall, Turn
from agent_sdk.tracing import semconv as sc
from agent_sdk_fast_agent import fast_agent_agent_tool, fast_agent_instrument


class Opinion(BaseModel):
    verdict: str


def chats(spans: Any) -> list[Any]:
    return [s for s in spans.get_finished_spans() if s.name.startswith("chat ")]


async def test_one_agent_span_per_run_and_a_chat_span_per_model_call(app: Any, spans: Any) -> None:
    scripts = {"orch": [Turn.call(ToolCall("reviewer", {"request": "r"})), Turn.say("done")]}
    scripts["reviewer"] = [Turn.say('{"verdict": "approve"}')]
    async with app(scripts) as fa:
        tool = fast_agent_agent_tool(fa.reviewer, output_model=Opinion)
        agent = fast_agent_instrument(fa.orch, tools=[tool])
        async with run_scope("run-spans"):
            await agent.send("go")
        orch_turns = list(fa.orch.usage_accumulator.turns)
    finished = spans.get_finished_spans()
    names = [s.name for s in finished]
    assert not [n for n in names if n.startswith("Agent: ")], names
    (top,) = [s for s in finished if s.name == "invoke_agent orch"]
    assert top.attributes[sc.GEN_AI_PROVIDER_NAME] == "fast-agent"
    assert top.attributes[sc.PATH] == sc.ROOT_PATH
    (child,) = [s for s in finished if s.name == "invoke_agent reviewer"]
    assert child.attributes[sc.CLONE] == "reviewer[1]"
    top_chats = [s for s in chats(spans) if s.parent.span_id == top.context.span_id]
    child_chats = [s for s in chats(spans) if s.parent.span_id == child.context.span_id]
    assert len(top_chats) == 2 and len(child_chats) == 1, "structured_schema: one call, one span"
    first, last = sorted(top_chats, key=lambda s: s.start_time)
    assert first.attributes[sc.GEN_AI_RESPONSE_FINISH_REASONS] == ("tool_calls",)
    assert last.attributes[sc.GEN_AI_RESPONSE_FINISH_REASONS] == ("stop",)
    assert [
        (s.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS], s.attributes[sc.GEN_AI_USAGE_OUTPUT_TOKENS])
        for s in (first, last)
    ] == [(t.prompt.total, t.completion.total) for t in orch_turns], "fast-agent's usage"
    for span in chats(spans):
        assert span.name == "chat agent-sdk-scripted"
        assert span.attributes[sc.GEN_AI_OPERATION_NAME] == sc.OP_CHAT
        assert span.attributes[sc.GEN_AI_REQUEST_MODEL] == "agent-sdk-scripted"
        assert span.attributes[sc.GEN_AI_RESPONSE_MODEL] == "agent-sdk-scripted"
        assert span.attributes[sc.RUN_ID] == "run-spans"


async def test_a_failed_model_call_is_an_error_chat_span(app: Any, spans: Any) -> None:
    async with app({"orch": [Turn.say("never")]}) as fa:

        async def down(*args: Any, **kwargs: Any) -> Any:
            raise ConnectionError("model endpoint down")

        fa.orch.llm._apply_prompt_provider_specific = down
        agent = fast_agent_instrument(fa.orch)
        with pytest.raises(Exception):  # noqa: B017 - whatever fast-agent makes of it
            async with run_scope("run-down"):
                await agent.send("go")
    (chat,) = chats(spans)
    assert chat.attributes[sc.ERROR_TYPE] == "ConnectionError"
    (top,) = [s for s in spans.get_finished_spans() if s.name == "invoke_agent orch"]
    assert chat.parent.span_id == top.context.span_id


async def test_a_replaced_llm_is_traced_too(app: Any, spans: Any) -> None:
    async with app({"orch": [Turn.say("one")], "other": [Turn.say("two")]}) as fa:
        agent = fast_agent_instrument(fa.orch)
        await agent.send("first")
        fa.orch._llm = fa.other.llm  # e.g. a model switch
        assert fa.orch.llm is fa.other.llm
        assert await agent.send("second") == "two"
    assert len(chats(spans)) == 2
    assert len([s for s in spans.get_finished_spans() if s.name == "invoke_agent orch"]) == 2
