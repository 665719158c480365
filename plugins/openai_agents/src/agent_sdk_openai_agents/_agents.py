"""An Agents SDK agent exposed as a tool, through agent-sdk's neutral ``agent_tool``."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from agents import Agent, AgentToolStreamEvent, ModelSettings, RunConfig, Runner
from agents.agent_tool_state import (
    get_agent_tool_resume_state,
    get_agent_tool_state_scope,
    peek_agent_tool_run_result,
    record_agent_tool_resume_state,
    record_agent_tool_run_result,
)
from agents.items import ItemHelpers, MessageOutputItem, ToolCallOutputItem
from agents.run_config import CallModelData, ModelInputData
from agents.run_state import RunState
from pydantic import BaseModel

from agent_sdk import AgentResponse, Message, ToolSpec, Usage
from agent_sdk.integration import AgentToolSettings, CallContext
from agent_sdk_openai_agents._tools import current_tool_context, mark_agent_spec, pending_error

_APPROVAL_ID = re.compile(r"\bapr_[0-9a-f]+\b")

log = logging.getLogger("agent_sdk_openai_agents")

OnStream = Callable[[AgentToolStreamEvent], Any]
"""``on_stream``: called (and awaited if it returns an awaitable) with every event of a
streamed child run, as ``Agent.as_tool(on_stream=...)`` is."""


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _pending_ids_in_outputs(items: list[Any]) -> list[str]:
    """Approval ids of child tool results that are approval-pending errors (also those a
    host answered with the pending message instead of waiting)."""
    found: list[str] = []
    for item in items:
        if not isinstance(item, ToolCallOutputItem) or not isinstance(item.output, str):
            continue
        try:
            value = json.loads(item.output)
        except ValueError:
            continue
        error = value.get("error") if isinstance(value, dict) else None
        if isinstance(error, dict) and error.get("kind") == "approval-pending":
            for approval_id in _APPROVAL_ID.findall(str(error.get("message", ""))):
                if approval_id not in found:
                    found.append(approval_id)
    return found


def _interruption_ids(interruptions: list[Any]) -> list[str]:
    ids = []
    for item in interruptions:
        error = pending_error(getattr(item, "call_id", None))
        if error is not None and error.approval_id:
            ids.append(error.approval_id)
        else:  # a native SDK approval (needs_approval=True on a plain tool): no apr_ id
            ids.append(f"openai-agents:{item.tool_name}:{getattr(item, 'call_id', '?')}")
    return ids


def _undecided(state: RunState[Any, Any], interruptions: list[Any]) -> bool:
    context = getattr(state, "_context", None)
    if context is None:
        return True
    for item in interruptions:
        status = context.get_approval_status(
            item.tool_name or "", getattr(item, "call_id", "") or "", existing_pending=item
        )
        if status is not None:
            return False
    return True


class _CountInput:
    """A model-input filter that counts the characters sent to the model, then hands the
    data on (after the filter it was stacked on, if any)."""

    def __init__(self, previous: Any, counter: list[int]) -> None:
        self.previous = previous
        self.counter = counter

    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        result = data.model_data
        if self.previous is not None:
            maybe = self.previous(data)
            result = await maybe if inspect.isawaitable(maybe) else maybe
        self.counter[0] += len(result.instructions or "")
        self.counter[0] += len(json.dumps(result.input, ensure_ascii=False, default=str))
        return result


def _counting_config(base: RunConfig | None, counter: list[int]) -> RunConfig:
    """``base`` with a model-input filter that counts the characters sent to the model."""
    config = base or RunConfig()
    previous = config.call_model_input_filter
    if isinstance(previous, _CountInput):
        # A child inherits its parent's run config, counter and all: stacked, the parent's
        # counter also counted every model call of its children (the orchestrator of three
        # reviewers was charged 2.5x what it sent).
        previous = previous.previous
    return dataclasses.replace(config, call_model_input_filter=_CountInput(previous, counter))


def _response(result: Any, prompt: str | None, usage: Usage) -> AgentResponse:
    messages: list[Message] = []
    if prompt is not None:
        messages.append(Message("user", prompt))
    for item in getattr(result, "new_items", []) or []:
        if isinstance(item, MessageOutputItem):
            messages.append(Message("assistant", ItemHelpers.text_message_output(item)))
        elif isinstance(item, ToolCallOutputItem):
            messages.append(Message("tool", _text(item.output)))
    final = getattr(result, "final_output", None)
    structured = final if final is not None and not isinstance(final, str) else None
    pending = _pending_ids_in_outputs(list(getattr(result, "new_items", []) or []))
    interruptions = list(getattr(result, "interruptions", []) or [])
    for approval_id in _interruption_ids(interruptions):
        if approval_id not in pending:
            pending.append(approval_id)
    return AgentResponse(
        messages=messages, structured=structured, usage=usage, pending_approvals=pending, raw=result
    )


def _usage_of(result: Any, before: Any = None) -> Usage:
    usage = getattr(getattr(result, "context_wrapper", None), "usage", None)
    if usage is None:
        return Usage()
    calls = usage.requests - (before.requests if before is not None else 0)
    tokens_in = usage.input_tokens - (before.input_tokens if before is not None else 0)
    tokens_out = usage.output_tokens - (before.output_tokens if before is not None else 0)
    return Usage(input_tokens=tokens_in, output_tokens=tokens_out, model_calls=calls)


def fresh_child(agent: Agent[Any]) -> Agent[Any]:
    """A clone of ``agent`` for one call, asking for token usage on streamed Chat Completions.

    The SDK sends ``stream_options: {"include_usage": true}`` only to api.openai.com unless
    ``ModelSettings.include_usage`` is set (agents/models/chatcmpl_helpers.py,
    ``get_stream_options_param``): against Azure OpenAI, Ollama or vLLM a streamed child
    would report no tokens. An explicit setting (False included) is kept.
    """
    settings = agent.model_settings
    if settings.include_usage is None:
        settings = settings.resolve(ModelSettings(include_usage=True))
    return agent.clone(model_settings=settings)


async def _run_child(
    agent: Agent[Any],
    input: Any,
    *,
    context: Any,
    run_config: RunConfig,
    max_turns: int,
    on_stream: OnStream | None,
    tool_call: Any,
) -> Any:
    """``Runner.run``, or with ``on_stream`` ``Runner.run_streamed`` with every event handed
    to it (the child's model calls then stream)."""
    if on_stream is None:
        return await Runner.run(
            agent, input, context=context, run_config=run_config, max_turns=max_turns
        )
    streamed = Runner.run_streamed(
        agent, input, context=context, run_config=run_config, max_turns=max_turns
    )
    try:
        async for event in streamed.stream_events():
            payload = AgentToolStreamEvent(
                event=event, agent=streamed.current_agent, tool_call=tool_call
            )
            try:
                maybe = on_stream(payload)
                if inspect.isawaitable(maybe):
                    await maybe
            except Exception:  # as Agent.as_tool: a failing callback does not end the run
                log.exception("on_stream callback of agent tool %r failed", agent.name)
    except BaseException:
        # Cancelled (or failed): stop the child's run loop and wait until it has stopped, so
        # no tool of the child is left running after the call ended.
        streamed.cancel()
        task = streamed.run_loop_task
        if task is not None and not task.done():
            await asyncio.wait((task,))
        raise
    return streamed


def agent_spec(
    agent: Agent[Any],
    settings: AgentToolSettings,
    *,
    max_turns: int | None,
    run_config: RunConfig | None,
    on_stream: OnStream | None,
    provider: str,
) -> ToolSpec:
    """The spec running ``agent`` as a sub-agent: a fresh clone per call, or the paused
    child's own RunState when the host resumes it (``INTEGRATION.agent_spec``). The clone
    asks for usage on streamed Chat Completions (``fresh_child``); with
    ``on_stream`` the child run is streamed."""

    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        parent = current_tool_context.get()
        tool_call = getattr(parent, "tool_call", None) if parent is not None else None
        scope = get_agent_tool_state_scope(parent) if parent is not None else None
        app_context = parent.context if parent is not None else None
        config = run_config
        if config is None and parent is not None:
            config = parent.run_config  # the SDK's own as_tool inherits it the same way
        resume: RunState[Any, Any] | None = None
        if tool_call is not None:
            pending = peek_agent_tool_run_result(tool_call, scope_id=scope)
            resume = get_agent_tool_resume_state(pending)
            interruptions = list(getattr(pending, "interruptions", []) or [])
            if resume is None and interruptions:
                state = pending.to_state()  # type: ignore[union-attr]
                if _undecided(state, interruptions):
                    # The host has not decided yet: the parent stays interrupted.
                    return _response(pending, None, Usage())
                resume = state
                record_agent_tool_resume_state(
                    tool_call, resume, scope_id=scope, approval_items=interruptions
                )
        counter = [0]
        config = _counting_config(config, counter)
        given: Any  # a restored RunState or the prompt
        if resume is not None:
            before = dataclasses.replace(resume._context.usage) if resume._context else None
            prompt = None
            runner, given = agent, resume
        else:
            before = None
            prompt = (
                request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
            )
            # A fresh child per call: parallel calls share nothing.
            runner, given = fresh_child(agent), prompt
        # A restored state holds a copy of the app context: run with the live one.
        result = await _run_child(
            runner,
            given,
            context=app_context,
            run_config=config,
            max_turns=_turns(max_turns),
            on_stream=on_stream,
            tool_call=tool_call,
        )
        if result.interruptions and tool_call is not None:
            # Child approvals surface in the parent's interruptions (the SDK's nested-run
            # bookkeeping, as Agent.as_tool uses it); approving them there resumes the child.
            record_agent_tool_run_result(tool_call, result, scope_id=scope)
        usage = _usage_of(result, before)
        usage.input_chars = counter[0]
        return _response(result, prompt, usage)

    spec = settings.spec(
        invoke,
        provider=provider,
    )
    mark_agent_spec(spec, agent)
    return spec


def _turns(max_turns: int | None) -> int:
    from agents.run import DEFAULT_MAX_TURNS

    return max_turns if max_turns is not None else DEFAULT_MAX_TURNS
