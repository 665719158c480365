"""AG2-specific behaviour of ag2_tool: integration, schema, errors, copies, middleware."""

from __future__ import annotations

import asyncio
import copy
import importlib.metadata as md
import json
from typing import Any

import pytest
from ag2 import Agent, MemoryStream
from ag2.context import ConversationContext
from ag2.events import ToolCallEvent
from ag2.testing import TestConfig, TrackingConfig
from ag2_helpers import call, error_events, kind, run_agent, transfer_spec

import agent_sdk_ag2
from agent_sdk import (
    AutoApprove,
    CallContext,
    ConfigurationError,
    IntegrationError,
    Registry,
    ToolSpec,
    get_integration,
    run_scope,
)
from agent_sdk.testing import Turn
from agent_sdk_ag2 import INTEGRATION, ag2_tool, ag2_tools
from agent_sdk_ag2._integration import AG2Integration


def _lookup_spec(schema: dict[str, Any]) -> ToolSpec:
    async def lookup(q: str) -> str:
        return f"found {q}"

    return ToolSpec(name="lookup", description="Look up.", handler=lookup, input_schema=schema)


# -- the integration -----------------------------------------------------------------------
def test_entry_point_gives_the_same_integration() -> None:
    assert get_integration("ag2") is INTEGRATION
    assert INTEGRATION.framework == "ag2" and INTEGRATION.supported == ">=1.2,<2"
    assert INTEGRATION.bind_approval(AutoApprove()) is None
    assert type(INTEGRATION.load_harness()).__name__ == "AG2Harness"


def test_bind_context_from_event_pair_and_tool_context() -> None:
    stream = MemoryStream()
    event = ToolCallEvent("lookup", arguments="{}", id="call_bind")
    context = ConversationContext(stream=stream)
    pair = INTEGRATION.bind_context((event, context))
    assert (pair.call_id, pair.run_id, pair.thread_id) == (
        "call_bind",
        str(stream.id),
        str(stream.id),
    )
    alone = INTEGRATION.bind_context(event)
    assert alone.call_id == "call_bind" and alone.thread_id is None
    tool_ctx = INTEGRATION.bind_context(ConversationContext(stream=stream, tool_call_id="call_fn"))
    assert tool_ctx.call_id == "call_fn" and tool_ctx.run_id == str(stream.id)
    with pytest.raises(IntegrationError):
        INTEGRATION.bind_context(object())


def test_bind_context_inside_a_run_scope_takes_the_scope_run_id() -> None:
    event = ToolCallEvent("lookup", arguments="{}", id="call_scoped")
    context = ConversationContext(stream=MemoryStream())
    with run_scope("run-scoped"):
        ctx = INTEGRATION.bind_context((event, context))
    assert ctx.run_id == "run-scoped" and ctx.thread_id == str(context.stream.id)


def test_ag2_outside_the_supported_range_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = md.version
    monkeypatch.setattr(md, "version", lambda d: "0.9.9" if d == "ag2" else real(d))
    # INTEGRATION checked AG2 once already and keeps the answer: ag2_tool is a new one's .tool
    unchecked = AG2Integration()
    with pytest.raises(IntegrationError, match=r"ag2 >=1\.2,<2.*0\.9\.9"):
        unchecked.tool(_lookup_spec({"type": "object", "properties": {"q": {"type": "string"}}}))
    with pytest.raises(IntegrationError, match=r"ag2 >=1\.2,<2.*0\.9\.9"):
        unchecked.agent_tool(Agent("a", config=TestConfig("x")))


def test_ag2_without_what_the_plugin_reads_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import ag2.events

    monkeypatch.delattr(ag2.events, "ToolResultsEvent")
    with pytest.raises(IntegrationError, match=r"lacks ag2\.events:ToolResultsEvent"):
        AG2Integration().tool(
            _lookup_spec({"type": "object", "properties": {"q": {"type": "string"}}})
        )


def test_a_function_that_cannot_be_a_tool_is_refused_at_configuration_time() -> None:
    with pytest.raises(ConfigurationError, match="tool name '<lambda>' is invalid"):
        ag2_tool(lambda: None)
    with pytest.raises(ConfigurationError, match="a ToolSpec or a function"):
        ag2_tool(42)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"unknown option\(s\) strict"):
        INTEGRATION.tool(_lookup_spec({"type": "object"}), strict=True)


# -- schema --------------------------------------------------------------------------------
async def test_the_model_is_sent_the_neutral_schema_without_its_title() -> None:
    schema = {
        "title": "LookupArgs",
        "type": "object",
        "properties": {"q": {"type": "string", "title": "Query", "description": "what"}},
        "required": ["q"],
    }
    original = copy.deepcopy(schema)
    tool = ag2_tool(_lookup_spec(schema))
    model = TrackingConfig(TestConfig("done"))
    await Agent("a", config=model, tools=[tool]).ask("hi")
    sent = model.calls[0].tools[0].function
    expected = copy.deepcopy(original)
    del expected["title"]
    assert (sent.name, sent.description, sent.parameters) == ("lookup", "Look up.", expected)
    assert schema == original, "the caller's schema dict must not lose its title"


def test_ag2_tools_exports_every_registry_tool_with_one_executor() -> None:
    registry = Registry()

    @registry.tool
    async def ping() -> str:
        """Ping."""
        return "pong"

    @registry.tool
    async def echo(text: str) -> str:
        """Echo."""
        return text

    tools = ag2_tools(registry)
    assert [t.name for t in tools] == ["ping", "echo"]
    assert tools[0].executor is tools[1].executor
    assert tools[0].executor.registry is registry


