"""The scripted OpenAI-compatible server, through the real OpenAI client over HTTP: wire
formats (plain and streamed, both APIs), turn selection, usage, and the requests a real
endpoint refuses."""

from __future__ import annotations

import asyncio
import json
import threading
import typing
import urllib.request
from typing import Any

import openai
import pytest
from openai import AsyncOpenAI
from openai.types.chat import completion_create_params as chat_params
from openai.types.responses import response_create_params as responses_params

from agent_sdk.errors import ConfigurationError
from agent_sdk.scripted import ToolCall, Turn
from agent_sdk.scripted.endpoint import Endpoint
from agent_sdk.scripted.openai_rules import CHAT_PARAMS, RESPONSES_PARAMS
from agent_sdk.scripted.server import ScriptedServer

ADD = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "default": 1}},
    "required": ["a"],
}
STRICT = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}


def chat_tool(name: str = "add", parameters: Any = ADD, **extra: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": parameters, **extra}}


@pytest.fixture
def server():
    with ScriptedServer() as s:
        yield s


def client(server: ScriptedServer, **kw: Any) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.url, api_key=kw.pop("api_key", "k"), max_retries=0, **kw)


def test_the_param_lists_follow_the_openai_client() -> None:
    chat = set(typing.get_type_hints(chat_params.CompletionCreateParamsBase)) | {"stream"}
    responses = set(typing.get_type_hints(responses_params.ResponseCreateParamsBase))
    assert chat - CHAT_PARAMS == set(), f"openai {openai.__version__} sends params we refuse"
    assert (responses | {"stream"}) - RESPONSES_PARAMS == set()


async def test_chat_plays_turns_in_order_with_parallel_calls_and_usage(server) -> None:
    first_turn = Turn.call(ToolCall("add", {"a": 1}, id="c1"), ToolCall("add", '{"a": 2', id="c2"))
    key = server.script([first_turn, Turn.say("three")])
    c = client(server)
    messages: list[Any] = [{"role": "system", "content": f"be brief {key}"}]
    messages.append({"role": "user", "content": "go"})
    first = await c.chat.completions.create(model="m", messages=messages, tools=[chat_tool()])
    calls = first.choices[0].message.tool_calls
    assert first.choices[0].finish_reason == "tool_calls"
    assert [(t.id, t.function.arguments) for t in calls] == [("c1", '{"a": 1}'), ("c2", '{"a": 2')]
    assert first.id.startswith("chatcmpl-") and first.usage.total_tokens > 0
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages += [{"role": "tool", "tool_call_id": t.id, "content": f"r-{t.id}"} for t in calls]
    second = await c.chat.completions.create(model="m", messages=messages, tools=[chat_tool()])
    assert second.choices[0].message.content == "three"
    assert second.choices[0].finish_reason == "stop"
    assert [(r.call_id, r.name, r.text) for r in server.tool_results()] == [
        ("c1", "add", "r-c1"),
        ("c2", "add", "r-c2"),
    ]
    used = server.usage()
    assert used["calls"] == 2
    assert used["input_tokens"] == first.usage.prompt_tokens + second.usage.prompt_tokens
    assert used["output_tokens"] == first.usage.completion_tokens + second.usage.completion_tokens


async def test_input_tokens_count_the_output_schema_a_model_is_shown(server) -> None:
    # A provider reads a structured-output schema as part of the prompt, as it reads tools.
    key = server.script([Turn.say("{}")] * 4)
    c = client(server)
    messages = [{"role": "system", "content": key}, {"role": "user", "content": "go"}]
    schema = {"name": "opinion", "schema": {**STRICT, "description": "x" * 400}, "strict": True}
    plain = await c.chat.completions.create(model="m", messages=messages)
    shaped = await c.chat.completions.create(
        model="m", messages=messages, response_format={"type": "json_schema", "json_schema": schema}
    )
    assert shaped.usage.prompt_tokens >= plain.usage.prompt_tokens + 100
    items = [{"role": "system", "content": key}, {"role": "user", "content": "go"}]
    bare = await c.responses.create(model="m", input=items)
    formatted = await c.responses.create(
        model="m", input=items, text={"format": {"type": "json_schema", **schema}}
    )
    assert formatted.usage.input_tokens >= bare.usage.input_tokens + 100


