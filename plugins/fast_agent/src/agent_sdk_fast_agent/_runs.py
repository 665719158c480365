"""Agent instrumentation: one run per top-level generate, budget stops, the turn-level gate."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from typing import Any

from fast_agent.agents.tool_result_channels import build_tool_result_message
from fast_agent.agents.tool_runner import ToolRunnerHooks
from fast_agent.ui.display_suppression import suppress_interactive_display
from mcp_types import CallToolResult, TextContent

from agent_sdk import (
    ApprovalPort,
    ConfigurationError,
    ErrorKind,
    HierarchyLimits,
    ToolError,
    current_context,
    current_run,
    run_scope,
)
from agent_sdk.approval import ApprovalRequest
from agent_sdk.approval.gate import decision_error
from agent_sdk.redaction import safe_message
from agent_sdk.run import note_pending_approval

from ._context import (
    Conversation,
    RunControl,
    bind_tool_call,
    current_conversation,
    new_conversation_id,
    use_conversation,
)
from ._tools import AgentSDKTool, ToolBinding

_STATE = "_agent_sdk_fast_agent"

Hook = Callable[[Any, Any], Awaitable[None]]


# -- tool runner hooks ---------------------------------------------------------------------
async def stop_check(runner: Any, messages: Any) -> None:
    """``before_llm_call``: once the run's budget is spent, no agent of it calls its model
    again; the budget error leaves ``generate`` (ToolRunner lets hook errors through)."""
    conv = current_conversation()
    if conv is not None and conv.control.stop is not None:
        raise conv.control.stop


def _chain(first: Hook | None, second: Hook | None) -> Hook | None:
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
        before_llm_call=_chain(ours.before_llm_call, existing.before_llm_call),
        after_llm_call=_chain(ours.after_llm_call, existing.after_llm_call),
        before_tool_call=_chain(ours.before_tool_call, existing.before_tool_call),
        after_tool_call=_chain(ours.after_tool_call, existing.after_tool_call),
        after_turn_complete=_chain(ours.after_turn_complete, existing.after_turn_complete),
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


# -- the turn-level gate for fast-agent's own tools ----------------------------------------
ConfirmNative = bool | Collection[str] | Callable[[str, Mapping[str, Any]], bool]


class ToolGate:
    """fast-agent-native approval (``INTEGRATION.bind_approval(port)``): asks ``port`` about
    calls to tools agent-sdk does not run itself (MCP server tools, ``agent__child`` tools of
    fast-agent's Agents-as-Tools, plain function tools) before a turn's tools run.

    It sits in the agent's ``run_tools``, the one place every call of a turn passes (child
    agent calls bypass ``call_tool``); a denied or pending call becomes an ``is_error`` tool
    result and the turn goes on. agent-sdk tools are gated by their own ``approval=``.
    ``confirm`` says which calls need approval: True (all), a set of tool names, or a
    predicate ``(name, arguments) -> bool``.
    """

    def __init__(self, port: ApprovalPort, *, confirm: ConfirmNative = True) -> None:
        if not hasattr(port, "request"):
            raise ConfigurationError("ToolGate needs an ApprovalPort (an object with request())")
        if not (isinstance(confirm, (bool, Collection)) or callable(confirm)):
            raise ConfigurationError("confirm must be a bool, a set of tool names or a predicate")
        self.port = port
        self.confirm = confirm

    def needs_approval(self, name: str, arguments: Mapping[str, Any]) -> bool:
        if isinstance(self.confirm, bool):
            return self.confirm
        if callable(self.confirm):
            try:
                return bool(self.confirm(name, arguments))
            except Exception:
                return True  # a failing rule must not let the call through
        return name in self.confirm

    async def check(
        self, name: str, arguments: Mapping[str, Any], tool_use_id: str | None
    ) -> CallToolResult | None:
        """None when the call may run, else the is_error result the model sees."""
        if not self.needs_approval(name, arguments):
            return None
        ctx = bind_tool_call(tool_use_id)
        args = dict(arguments)
        try:
            decision = await self.port.request(
                name,
                args,
                call_id=ctx.call_id,
                run_id=ctx.run_id,
                thread_id=ctx.thread_id,
                path=ctx.path,
            )
        except Exception as exc:
            return _error(
                ErrorKind.APPROVAL_DENIED, f"approval of tool '{name}' failed: {safe_message(exc)}"
            )
        request = ApprovalRequest(name, args, ctx.call_id, ctx.run_id, ctx.thread_id, ctx.path)
        error = decision_error(name, request, decision)
        if error is None:
            return None
        if error.approval_id is not None:
            note_pending_approval(error.approval_id)
        return _error(error.kind, error.message)


def _error(kind: ErrorKind, message: str) -> CallToolResult:
    text = ToolError(kind, message).to_model_text()
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _as_call_result(result: Any) -> CallToolResult:
    return CallToolResult(
        content=result.content,
        structured_content=result.structured_content,
        is_error=result.is_error,
    )


# -- instrumentation -----------------------------------------------------------------------
@dataclass
class _AgentState:
    limits: HierarchyLimits | None
    gate: ToolGate | None
    display: bool


def instrument(
    agent: Any,
    *,
    tools: Iterable[Any] = (),
    limits: HierarchyLimits | None = None,
    gate: ToolGate | None = None,
    display: bool = False,
) -> Any:
    """Make a fast-agent agent a well-behaved agent-sdk orchestrator; returns the agent.

    - adds ``tools`` (``fast_agent_tool``/``fast_agent_agent_tool`` results) to the agent;
    - every top-level ``generate``/``send``/``structured[_schema]`` is one conversation with a
      minted id (fast-agent has none), carried to every tool call and clone; without an active
      ``run_scope`` it also opens one (root span, guards with ``limits``, cost report);
    - a spent model-call budget stops the run: no agent of it calls its model again and
      ``HierarchyLimitError`` leaves ``generate`` (fast-agent would turn it into a tool
      result and go on);
    - ``gate`` (``INTEGRATION.bind_approval(port)``) approves fast-agent's own tools;
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
        state = _AgentState(limits, gate, display)
        agent.__dict__[_STATE] = state
        _wrap_runs(agent, state)
        agent.run_tools = _wrap_run_tools(agent, agent.run_tools, state)
        if not install_hooks(agent, ToolRunnerHooks(before_llm_call=stop_check)):
            raise ConfigurationError(
                f"{type(agent).__name__} has no tool loop hooks; instrument a fast-agent "
                "tool-calling agent (McpAgent, ToolAgent, AgentsAsToolsAgent)"
            )
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
        conv = current_conversation()
        with ExitStack() as stack:
            if conv is None:
                conv = Conversation(new_conversation_id(), agent.name, RunControl())
                stack.enter_context(use_conversation(conv))
            stack.enter_context(display_scope(state.display))
            if current_run() is None and current_context() is None:
                stack.enter_context(run_scope(conv.id, limits=state.limits, name=agent.name))
            result = await original(*args, **kwargs)
            if conv.control.stop is not None:
                raise conv.control.stop
            return result

    return run


