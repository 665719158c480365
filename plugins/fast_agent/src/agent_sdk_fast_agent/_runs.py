"""Orchestrators: one run per top-level generate, budget stops, the turn-level gate."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Iterable
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from typing import Any

from fast_agent.agents.tool_result_channels import build_tool_result_message
from fast_agent.agents.tool_runner import ToolRunnerHooks
from fast_agent.types.llm_stop_reason import LlmStopReason
from fast_agent.ui.display_suppression import suppress_interactive_display
from mcp_types import CallToolResult

from agent_sdk import ConfigurationError, HierarchyLimits, current_run, run_scope
from agent_sdk.integration import current_context

from ._approval import ToolGate
from ._arguments import invalid_arguments, sent_arguments, strict_arguments
from ._context import (
    Conversation,
    RunControl,
    current_conversation,
    new_conversation_id,
    use_conversation,
)
from ._tools import AgentSDKTool, ToolBinding
from ._tracing import agent_run_span, trace_model_calls, without_run_spans

_STATE = "_agent_sdk_fast_agent"

Hook = Callable[[Any, Any], Awaitable[None]]


# -- tool runner hooks ---------------------------------------------------------------------
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


# -- orchestrators ---------------------------------------------------------------------------
@dataclass
class _AgentState:
    limits: HierarchyLimits | None
    gate: ToolGate | None
    display: bool


def fast_agent_instrument(
    agent: Any,
    *,
    tools: Iterable[Any] = (),
    limits: HierarchyLimits | None = None,
    gate: ToolGate | None = None,
    display: bool = False,
) -> Any:
    """Make a fast-agent agent a well-behaved agent-sdk orchestrator; returns the agent.
    (Called ``orchestrate`` and, before that, ``instrument``; both still work and warn.)

    - adds ``tools`` (``fast_agent_tool``/``fast_agent_agent_tool`` results) to the agent;
    - every top-level ``generate``/``send``/``structured[_schema]`` is one conversation with a
      minted id (fast-agent has none), carried to every tool call and clone; without an active
      ``run_scope`` it also opens one (root span, guards with ``limits``, cost report);
    - a spent model-call budget stops the run: no agent of it calls its model again and
      ``HierarchyLimitError`` leaves ``generate`` (fast-agent would turn it into a tool
      result and go on);
    - ``gate`` (``INTEGRATION.bind_approval(port)``) approves fast-agent's own tools;
    - arguments are the model's own: where fast-agent's OpenAI providers would complete
      truncated JSON or fail the turn on text that is not a JSON object, the call gets
      ``tool-args-invalid`` and the turn goes on (see ``_arguments``);
    - fast-agent's console display stays off unless ``display=True``.

    Safe to call again (updates the options, adds more tools). Hooks are merged with the
    agent's own ``tool_runner_hooks``, never replacing them.
    """
    if gate is not None and not isinstance(gate, ToolGate):
        raise ConfigurationError("gate must be a ToolGate (INTEGRATION.bind_approval(port))")
    if limits is not None and not isinstance(limits, HierarchyLimits):
        raise ConfigurationError("limits must be agent_sdk.HierarchyLimits")
    state: _AgentState | None = agent.__dict__.get(_STATE)
    if state is None:
        if not install_hooks(agent, ToolRunnerHooks(before_llm_call=stop_check)):
            raise ConfigurationError(
                f"{type(agent).__name__} has no tool loop hooks; instrument a fast-agent "
                "tool-calling agent (McpAgent, ToolAgent, AgentsAsToolsAgent)"
            )
        state = _AgentState(limits, gate, display)
        agent.__dict__[_STATE] = state
        without_run_spans(agent)
        _wrap_runs(agent, state)
        agent.run_tools = _wrap_run_tools(agent, agent.run_tools, state)
    else:
        state.limits = limits if limits is not None else state.limits
        state.gate = gate if gate is not None else state.gate
        state.display = display
    for tool in tools:
        agent.add_tool(tool)
    return agent


def _wrap_runs(agent: Any, state: _AgentState) -> None:
    for method in ("generate", "structured", "structured_schema"):
        original = getattr(agent, method, None)
        if original is not None:
            setattr(agent, method, _run_wrapper(agent, original, state))


def _run_wrapper(agent: Any, original: Callable[..., Awaitable[Any]], state: _AgentState) -> Any:
    @functools.wraps(original)
    async def run(*args: Any, **kwargs: Any) -> Any:
        llm = getattr(agent, "llm", None)  # the LLM may have been replaced
        strict_arguments(llm)
        trace_model_calls(llm)
        conv = current_conversation()
        with ExitStack() as stack:
            if conv is None:
                conv = Conversation(new_conversation_id(), agent.name, RunControl())
                stack.enter_context(use_conversation(conv))
            stack.enter_context(display_scope(state.display))
            if current_run() is None and current_context() is None:
                stack.enter_context(run_scope(conv.id, limits=state.limits, name=agent.name))
            stack.enter_context(agent_run_span(agent))
            result = await original(*args, **kwargs)
            honour_cancellation(result)
            if conv.control.stop is not None:
                raise conv.control.stop
            return result

    return run


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


def _wrap_run_tools(agent: Any, original: Callable[..., Awaitable[Any]], state: _AgentState) -> Any:
    def decide(tool_use_id: str, params: Any) -> Awaitable[CallToolResult | None] | None:
        refusal = refuse_unparsed(agent, tool_use_id, params)
        if refusal is not None:
            return refusal
        if state.gate is None or own_binding(agent, params.name) is not None:
            return None  # agent-sdk tools are approved by their own gate, when they run
        return state.gate.check(params.name, params.arguments or {}, tool_use_id)

    return answering_run_tools(original, decide)


orchestrate = fast_agent_instrument  # the name inside this package until its callers move
