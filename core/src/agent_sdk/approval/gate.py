"""The approval gate: the one chain every approval goes through, run once per call.

validate -> confirm rule -> token (if the call carries one) -> policy plugins -> port ->
decision -> token minted -> pending note. ``ApprovalGate.decide`` runs it and hands the
executor an ``Admission``: validated, frozen arguments with the token, or the refusal. The
executor runs what it was handed and never asks again. Every executor has a gate of its own
(its port); integrations get one built from their executor (``Executor.gate(port)``) for
``approval=``. Where a framework shows an integration a call before it runs (openai-agents'
``needs_approval``), ``decide_early`` decides it there and keeps the decision, bounded, until
the executor takes it; framework-native approvals of tools without a ToolSpec use
``decide_native``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from agent_sdk.approval.admission import Admission, EarlyDecisions, comparable
from agent_sdk.approval.ports import ApprovalPort, ApprovalRequest, Decision
from agent_sdk.approval.tokens import AUTHORITY, ApprovalToken, TokenAuthority
from agent_sdk.context import CallContext
from agent_sdk.deprecated import warn
from agent_sdk.errors import ErrorKind, HierarchyLimitError, ToolError
from agent_sdk.failures import record_failure
from agent_sdk.redaction import safe_message
from agent_sdk.run import note_pending_approval
from agent_sdk.spec import (
    ToolSpec,
    arguments_digest,
    canonical_dump,
    canonical_json,
    copy_arguments,
    digest_of,
)


def approval_request(tool: str, arguments: Mapping[str, Any], ctx: CallContext) -> ApprovalRequest:
    return ApprovalRequest(
        tool=tool,
        arguments=dict(arguments),
        call_id=ctx.call_id,
        run_id=ctx.run_id,
        thread_id=ctx.thread_id,
        path=ctx.path,
    )


def confirm_required(spec: ToolSpec, validated: BaseModel) -> bool:
    """The spec's confirm rule; a rule that fails must not let the call through."""
    try:
        return spec.needs_confirmation(validated)
    except Exception:
        return True


def policy_allows(request: ApprovalRequest) -> bool:
    """Ask the approval-policy plugins about a call that needs approval: True when one
    allows it without asking the port; raises ToolError(approval-denied) when one denies."""
    # Plugin discovery (pluggy, entry points) loads with the first call that needs approval,
    # not with ``import agent_sdk``.
    from agent_sdk.plugin_manager import approval_policy

    verdict = approval_policy(request)
    if verdict is False:
        raise ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"tool '{request.tool}' was denied by an approval policy; do not retry this call",
            tool=request.tool,
            detail="denied by an approval policy",
        )
    return verdict is True


def decision_error(
    tool: str, request: ApprovalRequest, decision: Decision, *, canonical: str | None = None
) -> ToolError | None:
    """The model-visible error for anything but a plain approval of ``request``, else None.

    ``canonical`` is the request's arguments as ``canonical_json`` spelled them before the
    port was asked: an approval naming other arguments is an edit even when the reviewer
    changed ``request.arguments`` in place."""
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
        # The reason (and the reviewer's name) are the reviewer's words; they may name the
        # arguments, so traces get only the fixed detail.
        return ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"tool '{tool}' was denied{by}{why}",
            tool=tool,
            detail="denied by the reviewer",
        )
    if decision.arguments is not None and (
        decision.arguments != request.arguments
        if canonical is None
        else _spelling(decision.arguments) != canonical
    ):
        return ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"the approval of tool '{tool}' changed its arguments; edited approvals cannot "
            "be applied: call again with the arguments you want approved",
            tool=tool,
            detail="the approval changed the arguments",
        )
    return None


def _spelling(arguments: Any) -> str | None:
    try:
        return canonical_json(arguments)
    except (TypeError, ValueError, RecursionError):
        return None