def _wrap_run_tools(agent: Any, original: Callable[..., Awaitable[Any]], state: _AgentState) -> Any:
    @functools.wraps(original)
    async def run_tools(request: Any, request_params: Any = None) -> Any:
        calls = dict(request.tool_calls or {})
        if not calls:
            return await original(request, request_params=request_params)
        own: dict[str, ToolBinding] = {}
        for tool_use_id, call in calls.items():
            tool = getattr(agent, "_execution_tools", {}).get(call.params.name)
            if isinstance(tool, AgentSDKTool):
                own[tool_use_id] = tool.binding

        async def decide(tool_use_id: str) -> CallToolResult | None:
            params = calls[tool_use_id].params
            if tool_use_id in own:
                if isinstance(params.arguments, dict):
                    return None  # the normal path: fast-agent calls the tool
                # Non-object arguments never get through fast-agent's call_tool in one
                # piece; answer them here so the model sees tool-args-invalid.
                return _as_call_result(await own[tool_use_id].run(params.arguments, tool_use_id))
            if state.gate is None:
                return None
            arguments = params.arguments if isinstance(params.arguments, dict) else {}
            return await state.gate.check(params.name, arguments, tool_use_id)

        decided = await asyncio.gather(*(decide(t) for t in calls))
        answered = {t: r for t, r in zip(calls, decided, strict=True) if r is not None}
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
