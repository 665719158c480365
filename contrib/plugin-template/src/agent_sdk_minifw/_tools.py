"""A ToolSpec as a minifw Tool whose every call runs through the executor."""

from __future__ import annotations

from agent_sdk import Executor, ToolSpec
from agent_sdk.integration import ApprovalGate, Integration
from agent_sdk_minifw.framework import Tool, ToolEvent, ToolResult


def export_tool(
    integration: Integration, spec: ToolSpec, executor: Executor, gate: ApprovalGate | None
) -> Tool:
    async def fn(event: ToolEvent) -> ToolResult:
        ctx = integration.bind_context(event)
        outcome = await executor.run_spec(spec, event.arguments, ctx, gate=gate)
        error = outcome.error
        return ToolResult(
            outcome.text,
            is_error=error is not None,
            exception=(error.cause or error) if error else None,
        )

    return Tool(spec.name, spec.description, spec.json_schema(), fn)
