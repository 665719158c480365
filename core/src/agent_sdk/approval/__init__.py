"""Approvals: ports that decide, durable deferred approvals, one-use tokens, the gate."""

from typing import TYPE_CHECKING

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
from agent_sdk.approval.tokens import AUTHORITY, ApprovalToken, TokenAuthority
from agent_sdk.exports import lazy_exports

if TYPE_CHECKING:
    from agent_sdk.approval.store import DeferredApproval, PendingApproval, SQLiteApprovalStore

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

# The durable store (sqlite3, a thread pool) is imported on first use.
__getattr__ = lazy_exports(
    __name__,
    dict.fromkeys(
        ("DeferredApproval", "PendingApproval", "SQLiteApprovalStore"), "agent_sdk.approval.store"
    ),
    submodules=True,
)
