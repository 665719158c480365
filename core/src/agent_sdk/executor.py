"""The executor: validate -> approve -> run (with timeout) -> outcome, the same everywhere."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from agent_sdk._compat import wait_for
from agent_sdk.approval.admission import Admission
from agent_sdk.approval.gate import ApprovalGate
from agent_sdk.approval.ports import ApprovalPort
from agent_sdk.approval.tokens import AUTHORITY, TokenAuthority
from agent_sdk.context import CallContext, current_context
from agent_sdk.context import _current as _CURRENT_CONTEXT
from agent_sdk.deprecated import module_getattr
from agent_sdk.errors import ErrorKind, HierarchyLimitError, ToolError
from agent_sdk.extraction import to_json_text
from agent_sdk.failures import record_failure, record_success
from agent_sdk.redaction import safe_message
from agent_sdk.run import note_pending_approval
from agent_sdk.spec import Registry, ToolSpec
from agent_sdk.threads import TOOL_THREADS
from agent_sdk.tracing import semconv as sc
from agent_sdk.tracing import spans as _spans


@dataclass(frozen=True)
class ToolOutcome:
    """What one call produced: a value, or an error. ``text`` is what the model sees."""

    tool: str
    text: str
    value: Any = None
    error: ToolError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def raise_for_error(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


class Executor:
    """Runs tool calls with the same semantics in every framework.

    ``approval`` is the executor's own port: it decides confirm calls that arrive without a
    valid token. With no port, such calls are denied.
    """

    def __init__(
        self,
        registry: Registry | None = None,
        *,
        approval: ApprovalPort | None = None,
        authority: TokenAuthority = AUTHORITY,
    ) -> None:
        self.registry = registry if registry is not None else Registry()
        self.approval = approval
        self.authority = authority
        self._own: ApprovalGate | None = None

    def gate(self, port: ApprovalPort | None = None) -> ApprovalGate:
        """An approval gate asking ``port`` (default: this executor's own gate, asking its
        own port) whose tokens this executor accepts: the only way an integration should
        build one."""
        if port is None:
            return self._own_gate()
        return ApprovalGate(port, authority=self.authority)

    def _own_gate(self) -> ApprovalGate:
        gate = self._own
        if gate is None or gate.port is not self.approval or gate.authority is not self.authority:
            gate = self._own = ApprovalGate(self.approval, authority=self.authority)
        return gate

    async def run(self, name: str, arguments: Any, ctx: CallContext | None = None) -> ToolOutcome:
        """Run the registry's tool ``name``."""
        try:
            spec = self.registry.get(name)
        except ToolError as exc:
            return ToolOutcome(name, exc.to_model_text(), error=exc)
        return await self.run_spec(spec, arguments, ctx)

    async def run_spec(
        self,
        spec: ToolSpec,
        arguments: Any,
        ctx: CallContext | None = None,
        *,
        gate: ApprovalGate | None = None,
    ) -> ToolOutcome:
        """Validate, approve, run and wrap one call. Never raises for a tool failure;
        ``asyncio.CancelledError`` and ``HierarchyLimitError`` propagate.

        ``gate`` decides the call (default: this executor's own gate): it hands over what it
        decided (a decision it kept for this call with ``decide_early``, else it decides
        now) and the executor runs exactly that, asking nobody again.
        """
        call = ctx or current_context() or CallContext.new()
        with _spans.tool_span(call, spec.name) as span:
            recording = span is not _spans.NO_SPAN_VALUE and span.is_recording()
            capture = recording and _spans.content_captured()
            if capture:
                span.set_attribute(sc.GEN_AI_TOOL_CALL_ARGUMENTS, _as_text(arguments))
            try:
                validated = await self._admitted(spec, arguments, call, gate)
                value = await self._invoke(spec, validated, call)
                text = result_text(spec.name, value)
            except HierarchyLimitError:
                raise
            except ToolError as exc:
                exc.tool = exc.tool or spec.name
                if exc.approval_id is not None:
                    note_pending_approval(exc.approval_id)
                _spans.mark_error(span, exc)
                record_failure(call.call_id, exc, run_id=call.run_id)
                return ToolOutcome(spec.name, exc.to_model_text(), error=exc)
            except Exception as exc:  # the handler failed: tell the model, keep the cause
                error = ToolError(
                    ErrorKind.TOOL_FAILED,
                    f"tool '{spec.name}' failed: {safe_message(exc)}",
                    tool=spec.name,
                    cause=exc,
                )
                _spans.mark_error(span, error)
                span.set_attribute(sc.ERROR_TYPE, type(exc).__qualname__)
                record_failure(call.call_id, error, run_id=call.run_id)
                return ToolOutcome(spec.name, error.to_model_text(), error=error)
            if recording:
                _spans.mark_ok(span)
            record_success(call.call_id, run_id=call.run_id)  # an earlier failure is stale
            if capture:
                span.set_attribute(sc.GEN_AI_TOOL_CALL_RESULT, text)
            return ToolOutcome(spec.name, text, value=value)

    async def _admitted(
        self, spec: ToolSpec, arguments: Any, ctx: CallContext, gate: ApprovalGate | None
    ) -> BaseModel:
        """The validated arguments to run, as the gate decided them; raises the refusal."""
        gate = gate if gate is not None else self._own_gate()
        admission = gate.take(spec, arguments, ctx)
        if admission is None:
            plain = gate._decide_plain(spec, arguments)  # needs no approval: decided at once
            if plain is not None:
                return plain
            admission = await gate.decide(spec, arguments, ctx)
        if admission.token is not None and not self._consume(admission, ctx):
            # Not an approval of this call by this executor's authority (a gate built from
            # another authority, or a decision made for another call): its own gate decides.
            gate.discard(admission.token)
            admission = await self._own_gate().decide(spec, arguments, ctx)
            if admission.token is not None and not self._consume(admission, ctx):
                admission.error = ToolError(
                    ErrorKind.APPROVAL_DENIED,
                    f"tool '{spec.name}' could not be approved: its token was not accepted",
                    tool=spec.name,
                    detail="its token was not accepted",
                )
        if admission.error is not None:
            raise admission.error
        assert admission.validated is not None
        return admission.validated

    def _consume(self, admission: Admission, ctx: CallContext) -> bool:
        assert admission.token is not None and admission.digest is not None
        return self.authority.consume(
            admission.token,
            run_id=ctx.run_id,
            thread_id=ctx.thread_id,
            call_id=ctx.call_id,
            tool=admission.spec.name,
            digest=admission.digest,
        )

    async def _invoke(self, spec: ToolSpec, validated: BaseModel, ctx: CallContext) -> Any:
        # The token has done its job; the handler and anything it calls never see it.
        if ctx.token is not None:
            ctx = ctx.evolve(token=None)
        kwargs = spec.handler_kwargs(validated, ctx)
        started = time.monotonic() if spec.timeout is not None else 0.0
        entered = _CURRENT_CONTEXT.set(ctx)  # use_context(ctx), without its object
        try:
            if spec.is_async:
                call: Any = spec.handler(**kwargs)
            else:
                # One of our tool threads, with the caller's contextvars (CallContext, span).
                call = TOOL_THREADS.run(spec.handler, **kwargs)
            if spec.timeout is None:
                return await call
            try:
                return await wait_for(call, spec.timeout)
            except TimeoutError:
                if time.monotonic() - started < spec.timeout:
                    raise  # the handler's own TimeoutError, not ours
                why = ""
                if not spec.is_async and TOOL_THREADS.saturated:
                    why = (
                        f" (all {TOOL_THREADS.max_workers} threads for sync tools are busy: "
                        "sync handlers that ignore their timeout still hold them)"
                    )
                raise ToolError(
                    ErrorKind.TOOL_TIMEOUT,
                    f"tool '{spec.name}' did not finish within {spec.timeout:g}s{why}",
                    tool=spec.name,
                    detail=f"did not finish within {spec.timeout:g}s",
                ) from None
        finally:
            _CURRENT_CONTEXT.reset(entered)


def result_text(tool: str, value: Any) -> str:
    """A handler's value as the text the model sees: str as is, anything else as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if type(value) in (int, bool):
        return "true" if value is True else "false" if value is False else str(value)
    try:
        return to_json_text(value)
    except ToolError as exc:
        raise ToolError(
            ErrorKind.TOOL_FAILED,
            f"tool '{tool}' returned a {type(value).__name__}, which cannot be serialised as JSON",
            tool=tool,
            detail="the result cannot be serialised as JSON",
        ) from exc.cause


def _as_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, default=str)
    except (TypeError, ValueError):
        return repr(arguments)


# DecidedApproval and decision_error moved in 0.2 to agent_sdk.approval.gate (ApprovalGate
# and safe_message are still imported here); they warn once and still work.
__getattr__ = module_getattr(__name__)
