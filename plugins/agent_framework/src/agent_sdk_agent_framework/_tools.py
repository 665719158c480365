"""ToolSpec -> a MAF ``FunctionTool`` whose every call runs through the agent-sdk executor.

The tool carries the spec's JSON schema as it is (MAF sends a dict ``input_model`` unchanged)
and overrides ``FunctionTool.invoke``: MAF's own argument checks and its ``execute_tool`` span
live there, so the executor validates and its span is the only ``execute_tool`` span. A
failure never raises into MAF (which would tell the model only "Error: Function failed."): the
model gets the executor's structured error, and the result item carries our error flag.

A confirm call the gate leaves pending stops a run that has an ``AgentSession`` with MAF's own
``function_approval_request``; the host answers it on the same session (also after
``session.to_dict()`` / ``AgentSession.from_dict``) and the call is decided again, the port
being the authority: MAF's approval only resumes it.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

from agent_framework import (
    Content,
    FunctionInvocationContext,
    FunctionTool,
    MiddlewareFailure,
    UserInputRequiredException,
)
from pydantic import BaseModel

from agent_sdk import Executor, HierarchyLimitError, ToolError, ToolSpec
from agent_sdk.integration import ApprovalGate, CallContext
from agent_sdk_agent_framework._context import bind_invocation, session_of

ERROR_DATA_KEY = "agent_sdk"
"""Key of our entry in a result item's ``additional_properties`` (a failed call:
``{"is_error", "kind", "message"}``) and in a function-approval request's (the pending
approval: ``{"approval_id", "reason", "calls"}``)."""

STATE_KEY = "agent_sdk"
"""Our part of ``AgentSession.state`` (JSON, so it survives ``session.to_dict()``): the calls
paused on a pending approval, and the paused children of agent tools, by call id."""


def paused_state(session: Any) -> dict[str, Any]:
    """``session.state[STATE_KEY]`` (made on first use): ``{"paused": {call id: request id},
    "children": {call id: child state}}``."""
    found = session.state.get(STATE_KEY)
    state: dict[str, Any] = found if isinstance(found, dict) else {}
    session.state[STATE_KEY] = state
    for key in ("paused", "children"):
        if not isinstance(state.get(key), dict):
            state[key] = {}  # a session written by someone else: start clean, fail closed
    return state


pause_allowed: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "agent_sdk_agent_framework_pause", default=True
)
"""False inside a child whose parent cannot pause (no session, or ``pause=False``): the
child's calls then answer ``approval required`` in the tool instead of pausing."""


@dataclass
class CallFrame:
    """The MAF call running one of our tools now, for the agent tool it may run."""

    context: FunctionInvocationContext | None
    call_id: str | None
    can_pause: bool
    resume_child: dict[str, Any] | None = None
    """The paused child's saved state, when MAF resumes this call."""
    child_pause: dict[str, Any] | None = None
    """Set by the agent tool when its child paused: the state to save, and its calls."""


current_call: contextvars.ContextVar[CallFrame | None] = contextvars.ContextVar(
    "agent_sdk_agent_framework_call", default=None
)


def _placeholder(ctx: FunctionInvocationContext) -> None:
    # Never called (invoke is ours); its context parameter makes MAF always build a
    # FunctionInvocationContext, which carries the session.
    raise AssertionError("ExecutorTool.invoke runs the call")


def _arguments(arguments: Any) -> Any:
    if isinstance(arguments, BaseModel):
        return arguments.model_dump()
    if isinstance(arguments, Mapping):
        return dict(arguments)
    return arguments


def approval_request(name: str, call_id: str, arguments: Any, data: Mapping[str, Any]) -> Content:
    """MAF's function-approval request for the call ``call_id`` of ``name``, with our data.

    The request and its function call share one occurrence id of ours (MAF resumes an
    occurrence-aware request without its legacy-binding warning)."""
    occurrence = f"agent-sdk-{uuid4().hex}"
    call = Content.from_function_call(
        call_id=call_id, name=name, arguments=arguments, id=occurrence
    )
    return Content.from_function_approval_request(
        id=occurrence, function_call=call, additional_properties={ERROR_DATA_KEY: dict(data)}
    )


def result_contents(text: str, error: ToolError | None) -> list[Content]:
    """What the model sees, with our error flag on the item of a failed call."""
    if error is None:
        return [Content.from_text(text)]
    flag = {"is_error": True, "kind": error.kind.value, "message": error.message}
    return [Content.from_text(text, additional_properties={ERROR_DATA_KEY: flag})]


