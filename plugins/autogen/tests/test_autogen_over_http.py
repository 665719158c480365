"""The contract kit over HTTP: every agent on AutoGen's own ``OpenAIChatCompletionClient``
against the scripted OpenAI-compatible server, plain and streamed; and AutoGen's own traps
over the wire, on agents built as users build them (not the harness's).

- Arguments AutoGen cannot give a tool as a JSON object (``json.loads`` in
  ``AssistantAgent._execute_tool_call``) reach this plugin's tools as text, so the model is
  sent ``tool-args-invalid``; other tools keep AutoGen's own answer.
- ``AssistantAgent(model_client_stream=True)`` never asks for usage on a stream; the agents
  this plugin runs do, so the cost report and the TaskResult count the server's tokens.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.conditions import MaxMessageTermination
from autogen_agentchat.messages import ToolCallExecutionEvent
from autogen_agentchat.teams import RoundRobinGroupChat
from autogen_core.tools import FunctionTool

from agent_sdk import ToolSpec
from agent_sdk.run import run_scope
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk.scripted.server import ScriptedServer
from agent_sdk.testing.contract import Recorder, error_of
from agent_sdk.testing.over_http import HttpContractSuite
from agent_sdk_autogen import autogen_agent_tool, autogen_instrument, autogen_run, autogen_tool
from agent_sdk_autogen.testing import AutogenHarness


class TestAutogenContractOverHttp(HttpContractSuite):
    harness_class = AutogenHarness


# -- AutoGen's traps, on agents built as a user builds them -----------------------------------
@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server
    refused = [r for r in server.requests if r.status != 200]
    assert not refused, f"a real endpoint refuses: {refused[0].status} {refused[0].error}"


def agent(
    server: ScriptedServer,
    name: str,
    turns: list[Turn],
    tools: list[Any],
    *,
    stream: bool = False,
    **client_options: Any,
) -> AssistantAgent:
    endpoint = server.endpoint(stream=stream)
    client = AutogenHarness(endpoint).endpoint_model()
    if client_options:
        from autogen_ext.models.openai import OpenAIChatCompletionClient

        client = OpenAIChatCompletionClient(
            model=endpoint.model,
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            model_info=client._model_info,
            **client_options,
        )
    return AssistantAgent(
        name,
        client,
        tools=tools,
        system_message=endpoint.instructions(f"You are {name}.", turns),
        model_client_stream=stream,
        max_tool_iterations=len(turns),
    )


def sent(server: ScriptedServer, call_id: str) -> str:
    """The tool result the model was sent for ``call_id``."""
    found = {r.call_id: r.text for r in server.tool_results()}
    assert call_id in found, f"no result for {call_id} crossed the wire: {sorted(found)}"
    return found[call_id]


def answered(result: Any) -> dict[str, Any]:
    return {
        r.call_id: r
        for m in result.messages
        if isinstance(m, ToolCallExecutionEvent)
        for r in m.content
    }


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("arguments", ['{"a": 1, "b": 20', "not json", '{"a": 1, "b":'])
async def test_malformed_arguments_are_sent_to_the_model_as_tool_args_invalid(
    server: ScriptedServer, arguments: str, stream: bool
) -> None:
    # Without the plugin's loop AutoGen sends "Error: Expecting ',' delimiter: ..." (text).
    rec = Recorder()
    call = ToolCall("add", arguments)
    orchestrator = agent(
        server,
        "planner",
        [Turn.call(call), Turn.say("done")],
        [autogen_tool(rec.add_spec())],
        stream=stream,
    )
    result = await autogen_run(orchestrator, task="add")
    err = error_of(sent(server, call.id))
    assert err is not None and err["kind"] == "tool-args-invalid", sent(server, call.id)
    assert "add" in err["message"]
    assert answered(result)[call.id].is_error is True
    assert rec.calls == []
    assert result.messages[-1].content == "done", "the run goes on"


@pytest.mark.parametrize("arguments", ["[]", "0", '""', "false"])
async def test_json_that_is_no_object_never_runs_a_tool_without_parameters(
    server: ScriptedServer, arguments: str
) -> None:
    # AutoGen's workbench turns false arguments into {}: a tool with no parameters ran. (The
    # core reads `null` as no arguments, as in every integration.)
    pinged: list[bool] = []

    async def ping() -> str:
        pinged.append(True)
        return "pong"

    spec = ToolSpec(
        name="ping",
        description="Ping.",
        handler=ping,
        input_schema={"type": "object", "properties": {}},
    )
    call, control = ToolCall("ping", arguments), ToolCall("ping", "{}")
    orchestrator = agent(
        server, "pinger", [Turn.call(call, control), Turn.say("done")], [autogen_tool(spec)]
    )
    await autogen_run(orchestrator, task="ping")
    err = error_of(sent(server, call.id))
    assert err is not None and err["kind"] == "tool-args-invalid", sent(server, call.id)
    assert sent(server, control.id) == "pong" and pinged == [True]


async def test_a_sub_agent_and_a_team_member_send_tool_args_invalid(
    server: ScriptedServer,
) -> None:
    rec = Recorder()
    child_call = ToolCall("add", '{"a": 1, "b": 20')
    child = agent(
        server,
        "adder",
        [Turn.call(child_call), Turn.say("child done")],
        [autogen_tool(rec.add_spec())],
    )
    outer = ToolCall("adder", {"request": "add"})
    parent = agent(
        server,
        "boss",
        [Turn.call(outer), Turn.say("done")],
        [autogen_agent_tool(lambda: child, name="adder")],
    )
    member_call = ToolCall("add", "not json")
    member = agent(
        server,
        "member",
        [Turn.call(member_call), Turn.say("member done")],
        [autogen_tool(rec.add_spec())],
    )
    team = RoundRobinGroupChat([member], termination_condition=MaxMessageTermination(2))
    await autogen_run(parent, task="go")
    await autogen_run(team, task="go")
    assert sent(server, outer.id) == "child done"
    for call in (child_call, member_call):
        err = error_of(sent(server, call.id))
        assert err is not None and err["kind"] == "tool-args-invalid", sent(server, call.id)
    assert rec.calls == []


async def test_tools_of_other_libraries_keep_autogens_own_answer(server: ScriptedServer) -> None:
    called: list[int] = []

    def double(x: int) -> int:
        """Double."""
        called.append(x)
        return 2 * x

    call = ToolCall("double", '{"x": 1')
    orchestrator = agent(
        server, "doubler", [Turn.call(call), Turn.say("done")], [FunctionTool(double, "Double.")]
    )
    await autogen_run(orchestrator, task="double")
    assert sent(server, call.id).startswith("Error: Expecting"), sent(server, call.id)
    assert called == []


async def test_a_streamed_agent_reports_the_servers_tokens(server: ScriptedServer) -> None:
    # AssistantAgent never passes include_usage to create_stream: without the plugin the
    # server sends no usage chunk and every message counts 0 tokens.
    rec = Recorder()
    child = agent(
        server,
        "counter",
        [Turn.call(ToolCall("add", {"a": 1, "b": 2})), Turn.say("3")],
        [autogen_tool(rec.add_spec())],
        stream=True,
    )
    parent = agent(
        server,
        "boss",
        [Turn.call(ToolCall("counter", {"request": "count"})), Turn.say("done")],
        [autogen_agent_tool(lambda: child, name="counter")],
        stream=True,
    )
    async with run_scope() as state:
        result = await autogen_run(parent, task="count")
    streamed = [r for r in server.requests if r.body.get("stream")]
    assert len(streamed) == 4
    assert all(r.body.get("stream_options") == {"include_usage": True} for r in streamed)
    child_key = next(
        r.key for r in server.requests if "counter" in json.dumps(r.body["messages"][0])
    )
    child_usage = server.usage(child_key)
    [cost] = [c for p, c in state.report.per_path.items() if p.split("/")[-1] == "counter"]
    assert (cost.usage.input_tokens, cost.usage.output_tokens) == (
        child_usage["input_tokens"],
        child_usage["output_tokens"],
    )
    parent_usage = server.usage(server.requests[0].key)
    tokens = [m.models_usage for m in result.messages if m.models_usage is not None]
    assert (sum(u.prompt_tokens for u in tokens), sum(u.completion_tokens for u in tokens)) == (
        parent_usage["input_tokens"],
        parent_usage["output_tokens"],
    )


async def test_a_clients_own_stream_options_are_kept(server: ScriptedServer) -> None:
    orchestrator = agent(
        server,
        "quiet",
        [Turn.say("done")],
        [],
        stream=True,
        stream_options={"include_usage": False},
    )
    await autogen_run(orchestrator, task="hi")
    [request] = server.requests
    assert request.body["stream_options"] == {"include_usage": False}


async def test_no_stream_options_on_plain_calls(server: ScriptedServer) -> None:
    orchestrator = agent(server, "plain", [Turn.say("done")], [])
    await autogen_run(orchestrator, task="hi")
    [request] = server.requests
    assert "stream_options" not in request.body and not request.body.get("stream")


async def test_autogen_instrument_for_a_plain_run(server: ScriptedServer) -> None:
    rec = Recorder()
    calls = [ToolCall("add", '{"a": 1, "b": 20') for _ in range(2)]
    tools = [autogen_tool(rec.add_spec())]
    plain = agent(server, "plain", [Turn.call(calls[0]), Turn.say("done")], tools)
    prepared = agent(server, "prepared", [Turn.call(calls[1]), Turn.say("done")], tools)
    assert autogen_instrument(prepared) is prepared
    await plain.run(task="add")  # AutoGen's own run, not prepared: AutoGen's own text
    await prepared.run(task="add")
    assert sent(server, calls[0].id).startswith("Error: Expecting ',' delimiter")
    err = error_of(sent(server, calls[1].id))
    assert err is not None and err["kind"] == "tool-args-invalid", sent(server, calls[1].id)
    assert rec.calls == []


async def test_only_the_instances_run_change_class(server: ScriptedServer) -> None:
    class Mine(AssistantAgent):
        def greeting(self) -> str:
            return "mine"

    endpoint = server.endpoint()
    mine = Mine(
        "mine",
        AutogenHarness(endpoint).endpoint_model(),
        system_message=endpoint.instructions("x", [Turn.say("ok")]),
    )
    result = await autogen_run(mine, task="hi")
    assert result.messages[-1].content == "ok"
    assert isinstance(mine, Mine) and mine.greeting() == "mine", "the user's class stays a base"
    assert type(mine).__name__ == "Mine" and type(mine) is not Mine
    assert mine.dump_component().provider == "autogen_agentchat.agents.AssistantAgent"
    assert type(Mine("other", AutogenHarness(endpoint).endpoint_model())) is Mine, (
        "classes are never changed"
    )
    assert (
        type(AssistantAgent("plain", AutogenHarness(endpoint).endpoint_model())) is AssistantAgent
    )