async def test_chat_stream_reassembles_and_reports_usage_only_when_asked(server) -> None:
    key = server.script([Turn.call(ToolCall("add", {"a": 7}, id="s1"), text="thinking")])
    c = client(server)
    messages = [{"role": "system", "content": key}, {"role": "user", "content": "go"}]
    for include in (False, True):
        extra: dict[str, Any] = {"stream_options": {"include_usage": True}} if include else {}
        stream = await c.chat.completions.create(
            model="m", messages=messages, tools=[chat_tool()], stream=True, **extra
        )
        text, arguments, usage, finish = "", "", None, None
        async for chunk in stream:
            usage = chunk.usage or usage
            for choice in chunk.choices:
                text += choice.delta.content or ""
                finish = choice.finish_reason or finish
                for call in choice.delta.tool_calls or []:
                    arguments += call.function.arguments or ""
        assert (text, arguments, finish) == ("thinking", '{"a": 7}', "tool_calls")
        assert (usage is not None) is include
    assert usage.prompt_tokens == server.calls()[-1].usage["input_tokens"]


async def test_responses_plain_and_streamed(server) -> None:
    key = server.script([Turn.call(ToolCall("add", {"a": 1}, id="r1")), Turn.echo()])
    c = client(server)
    tools = [{"type": "function", "name": "add", "parameters": STRICT, "strict": True}]
    first = await c.responses.create(model="m", instructions=key, input="go", tools=tools)
    [call] = [o for o in first.output if o.type == "function_call"]
    assert (call.call_id, call.name, call.arguments) == ("r1", "add", '{"a": 1}')
    assert first.usage.input_tokens > 0
    history = [
        {"role": "user", "content": "go"},
        call.model_dump(exclude_none=True),
        {"type": "function_call_output", "call_id": "r1", "output": "result-one"},
    ]
    async with c.responses.stream(model="m", instructions=key, input=history, tools=tools) as s:
        deltas = [e.delta async for e in s if e.type == "response.output_text.delta"]
        final = await s.get_final_response()
    assert final.output_text == "go\nresult-one" == "".join(deltas)
    assert final.usage.output_tokens == server.calls()[-1].usage["output_tokens"]


async def test_the_longest_key_selects_the_script_and_turns_follow_call_ids(server) -> None:
    server.script([Turn.say("short")], key="reviewer")
    server.script(
        [Turn.call(ToolCall("add", {"a": 1}, id="k1")), Turn.say("long")], key="legal reviewer"
    )
    c = client(server)
    system = {"role": "system", "content": "You are the legal reviewer."}
    r = await c.chat.completions.create(
        model="m", messages=[system, {"role": "user", "content": "x"}], tools=[chat_tool()]
    )
    assert r.choices[0].message.tool_calls[0].id == "k1"
    # The same conversation answered in two separate assistant messages still counts as one
    # turn: the call id says which turn it was.
    messages = [
        system,
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": "planning"},
        {"role": "assistant", "tool_calls": [r.choices[0].message.tool_calls[0].model_dump()]},
        {"role": "tool", "tool_call_id": "k1", "content": "1"},
    ]
    r2 = await c.chat.completions.create(model="m", messages=messages, tools=[chat_tool()])
    assert r2.choices[0].message.content == "long"


async def test_parallel_agents_each_get_their_own_turns(server) -> None:
    keys = [server.script([Turn.say(f"agent {i}", delay=0.05)]) for i in range(8)]
    c = client(server)

    async def ask(key: str) -> str:
        r = await c.chat.completions.create(
            model="m",
            messages=[{"role": "system", "content": key}, {"role": "user", "content": "hi"}],
        )
        return r.choices[0].message.content

    assert await asyncio.gather(*map(ask, keys)) == [f"agent {i}" for i in range(8)]


