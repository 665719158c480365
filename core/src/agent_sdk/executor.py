"""The executor: validate -> approve -> run (with timeout) -> outcome, the same everywhere."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from agent_sdk import _spans
from agent_sdk import semconv as sc
from agent_sdk.approval import (
    AUTHORITY,
    ApprovalPort,
    ApprovalRequest,
    ApprovalToken,
    Decision,
    TokenAuthority,
)
from agent_sdk.context import CallContext, current_context, use_context
from agent_sdk.errors import ErrorKind, HierarchyLimitError, ToolError
from agent_sdk.extraction import to_json_text
from agent_sdk.spec import Registry, ToolSpec, arguments_digest


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


def approval_request(spec: ToolSpec, validated: BaseModel, ctx: CallContext) -> ApprovalRequest:
    return ApprovalRequest(
        tool=spec.name,
        arguments=validated.model_dump(mode="json"),
        call_id=ctx.call_id,
        run_id=ctx.run_id,
        thread_id=ctx.thread_id,
        path=ctx.path,
    )


def needs_approval(spec: ToolSpec, validated: BaseModel, request: ApprovalRequest) -> bool:
    """Whether a port must decide this call: confirm rule, then the policy plugins."""
    try:
        required = spec.needs_confirmation(validated)
    except Exception:
        required = True  # a confirm predicate that fails must not let the call through
    if not required:
        return False
    from agent_sdk.plugins import approval_policy

    verdict = approval_policy(request)
    if verdict is False:
        raise ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"tool '{spec.name}' was denied by an approval policy; do not retry this call",
            tool=spec.name,
        )
    return verdict is not True


def decision_error(tool: str, request: ApprovalRequest, decision: Decision) -> ToolError | None:
    """The model-visible error for anything but a plain approval of ``request``, else None.

    For integrations that gate tools without a ToolSpec (a framework's own tools)."""
    if decision.pending_id:
        return ToolError(
            ErrorKind.APPROVAL_PENDING,
            f"approval required: {decision.pending_id} (tool '{tool}' will run once it is "
            "approved and the same call is made again)",
            tool=tool,
            approval_id=decision.pending_id,
        )
    if not decision.approved:
        by = f" by {decision.reviewer}" if decision.reviewer else ""
        why = f": {decision.reason}" if decision.reason else ""
        return ToolError(ErrorKind.APPROVAL_DENIED, f"tool '{tool}' was denied{by}{why}", tool=tool)
    if decision.arguments is not None and decision.arguments != request.arguments:
        return ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"the approval of tool '{tool}' changed its arguments; edited approvals cannot "
            "be applied: call again with the arguments you want approved",
            tool=tool,
        )
    return None


def apply_decision(spec: ToolSpec, request: ApprovalRequest, decision: Decision) -> None:
    """Raise the model-visible error for anything but a plain approval."""
    error = decision_error(spec.name, request, decision)
    if error is not None:
        raise error


async def ask_port(port: ApprovalPort, spec: ToolSpec, request: ApprovalRequest) -> None:
    decision = await port.request(
        request.tool,
        request.arguments,
        call_id=request.call_id,
        run_id=request.run_id,
        thread_id=request.thread_id,
        path=request.path,
    )
    apply_decision(spec, request, decision)


class ApprovalGate:
    """Asks a port about a confirm call before it runs and hands the call a one-use token.

    Integrations put the gate where the framework lets them see a call first (AG2 tool
    middleware, for example); the executor then takes the token and does not ask again.
    """

    def __init__(self, port: ApprovalPort, *, authority: TokenAuthority = AUTHORITY) -> None:
        self.port = port
        self.authority = authority

    async def admit(self, spec: ToolSpec, arguments: Any, ctx: CallContext) -> ApprovalToken | None:
        """A token for an approved confirm call; None when no approval is needed or the
        arguments are invalid (the executor reports that). Raises ToolError when denied or
        pending."""
        try:
            validated = spec.validate(arguments)
        except ToolError:
            return None
        request = approval_request(spec, validated, ctx)
        if not needs_approval(spec, validated, request):
            return None
        await ask_port(self.port, spec, request)
        return self.authority.mint(
            run_id=ctx.run_id,
            thread_id=ctx.thread_id,
            call_id=ctx.call_id,
            tool=spec.name,
            digest=arguments_digest(spec.name, validated),
        )

    def discard(self, token: ApprovalToken | None) -> None:
        """Drop a token its call did not take."""
        self.authority.discard(token)


