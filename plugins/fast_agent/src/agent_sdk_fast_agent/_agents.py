"""A fast-agent agent exposed as a tool: a fresh detached clone per call, under the core's
guards (depth, recursion, budget, timeout, parallelism), extraction and spans."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import weakref
from collections.abc import Callable
from typing import Any

from fast_agent.agents.tool_runner import ToolRunnerHooks
from fast_agent.agents.workflow.agents_as_tools_agent import HistoryMergeTarget, HistorySource
from fast_agent.mcp.prompt import Prompt
from opentelemetry import trace
from pydantic import BaseModel

from agent_sdk import AgentResponse, ConfigurationError, HistoryMode, Message, ToolSpec, Usage
from agent_sdk.integration import AgentToolSettings, CallContext, note_usage, tracing_enabled
from agent_sdk.integration import semconv as sc

from ._context import (
    Conversation,
    RunControl,
    current_conversation,
    new_conversation_id,
    use_conversation,
)
from ._loop import (
    chain,
    display_scope,
    guard_arguments,
    honour_cancellation,
    install_hooks,
    stop_check,
)
from ._tracing import trace_model_calls, without_run_spans

# The core's history modes on fast-agent 0.10's Agents-as-Tools settings (history_source,
# history_merge_target); "child" is the template agent the clones are made from.
_HISTORY: dict[HistoryMode, tuple[HistorySource, HistoryMergeTarget]] = {
    "fresh": (HistorySource.NONE, HistoryMergeTarget.NONE),
    "fork": (HistorySource.CHILD, HistoryMergeTarget.NONE),
    "shared": (HistorySource.CHILD, HistoryMergeTarget.CHILD),
}

_instances: weakref.WeakKeyDictionary[Any, itertools.count[int]] = weakref.WeakKeyDictionary()
_merge_locks: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()


def _text(message: Any) -> str:
    return "".join(
        getattr(block, "text", "")
        for block in (message.content or [])
        if getattr(block, "type", None) == "text"
    )


def _messages(turn: list[Any]) -> list[Message]:
    """fast-agent messages as neutral ones; tool results become role "tool"."""
    out: list[Message] = []
    for message in turn:
        if message.tool_results:
            for result in message.tool_results.values():
                out.append(Message("tool", _text(result)))
            continue
        out.append(Message(message.role, _text(message)))
    return out


class _Meter:
    """Counts the child's model calls and the characters sent to its model."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.model_calls = 0
        self.input_chars = 0

    async def before_llm_call(self, runner: Any, delta: list[Any]) -> None:
        self.model_calls += 1
        note_usage(Usage(model_calls=1))  # charged to the run even if the child then fails
        use_history = getattr(getattr(self.agent, "config", None), "use_history", True)
        sent = [*self.agent.message_history, *delta] if use_history else list(delta)
        instruction = getattr(self.agent, "instruction", None) or ""
        self.input_chars += len(instruction) + sum(_sent_chars(m) for m in sent)


def _sent_chars(message: Any) -> int:
    """Characters a message puts in front of the model: text, tool calls, tool results
    (``all_text()`` is empty for tool-result messages)."""
    count = len(message.all_text() or "")
    for call in (getattr(message, "tool_calls", None) or {}).values():
        params = getattr(call, "params", None)
        arguments = getattr(params, "arguments", None) or {}
        count += len(getattr(params, "name", "") or "") + len(json.dumps(arguments, default=str))
    for result in (getattr(message, "tool_results", None) or {}).values():
        for block in getattr(result, "content", None) or []:
            count += len(getattr(block, "text", "") or "")
    return count


def _usage(clone: Any, meter: _Meter) -> Usage:
    accumulator = getattr(clone, "usage_accumulator", None)
    turns = list(getattr(accumulator, "turns", None) or [])
    return Usage(
        input_tokens=sum(t.prompt.total or 0 for t in turns),
        output_tokens=sum(t.completion.total or 0 for t in turns),
        model_calls=max(meter.model_calls, len(turns)),
        input_chars=meter.input_chars,
    )


