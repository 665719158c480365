"""The contract-kit harness for minifw (also what ``agent-sdk demo --framework minifw`` runs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_sdk.integration import Harness
from agent_sdk.scripted import RunResult, ScriptedAgent, Turn
from agent_sdk_minifw import minifw_instrument
from agent_sdk_minifw.framework import Agent


class MiniHarness(Harness):
    """export_tool and export_agent_tool are the base's (``minifw_tool`` and
    ``minifw_agent_tool`` on ``native_agent``); minifw has no HTTP client, so no
    ``endpoint_model``, and no approval pause of its own, so ``native_pause`` and
    ``native_child_pause`` stay False (the kit skips its native C7 and C15 cases, naming the
    flag; a child's approvals are decided by the gate inside the child)."""

    integration = "minifw"

    def advertised(self, tool: Any) -> dict[str, Any]:
        return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}

    def native_agent(self, agent: ScriptedAgent) -> Agent:
        return Agent(agent.name, agent.turns, agent.tools)

    async def run(self, tools: Sequence[Any], turns: Sequence[Turn]) -> RunResult:
        agent = minifw_instrument(Agent("orchestrator", turns, tools))
        session = await agent.run("start")
        return RunResult(
            results=session.results,
            final_text=session.final_text,
            run_id=session.id,
            thread_id=session.id,
            exceptions=session.exceptions,
            events=session.messages,
        )
