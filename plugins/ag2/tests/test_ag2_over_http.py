"""AG2 over HTTP: the contract kit with every agent on AG2's own OpenAI clients
(``OpenAIConfig`` for Chat Completions, ``OpenAIResponsesConfig`` for the Responses API),
plain and streamed, against the SDK's scripted server; and the traps found there.

The trap: AG2 keeps the model's call in history and replays it on every later model call.
Its Chat Completions mapper re-parses the stored arguments
(``json.dumps(call.serialized_arguments)``), so arguments that are not JSON made the next
request raise ``JSONDecodeError`` out of ``ask()`` after our tool had answered. The plugin
stores ``{}`` for such a call (before history storage sees it) and its tool still answers
from the model's own text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
from ag2 import Agent, MemoryStream
from ag2.context import StreamId
from ag2.events import BaseEvent, ModelResponse
from ag2.events._serialization import deserialize_value, serialize_value
from ag2.history import Storage

from agent_sdk import Executor
from agent_sdk.scripted.server import Recorded, ScriptedServer
from agent_sdk.testing import ScriptedAgent, ToolCall, Turn
from agent_sdk.testing.contract import Recorder, error_of, run
from agent_sdk.testing.over_http import HttpContractSuite
from agent_sdk_ag2 import ag2_tool
from agent_sdk_ag2.testing import AG2Harness, seen_results


class TestAG2ContractOverHttp(HttpContractSuite):
    harness_class = AG2Harness


TRANSPORTS = [("chat", False), ("chat", True), ("responses", False), ("responses", True)]
IDS = ["chat", "chat-stream", "responses", "responses-stream"]
MALFORMED = {  # the model's text, and what our tool tells the model about it
    '{"a": 7': "not valid JSON",
    "not json": "not valid JSON",
    '{"a": 1, "b": NaN}': "not valid JSON",
    "[1, 2]": "must be a JSON object",
    "": "Field required",  # no arguments: {}
}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server
        refused = [r for r in server.requests if r.status != 200]
        assert not refused, f"a request a real endpoint refuses: {refused[0].error}"


def strict_json(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def replayed_arguments(records: Iterable[Recorded], call_id: str) -> list[str]:
    """The arguments of call ``call_id`` in every request that replayed it."""
    found: list[str] = []
    for r in records:
        if r.api == "responses":
            found += [
                i["arguments"]
                for i in r.body["input"]
                if isinstance(i, dict) and i.get("type") == "function_call"
                if i["call_id"] == call_id
            ]
        else:
            found += [
                c["function"]["arguments"]
                for m in r.body["messages"]
                for c in m.get("tool_calls") or []
                if c["id"] == call_id
            ]
    return found


@pytest.mark.parametrize("arguments", list(MALFORMED))
@pytest.mark.parametrize(("api", "stream"), TRANSPORTS, ids=IDS)
def test_arguments_that_are_no_json_object_give_args_invalid_and_the_run_goes_on(
    server: ScriptedServer, api: Any, stream: bool, arguments: str
) -> None:
    harness = AG2Harness(server.endpoint(api=api, stream=stream))
    rec = Recorder()
    tool = harness.export_tool(rec.add_spec(), executor=Executor())
    call = ToolCall("add", arguments)
    result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
    assert result.final_text == "done"
    assert rec.calls == []
    err = error_of(result.result(call.id).text)
    assert err is not None and err["kind"] == "tool-args-invalid", result.result(call.id).text
    # the tool judged the model's own text, not the {} stored in its place
    assert MALFORMED[arguments] in err["message"], err["message"]
    # what AG2 replays (and keeps in its history) is a JSON object
    replays = replayed_arguments(server.calls(), call.id)
    assert replays, "the call was replayed to the model with its result"
    assert all(strict_json(a) == {} for a in replays), replays
    stored = [c for e in result.events if isinstance(e, ModelResponse) for c in e.tool_calls.calls]
    assert [c.arguments for c in stored] == ["{}"]
    assert [r.text for r in server.tool_results()] == [result.result(call.id).text]


@pytest.mark.parametrize(("api", "stream"), TRANSPORTS, ids=IDS)
def test_well_formed_arguments_are_replayed_as_sent(
    server: ScriptedServer, api: Any, stream: bool
) -> None:
    harness = AG2Harness(server.endpoint(api=api, stream=stream))
    rec = Recorder()
    tool = harness.export_tool(rec.add_spec(), executor=Executor())
    call = ToolCall("add", '{"a": "2", "b": 3}')
    result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
    assert (rec.calls, result.result(call.id).text) == ([{"a": 2, "b": 3}], "5")
    assert [strict_json(a) for a in replayed_arguments(server.calls(), call.id)] == [
        {"a": "2", "b": 3}
    ]


class JsonStorage(Storage):
    """History kept as JSON, as AG2's RedisStorage keeps it (``serialize_value``): an event
    read back is rebuilt from what was stored, not the object that was sent."""

    def __init__(self) -> None:
        self.saved: dict[StreamId, list[str]] = {}

    async def save_event(self, event: BaseEvent, context: Any) -> None:
        self.saved.setdefault(context.stream.id, []).append(json.dumps(serialize_value(event)))

    async def get_history(self, stream_id: StreamId) -> Iterable[BaseEvent]:
        return [deserialize_value(json.loads(e)) for e in self.saved.get(stream_id, [])]

    async def set_history(self, stream_id: StreamId, events: Iterable[BaseEvent]) -> None:
        self.saved[stream_id] = [json.dumps(serialize_value(e)) for e in events]

    async def drop_history(self, stream_id: StreamId) -> None:
        self.saved.pop(stream_id, None)


@pytest.mark.parametrize("stream", [False, True], ids=["chat", "chat-stream"])
def test_history_stored_as_json_holds_the_repaired_call(
    server: ScriptedServer, stream: bool
) -> None:
    # The stored copy is what AG2 replays when history lives outside the process: the
    # arguments must be valid before storage sees the model's response.
    endpoint = server.endpoint(stream=stream)
    rec = Recorder()
    tool = ag2_tool(rec.add_spec())
    call = ToolCall("add", '{"a": 1, "b": 20')
    prompt = endpoint.instructions("You add.", [Turn.call(call), Turn.say("done")])
    storage = JsonStorage()
    agent = Agent("adder", prompt, config=AG2Harness(endpoint).endpoint_model(), tools=[tool])

    async def main() -> tuple[str | None, list[Any]]:
        conversation = MemoryStream(storage)
        reply = await agent.ask("start", stream=conversation)
        return reply.body, list(await conversation.history.get_events())

    body, events = run(main())
    assert body == "done" and rec.calls == []
    err = error_of(seen_results(events)[0].text)
    assert err is not None and err["kind"] == "tool-args-invalid"
    assert replayed_arguments(server.calls(), call.id) == ["{}"]


@pytest.mark.parametrize(("api", "stream"), [("chat", False), ("responses", True)])
def test_a_child_agent_recovers_from_malformed_arguments(
    server: ScriptedServer, api: Any, stream: bool
) -> None:
    harness = AG2Harness(server.endpoint(api=api, stream=stream))
    rec = Recorder()
    leaf = harness.export_tool(rec.add_spec(), executor=Executor())
    inner = ToolCall("add", "not json")
    child = harness.export_agent_tool(
        ScriptedAgent("kid", [Turn.call(inner), Turn.say("kid recovered")], tools=[leaf])
    )
    outer = ToolCall(harness.advertised(child)["name"], {"request": "add them"})
    result = run(harness.run([child], [Turn.call(outer), Turn.say("done")]))
    assert result.result(outer.id).text == "kid recovered"
    assert result.final_text == "done" and rec.calls == []
    sent = {r.call_id: r.text for r in server.tool_results()}
    err = error_of(sent[inner.id])
    assert err is not None and err["kind"] == "tool-args-invalid"


def test_a_middleware_that_sets_arguments_wins_over_the_models_text(
    server: ScriptedServer,
) -> None:
    seen: list[str] = []

    async def repair(call_next: Any, event: Any, context: Any) -> Any:
        seen.append(event.arguments)
        event.serialized_arguments = {"a": 1, "b": 2}
        return await call_next(event, context)

    harness = AG2Harness(server.endpoint())
    rec = Recorder()
    tool = ag2_tool(rec.add_spec(), middleware=[repair])
    call = ToolCall("add", '{"a": 1')
    result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
    assert seen == ["{}"], "AG2 middleware sees the stored arguments"
    assert rec.calls == [{"a": 1, "b": 2}] and result.result(call.id).text == "3"
