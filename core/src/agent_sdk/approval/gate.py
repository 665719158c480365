"""The approval gate: the one chain every approval goes through.

confirm rule -> policy plugins -> token (if the call carries one) -> port -> decision ->
pending note. The executor runs it for every confirm call; integrations get a gate built
from their executor (``Executor.gate(port)``) to decide a call earlier, where the framework
lets them see it first (tool middleware, ``needs_approval``, a turn's tool batch), and
framework-native approvals of tools without a ToolSpec use ``ApprovalGate.check``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from agent_sdk.approval.ports import ApprovalPort, ApprovalRequest, Decision
from agent_sdk.approval.tokens import AUTHORITY, ApprovalToken, TokenAuthority
from agent_sdk.context import CallContext
from agent_sdk.errors import ErrorKind, HierarchyLimitError, ToolError
from agent_sdk.redaction import safe_message
from agent_sdk.run import note_pending_approval
from agent_sdk.spec import ToolSpec, arguments_digest


def approval_request(tool: str, arguments: Mapping[str, Any], ctx: CallContext) -> ApprovalRequest:
    return ApprovalRequest(
        tool=tool,
        arguments=dict(arguments),
        call_id=ctx.call_id,
        run_id=ctx.run_id,
        thread_id=ctx.thread_id,
        path=ctx.path,
    )


def spec_request(spec: ToolSpec, validated: BaseModel, ctx: CallContext) -> ApprovalRequest:
    return approval_request(spec.name, validated.model_dump(mode="json"), ctx)


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
        )
    return verdict is True


def decision_error(tool: str, request: ApprovalRequest, decision: Decision) -> ToolError | None:
    """The model-visible error for anything but a plain approval of ``request``, else None."""
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


async def ask_port(port: ApprovalPort | None, request: ApprovalRequest) -> None:
    """Ask ``port`` and raise the model-visible error unless it plainly approved.

    No port means denied. A port that fails denies the call (the error names why)."""
    tool = request.tool
    if port is None:
        raise ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"tool '{tool}' needs approval and no approval port is configured",
            tool=tool,
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
        ) from exc
    if not isinstance(decision, Decision):
        raise ToolError(
            ErrorKind.APPROVAL_DENIED,
            f"tool '{tool}' could not be approved: the approval port answered "
            f"{type(decision).__name__}, not a Decision",
            tool=tool,
        )
    error = decision_error(tool, request, decision)
    if error is not None:
        raise error


class ApprovalGate:
    """Decides a confirm call before it runs and hands an approved call a one-use token.

    Build it from the executor that will run the calls (``executor.gate(port)``), so the
    token is minted by the authority that checks it. Integrations put the gate where the
    framework lets them see a call first; the executor then takes the token and does not
    ask again.
    """

    def __init__(self, port: ApprovalPort | None, *, authority: TokenAuthority = AUTHORITY) -> None:
        self.port = port
        self.authority = authority

    async def admit(self, spec: ToolSpec, arguments: Any, ctx: CallContext) -> ApprovalToken | None:
        """A token for an approved confirm call; None when no approval is needed or the
        arguments are invalid (the executor reports that). Raises ToolError when denied or
        pending (a pending id is noted for the running sub-agent)."""
        try:
            validated = spec.validate(arguments)
        except ToolError:
            return None
        if spec.confirm is False or not confirm_required(spec, validated):
            return None
        request = spec_request(spec, validated, ctx)
        await self._decide(request)
        return self.authority.mint(
            run_id=ctx.run_id,
            thread_id=ctx.thread_id,
            call_id=ctx.call_id,
            tool=spec.name,
            digest=arguments_digest(spec.name, validated),
        )

    async def check(
        self, tool: str, arguments: Mapping[str, Any], ctx: CallContext
    ) -> ToolError | None:
        """Decide a call to a tool that has no ToolSpec (a framework's own tool) and that
        the integration's own rule says needs approval: None when it may run, else the
        model-visible error. No token: nothing of ours runs the call afterwards."""
        try:
            await self._decide(approval_request(tool, arguments, ctx))
        except HierarchyLimitError:
            raise
        except ToolError as exc:
            return exc
        return None

    async def _decide(self, request: ApprovalRequest) -> None:
        try:
            if policy_allows(request):
                return
            await ask_port(self.port, request)
        except ToolError as exc:
            if exc.approval_id is not None:
                note_pending_approval(exc.approval_id)
            raise

    def discard(self, token: ApprovalToken | None) -> None:
        """Drop a token its call did not take."""
        self.authority.discard(token)


class DecidedApproval(ApprovalGate):
    """A gate decision made earlier (in framework middleware or a native approval hook),
    replayed inside ``Executor.run_spec`` so a refusal gets the executor's span and error
    text, and a token is taken (or discarded) as usual."""

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
