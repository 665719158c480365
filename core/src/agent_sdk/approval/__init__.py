"""Approvals: ports that decide, durable deferred approvals, one-use tokens, the gate."""

from agent_sdk.approval.gate import ApprovalGate, DecidedApproval
from agent_sdk.approval.ports import (
    ApprovalPort,
    ApprovalRequest,
    AutoApprove,
    CallbackApproval,
    Decision,
    DenyAll,
    Reviewer,
)
from agent_sdk.approval.store import DeferredApproval, PendingApproval, SQLiteApprovalStore
from agent_sdk.approval.tokens import AUTHORITY, ApprovalToken, TokenAuthority

__all__ = [
    "AUTHORITY",
    "ApprovalGate",
    "ApprovalPort",
    "ApprovalRequest",
    "ApprovalToken",
    "AutoApprove",
    "CallbackApproval",
    "DecidedApproval",
    "Decision",
    "DeferredApproval",
    "DenyAll",
    "PendingApproval",
    "Reviewer",
    "SQLiteApprovalStore",
    "TokenAuthority",
]
