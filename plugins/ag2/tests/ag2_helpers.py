"""Small helpers shared by the AG2 plugin tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ag2 import Agent, MemoryStream
from ag2.events import ToolErrorEvent, ToolResultsEvent

from agent_sdk import ToolSpec
from agent_sdk.testing import SeenResult, ToolCall, Turn
from agent_sdk_ag2.testing import ScriptedConfig, seen_results


def transfer_spec(calls: list[dict[str, Any]], *, confirm: Any = True) -> ToolSpec:
    async def transfer(amount: int, to: str) -> str:
        calls.append({"amount": amount, "to": to})
        return f"sent {amount} to {to}"

    return ToolSpec(
        name="transfer",
        description="Send money.",
        handler=transfer,
        input_schema={
            "type": "object",
            "properties": {"amount": {"type": "integer"}, "to": {"type": "string"}},
            "required": ["amount", "to"],
        },
        confirm=confirm,
    )


async def run_agent(
    tools: Sequence[Any], turns: Sequence[Turn], **agent_kwargs: Any
) -> tuple[Any, list[SeenResult], list[Any]]:
    """Run an AG2 agent with a scripted model; (reply, results the model saw, events)."""
    stream = MemoryStream()
    agent = Agent("orchestrator", config=ScriptedConfig(turns), tools=list(tools), **agent_kwargs)
    reply = await agent.ask("start", stream=stream)
    events = await stream.history.get_events()
    return reply, seen_results(events), list(events)


def error_events(events: Sequence[Any]) -> list[ToolErrorEvent]:
    return [
        r
        for e in events
        if isinstance(e, ToolResultsEvent)
        for r in e.results
        if isinstance(r, ToolErrorEvent)
    ]


def kind(text: str) -> str | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value.get("error", {}).get("kind") if isinstance(value, dict) else None


def call(name: str, arguments: Any = None, id: str | None = None) -> ToolCall:
    if id is None:
        return ToolCall(name, arguments if arguments is not None else {})
    return ToolCall(name, arguments if arguments is not None else {}, id=id)
