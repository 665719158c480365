"""The contract-kit harness for minifw (also what ``agent-sdk demo --framework minifw`` runs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_sdk import ApprovalPort, Executor, ReturnMode, ToolSpec
from agent_sdk.integration import Harness
from agent_sdk.scripted import RunResult, ScriptedAgent, Turn
from agent_sdk_minifw import minifw_agent_tool, minifw_instrument, minifw_tool
from agent_sdk_minifw.framework import Agent


class MiniHarness(Harness):
    integration = "minifw"

    def export_tool(
        self, spec: ToolSpec, *, executor: Executor, approval: ApprovalPort | None = None
    ) -> Any:
        return minifw_tool(spec, executor=executor, approval=approval)

    def advertised(self, tool: Any) -> dict[str, Any]:
        return {"name": tool.name, "description": tool.description, "parameters": tool.parameters}

    def export_agent_tool(
        self,
        agent: ScriptedAgent,
        *,
        return_mode: ReturnMode = "last",
        timeout: float | None = None,
        input_schema: Any = None,
    ) -> Any:
        return minifw_agent_tool(
            self.native_agent(agent),
            description=agent.description,
            return_mode=return_mode,
            timeout=timeout,
            input_schema=input_schema,
        )

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
