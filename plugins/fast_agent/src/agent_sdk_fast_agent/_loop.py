"""fast-agent's tool loop, as every agent the plugin runs uses it (orchestrated agents and
the clones of agent tools): our ``ToolRunnerHooks`` in front of the agent's own, the run's
budget stop before each model call, a cancellation fast-agent swallowed raised again, its
console display off, and ``run_tools`` answering the calls fast-agent must not run.

A concept of its own: the canonical modules hold the tool, the agent tool, the context, the
approval and the spans; this is the loop they all run in.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from fast_agent.agents.tool_result_channels import build_tool_result_message
from fast_agent.agents.tool_runner import ToolRunnerHooks
from fast_agent.types.llm_stop_reason import LlmStopReason
from fast_agent.ui.display_suppression import suppress_interactive_display
from mcp_types import CallToolResult

from ._arguments import invalid_arguments, sent_arguments, strict_arguments
from ._context import current_conversation
from ._tools import AgentSDKTool, ToolBinding

Hook = Callable[[Any, Any], Awaitable[None]]


async def stop_check(runner: Any, messages: Any) -> None:
    """``before_llm_call``: once the run's budget is spent, no agent of it calls its model
    again; the budget error leaves ``generate`` (ToolRunner lets hook errors through)."""
    conv = current_conversation()
    if conv is not None and conv.control.stop is not None:
        raise conv.control.stop


def chain(first: Hook | None, second: Hook | None) -> Hook | None:
    if first is None:
        return second
    if second is None:
        return first

    async def both(runner: Any, payload: Any) -> None:
        await first(runner, payload)
        await second(runner, payload)

    return both


def merge_hooks(existing: ToolRunnerHooks | None, ours: ToolRunnerHooks) -> ToolRunnerHooks:
    """Our hooks in front of the agent's own (auto-compaction, session saving, progress...),
    which are kept: assigning ``tool_runner_hooks`` outright would drop them."""
    if existing is None:
        return ours
    return ToolRunnerHooks(
        before_llm_call=chain(ours.before_llm_call, existing.before_llm_call),
        after_llm_call=chain(ours.after_llm_call, existing.after_llm_call),
        before_tool_call=chain(ours.before_tool_call, existing.before_tool_call),
        after_tool_call=chain(ours.after_tool_call, existing.after_tool_call),
        after_turn_complete=chain(ours.after_turn_complete, existing.after_turn_complete),
    )


def install_hooks(agent: Any, ours: ToolRunnerHooks) -> bool:
    if not hasattr(agent, "tool_runner_hooks"):
        return False
    agent.tool_runner_hooks = merge_hooks(agent.tool_runner_hooks, ours)
    return True


def display_scope(display: bool) -> AbstractContextManager[Any]:
    # fast-agent prints a summary line for parallel tool batches even with quiet=True; a
    # library must not print unless asked.
    return nullcontext() if display else suppress_interactive_display()


def honour_cancellation(response: Any) -> None:
    """Re-raise a cancellation fast-agent swallowed.

    fast-agent's OpenAI providers catch ``asyncio.CancelledError`` during a model call
    (``OpenAILLM._openai_completion_once``, ``ResponsesLLM``'s completion) and return an empty
    assistant reply with stop reason ``cancelled``. The task was asked to stop, though: a
    timeout (``asyncio.timeout``) or a cancelled run only ends when the CancelledError gets
    out, so it is raised again here when the current task has a pending cancellation.
    """
    if isinstance(response, tuple):  # structured / structured_schema: (parsed, message)
        response = response[-1] if response else None
    task = asyncio.current_task()
    if (
        task is not None
        and task.cancelling()
        and getattr(response, "stop_reason", None) == LlmStopReason.CANCELLED
    ):
        raise asyncio.CancelledError()


def _as_call_result(result: Any) -> CallToolResult:
    return CallToolResult(
        content=result.content,
        structured_content=result.structured_content,
        is_error=result.is_error,
    )


Decide = Callable[[str, Any], Awaitable[CallToolResult | None] | None]
"""For one call of a turn (tool_use_id, call params), before fast-agent runs it: None when
the call is none of its concern (known without awaiting anything), else the answer to await
(None there too: let fast-agent run it)."""


def answering_run_tools(original: Callable[..., Awaitable[Any]], decide: Decide) -> Any:
    """``original`` (an agent's ``run_tools``) with every call ``decide`` answers taken out of
    the turn; the rest run as fast-agent runs them, results in the model's call order. Only
    the calls ``decide`` is concerned with are awaited (the common turn, none, costs no
    task per call)."""

    @functools.wraps(original)
    async def run_tools(request: Any, request_params: Any = None) -> Any:
        calls = dict(request.tool_calls or {})
        pending = {t: a for t, c in calls.items() if (a := decide(t, c.params)) is not None}
        if not pending:
            return await original(request, request_params=request_params)
        decided = await asyncio.gather(*pending.values())
        answered = {t: r for t, r in zip(pending, decided, strict=True) if r is not None}
        if not answered:
            return await original(request, request_params=request_params)
        remaining = {t: c for t, c in calls.items() if t not in answered}
        results: dict[str, CallToolResult] = dict(answered)
        if remaining:
            message = await original(
                request.model_copy(update={"tool_calls": remaining}), request_params=request_params
            )
            results.update(message.tool_results or {})
            ordered = {t: results[t] for t in calls if t in results}
            return message.model_copy(update={"tool_results": ordered})
        return build_tool_result_message({t: results[t] for t in calls})

    return run_tools


def own_binding(agent: Any, name: str) -> ToolBinding | None:
    """The binding of ``agent``'s tool ``name`` if it is an agent-sdk tool."""
    tool = getattr(agent, "_execution_tools", {}).get(name)
    return tool.binding if isinstance(tool, AgentSDKTool) else None


def refuse_unparsed(agent: Any, tool_use_id: str, params: Any) -> Awaitable[CallToolResult] | None:
    """``tool-args-invalid`` for a call whose arguments were not a JSON object (agent-sdk
    tools validate what the model sent; fast-agent's own tools are not run), else None."""
    sent = sent_arguments(params.arguments)
    return None if sent is None else _refusal(agent, tool_use_id, params.name, sent)


async def _refusal(agent: Any, tool_use_id: str, name: str, sent: Any) -> CallToolResult:
    binding = own_binding(agent, name)
    if binding is not None:
        return _as_call_result(await binding.run(sent, tool_use_id))
    return invalid_arguments(name, sent, tool_use_id)


def guard_arguments(agent: Any) -> None:
    """Every tool call of ``agent`` gets the model's own arguments or ``tool-args-invalid``:
    its LLM keeps raw text that is not a JSON object (``strict_arguments``) and its
    ``run_tools`` answers such calls without running them."""
    strict_arguments(getattr(agent, "llm", None))

    agent.run_tools = answering_run_tools(
        agent.run_tools, functools.partial(refuse_unparsed, agent)
    )
