"""A MAF ``Agent`` exposed as a tool, through agent-sdk's neutral ``agent_tool``.

Not built on ``Agent.as_tool()``: that answers the concatenation of every assistant text of
the child run (no return mode), reports none of the child's usage, applies no depth,
recursion or budget guard, and fails a child's approval closed ("Error: Function
failed."). Here each call runs a fresh child (a new ``AgentSession``) under the core's
guards; the return mode reads the child's own messages; its model calls and tokens are
charged to the run; and a confirm call the child pauses on pauses the parent's run as the
parent's own approval request, the child's session saved in the parent's, so that approving
it there resumes both.

``as_tool`` always streams its child, even with nobody to hand the updates to: MAF then
rebuilds the response from the updates (deep copies of every text, ~200 µs of a child's
~550). Ours streams only for ``on_stream``; otherwise the child runs as one awaited
response, its model calls charged as they are made by one chat middleware object shared by
every call (stateless: what it counts is the running call's own, in a context variable).
"""

from __future__ import annotations

import contextvars
import copy
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from agent_framework import (
    Agent,
    AgentResponseUpdate,
    AgentSession,
    ChatContext,
    ChatMiddleware,
    ChatMiddlewareLayer,
    Content,
    Message,
    observability,
)

from agent_sdk import AgentResponse, ErrorKind, ToolError, ToolSpec, Usage
from agent_sdk import Message as SdkMessage
from agent_sdk.integration import AgentToolSettings, CallContext, note_usage
from agent_sdk_agent_framework._tools import (
    ExecutorTool,
    current_call,
    pause_allowed,
    pending_calls,
)

log = logging.getLogger("agent_sdk_agent_framework")

OnStream = Callable[[AgentResponseUpdate], Awaitable[None] | None]


def _saw(update: AgentResponseUpdate, responses: set[str]) -> None:
    """Count a streamed child's model calls from its stream as they happen (each one's
    updates share a response id): noted for the run at once, so a child that fails or times
    out is charged what it used."""
    response_id = update.response_id
    if response_id and response_id not in responses:
        responses.add(response_id)
        note_usage(Usage(model_calls=1))


