"""A tiny agent framework and its integration, written here to prove the contract kit.

``TinyAgent`` is a real (small) agent loop: a scripted model answers, the tool calls of a
turn run concurrently, their results go back to the model, until it answers with text.
``tiny_tool``/``tiny_agent_tool`` are a correct integration; tests also build deliberately
wrong ones to show that the kit catches them.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
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
from agent_sdk.testing import ECHO, Harness, RunResult, ScriptedAgent, SeenResult, Turn


@dataclass
class TinyResult:
    text: str
    is_error: bool = False
    exception: BaseException | None = None


@dataclass
class TinyTool:
    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[
        [str, str, str], Awaitable[TinyResult]
    ]  # (arguments json, call id, conversation id)


@dataclass
class TinyRun:
    conversation_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    results: list[SeenResult] = field(default_factory=list)
    exceptions: list[BaseException] = field(default_factory=list)
    model_calls: int = 0


class TinyAgent:
    def __init__(self, name: str, turns: Sequence[Turn], tools: Sequence[TinyTool] = ()) -> None:
        self.name = name
        self.turns = list(turns)
        self.tools = {t.name: t for t in tools}

    async def run(self, prompt: str) -> TinyRun:
        run = TinyRun(conversation_id=f"tiny-{uuid.uuid4().hex[:12]}")
        run.messages.append({"role": "user", "text": prompt})
        for turn in self.turns:
            if turn.delay:
                await asyncio.sleep(turn.delay)
            run.model_calls += 1
            text = turn.text
            if text == ECHO:
                text = "\n".join(m["text"] for m in run.messages if m["role"] != "system")
            run.messages.append(
                {"role": "assistant", "text": text, "calls": [c.id for c in turn.calls]}
            )
            if not turn.calls:
                return run

            async def one(call: Any) -> None:
                args = (
                    call.arguments
                    if isinstance(call.arguments, str)
                    else json.dumps(call.arguments)
                )
                tool = self.tools.get(call.name)
                if tool is None:
                    res = TinyResult(f"no tool {call.name}", is_error=True)
                else:
                    res = await tool.fn(args, call.id, run.conversation_id)
                if res.exception is not None:
                    run.exceptions.append(res.exception)
                run.results.append(SeenResult(call.id, call.name, res.text, res.is_error))
                run.messages.append({"role": "tool", "text": res.text})

            await asyncio.gather(*(one(c) for c in turn.calls))
        return run


# -- the integration -----------------------------------------------------------------------
def tiny_tool(
    spec: ToolSpec, *, executor: Executor | None = None, approval: ApprovalPort | None = None
) -> TinyTool:
    executor = executor or Executor()
    gate = ApprovalGate(approval) if approval is not None else None

    async def fn(arguments: str, call_id: str, conversation_id: str) -> TinyResult:
        ctx = bind_call(call_id=call_id, conversation_id=conversation_id)
        outcome = await executor.run_spec(spec, arguments, ctx, gate=gate)
        cause = outcome.error.cause or outcome.error if outcome.error else None
        return TinyResult(outcome.text, is_error=not outcome.ok, exception=cause)

    return TinyTool(spec.name, spec.description, spec.json_schema(), fn)


def tiny_agent_tool(
    agent: TinyAgent,
    *,
    return_mode: ReturnMode = "last",
    timeout: float | None = None,
    input_schema: Any = None,
    executor: Executor | None = None,
) -> TinyTool:
    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        fresh = TinyAgent(agent.name, agent.turns, list(agent.tools.values()))  # a clone per call
        prompt = request if isinstance(request, str) else json.dumps(request)
        run = await fresh.run(prompt)
        return AgentResponse(
            messages=[Message(m["role"], m["text"]) for m in run.messages],
            usage=Usage(model_calls=run.model_calls, input_chars=len(prompt)),
        )

    spec = agent_tool(
        invoke,
        name=agent.name,
        description=f"Ask {agent.name}.",
        return_mode=return_mode,
        timeout=timeout,
        input_schema=input_schema,
        provider="tiny",
    )
    return tiny_tool(spec, executor=executor)


class TinyHarness(Harness):
    integration = "tiny"

    def export_tool(
        self, spec: ToolSpec, *, executor: Executor, approval: ApprovalPort | None = None
    ) -> Any:
        return tiny_tool(spec, executor=executor, approval=approval)

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
        return tiny_agent_tool(
            TinyAgent(agent.name, agent.turns, agent.tools),
            return_mode=return_mode,
            timeout=timeout,
            input_schema=input_schema,
        )

    async def run(self, tools: Sequence[Any], turns: Sequence[Turn]) -> RunResult:
        run = await TinyAgent("orchestrator", turns, tools).run("start")
        final = run.messages[-1]["text"] if run.messages[-1]["role"] == "assistant" else None
        return RunResult(
            results=run.results,
            final_text=final,
            run_id=run.conversation_id,
            thread_id=run.conversation_id,
            exceptions=run.exceptions,
            events=run.messages,
        )