def agent_spec(
    agent: Any,
    settings: AgentToolSettings,
    *,
    output_model: type[BaseModel] | None,
    confirm: bool | Callable[[BaseModel], bool],
    display: bool,
    provider: str,
) -> ToolSpec:
    """The ToolSpec of ``fast_agent_agent_tool``: each call runs a fresh detached clone of
    ``agent`` (the template, or a function returning it) on its own conversation.

    ``history`` maps onto fast-agent's Agents-as-Tools settings (history_source,
    history_merge_target): fresh none/none, fork child/none, shared child/child.
    ``output_model`` makes the child answer with fast-agent's ``structured_schema``.
    """
    history = settings.history

    if output_model is not None and not (
        isinstance(output_model, type) and issubclass(output_model, BaseModel)
    ):
        raise ConfigurationError("output_model must be a pydantic BaseModel subclass")
    # A function returning the agent is called per call: agents of a FastAgent app exist
    # only inside fast.run().
    resolve: Callable[[], Any] = (
        agent if not hasattr(agent, "spawn_detached_instance") else lambda: agent
    )
    source, target = _HISTORY[history]
    # output_model's JSON schema, made once (pydantic does not cache model_json_schema(),
    # ~0.35 ms a call) on the first call, not here: the model may still be rebuilt (forward
    # references). Kept as text: each call parses its own dict, as fast-agent may adapt the
    # schema it is given, and no child's change may reach another.
    schema_text: list[str] = []

    def output_schema(model: type[BaseModel]) -> dict[str, Any]:
        if not schema_text:
            schema_text.append(json.dumps(model.model_json_schema()))
        schema: dict[str, Any] = json.loads(schema_text[0])
        return schema

    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        template = resolve()
        counter = _instances.setdefault(template, itertools.count(1))
        clone = await template.spawn_detached_instance(name=f"{template.name}[{next(counter)}]")
        try:
            base = list(template.message_history) if source is HistorySource.CHILD else []
            clone.load_message_history(base)
            meter = _Meter(clone)
            guard_arguments(clone)
            if tracing_enabled():  # else nothing would record these spans: spare the clone
                without_run_spans(clone)  # its tool call's invoke_agent is the clone's span
                trace_model_calls(getattr(clone, "llm", None))
            install_hooks(
                clone, ToolRunnerHooks(before_llm_call=chain(stop_check, meter.before_llm_call))
            )
            parent = current_conversation()
            conv = Conversation(
                new_conversation_id(), clone.name, parent.control if parent else RunControl()
            )
            span = trace.get_current_span()
            if span.is_recording():
                span.set_attribute(sc.CLONE, clone.name)
            prompt = request if isinstance(request, str) else json.dumps(request, sort_keys=True)
            structured: Any = None
            with use_conversation(conv), display_scope(display):
                if output_model is not None:
                    # structured_schema, not structured(model): in 0.10 only the former runs
                    # the tool loop; structured() stops at the first tool call.
                    parsed, response = await clone.structured_schema(
                        [Prompt.user(prompt)], output_schema(output_model)
                    )
                    honour_cancellation(response)
                    if parsed is not None:
                        structured = output_model.model_validate(parsed)
                else:
                    response = await clone.generate([Prompt.user(prompt)])
                    honour_cancellation(response)
            if conv.control.stop is not None:
                raise conv.control.stop
            turn = list(getattr(clone, "last_turn_messages", None) or []) or [
                *clone.message_history[len(base) :]
            ]
            usage = _usage(clone, meter)
            if target is HistoryMergeTarget.CHILD:
                lock = _merge_locks.setdefault(template, asyncio.Lock())
                async with lock:
                    template.append_history(clone.message_history[len(base) :])
            return AgentResponse(
                messages=_messages(turn), structured=structured, usage=usage, raw=response
            )
        finally:
            # As fast-agent does for its clones: the template's usage includes every clone's,
            # also of clones that failed or were cancelled.
            with contextlib.suppress(Exception):
                template.merge_usage_from(clone)
            # Shielded: after a timeout fast-agent re-cancels the task once more, which
            # would otherwise cut the clone's shutdown short.
            with contextlib.suppress(Exception):
                await asyncio.shield(clone.shutdown())

    return settings.spec(
        invoke,
        provider=provider,
        confirm=confirm,
    )
