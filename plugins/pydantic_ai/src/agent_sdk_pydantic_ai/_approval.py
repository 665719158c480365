"""Pending approvals as pydantic-ai's own deferred tool calls, decided by the core's one gate.

The gate decides every confirm call of our tools when it runs (validation, confirm rule,
policies, port, one-use token). An approved or denied call never pauses the run. A pending
one pauses it the pydantic-ai way where the run can end on deferred calls (the agent's
``output_type`` includes ``DeferredToolRequests``; a tool cannot see a run's own
``output_type=``, so there the model is told instead): the tool raises ``ApprovalRequired``
with the approval ids in the call's metadata, and the run ends with ``DeferredToolRequests``.
The host resolves those ids in its approval store, then resumes with
``deferred_results(requests)`` (and the message history, which survives a restart as JSON).
pydantic-ai's approval only resumes the call: the gate decides it again, and only an
approved, unused entry for the same run, call, tool and arguments runs it, once;
pydantic-ai itself enforces no one-use rule. Elsewhere the model is told ``approval
required: apr_...``, as in every integration.

``native_approval(gate)`` is ``INTEGRATION.bind_approval(port)``: a
``HandleDeferredToolCalls`` capability deciding pydantic-ai's own ``requires_approval``
tools through the gate.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import (
    ApprovalRequired,
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
    ToolApproved,
    ToolDenied,
)
from pydantic_ai.capabilities import HandleDeferredToolCalls

from agent_sdk import ToolError
from agent_sdk.integration import ApprovalGate, bind_call
from agent_sdk_pydantic_ai._context import bind_run_context, current_call

METADATA_KEY = "agent_sdk"
"""The key of our entry in a deferred call's metadata: ``{"approvals": [apr ids], "child":
<the paused sub-agent's state, for an agent tool>}`` (JSON, so the host can persist it)."""

# The agent of a child run an agent tool started with DeferredToolRequests among its output
# types (pydantic-ai gives a tool no way to see its run's output types).
pausable_agent: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "agent_sdk_pydantic_ai_pausable", default=None
)


def allows_deferred(output_type: Any) -> bool:
    """``output_type`` (an agent's output spec) includes ``DeferredToolRequests``."""
    if output_type is DeferredToolRequests:
        return True
    if isinstance(output_type, Sequence) and not isinstance(output_type, str):
        return any(allows_deferred(o) for o in output_type)
    return False


def with_deferred(output_type: Any) -> Any:
    """``output_type`` with ``DeferredToolRequests`` among its types."""
    if allows_deferred(output_type):
        return output_type
    if isinstance(output_type, Sequence) and not isinstance(output_type, str):
        return [*output_type, DeferredToolRequests]
    return [output_type, DeferredToolRequests]


def can_pause(ctx: RunContext[Any]) -> bool:
    """The run ``ctx`` belongs to can end paused on this call: it may end on deferred calls,
    and this call is not one the host already resumed (the gate's answer then stands)."""
    if ctx.tool_call_approved:
        return False
    agent = ctx.agent
    if agent is None:
        return False
    return pausable_agent.get() is agent or allows_deferred(agent.output_type)


def pause(ctx: RunContext[Any], error: ToolError, *, child: Any = None) -> None:
    """Raise ``ApprovalRequired`` for a call the gate left pending, where the run can pause
    (else return: the model sees the error). ``child`` is a paused sub-agent's state."""
    if error.approval_id is None or not can_pause(ctx):
        return
    approvals = child.get("approvals") if isinstance(child, Mapping) else None
    entry: dict[str, Any] = {"approvals": list(approvals or [error.approval_id])}
    if child is not None:
        entry["child"] = child
    raise ApprovalRequired(metadata={METADATA_KEY: entry})


def resumed_entry(ctx: RunContext[Any]) -> Mapping[str, Any] | None:
    """Our metadata entry of a call the host resumed (``deferred_results``), if any. It comes
    back from the host: whoever reads it checks it (it runs nothing by itself)."""
    if not ctx.tool_call_approved:
        return None
    metadata = ctx.tool_call_metadata
    entry = metadata.get(METADATA_KEY) if isinstance(metadata, Mapping) else None
    return entry if isinstance(entry, Mapping) else None


def deferred_approval_ids(requests: DeferredToolRequests) -> dict[str, list[str]]:
    """The approval ids (``apr_...``) each paused call of ours waits on, by tool call id, in
    call order (a sub-agent's call lists its child's). Resolve them in the approval store
    (``DeferredApproval.resolve``), then resume with ``deferred_results(requests)``. Calls
    of pydantic-ai's own ``requires_approval`` tools are not listed: the host decides them."""
    found: dict[str, list[str]] = {}
    for call in requests.approvals:
        entry = requests.metadata.get(call.tool_call_id, {}).get(METADATA_KEY)
        if isinstance(entry, Mapping):
            found[call.tool_call_id] = [str(i) for i in entry.get("approvals", ())]
    return found


