"""The integration: agent-sdk tools and agents-as-tools for minifw."""

from __future__ import annotations

import json
from typing import Any

from agent_sdk import (
    AgentResponse,
    ApprovalGate,
    ApprovalPort,
    CallContext,
    Executor,
    Message,
    ToolSpec,
    Usage,
    agent_tool,
    bind_call,
)
from agent_sdk.extraction import ReturnMode
from agent_sdk_minifw.framework import Agent, Tool, ToolEvent, ToolResult


def bind_event(event: ToolEvent) -> CallContext:
    """minifw's event -> CallContext (the context-binding hook answers with this)."""
    return bind_call(call_id=event.call_id, conversation_id=event.session_id)


def export_tool(
    spec: ToolSpec, executor: Executor | None = None, approval: ApprovalPort | None = None
) -> Tool:
    executor = executor or Executor()
    gate = ApprovalGate(approval) if approval is not None else None

    async def fn(event: ToolEvent) -> ToolResult:
        outcome = await executor.run_spec(spec, event.arguments, bind_event(event), gate=gate)
        error = outcome.error
        return ToolResult(
            outcome.text,
            is_error=error is not None,
            exception=(error.cause or error) if error else None,
        )

    return Tool(spec.name, spec.description, spec.json_schema(), fn)


def export_agent_tool(
    agent: Agent,
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    timeout: float | None = None,
    input_schema: Any = None,
    executor: Executor | None = None,
) -> Tool:
    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        prompt = request if isinstance(request, str) else json.dumps(request)
        session = await agent.clone().run(prompt)  # a fresh clone per call: no shared history
        return AgentResponse(
            messages=[Message(m["role"], m["text"]) for m in session.messages],
            usage=Usage(model_calls=session.model_calls, input_chars=len(prompt)),
        )

    spec = agent_tool(
        invoke,
        name=name or agent.name,
        description=description or f"Ask the {agent.name} agent.",
        return_mode=return_mode,
        timeout=timeout,
        input_schema=input_schema,
        provider="minifw",
    )
    return export_tool(spec, executor)