REFUSED = [
    ({"unknown_param": 1}, "Unrecognized request argument supplied: unknown_param"),
    ({"tools": [chat_tool("bad name!")]}, "does not match pattern"),
    ({"tools": [chat_tool(parameters={"type": "string"})]}, 'type: "object"'),
    ({"tools": [chat_tool(f"t{i}") for i in range(129)]}, "maximum length 128"),
    ({"parallel_tool_calls": True}, "only allowed when 'tools' are specified"),
    ({"stream_options": {"include_usage": True}}, "only allowed when 'stream' is enabled"),
    ({"tools": [chat_tool(parameters=ADD, strict=True)]}, "'additionalProperties'"),
    (
        {"tools": [chat_tool(parameters={**STRICT, "required": ["a"]}, strict=True)]},
        "Missing 'b'",
    ),
    (
        {
            "tools": [
                chat_tool(
                    parameters={
                        **STRICT,
                        "properties": {"a": {"type": "integer", "default": 1}, "b": {}},
                    },
                    strict=True,
                )
            ]
        },
        "'default' is not permitted",
    ),
]


@pytest.mark.parametrize(("extra", "message"), REFUSED)
async def test_requests_a_real_endpoint_refuses_get_400(server, extra, message) -> None:
    key = server.script([Turn.say("never")])
    body = {"messages": [{"role": "system", "content": key}, {"role": "user", "content": "x"}]}
    with pytest.raises(openai.BadRequestError) as caught:
        await client(server).chat.completions.create(model="m", **body, extra_body=extra)
    assert message in caught.value.body["message"], caught.value.body
    assert caught.value.body["type"] == "invalid_request_error"
    assert server.requests[-1].status == 400 and server.calls() == []


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ([{"role": "tool", "tool_call_id": "nope", "content": "x"}], "preceeding message"),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c9",
                            "type": "function",
                            "function": {"name": "add", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "user", "content": "and?"},
            ],
            "did not have response messages: c9",
        ),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c8",
                            "type": "function",
                            "function": {"name": "add", "arguments": {}},
                        }
                    ],
                }
            ],
            "expected a string",
        ),
        ([{"role": "tool", "content": None, "tool_call_id": "x"}], "preceeding message"),
        ([{"role": "robot", "content": "x"}], "Supported values"),
    ],
)
async def test_conversations_a_real_endpoint_refuses(server, messages, message) -> None:
    key = server.script([Turn.say("never")])
    full = [{"role": "system", "content": key}, {"role": "user", "content": "x"}, *messages]
    with pytest.raises(openai.BadRequestError) as caught:
        await client(server).chat.completions.create(model="m", messages=full)
    assert message in caught.value.body["message"]


async def test_responses_refuse_an_output_for_no_call_and_a_call_with_no_output(server) -> None:
    key = server.script([Turn.say("never")])
    c = client(server)
    orphan = [{"type": "function_call_output", "call_id": "zz", "output": "x"}]
    with pytest.raises(openai.BadRequestError, match="No tool call found"):
        await c.responses.create(model="m", instructions=key, input=orphan)
    unanswered = [{"type": "function_call", "call_id": "c1", "name": "add", "arguments": "{}"}]
    with pytest.raises(openai.BadRequestError, match="No tool output found"):
        await c.responses.create(model="m", instructions=key, input=unanswered)


async def test_parallel_tool_calls_needs_tools_on_chat_only(server) -> None:
    # Chat Completions refuses it without tools; every Responses response echoes it (default
    # true) and clients send it on tool-less requests (AG2's OpenAIResponsesConfig always).
    key = server.script([Turn.say("fine")])
    c = client(server)
    response = await c.responses.create(
        model="m", instructions=key, input="go", parallel_tool_calls=True
    )
    assert response.output_text == "fine"
    with pytest.raises(openai.BadRequestError, match="only allowed when 'tools'"):
        await c.chat.completions.create(
            model="m",
            messages=[{"role": "system", "content": key}, {"role": "user", "content": "x"}],
            parallel_tool_calls=True,
        )


def test_azure_rules_refuse_default_where_openai_accepts_it() -> None:
    schema = {**STRICT, "properties": {"a": {"type": "integer", "default": 1}, "b": {}}}
    from agent_sdk.scripted.openai_rules import RequestError, check_chat

    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    body["tools"] = [chat_tool(parameters=schema, strict=True)]
    check_chat(body, "openai")
    with pytest.raises(RequestError, match="'default' is not permitted"):
        check_chat(body, "azure")