class _ModelCalls:
    """The model calls one child run has made so far (its own: one per call of the tool)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


_model_calls: contextvars.ContextVar[_ModelCalls | None] = contextvars.ContextVar(
    "agent_sdk_agent_framework_model_calls", default=None
)


class ChildModelCalls(ChatMiddleware):
    """Each model call of a child run that is not streamed: counted for the child and noted
    for the run as it is made, so a child that fails or times out is charged what it used.
    One object for every call (it keeps nothing: the count is the running call's own), so
    the client's cached chat pipeline matches it run after run."""

    async def process(self, context: ChatContext, call_next: Callable[[], Awaitable[None]]) -> None:
        calls = _model_calls.get()
        if calls is not None:
            calls.count += 1
            note_usage(Usage(model_calls=1))
        await call_next()


_CHILD_MIDDLEWARE: Sequence[ChatMiddleware] = (ChildModelCalls(),)


def _chars(message: Message) -> int:
    """The characters of ``message`` a model is sent: texts, calls and tool results."""
    total = 0
    for content in message.contents:
        if content.type == "text":
            total += len(content.text or "")
        elif content.type == "function_call":
            arguments = content.arguments
            text = arguments if isinstance(arguments, str) else json.dumps(arguments, default=str)
            total += len(content.name or "") + len(text or "")
        elif content.type == "function_result":
            total += len(str(content.result or ""))
    return total


def _run_untraced(*, execute: Callable[[], Any], **_: Any) -> Any:
    return execute()


def _untraced(agent: Agent[Any], plain: bool) -> Agent[Any]:
    """A shallow copy of ``agent`` for one call whose runs open no ``invoke_agent`` span of
    MAF's own: the core's span for this call stands for it (else every child had two).
    ``plain``: ``_plain_fields(type(agent))``."""
    if plain:
        # What MAF's own __copy__ makes, without its walk of the class's MRO for slots on
        # every call (19 µs of a child's ~1 ms).
        child = object.__new__(type(agent))
        child.__dict__.update(agent.__dict__)
    else:
        child = copy.copy(agent)
    child._trace_agent_invocation = _run_untraced  # type: ignore[method-assign]
    return child


def _plain_fields(kind: type) -> bool:
    """Whether ``kind`` copies as MAF's ``Agent`` does: every field in ``__dict__`` (no
    slots) and MAF's own ``__copy__``."""
    own_copy = getattr(kind, "__copy__", None) is Agent.__copy__
    return own_copy and not any(c.__dict__.get("__slots__") for c in kind.__mro__)


def _our_tools(agent: Agent[Any]) -> set[str]:
    tools = agent.default_options.get("tools") or []
    return {t.name for t in tools if isinstance(t, ExecutorTool)}


def _responses(agent: Agent[Any], saved: Sequence[dict[str, Any]]) -> list[Content]:
    """The child's answers on resume. A request of one of our tools is approved in MAF
    (which only resumes it: the gate decides it again); anything else is refused, whatever
    the saved state claims."""
    ours = _our_tools(agent)
    answers = []
    for raw in saved:
        request = Content.from_dict(raw)
        name = request.function_call.name if request.function_call is not None else None
        answers.append(request.to_function_approval_response(approved=name in ours))
    return answers


def _restored(agent: Agent[Any], saved: Any, name: str) -> tuple[AgentSession, list[Content]]:
    """The paused child's session and its answers, from the parent's session (which a host
    stored and may have been changed: anything but what we wrote is refused)."""
    try:
        session = AgentSession.from_dict(saved["session"])
        answers = _responses(agent, list(saved["requests"]))
    except Exception as exc:
        raise ToolError(
            ErrorKind.TOOL_FAILED,
            f"the saved state of sub-agent '{name}' for this call cannot be resumed "
            f"({type(exc).__name__}); call it again",
            tool=name,
        ) from exc
    return session, answers


def _message(message: Message) -> SdkMessage | None:
    if message.role == "assistant":
        text = message.text
        return SdkMessage("assistant", text) if text else None
    if message.role == "tool":
        results = [c.result for c in message.contents if c.type == "function_result"]
        return SdkMessage("tool", "\n".join(str(r) for r in results if r is not None))
    return None


def _usage(final: Any, calls_made: int, agent: Agent[Any], prompt: str | None) -> Usage:
    """Tokens as MAF summed them; model calls as the stream showed them (else one per
    assistant message); characters sent: every model call is sent the instructions and the
    conversation before its answer."""
    details = getattr(final, "usage_details", None) or {}
    instructions = agent.default_options.get("instructions")
    sent = (len(instructions) if isinstance(instructions, str) else 0) + len(prompt or "")
    chars = calls = 0
    for message in final.messages:
        if message.role == "assistant":
            calls += 1
            chars += sent
        sent += _chars(message)
    return Usage(
        input_tokens=int(details.get("input_token_count") or 0),
        output_tokens=int(details.get("output_token_count") or 0),
        model_calls=calls_made or calls,
        input_chars=chars,
    )


async def _drive(stream: Any, responses: set[str], on_stream: OnStream | None, name: str) -> Any:
    async for update in stream:
        _saw(update, responses)
        if on_stream is None:
            continue
        try:
            maybe = on_stream(update)
            if inspect.isawaitable(maybe):
                await maybe
        except Exception:  # as Agent.as_tool's stream_callback: the child run goes on
            log.exception("on_stream callback of agent tool %r failed", name)
    return await stream.get_final_response()


def agent_spec(
    agent: Agent[Any],
    settings: AgentToolSettings,
    *,
    on_stream: OnStream | None,
    provider: str,
) -> ToolSpec:
    """The spec running ``agent`` as a sub-agent: a fresh child per call, or the paused
    child's own session when MAF resumes the call (``INTEGRATION.agent_spec``)."""
    name = settings.name
    plain = _plain_fields(type(agent))

    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        frame = current_call.get()
        # MAF opens its own invoke_agent span only while its instrumentation is on.
        child = _untraced(agent, plain) if observability.OBSERVABILITY_SETTINGS.ENABLED else agent
        saved = frame.resume_child if frame is not None else None
        prompt: str | None = None
        if saved is not None:
            session, answers = _restored(child, saved, name)
            given: Any = Message(role="user", contents=answers)
        else:
            prompt = (
                request if isinstance(request, str) else json.dumps(request, ensure_ascii=False)
            )
            session, given = child.create_session(), prompt
        # The child's calls pause only where this call can pause the parent in turn.
        allowed = pause_allowed.set(frame is not None and frame.can_pause)
        try:
            if on_stream is None and isinstance(child.client, ChatMiddlewareLayer):
                counted = _ModelCalls()
                token = _model_calls.set(counted)
                try:
                    final = await child.run(given, session=session, middleware=_CHILD_MIDDLEWARE)
                finally:
                    _model_calls.reset(token)
                calls_made = counted.count
            else:
                responses: set[str] = set()
                stream = child.run(given, stream=True, session=session)
                final = await _drive(stream, responses, on_stream, name)
                calls_made = len(responses)
        finally:
            pause_allowed.reset(allowed)
        messages = [SdkMessage("user", prompt)] if prompt is not None else []
        messages += [m for m in map(_message, final.messages) if m is not None]
        usage = _usage(final, calls_made, child, prompt)
        response = AgentResponse(messages=messages, structured=final.value, usage=usage, raw=final)
        _note_requests(final, response, session, frame, name)
        return response

    return settings.spec(invoke, provider=provider)


def _note_requests(
    final: Any, response: AgentResponse, session: AgentSession, frame: Any, name: str
) -> None:
    """A child that stopped on approval requests: ours pause the parent (the frame saves
    the child's session); any other request (a MAF tool of the child's own with
    ``approval_mode="always_require"``) cannot reach the parent, and the call fails
    closed, saying so."""
    requests = list(final.user_input_requests or [])
    if not requests:
        return
    calls = [c for r in requests for c in pending_calls(r)]
    others = [r for r in requests if not pending_calls(r)]
    if others or frame is None or not frame.can_pause:
        tools = sorted({getattr(r.function_call, "name", None) or r.type for r in others})
        raise ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"sub-agent '{name}' stopped for approval of {', '.join(tools) or 'a call'}, which "
            "cannot reach this run: export the tool with agent_framework_tool(..., "
            "approval=port) so the approval gate decides it",
            tool=name,
        )
    frame.child_pause = {
        "state": {"session": session.to_dict(), "requests": [r.to_dict() for r in requests]},
        "calls": calls,
    }
    for call in calls:
        approval_id = call.get("approval_id")
        if isinstance(approval_id, str) and approval_id not in response.pending_approvals:
            response.pending_approvals.append(approval_id)