def deferred_results(
    requests: DeferredToolRequests,
    *,
    edit: Mapping[str, Mapping[str, Any]] | None = None,
) -> DeferredToolResults:
    """What resumes every call of ours in ``requests``: approved in pydantic-ai (which only
    resumes it; the gate decides it again) with its metadata handed back (a paused child's
    state). ``edit`` replaces the arguments of calls by their ids, a paused child's calls
    included (``ToolApproved(override_args=...)`` where the call is resumed): the gate then
    sees other arguments than it was asked about, and refuses them."""
    approvals: dict[str, bool | ToolApproved | ToolDenied] = {}
    metadata = dict(requests.metadata)
    for call_id in deferred_approval_ids(requests):
        changed = (edit or {}).get(call_id)
        approvals[call_id] = ToolApproved(override_args=dict(changed)) if changed else True
        entry = metadata.get(call_id, {}).get(METADATA_KEY)
        if edit and isinstance(entry, Mapping) and isinstance(entry.get("child"), Mapping):
            child = entry["child"]  # the edit is handed down: the child resumes with it
            child = {**child, "edit": {**(child.get("edit") or {}), **edit}}
            metadata[call_id] = {**metadata[call_id], METADATA_KEY: {**entry, "child": child}}
    return DeferredToolResults(approvals=approvals, metadata=metadata)


@dataclass
class GateApproval(HandleDeferredToolCalls[Any]):
    """``INTEGRATION.bind_approval(port)``: pydantic-ai's handler capability, holding the
    gate it decides with (a paused sub-agent's calls are decided by it again on resume)."""

    gate: ApprovalGate | None = field(default=None, kw_only=True)


def _gate_of(agent: Any) -> ApprovalGate | None:
    found: list[Any] = []
    agent.root_capability.apply(found.append)
    gates = [c.gate for c in found if isinstance(c, GateApproval) and c.gate is not None]
    return gates[0] if gates else None


async def native_results(
    agent: Any, requests: DeferredToolRequests, conversation_id: str | None
) -> dict[str, ToolApproved | ToolDenied]:
    """What resumes a paused sub-agent's calls of pydantic-ai's own ``requires_approval``
    tools (pydantic-ai resumes a run only with a result for every deferred call): the
    child's gate (``bind_approval``) decides each again, in the same call context, so an
    approval the host gave in the store runs the call, once; without one it is refused."""
    ours = deferred_approval_ids(requests)
    gate = _gate_of(agent)
    results: dict[str, ToolApproved | ToolDenied] = {}
    for call in requests.approvals:
        if call.tool_call_id in ours:
            continue
        if gate is None:
            results[call.tool_call_id] = ToolDenied(
                f"the call of '{call.tool_name}' needs approval and no approval gate of "
                "agent-sdk decides it (INTEGRATION.bind_approval(port) on the sub-agent)"
            )
            continue
        ctx = bind_call(
            call_id=call.tool_call_id, conversation_id=conversation_id, extra=_extra(agent)
        )
        refusal = await gate.decide_native(call.tool_name, call.args_as_dict(), ctx)
        results[call.tool_call_id] = (
            ToolApproved() if refusal is None else ToolDenied(refusal.to_model_text())
        )
    return results


def _extra(agent: Any) -> dict[str, Any]:
    return {"framework": "pydantic-ai", "agent": agent.name}


def native_approval(gate: ApprovalGate) -> HandleDeferredToolCalls[Any]:
    """A ``HandleDeferredToolCalls`` capability deciding the ``requires_approval`` calls of
    pydantic-ai's own tools through ``gate`` (``INTEGRATION.bind_approval(port)``): an
    approved call runs, a denied one gets the gate's error as its result, a pending one is
    left to the host (the run ends with ``DeferredToolRequests`` if it can; in a sub-agent an
    agent tool runs, its parent pauses on the gate's approval id, and the gate decides the
    call again when the host resumes it). Calls our gate paused already are left to the host
    too. There is no token: nothing of ours runs these
    calls, so a host that approves them in pydantic-ai runs them."""

    async def decide(
        ctx: RunContext[Any], requests: DeferredToolRequests
    ) -> DeferredToolResults | None:
        approvals: dict[str, bool | ToolApproved | ToolDenied] = {}
        for call in requests.approvals:
            if METADATA_KEY in requests.metadata.get(call.tool_call_id, {}):
                continue
            call_ctx = bind_run_context(ctx, call.tool_call_id)
            refusal = await gate.decide_native(call.tool_name, call.args_as_dict(), call_ctx)
            if refusal is None:
                approvals[call.tool_call_id] = ToolApproved()
            elif refusal.approval_id is None:
                approvals[call.tool_call_id] = ToolDenied(refusal.to_model_text())
            elif (parent := current_call.get()) is not None:
                # A sub-agent's run (its parent's agent-tool call is running): the parent
                # pauses on this id, which the host resolves in the store.
                noted = parent.native_approvals
                if noted is None:
                    noted = parent.native_approvals = {}
                noted[call.tool_call_id] = refusal.approval_id
        return DeferredToolResults(approvals=approvals) if approvals else None

    return GateApproval(handler=decide, gate=gate)


__all__ = [
    "METADATA_KEY",
    "GateApproval",
    "allows_deferred",
    "can_pause",
    "deferred_approval_ids",
    "deferred_results",
    "native_approval",
    "native_results",
    "pause",
    "resumed_entry",
    "with_deferred",
]
