"""Function tools (explicit schemas) and the turn-level gate for fast-agent's own tools."""

from __future__ import annotations

from typing import Any

import pytest
from fast_agent.tools.function_tool_loader import build_default_function_tool

from agent_sdk import ConfigurationError, Decision, DeferredApproval, Executor, ToolSpec
from agent_sdk.approval import ApprovalRequest
from agent_sdk.hookspecs import hookimpl
from agent_sdk.plugins import register_plugin, unregister_plugin
from agent_sdk.testing import ToolCall, Turn
from agent_sdk.testing.contract import CountingPort, Recorder, error_of
from agent_sdk_fast_agent import INTEGRATION, ToolGate, fast_agent_instrument, fast_agent_tool

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["C", "F"], "default": "C"},
    },
    "required": ["city"],
    "additionalProperties": False,
}


def results(agent: Any) -> dict[str, tuple[str, bool]]:
    out = {}
    for message in agent.last_turn_messages:
        for call_id, result in (message.tool_results or {}).items():
            out[call_id] = ("".join(b.text for b in result.content), bool(result.is_error))
    return out


async def test_explicit_schema_is_advertised_and_the_spec_validates(app: Any) -> None:
    seen: list[dict[str, Any]] = []

    async def weather(**arguments: Any) -> str:  # no signature fastmcp could validate against
        seen.append(arguments)
        return f"{arguments['city']}: 21 {arguments['unit']}"

    spec = ToolSpec(
        name="weather", description="Weather by city.", handler=weather, input_schema=WEATHER
    )
    calls = [
        ToolCall("weather", {"city": "Paris"}, id="w1"),
        ToolCall("weather", {"city": "Oslo", "unit": "K"}, id="w2"),
        ToolCall("weather", {"town": "Rome"}, id="w3"),
    ]
    async with app({"orch": [Turn.call(*calls), Turn.say("done")]}) as fa:
        agent = fast_agent_instrument(fa.orch, tools=[fast_agent_tool(spec)])
        (listed,) = (await agent.list_tools()).tools
        assert listed.input_schema == WEATHER and listed.description == "Weather by city."
        await agent.send("go")
        out = results(agent)
    assert out["w1"] == ("Paris: 21 C", False)
    for bad in ("w2", "w3"):
        err = error_of(out[bad][0])
        assert err is not None and err["kind"] == "tool-args-invalid" and out[bad][1]
    assert seen == [{"city": "Paris", "unit": "C"}]


async def test_replacing_parameters_of_a_plain_fastmcp_tool_is_not_enough(app: Any) -> None:
    """The trap we avoid: fastmcp validates against the Python signature, not ``parameters``."""

    async def weather(town: str) -> str:
        return town

    plain = build_default_function_tool(weather, name="weather", description="Weather by city.")
    plain.parameters = WEATHER
    async with app(
        {"orch": [Turn.call(ToolCall("weather", {"city": "Paris"}, id="p1")), Turn.say("done")]}
    ) as fa:
        fa.orch.add_tool(plain)
        await fa.orch.send("go")
        text, is_error = results(fa.orch)["p1"]
    assert is_error and text.startswith("Error:") and error_of(text) is None


def _native_weather() -> Any:
    async def local_weather(city: str) -> str:
        return f"{city}: sunny"

    return build_default_function_tool(local_weather, name="local_weather", description="Weather.")


async def test_the_gate_asks_about_fast_agents_own_tools_and_denials_are_tool_errors(
    app: Any,
) -> None:
    async def reviewer(tool: str, arguments: dict[str, Any], **kw: Any) -> Decision:
        asked.append((tool, arguments, kw["call_id"]))
        return Decision(
            arguments.get("message") != "secret" and arguments.get("city") != "Atlantis"
        )

    asked: list[tuple[str, dict[str, Any], str]] = []
    port = CountingPort()
    port.request = reviewer  # type: ignore[method-assign]
    rec = Recorder()
    calls = [
        ToolCall("agent__helper", {"message": "public"}, id="h1"),
        ToolCall("agent__helper", {"message": "secret"}, id="h2"),
        ToolCall("local_weather", {"city": "Paris"}, id="l1"),
        ToolCall("local_weather", {"city": "Atlantis"}, id="l2"),
        ToolCall("add", {"a": 1, "b": 2}, id="a1"),
    ]
    scripts = {"orch": [Turn.call(*calls), Turn.say("done")], "helper": [Turn.echo()]}
    async with app(scripts, options={"orch": {"agents": ["helper"]}}) as fa:
        fa.orch.add_tool(_native_weather())
        agent = fast_agent_instrument(
            fa.orch, tools=[fast_agent_tool(rec.add_spec())], gate=INTEGRATION.bind_approval(port)
        )
        assert await agent.send("go") == "done", "denials must not end the turn"
        out = results(agent)
    assert sorted(call_id for *_, call_id in asked) == ["h1", "h2", "l1", "l2"], (
        "agent-sdk tools gate themselves"
    )
    assert out["h1"] == ("public", False) and out["l1"] == ("Paris: sunny", False)
    for denied in ("h2", "l2"):
        err = error_of(out[denied][0])
        assert out[denied][1] and err is not None and err["kind"] == "approval-denied"
    assert out["a1"] == ("3", False) and rec.calls == [{"a": 1, "b": 2}]