def error_flag(content: Content) -> dict[str, Any] | None:
    """Our error flag on a function result (None: the call succeeded, or is not ours)."""
    for item in getattr(content, "items", None) or ():
        data = (item.additional_properties or {}).get(ERROR_DATA_KEY)
        if isinstance(data, dict) and data.get("is_error"):
            return data
    return None


class ExecutorTool(FunctionTool):
    """A MAF ``FunctionTool`` running ``spec`` through ``executor`` (``gate`` decides its
    confirm calls). Copies share the spec, executor and gate."""

    def __init__(
        self, spec: ToolSpec, *, executor: Executor, gate: ApprovalGate | None, pause: bool
    ) -> None:
        super().__init__(
            name=spec.name,
            description=spec.description,
            input_model=spec.json_schema(),  # sent as it is; the caller's dict is a copy
            func=_placeholder,
        )
        self.spec = spec
        self.executor = executor
        self.gate = gate
        self.pause = pause

    def __deepcopy__(self, memo: dict[int, Any]) -> ExecutorTool:
        # A copy is the same tool: one spec, executor and gate (tokens, kept decisions).
        return ExecutorTool(self.spec, executor=self.executor, gate=self.gate, pause=self.pause)

    async def invoke(
        self,
        *,
        arguments: Any = None,
        context: FunctionInvocationContext | None = None,
        tool_call_id: str | None = None,
        skip_parsing: bool = False,
        **kwargs: Any,
    ) -> Any:
        raw = _arguments(arguments if arguments is not None else kwargs)
        ctx = bind_invocation(context, tool_call_id)
        session = session_of(context)
        call_id = ctx.call_id
        can_pause = (
            self.pause and session is not None and call_id is not None and pause_allowed.get()
        )
        frame = CallFrame(context, call_id, can_pause)
        resumed = False
        if can_pause:
            # Read only: a session is written to only when a call of ours pauses in it.
            state = session.state.get(STATE_KEY) if session is not None else None
            if isinstance(state, dict):
                state = paused_state(session)
                resumed = state["paused"].pop(call_id, None) is not None
                frame.resume_child = state["children"].pop(call_id, None)
            if not resumed and self.spec.confirm is not False:
                await self._pause_if_pending(raw, ctx, session)
        token = current_call.set(frame)
        try:
            outcome = await self.executor.run_spec(self.spec, raw, ctx, gate=self.gate)
        except HierarchyLimitError as exc:
            # MAF turns any other exception into "Error: Function failed." and goes on; a
            # spent budget must end the run.
            raise MiddlewareFailure(str(exc)) from exc
        finally:
            current_call.reset(token)
        error = outcome.error
        if (
            frame.child_pause is not None
            and error is not None
            and error.approval_id is not None
            and session is not None
            and call_id is not None
        ):
            self._pause(session, call_id, raw, error, frame.child_pause)
        text = outcome.text
        return text if skip_parsing else result_contents(text, error)

    async def _pause_if_pending(self, raw: Any, ctx: CallContext, session: Any) -> None:
        """Decide the call now; a pending answer stops the run with MAF's own approval
        request (the decision of any other answer is kept for ``run_spec``)."""
        gate = self.gate if self.gate is not None else self.executor.gate()
        admission = await gate.decide_early(self.spec, raw, ctx)
        if admission.pending and admission.error is not None and ctx.call_id is not None:
            self._pause(session, ctx.call_id, raw, admission.error, None)

    def _pause(
        self,
        session: Any,
        call_id: str,
        raw: Any,
        error: ToolError,
        child: dict[str, Any] | None,
    ) -> None:
        """Stop the run on this call with MAF's approval request, and note it in the
        session so that MAF's resumption of it is decided again instead of paused again."""
        arguments = raw if isinstance(raw, dict) else {}
        own = {
            "call_id": call_id,
            "tool": self.name,
            "arguments": arguments,
            "approval_id": error.approval_id,
        }
        calls = list(child["calls"]) if child is not None else [own]
        data = {"approval_id": error.approval_id, "reason": error.message, "calls": calls}
        request = approval_request(self.name, call_id, arguments, data)
        state = paused_state(session)
        state["paused"][call_id] = request.id
        if child is not None:
            state["children"][call_id] = child["state"]
        raise UserInputRequiredException(contents=[request], message=error.message)


def pending_calls(request: Content) -> list[dict[str, Any]]:
    """The calls a function-approval request of ours waits on (a child's, for an agent
    tool): ``{"call_id", "tool", "arguments", "approval_id"}`` each; [] for MAF's own."""
    data = (request.additional_properties or {}).get(ERROR_DATA_KEY)
    calls = data.get("calls") if isinstance(data, dict) else None
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
