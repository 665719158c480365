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
    from agent_sdk.approval.postgres import PostgresApprovalStore
    from agent_sdk.approval.store import (
        ApprovalStore,
        DeferredApproval,
        PendingApproval,
        SQLiteApprovalStore,
    )

__all__ = [
    "AUTHORITY",
    "ApprovalGate",
    "ApprovalPort",
    "ApprovalRequest",
    "ApprovalStore",
    "ApprovalToken",
    "AutoApprove",
    "CallbackApproval",
    "DecidedApproval",
    "Decision",
    "DeferredApproval",
    "DenyAll",
    "PendingApproval",
    "PostgresApprovalStore",
    "Reviewer",
    "SQLiteApprovalStore",
    "TokenAuthority",
]

# The durable stores (sqlite3, psycopg, a thread pool) are imported on first use.
__getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(
            ("ApprovalStore", "DeferredApproval", "PendingApproval", "SQLiteApprovalStore"),
            "agent_sdk.approval.store",
        ),
        "PostgresApprovalStore": "agent_sdk.approval.postgres",
    },
    submodules=True,
)