class DecidedApproval(ApprovalGate):
    """A gate decision made earlier (in framework middleware or an approval policy),
    replayed inside ``Executor.run_spec`` so a refusal gets the executor's span, error text
    and pending-approval bookkeeping, and a token is taken (or discarded) as usual."""

    def __init__(
        self,
        gate: ApprovalGate,
        *,
        token: ApprovalToken | None = None,
        refusal: BaseException | None = None,
    ) -> None:
        super().__init__(gate.port, authority=gate.authority)
        self.token = token
        self.refusal = refusal

    async def admit(self, spec: ToolSpec, arguments: Any, ctx: CallContext) -> ApprovalToken | None:
        if self.refusal is not None:
            raise self.refusal
        return self.token


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

        ``gate`` asks its port first and hands the call a token (for integrations whose
        framework has no earlier hook to put a gate in).
        """
        ctx = ctx or current_context() or CallContext.new()
        call = ctx

        def attributes() -> dict[str, Any]:
            attrs = _spans.base_attributes(call, (*call.path, spec.name))
            attrs[sc.GEN_AI_OPERATION_NAME] = sc.OP_EXECUTE_TOOL
            attrs[sc.GEN_AI_TOOL_NAME] = spec.name
            attrs[sc.GEN_AI_TOOL_TYPE] = "function"
            if call.call_id:
                attrs[sc.GEN_AI_TOOL_CALL_ID] = call.call_id
            return attrs

        with _spans.span(f"execute_tool {spec.name}", attributes=attributes) as span:
            if _spans.content_captured() and span.is_recording():
                span.set_attribute(sc.GEN_AI_TOOL_CALL_ARGUMENTS, _as_text(arguments))
            token: ApprovalToken | None = None
            try:
                if gate is not None:
                    token = await gate.admit(spec, arguments, ctx)
                    if token is not None:
                        ctx = ctx.evolve(approval=token)
                validated = spec.validate(arguments)
                await self._approve(spec, validated, ctx)
                value = await self._invoke(spec, validated, ctx)
                text = result_text(spec.name, value)
            except HierarchyLimitError:
                raise
            except ToolError as exc:
                exc.tool = exc.tool or spec.name
                if exc.approval_id is not None:
                    from agent_sdk.hierarchy import note_pending_approval

                    note_pending_approval(exc.approval_id)
                _spans.mark_error(span, exc)
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
                return ToolOutcome(spec.name, error.to_model_text(), error=error)
            finally:
                if token is not None:
                    self.authority.discard(token)
            _spans.mark_ok(span)
            if _spans.content_captured() and span.is_recording():
                span.set_attribute(sc.GEN_AI_TOOL_CALL_RESULT, text)
            return ToolOutcome(spec.name, text, value=value)

    async def _approve(self, spec: ToolSpec, validated: BaseModel, ctx: CallContext) -> None:
        if spec.confirm is False:
            return  # the common case: no request to build, no policy to ask
        request = approval_request(spec, validated, ctx)
        if not needs_approval(spec, validated, request):
            return
        if ctx.approval is not None and self.authority.consume(
            ctx.approval,
            run_id=ctx.run_id,
            thread_id=ctx.thread_id,
            call_id=ctx.call_id,
            tool=spec.name,
            digest=arguments_digest(spec.name, validated),
        ):
            return
        if self.approval is None:
            raise ToolError(
                ErrorKind.APPROVAL_DENIED,
                f"tool '{spec.name}' needs approval and no approval port is configured",
                tool=spec.name,
            )
        await ask_port(self.approval, spec, request)

    async def _invoke(self, spec: ToolSpec, validated: BaseModel, ctx: CallContext) -> Any:
        # The token has done its job; the handler and anything it calls never see it.
        if ctx.approval is not None:
            ctx = ctx.evolve(approval=None)
        kwargs = spec.handler_kwargs(validated, ctx)
        started = time.monotonic()
        with use_context(ctx):
            if spec.is_async:
                call: Any = spec.handler(**kwargs)
            else:
                # A worker thread, with the caller's contextvars (CallContext, span) copied.
                call = asyncio.to_thread(spec.handler, **kwargs)
            if spec.timeout is None:
                return await call
            try:
                return await asyncio.wait_for(call, spec.timeout)
            except TimeoutError:
                if time.monotonic() - started < spec.timeout:
                    raise  # the handler's own TimeoutError, not ours
                raise ToolError(
                    ErrorKind.TOOL_TIMEOUT,
                    f"tool '{spec.name}' did not finish within {spec.timeout:g}s",
                    tool=spec.name,
                ) from None


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
        ) from exc.cause


_PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:\\|/)(?:[\w.\-~]+(?: [\w.\-~]+)*[/\\])+[\w.\-~]*")


def safe_message(exc: BaseException, *, limit: int = 500) -> str:
    """An exception as a short message with host paths and environment values removed."""
    try:
        detail = str(exc)
    except Exception:  # an exception whose __str__ fails still gets a message
        detail = ""
    text = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    # Environment values first (a value may contain '/'), also as repr() and JSON spell
    # them (a KeyError shows repr(value)); then host paths.
    for value in os.environ.values():
        if len(value) >= 8:
            for form in {value, repr(value)[1:-1], json.dumps(value)[1:-1]}:
                if form in text:
                    text = text.replace(form, "<redacted>")
    text = _PATH.sub("<path>", text)
    return text[:limit]


def _as_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, default=str)
    except (TypeError, ValueError):
        return repr(arguments)