async def test_the_gate_reports_pending_and_edited_approvals(app: Any) -> None:
    deferred = DeferredApproval()
    calls = [ToolCall("local_weather", {"city": "Paris"}, id="d1")]
    async with app({"orch": [Turn.call(*calls), Turn.say("done")]}) as fa:
        fa.orch.add_tool(_native_weather())
        fast_agent_instrument(fa.orch, gate=ToolGate(deferred, confirm={"local_weather"}))
        await fa.orch.send("go")
        text, is_error = results(fa.orch)["d1"]
    assert is_error and "approval required: apr_" in text
    assert [p.tool for p in deferred.pending()] == ["local_weather"]

    editing = CountingPort(Decision(True, arguments={"city": "Rome"}))
    async with app({"orch": [Turn.call(*calls), Turn.say("done")]}) as fa:
        fa.orch.add_tool(_native_weather())
        fast_agent_instrument(
            fa.orch, gate=ToolGate(editing, confirm=lambda name, args: name == "local_weather")
        )
        await fa.orch.send("go")
        text, is_error = results(fa.orch)["d1"]
    assert is_error and error_of(text)["kind"] == "approval-denied"  # type: ignore[index]


async def test_a_failing_reviewer_denies(app: Any) -> None:
    class Broken:
        async def request(self, *args: Any, **kwargs: Any) -> Decision:
            raise RuntimeError("reviewer offline")

    async with app(
        {"orch": [Turn.call(ToolCall("local_weather", {"city": "X"}, id="f1")), Turn.say("done")]}
    ) as fa:
        fa.orch.add_tool(_native_weather())
        fast_agent_instrument(fa.orch, gate=ToolGate(Broken()))
        await fa.orch.send("go")
        text, is_error = results(fa.orch)["f1"]
    assert is_error and error_of(text)["kind"] == "approval-denied" and "reviewer offline" in text  # type: ignore[index]


def test_gate_and_orchestrate_configuration_errors() -> None:
    with pytest.raises(ConfigurationError):
        ToolGate(object())  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        fast_agent_instrument(object(), gate=CountingPort())  # type: ignore[arg-type]


async def test_non_object_arguments_are_answered_for_our_tools_only(app: Any) -> None:
    rec = Recorder()
    calls = [ToolCall("add", "[1, 2]", id="r1"), ToolCall("add", {"a": 2, "b": 2}, id="r2")]
    async with app({"orch": [Turn.call(*calls), Turn.say("done")]}) as fa:
        agent = fast_agent_instrument(
            fa.orch, tools=[fast_agent_tool(rec.add_spec(), executor=Executor())]
        )
        await agent.send("go")
        out = results(agent)
    assert error_of(out["r1"][0])["kind"] == "tool-args-invalid" and out["r1"][1]  # type: ignore[index]
    assert out["r2"] == ("4", False) and rec.calls == [{"a": 2, "b": 2}]


class _DenyWeather:
    @hookimpl
    def agent_sdk_approval_policy(self, request: ApprovalRequest) -> bool | None:
        return False if request.tool == "local_weather" else None


async def test_the_gate_asks_the_approval_policies_first(app: Any) -> None:
    port = CountingPort(True)
    policy = _DenyWeather()
    register_plugin(policy, name="deny-weather")
    try:
        async with app(
            {"orch": [Turn.call(ToolCall("local_weather", {"city": "X"}, id="p1")), Turn.say("ok")]}
        ) as fa:
            fa.orch.add_tool(_native_weather())
            fast_agent_instrument(fa.orch, gate=INTEGRATION.bind_approval(port))
            await fa.orch.send("go")
            text, is_error = results(fa.orch)["p1"]
    finally:
        unregister_plugin(policy)
    assert is_error and "denied by an approval policy" in text and port.requests == []
