"""A minifw Agent as a tool: a fresh clone per call, run under the run's guards."""

from __future__ import annotations

import json
from typing import Any

from agent_sdk import AgentResponse, Message, ToolSpec, Usage
from agent_sdk.integration import AgentToolSettings, CallContext
from agent_sdk_minifw._tracing import SpanObserver
from agent_sdk_minifw.framework import Agent


def agent_spec(agent: Agent, settings: AgentToolSettings) -> ToolSpec:
    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        prompt = request if isinstance(request, str) else json.dumps(request)
        # History "fresh": nothing shared. agent-sdk opens the child's invoke_agent span;
        # the observer adds its model calls.
        session = await agent.clone(observers=[SpanObserver(agent_spans=False)]).run(prompt)
        return AgentResponse(
            messages=[Message(m["role"], m["text"]) for m in session.messages],
            usage=Usage(model_calls=session.model_calls, input_chars=len(prompt)),
        )

    return settings.spec(invoke, provider="minifw")
