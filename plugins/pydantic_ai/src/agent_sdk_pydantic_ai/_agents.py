"""A pydantic-ai agent exposed as a tool, through agent-sdk's neutral ``agent_tool``.

pydantic-ai has no ``as_tool``: delegation is a tool that runs the child with
``agent.run(...)``. Here every call is a fresh child run (its own history) under the run's
guards (depth, recursion, budget, timeout, parallelism: the core's ``call_agent``), traced as
agent-sdk traces every sub-agent (``_tracing``), its usage charged to the run's cost report
and merged into the parent run's ``RunUsage`` (what pydantic-ai's ``usage=ctx.usage``
does, without siblings sharing one counter while they run).

A confirm call inside the child reaches the parent: decided inside the child by the gate
when it can be (the port answers), else, where the parent's run can pause, the child run
ends on pydantic-ai's deferred call and the parent's call of the agent tool is paused as
the parent's own deferred call, with the child's state in its metadata (JSON: it survives a
restart with the parent's history). The host resolves the approvals and resumes the parent
(``deferred_results``); the parent's call resumes the child from that state, where the gate
decides the child's call again: approved once, a replay denied, edited arguments refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_ai import (
    DeferredToolRequests,
    DeferredToolResults,
    ModelMessagesTypeAdapter,
    RunContext,
    RunUsage,
)
from pydantic_ai.agent import AbstractAgent
from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from agent_sdk import AgentResponse, ErrorKind, Message, ToolError, ToolSpec, Usage
from agent_sdk.integration import AgentToolSettings, CallContext, note_usage
from agent_sdk_pydantic_ai._approval import (
    allows_deferred,
    can_pause,
    deferred_approval_ids,
    deferred_results,
    native_results,
    pausable_agent,
    resumed_entry,
    with_deferred,
)
from agent_sdk_pydantic_ai._context import current_call
from agent_sdk_pydantic_ai._tracing import child_capabilities, unwrapped

REQUESTS = TypeAdapter(DeferredToolRequests)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def messages_of(result: Any) -> list[Message]:
    """The child run's conversation in neutral form: prompts, each model response's text
    (None for a response of tool calls only), tool results."""
    out: list[Message] = []
    for message in result.all_messages():
        if isinstance(message, ModelResponse):
            texts = [p.content for p in message.parts if isinstance(p, TextPart) and p.content]
            out.append(Message("assistant", "".join(texts) or None))
            continue
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                out.append(Message("user", _text(part.content)))
            elif isinstance(part, ToolReturnPart):
                out.append(Message("tool", _text(part.content)))
    return out


def sent_chars(messages: Sequence[Any], start: int = 0) -> int:
    """The characters a run sent to its model, as every plugin counts ``input_chars``: for
    each model response from ``messages[start]`` on, the instructions of the request it
    answered and the whole conversation before it (pydantic-ai sends the history with every
    request; the responses before ``start`` were an earlier run's)."""
    total = conversation = instructions = 0
    for index, message in enumerate(messages):
        if isinstance(message, ModelRequest):
            instructions = len(message.instructions or "")
        elif isinstance(message, ModelResponse) and index >= start:
            total += instructions + conversation
        conversation += sum(_part_chars(part) for part in getattr(message, "parts", ()))
    return total


def _part_chars(part: Any) -> int:
    if isinstance(part, ToolCallPart):
        return len(part.args_as_json_str())
    content = getattr(part, "content", None)
    return len(_text(content)) if content is not None else 0


def usage_of(usage: RunUsage, delegated: RunUsage | None = None) -> Usage:
    """What a child's own model calls used: its RunUsage less what its own sub-agents merged
    into it (they are charged to the run on their own paths)."""
    less = delegated or RunUsage()
    return Usage(
        input_tokens=usage.input_tokens - less.input_tokens,
        output_tokens=usage.output_tokens - less.output_tokens,
        model_calls=usage.requests - less.requests,
    )


# While a child runs: what its own sub-agents merged into its RunUsage (None until one has),
# by the id of that RunUsage (the object its tools see as ctx.usage).
_delegated: dict[int, RunUsage | None] = {}


def _merge(parent: RunContext[Any] | None, usage: RunUsage) -> None:
    """Merge a finished child's usage into its parent run's RunUsage (pydantic-ai's own
    ``usage=ctx.usage`` pattern, after the fact: siblings never share one counter while they
    run), noting it as delegated when the parent is itself a child of ours."""
    if parent is None:
        return
    parent.usage.incr(usage)
    key = id(parent.usage)
    if key in _delegated:
        outer = _delegated[key]
        if outer is None:
            outer = _delegated[key] = RunUsage()
        outer.incr(usage)


def _pending(requests: DeferredToolRequests, native: Mapping[str, str] | None) -> list[str]:
    """The approval ids a paused child waits on: ours by their ``apr_`` ids, a call of
    pydantic-ai's own ``requires_approval`` tools by the id the gate gave it (``native``,
    with ``bind_approval`` on the child), else by its tool and call id (no store has it:
    nothing of agent-sdk's decided it)."""
    ours = deferred_approval_ids(requests)
    found: list[str] = []
    for call in [*requests.approvals, *requests.calls]:
        given = (native or {}).get(call.tool_call_id)
        ids = (
            ours.get(call.tool_call_id)
            or ([given] if given else None)
            or [f"pydantic-ai:{call.tool_name}:{call.tool_call_id}"]
        )
        found += [i for i in ids if i not in found]
    return found


def _refused(name: str, why: str) -> ToolError:
    return ToolError(
        ErrorKind.APPROVAL_DENIED,
        f"the paused run of sub-agent '{name}' handed back with the approval cannot be resumed "
        f"({why}); call it again to start a new run",
        tool=name,
    )


def _resumption(
    state: Any, name: str, prompt: str
) -> tuple[list[Any], DeferredToolRequests, DeferredToolResults]:
    """The child's history, the calls it paused on and the results resuming our calls,
    from the state the host handed back (untrusted: anything that does not check out
    refuses the call)."""
    if not isinstance(state, Mapping) or state.get("agent") != name:
        raise _refused(name, "it belongs to another agent")
    if state.get("request") != prompt:
        raise _refused(name, "the call's arguments were changed")
    try:
        history = ModelMessagesTypeAdapter.validate_json(str(state["history"]))
        requests = REQUESTS.validate_python(state["requests"])
    except (KeyError, TypeError, ValueError, ValidationError):
        raise _refused(name, "its state is not a paused pydantic-ai run") from None
    edit = state.get("edit")
    edits = edit if isinstance(edit, Mapping) else None
    return history, requests, deferred_results(requests, edit=edits)


def agent_spec(
    agent: AbstractAgent[Any, Any],
    settings: AgentToolSettings,
    *,
    deps: Any,
    usage_limits: Any,
    event_stream_handler: Any,
    provider: str,
) -> ToolSpec:
    """The spec running ``agent`` as a sub-agent (``INTEGRATION.agent_spec``)."""
    agent = unwrapped(agent)  # a sub-agent's spans are agent-sdk's, not a TracedAgent's
    name = settings.name

    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        call = current_call.get()
        parent: RunContext[Any] | None = call.ctx if call is not None else None
        prompt = request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
        entry = resumed_entry(parent) if parent is not None else None
        state = entry.get("child") if entry is not None else None
        pausable = state is not None or (parent is not None and can_pause(parent))
        options: dict[str, Any] = {
            "deps": deps(parent) if callable(deps) and parent is not None else deps,
            "usage_limits": usage_limits,
            "capabilities": child_capabilities(),
            "event_stream_handler": event_stream_handler,
            "infer_name": False,
        }
        if pausable and not allows_deferred(agent.output_type):
            # A run's own output_type makes pydantic-ai build its output schema again, every
            # call (~0.5 ms for a model's schema): only where the agent's own cannot pause.
            options["output_type"] = with_deferred(agent.output_type)
        if state is not None:
            history, requests, results = _resumption(state, name, prompt)
            conversation = history[-1].conversation_id if history else None
            # pydantic-ai's own tools' calls: the child's gate decides them again.
            results.approvals.update(await native_results(agent, requests, conversation))
            options.update(message_history=history, deferred_tool_results=results)
            given: str | None = None
        else:
            given = prompt  # a fresh run: nothing of any other call
        usage = RunUsage()
        _delegated[id(usage)] = None
        # Set only when it changes: a context variable set is a new context mapping and a
        # token, alive for as long as the child runs (1,000 children at once, in a fan-out).
        pausing = agent if pausable else None
        token = pausable_agent.set(pausing) if pausable_agent.get() is not pausing else None
        try:
            result = await agent.run(given, usage=usage, **options)
        except BaseException:
            # Charged to the run even though the child failed.
            note_usage(usage_of(usage, _delegated[id(usage)]))
            raise
        finally:
            if token is not None:
                pausable_agent.reset(token)
            delegated = _delegated.pop(id(usage))
            _merge(parent, usage)
        output = result.output
        response = AgentResponse(
            messages=messages_of(result),
            structured=output if not isinstance(output, str | DeferredToolRequests) else None,
            usage=usage_of(usage, delegated),
            raw=result,
        )
        every = result.all_messages()
        response.usage.input_chars = sent_chars(every, len(every) - len(result.new_messages()))
        if isinstance(output, DeferredToolRequests):
            native = call.native_approvals if call is not None else None
            response.pending_approvals = _pending(output, native)
            if call is not None:
                call.paused_child = {
                    "agent": name,
                    "request": prompt,
                    "history": result.all_messages_json().decode(),
                    "requests": REQUESTS.dump_python(output, mode="json"),
                    "approvals": list(response.pending_approvals),
                }
        return response

    return settings.spec(invoke, provider=provider)


__all__ = ["agent_spec", "messages_of", "usage_of"]