async def ask_port(
    port: ApprovalPort | None, request: ApprovalRequest, *, canonical: str | None = None
) -> None:
    """Ask ``port`` and raise the model-visible error unless it plainly approved.

    No port means denied. A port that fails denies the call (the error names why)."""
    tool = request.tool
    if port is None:
        raise ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"tool '{tool}' needs approval and no approval port is configured",
            tool=tool,
            detail="no approval port",
        )
    try:
        decision = await port.request(
            tool,
            request.arguments,
            call_id=request.call_id,
            run_id=request.run_id,
            thread_id=request.thread_id,
            path=request.path,
        )
    except (ToolError, HierarchyLimitError):
        raise
    except Exception as exc:
        raise ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"tool '{tool}' could not be approved: {safe_message(exc)}",
            tool=tool,
            cause=exc,
            detail="the approval port failed",
        ) from exc
    if not isinstance(decision, Decision):
        raise ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"tool '{tool}' could not be approved: the approval port answered "
            f"{type(decision).__name__}, not a Decision",
            tool=tool,
            detail="the approval port did not answer a Decision",
        )
    error = decision_error(tool, request, decision, canonical=canonical)
    if error is not None:
        raise error


class ApprovalGate:
    """Decides a call once, before it runs, and hands the executor what it decided.

    Build it from the executor that will run the calls (``executor.gate(port)``), so the
    token is minted by the authority that checks it.
    """

    def __init__(self, port: ApprovalPort | None, *, authority: TokenAuthority = AUTHORITY) -> None:
        self.port = port
        self.authority = authority
        self.early = EarlyDecisions(ttl=authority.ttl)

    async def decide(self, spec: ToolSpec, arguments: Any, ctx: CallContext) -> Admission:
        """Validate once, run the confirm rule once, and for a confirm call take the token
        the call carries or ask the policies and the port once; an approved call gets a
        one-use token bound to the call and its arguments. Refusals (invalid arguments,
        denied, pending, a failing port) are the admission's ``error``; a pending id is
        noted for the running sub-agent. ``HierarchyLimitError`` propagates."""
        return await self._decide(spec, arguments, ctx, private=False)

    async def decide_early(self, spec: ToolSpec, arguments: Any, ctx: CallContext) -> Admission:
        """``decide`` where the framework shows the call before it runs it, and keep the
        decision for the executor (``take``), bounded in number and age. A pending call is
        not kept: the framework pauses it, and it is decided again when it resumes."""
        admission = await self._decide(spec, arguments, ctx, private=True)
        if not admission.pending:
            admission.arguments = comparable(arguments)
            for dropped in self.early.keep(admission):
                self.discard(dropped.token)
        return admission

    def _decide_plain(self, spec: ToolSpec, arguments: Any) -> BaseModel | None:
        """What ``decide`` hands over for a call of a spec that never needs approval
        (``confirm=False``), decided at once: the validated arguments, the refusal
        (tool-args-invalid) raised. None where ``decide`` must run: a spec that may need
        approval, or a gate of a subclass (its decisions are its own)."""
        if spec.confirm is not False or type(self) is not ApprovalGate:
            return None
        return spec.validate(arguments)

    def take(self, spec: ToolSpec, arguments: Any, ctx: CallContext) -> Admission | None:
        """The decision ``decide_early`` kept for this very call (same run, conversation,
        call id, spec and arguments), once; None when there is none."""
        found, stale = self.early.take(spec, arguments, ctx)
        if stale is not None:
            self.discard(stale.token)
        return found

    async def decide_native(
        self, tool: str, arguments: Mapping[str, Any], ctx: CallContext
    ) -> ToolError | None:
        """Decide a call to a tool that has no ToolSpec (a framework's own tool) and that
        the integration's own rule says needs approval: None when it may run, else the
        model-visible error. No token: nothing of ours runs the call afterwards."""
        try:
            await self._ask(approval_request(tool, arguments, ctx))
        except HierarchyLimitError:
            raise
        except ToolError as exc:
            return exc
        return None

    def discard(self, token: ApprovalToken | None) -> None:
        """Drop a token its call did not take."""
        self.authority.discard(token)

    async def _decide(
        self, spec: ToolSpec, arguments: Any, ctx: CallContext, *, private: bool
    ) -> Admission:
        if (private or spec.confirm is not False) and isinstance(arguments, Mapping):
            # Objects a framework handed us may still change (while a reviewer decides, or
            # until a kept decision runs): what is validated, approved and run is a copy
            # taken now. Parsed text is ours already.
            arguments = copy_arguments(arguments)
        try:
            validated = spec.validate(arguments)
        except ToolError as exc:
            return Admission(spec, ctx, error=exc)
        confirm = spec.confirm is not False and confirm_required(spec, validated)
        if not confirm:
            return Admission(spec, ctx, validated)
        dump = canonical_dump(validated)  # what the reviewer sees, in one order everywhere
        canonical = canonical_json(dump)
        digest = digest_of(spec.name, canonical)
        run_id, thread_id, call_id = ctx.run_id, ctx.thread_id, ctx.call_id
        if ctx.token is not None and self.authority.consume(
            ctx.token,
            run_id=run_id,
            thread_id=thread_id,
            call_id=call_id,
            tool=spec.name,
            digest=digest,
        ):
            return Admission(spec, ctx, validated, digest=digest)  # approved earlier, once
        try:
            await self._ask(approval_request(spec.name, dump, ctx), canonical=canonical)
        except ToolError as exc:
            return Admission(spec, ctx, validated, error=exc, digest=digest)
        token = self.authority.mint(
            run_id=run_id, thread_id=thread_id, call_id=call_id, tool=spec.name, digest=digest
        )
        return Admission(spec, ctx, validated, token=token, digest=digest)

    async def _ask(self, request: ApprovalRequest, *, canonical: str | None = None) -> None:
        try:
            if policy_allows(request):
                return
            await ask_port(self.port, request, canonical=canonical)
        except ToolError as exc:
            # Kept for the host by call id (``tool_error``), also for a call the framework
            # pauses or refuses itself and so never reaches the executor.
            record_failure(request.call_id, exc, run_id=request.run_id)
            if exc.approval_id is not None:
                note_pending_approval(exc.approval_id)
            raise

    # -- 0.1 spellings ---------------------------------------------------------------------
    async def admit(self, spec: ToolSpec, arguments: Any, ctx: CallContext) -> ApprovalToken | None:
        """Deprecated: ``decide`` (this returns only the token and raises the refusal)."""
        warn("agent_sdk.ApprovalGate.admit")
        admission = await self.decide(spec, arguments, ctx)
        if admission.error is not None and admission.validated is not None:
            raise admission.error
        return admission.token

    async def check(
        self, tool: str, arguments: Mapping[str, Any], ctx: CallContext
    ) -> ToolError | None:
        """Deprecated: ``decide_native``."""
        warn("agent_sdk.ApprovalGate.check")
        return await self.decide_native(tool, arguments, ctx)


class DecidedApproval(ApprovalGate):
    """Deprecated (0.1): a decision made elsewhere, replayed inside ``Executor.run_spec``.
    Keep a decision with ``ApprovalGate.decide_early`` instead; the executor takes it."""

    def __init__(
        self,
        gate: ApprovalGate,
        *,
        token: ApprovalToken | None = None,
        refusal: BaseException | None = None,
    ) -> None:
        warn("agent_sdk.DecidedApproval")
        super().__init__(gate.port, authority=gate.authority)
        self.token = token
        self.refusal = refusal

    async def _decide(
        self, spec: ToolSpec, arguments: Any, ctx: CallContext, *, private: bool
    ) -> Admission:
        try:
            validated = spec.validate(arguments)
        except ToolError as exc:
            return Admission(spec, ctx, error=exc)
        if self.refusal is not None:
            if isinstance(self.refusal, ToolError):
                return Admission(spec, ctx, validated, error=self.refusal)
            raise self.refusal
        if self.token is None:  # nothing was decided: the chain decides, as for any call
            return await super()._decide(spec, arguments, ctx, private=private)
        return Admission(
            spec, ctx, validated, token=self.token, digest=arguments_digest(spec.name, validated)
        )
