"""``Integration.agent_tool_spec``: the ToolSpec every integration's native agent tool wraps,
the same name, description and schema, and a sub-agent when the core executor runs it (as
an MCP server or a Registry does, with no framework loop around it)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from agent_sdk import ConfigurationError, Executor
from agent_sdk.context import current_context
from agent_sdk.integration import Integration
from agent_sdk.plugins import ENV_NO_AUTOLOAD, integrations, reset_plugins
from agent_sdk.scripted import ScriptedAgent, ToolCall, Turn
from agent_sdk.spec import ToolSpec
from agent_sdk.testing.recording import recording_spans
from agent_sdk.tracing import semconv as sc


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Integration]]:
    """The installed integrations with a harness (the core tests load none by default)."""
    monkeypatch.delenv(ENV_NO_AUTOLOAD, raising=False)
    reset_plugins()
    found = [i for i in integrations() if i.harness]
    yield found
    monkeypatch.setenv(ENV_NO_AUTOLOAD, "1")
    reset_plugins()


def test_each_integrations_spec_is_what_its_agent_tool_wraps(installed: list[Integration]) -> None:
    assert installed, "no integration with a harness is installed"
    for integration in installed:
        harness = integration.load_harness()
        agent = harness.native_agent(ScriptedAgent("legal", [Turn.say("clause 4 is void")]))
        keywords = {"name": "legal_review", "description": "Ask legal."}
        options = harness.agent_tool_options()
        spec = integration.agent_tool_spec(agent, **keywords, **options)
        seen = harness.advertised(integration.agent_tool(agent, **keywords, **options))
        assert (seen["name"], seen["description"]) == (spec.name, spec.description), (
            integration.name
        )
        assert seen["parameters"] == harness.expected_schema(spec), integration.name
        assert "agent" in spec.tags, integration.name


def test_each_integrations_spec_runs_its_agent_as_a_sub_agent(
    installed: list[Integration],
) -> None:
    """The spec runs through the core executor alone. It is called from a plain tool of the
    harness's own run, as a server would call it: some frameworks' agents exist only inside
    their app's run (fast-agent)."""
    for integration in installed:
        harness = integration.load_harness()
        agent = harness.native_agent(ScriptedAgent("legal", [Turn.say("clause 4 is void")]))
        spec = integration.agent_tool_spec(agent, name="legal", **harness.agent_tool_options())
        seen: list[str | None] = []
        call = ToolCall("ask_legal", {"question": "is clause 4 valid?"})
        turns = [Turn.call(call), Turn.say("done")]
        with recording_spans() as exporter:
            result = asyncio.run(harness.run([integration.tool(relay(spec, seen))], turns))
        assert result.result(call.id).text == "clause 4 is void", integration.name
        (child,) = [s for s in exporter.get_finished_spans() if s.name == "invoke_agent legal"]
        attrs = dict(child.attributes or {})
        assert attrs.get(sc.PATH) == "legal", integration.name
        assert seen[0] is not None and attrs.get(sc.RUN_ID) == seen[0], integration.name


def relay(spec: ToolSpec, run_ids: list[str | None]) -> ToolSpec:
    """A plain tool that asks the agent of ``spec`` through the core executor."""

    async def ask_legal(question: str) -> str:
        """Ask legal."""
        outcome = await Executor().run_spec(spec, {"request": question})
        ctx = current_context()
        run_ids.append(ctx.run_id if ctx else None)
        return outcome.text

    return ToolSpec.coerce(ask_legal)


def test_the_spec_takes_the_agent_tools_rules(installed: list[Integration]) -> None:
    for integration in installed:
        harness = integration.load_harness()
        agent = harness.native_agent(ScriptedAgent("legal", [Turn.say("ok")]))
        with pytest.raises(ConfigurationError, match="no_such_option"):
            integration.agent_tool_spec(agent, no_such_option=1)
        with pytest.raises(ConfigurationError, match="history"):
            integration.agent_tool_spec(agent, history="nonsense")
        spec = integration.agent_tool_spec(agent, name="Ask-Legal", **harness.agent_tool_options())
        assert spec.name == "Ask-Legal"