# -- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize("arguments", ["[1, 2]", "not json", '{"q": 1, "q": 2}'])
async def test_arguments_that_are_not_a_json_object_give_a_tool_error_event(arguments: str) -> None:
    tool = ag2_tool(_lookup_spec({"type": "object", "properties": {"q": {"type": "string"}}}))
    c = call("lookup", arguments)
    _, results, events = await run_agent([tool], [Turn.call(c), Turn.say("done")])
    [seen] = results
    assert seen.is_error is True and kind(seen.text) == "tool-args-invalid"
    [event] = error_events(events)
    assert (
        event.parent_id == c.id and getattr(event.error, "kind", None).value == "tool-args-invalid"
    )


async def test_a_failure_reaches_the_model_as_json_and_the_host_as_the_exception() -> None:
    async def explode() -> str:
        raise KeyError("ledger-7")

    spec = ToolSpec(
        name="explode", description="Fails.", handler=explode, input_schema={"type": "object"}
    )
    reply, results, events = await run_agent(
        [ag2_tool(spec)], [Turn.call(call("explode")), Turn.say("ok")]
    )
    [seen] = results
    assert json.loads(seen.text)["error"]["kind"] == "tool-failed"
    assert "Traceback" not in seen.text and "ledger-7" in seen.text
    [event] = error_events(events)
    assert isinstance(event.error, KeyError), "ToolErrorEvent.error is the original exception"
    assert reply.body == "ok"


async def test_ag2_test_config_default_reraises_the_original_exception() -> None:
    # AG2's TestConfig(raise_tool_errors=True) re-raises a ToolErrorEvent's error out of
    # ask(): what escapes is the handler's own exception (not a traceback string or our
    # wrapper). Real providers, and ScriptedConfig, hand the JSON error to the model.
    async def explode() -> str:
        raise KeyError("ledger-8")

    spec = ToolSpec(
        name="explode", description="Fails.", handler=explode, input_schema={"type": "object"}
    )
    model = TestConfig(ToolCallEvent("explode", arguments="{}"), "unreachable")
    with pytest.raises(KeyError, match="ledger-8"):
        await Agent("a", config=model, tools=[ag2_tool(spec)]).ask("go")


async def test_cancelled_error_raised_by_a_handler_propagates() -> None:
    async def cancel_me() -> str:
        raise asyncio.CancelledError

    spec = ToolSpec(
        name="cancel_me", description="C.", handler=cancel_me, input_schema={"type": "object"}
    )
    with pytest.raises(asyncio.CancelledError):
        await run_agent([ag2_tool(spec)], [Turn.call(call("cancel_me")), Turn.say("never")])


# -- copies and middleware -----------------------------------------------------------------
class CountingMiddleware:
    def __init__(self) -> None:
        self.seen = 0

    async def __call__(self, call_next: Any, event: Any, context: Any) -> Any:
        self.seen += 1
        return await call_next(event, context)


def test_copies_share_spec_executor_and_gate_but_copy_user_middleware() -> None:
    counting = CountingMiddleware()
    tool = ag2_tool(transfer_spec([]), approval=AutoApprove(), middleware=[counting])
    clone = copy.deepcopy(tool)
    assert clone is not tool
    assert clone.spec is tool.spec and clone.executor is tool.executor
    assert clone._gate is tool._gate
    assert len(clone.middleware) == 1, "the gate is not middleware: the tool asks it"
    assert clone.middleware[0].middleware is not counting, "user middleware is copied, as AG2 does"
    assert clone.schema == tool.schema and clone.schema is not tool.schema
    tool.note = ["state kept outside the slots"]  # type: ignore[attr-defined]
    again = copy.deepcopy(tool)
    assert again.note == tool.note and again.note is not tool.note  # type: ignore[attr-defined]


async def test_user_middleware_runs_outside_the_gate_and_the_port_sees_what_runs() -> None:
    order: list[str] = []
    calls: list[dict[str, Any]] = []

    async def rewrite(call_next: Any, event: Any, context: Any) -> Any:
        order.append("rewrite")
        event.serialized_arguments = {"amount": 1, "to": "carol"}
        return await call_next(event, context)

    class Port:
        async def request(self, tool: str, arguments: dict[str, Any], **_: Any) -> Any:
            from agent_sdk import Decision

            order.append(f"port {arguments}")
            return Decision.approve()

    tool = ag2_tool(transfer_spec(calls), approval=Port(), middleware=[rewrite])
    c = call("transfer", {"amount": 900, "to": "mallory"})
    _, results, _ = await run_agent([tool], [Turn.call(c), Turn.say("done")])
    assert order == ["rewrite", "port {'amount': 1, 'to': 'carol'}"]
    assert calls == [{"amount": 1, "to": "carol"}]
    assert results[0].text == "sent 1 to carol"


async def test_the_handler_gets_the_call_id_and_the_stream_id() -> None:
    seen: list[CallContext] = []

    async def who(ctx: CallContext) -> str:
        seen.append(ctx)
        return "me"

    spec = ToolSpec(name="who", description="Who.", handler=who, input_schema={"type": "object"})
    c = call("who")
    stream = MemoryStream()
    agent = Agent(
        "a",
        config=agent_sdk_ag2.testing.ScriptedConfig([Turn.call(c), Turn.say("ok")]),
        tools=[ag2_tool(spec)],
    )
    await agent.ask("go", stream=stream)
    [ctx] = seen
    assert (ctx.call_id, ctx.run_id, ctx.thread_id) == (c.id, str(stream.id), str(stream.id))
    assert ctx.token is None and ctx.path == ()