async def test_keys_models_and_missing_scripts_are_refused_clearly() -> None:
    with ScriptedServer(api_key="sk-right-key", models=["gpt-x"]) as s:
        key = s.script([Turn.say("hello")])
        messages = [{"role": "system", "content": key}, {"role": "user", "content": "x"}]
        with pytest.raises(openai.AuthenticationError, match="Incorrect API key"):
            await client(s, api_key="sk-wrong-key").chat.completions.create(
                model="gpt-x", messages=messages
            )
        good = client(s, api_key="sk-right-key")
        with pytest.raises(openai.NotFoundError, match="does not exist"):
            await good.chat.completions.create(model="gpt-y", messages=messages)
        with pytest.raises(openai.BadRequestError, match="no script for this agent"):
            await good.chat.completions.create(
                model="gpt-x", messages=[{"role": "user", "content": "who am I?"}]
            )
        ok = await good.chat.completions.create(model="gpt-x", messages=messages)
        assert ok.choices[0].message.content == "hello"
        # Azure's deployment paths name the model in the URL.
        request = urllib.request.Request(
            s.url.removesuffix("/v1") + "/openai/deployments/gpt-x/chat/completions",
            data=json.dumps({"messages": messages}).encode(),
            headers={"api-key": "sk-right-key", "content-type": "application/json"},
        )
        answer = await asyncio.to_thread(urllib.request.urlopen, request)
        with answer:
            assert json.load(answer)["model"] == "gpt-x"


async def test_a_script_runs_out_with_a_clear_error(server) -> None:
    key = server.script([Turn.call(ToolCall("add", {"a": 1}, id="o1"))])
    messages = [
        {"role": "system", "content": key},
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "o1", "type": "function", "function": {"name": "add", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "o1", "content": "1"},
    ]
    with pytest.raises(openai.BadRequestError, match="has no turn left"):
        await client(server).chat.completions.create(model="m", messages=messages)


def test_a_client_that_goes_away_leaves_the_server_serving(server) -> None:
    key = server.script([Turn.say("slow", delay=0.3)])
    import httpx

    body = {"model": "m", "messages": [{"role": "system", "content": key}]}
    body["messages"].append({"role": "user", "content": "x"})
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{server.url}/chat/completions", json=body, timeout=0.05)
    answer = httpx.post(f"{server.url}/chat/completions", json=body, timeout=5)
    assert answer.json()["choices"][0]["message"]["content"] == "slow"


def test_closing_ends_answers_still_waiting_out_a_delay() -> None:
    """A client that gave up on a slow turn (a timeout test) leaves a thread sleeping out the
    delay; closing the server wakes it, so no thread outlives the server by 30 s."""
    import httpx

    with ScriptedServer() as server:
        key = server.script([Turn.say("late", delay=30)])
        body = {"model": "m", "messages": [{"role": "system", "content": key}]}
        body["messages"].append({"role": "user", "content": "x"})
        before = set(threading.enumerate())
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{server.url}/chat/completions", json=body, timeout=0.05)
        waiting = [t for t in set(threading.enumerate()) - before if t.is_alive()]
        assert waiting, "the answer is waiting out its delay"
    for thread in waiting:
        thread.join(5)
    assert not any(t.is_alive() for t in waiting), "a delayed answer outlived the server"


def test_endpoint_checks_its_settings_and_hides_the_key(monkeypatch) -> None:
    with pytest.raises(ConfigurationError, match="http"):
        Endpoint("localhost:11434", "llama3")
    with pytest.raises(ConfigurationError, match="api must be"):
        Endpoint("http://x/v1", "m", api="completions")  # type: ignore[arg-type]
    monkeypatch.setenv("MY_KEY", "sk-secret-value")
    endpoint = Endpoint.from_env("http://localhost:11434/v1/", "llama3", api_key_env="MY_KEY")
    assert endpoint.api_key == "sk-secret-value" and endpoint.base_url.endswith("/v1")
    assert "sk-secret" not in repr(endpoint)
    assert endpoint.instructions("Be kind.", [Turn.say("x")]) == "Be kind."  # no scripted server


def test_starting_binds_loopback_on_a_free_port() -> None:
    with ScriptedServer() as a, ScriptedServer() as b:
        assert a.url != b.url
        assert a.url.startswith("http://127.0.0.1:")
    with pytest.raises(RuntimeError, match="not started"):
        _ = a.url
