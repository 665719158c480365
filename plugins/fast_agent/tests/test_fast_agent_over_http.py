"""fast-agent over HTTP: the contract kit with every agent on fast-agent's own OpenAI
providers (``generic.<model>``: Chat Completions, ``responses.<model>``: Responses) against
the SDK's scripted server, and the traps found there.

fast-agent streams every model call (it has no non-streaming client), so the kit runs the
streamed modes only; ``test_fast_agent_streams_even_when_the_endpoint_says_not_to`` shows
what a ``stream=False`` endpoint gets.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fast_agent.tools.function_tool_loader import build_default_function_tool
from pydantic import BaseModel

from agent_sdk import Executor, ToolSpec
from agent_sdk.scripted.server import ScriptedServer
from agent_sdk.testing import ScriptedAgent, ToolCall, Turn
from agent_sdk.testing.contract import Recorder, error_of
from agent_sdk.testing.over_http import HttpContractSuite
from agent_sdk_fast_agent._arguments import RAW_ARGUMENTS
from agent_sdk_fast_agent.testing import FastAgentHarness

APIS = ["chat", "responses"]


class TestFastAgentContractOverHttp(HttpContractSuite):
    harness_class = FastAgentHarness
    streams = (True,)  # fast-agent has no non-streaming client


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


def harness_for(server: ScriptedServer, api: str, *, stream: bool = True) -> FastAgentHarness:
    return FastAgentHarness(server.endpoint(api=api, stream=stream))  # type: ignore[arg-type]


def no_refusals(server: ScriptedServer) -> None:
    refused = [(r.status, r.error) for r in server.requests if r.status != 200]
    assert not refused, refused


class Payment:
    """A transfer tool whose only required field is the amount: ``{"amount": 10`` (cut from
    ``{"amount": 10000}``) completed by a lenient parser is a valid call for 10."""

    def __init__(self) -> None:
        self.paid: list[int] = []

    def spec(self) -> ToolSpec:
        class PayArgs(BaseModel):
            amount: int

        async def pay(amount: int) -> str:
            self.paid.append(amount)
            return f"paid {amount}"

        return ToolSpec(name="pay", description="Pay an amount.", handler=pay, input_model=PayArgs)


def sent_arguments_of(server: ScriptedServer, call_id: str) -> list[str]:
    """The argument text of call ``call_id`` as later requests replayed it to the model."""
    seen: list[str] = []
    for record in server.calls():
        body = record.body
        if record.api == "responses":
            seen += [
                i["arguments"]
                for i in body["input"]
                if isinstance(i, dict) and i.get("type") == "function_call"
                if i["call_id"] == call_id
            ]
        else:
            seen += [
                c["function"]["arguments"]
                for m in body["messages"]
                for c in m.get("tool_calls") or []
                if c["id"] == call_id
            ]
    return seen


# -- trap 1: lenient argument parsing ---------------------------------------------------------
@pytest.mark.parametrize("api", APIS)
def test_truncated_arguments_never_run_the_tool(server: ScriptedServer, api: str) -> None:
    """Chat Completions: fast-agent's from_json(allow_partial=True) would complete
    ``{"amount": 10`` to ``{"amount": 10}`` and pay 10; Responses would raise and end the run."""
    payment = Payment()
    harness = harness_for(server, api)
    tool = harness.export_tool(payment.spec(), executor=Executor())
    call = ToolCall("pay", '{"amount": 10')
    result = asyncio.run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
    assert payment.paid == []
    err = error_of(result.result(call.id).text)
    assert err is not None and err["kind"] == "tool-args-invalid", result.result(call.id).text
    assert "not valid JSON" in err["message"]
    assert result.final_text == "done"
    # The model is shown the text it sent, not a repaired call.
    replayed = sent_arguments_of(server, call.id)
    assert replayed and all(json.loads(t) == {RAW_ARGUMENTS: '{"amount": 10'} for t in replayed)
    no_refusals(server)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("arguments", ['{"amount": 10', "not json", "[1, 2]", '"text"'])
def test_fast_agents_own_tools_never_run_on_unparsed_arguments(
    server: ScriptedServer, api: str, arguments: str
) -> None:
    """A plain fast-agent function tool in an orchestrated agent: every field optional, so
    fastmcp would run it with defaults on any object; the call gets tool-args-invalid."""
    ran: list[int] = []

    def refund(amount: int = 0) -> str:
        ran.append(amount)
        return f"refunded {amount}"

    native = build_default_function_tool(refund, name="refund", description="Refund.")
    harness = harness_for(server, api)
    call = ToolCall("refund", arguments)
    result = asyncio.run(harness.run([native], [Turn.call(call), Turn.say("done")]))
    assert ran == []
    seen = result.result(call.id)
    err = error_of(seen.text)
    assert err is not None and err["kind"] == "tool-args-invalid", seen.text
    assert seen.is_error is True
    assert result.final_text == "done"
    no_refusals(server)


@pytest.mark.parametrize("api", APIS)
def test_tools_of_a_child_agent_get_tool_args_invalid(server: ScriptedServer, api: str) -> None:
    """The clones our agent tools run parse strictly too: the child's own tool call with
    truncated JSON is refused, the child goes on and answers."""
    payment = Payment()
    ran: list[int] = []

    def refund(amount: int = 0) -> str:
        ran.append(amount)
        return "refunded"

    harness = harness_for(server, api)
    pay = harness.export_tool(payment.spec(), executor=Executor())
    native = build_default_function_tool(refund, name="refund", description="Refund.")
    inner = [ToolCall("pay", '{"amount": 10'), ToolCall("refund", "not json")]
    child = harness.export_agent_tool(
        ScriptedAgent("cashier", [Turn.call(*inner), Turn.say("cashier done")], tools=[pay, native])
    )
    name = str(harness.advertised(child)["name"])
    call = ToolCall(name, {"request": "pay bob"})
    result = asyncio.run(harness.run([child], [Turn.call(call), Turn.say("done")]))
    assert payment.paid == [] and ran == []
    assert result.result(call.id).text == "cashier done"
    assert result.final_text == "done"
    wire = {r.call_id: r.text for r in server.tool_results()}
    for inner_call in inner:
        err = error_of(wire[inner_call.id])
        assert err is not None and err["kind"] == "tool-args-invalid", wire[inner_call.id]
    no_refusals(server)


@pytest.mark.parametrize("api", APIS)
def test_a_marker_the_model_sends_itself_is_validated_as_sent(
    server: ScriptedServer, api: str
) -> None:
    """Only text that is not a JSON object is taken for raw arguments: a model that sends
    the marker key with an object inside does not get that object run."""
    rec = Recorder()
    harness = harness_for(server, api)
    tool = harness.export_tool(rec.add_spec(), executor=Executor())
    call = ToolCall("add", {RAW_ARGUMENTS: '{"a": 1, "b": 2}'})
    result = asyncio.run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
    assert rec.calls == []
    err = error_of(result.result(call.id).text)
    assert err is not None and err["kind"] == "tool-args-invalid"
    assert result.final_text == "done"


# -- trap 2: a cancelled model call returns instead of raising ------------------------------
@pytest.mark.parametrize("api", APIS)
def test_cancelling_a_run_during_a_model_call_raises(
    server: ScriptedServer, api: str, spans: Any
) -> None:
    """fast-agent's OpenAI providers catch CancelledError during a model call and return an
    empty reply (stop reason ``cancelled``); the cancelled run must end cancelled, and so
    must the call's chat span (not an OK span with finish reason ``cancelled``)."""
    harness = harness_for(server, api)

    async def main() -> Any:
        task = asyncio.create_task(harness.run([], [Turn.say("late", delay=5)]))
        for _ in range(2000):  # until the model call is on the wire
            if server.requests or task.done():
                break
            await asyncio.sleep(0.005)
        assert server.requests, "the model was never called"
        task.cancel()
        return await asyncio.gather(task, return_exceptions=True)

    (outcome,) = asyncio.run(main())
    assert isinstance(outcome, asyncio.CancelledError), f"the run returned {outcome!r}"
    (chat,) = [s for s in spans.get_finished_spans() if s.name.startswith("chat ")]
    assert chat.attributes["error.type"] == "cancelled"
    assert chat.attributes["agent_sdk.outcome"] == "cancelled"
    assert chat.status.status_code.name == "ERROR"


# -- streaming and usage -----------------------------------------------------------------------
@pytest.mark.parametrize("api", APIS)
def test_fast_agent_streams_even_when_the_endpoint_says_not_to(
    server: ScriptedServer, api: str
) -> None:
    """fast-agent has no non-streaming client: a ``stream=False`` endpoint still gets
    streamed calls, and Chat Completions ask for usage on the stream."""
    harness = harness_for(server, api, stream=False)
    result = asyncio.run(harness.run([], [Turn.say("done")]))
    assert result.final_text == "done"
    (record,) = server.calls()
    assert record.body["stream"] is True
    if api == "chat":
        assert record.body["stream_options"] == {"include_usage": True}


# -- configuration -----------------------------------------------------------------------------
@pytest.mark.parametrize("api", APIS)
def test_the_endpoint_not_the_environment_decides(
    api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The harness configures the app's own provider settings: base URLs and keys in the
    environment neither redirect the agents nor replace the endpoint's key."""
    for var in ("OPENAI_API_KEY", "GENERIC_API_KEY", "RESPONSES_API_KEY"):
        monkeypatch.setenv(var, "sk-from-the-environment")
    for var in ("OPENAI_BASE_URL", "GENERIC_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.setenv(var, "http://127.0.0.1:9/v1")
    with ScriptedServer(api_key="sk-the-endpoints-key") as keyed:
        harness = harness_for(keyed, api)
        result = asyncio.run(harness.run([], [Turn.say("done")]))
        assert result.final_text == "done"
        assert [r.status for r in keyed.requests] == [200]


def test_the_parsers_replaced_per_instance_exist_in_fast_agent() -> None:
    """``strict_arguments`` replaces these by name on one LLM instance; if fast-agent renames
    them the lenient parsing comes back, so fail here first."""
    from fast_agent.llm.provider.openai.llm_openai import OpenAILLM
    from fast_agent.llm.provider.openai.responses import ResponsesLLM

    assert callable(OpenAILLM._openai_requested_tool_calls)
    assert callable(ResponsesLLM._tool_call_arguments)
