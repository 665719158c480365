"""One deferred approval as a store holds it, and how a row of either store reads back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PendingApproval:
    id: str
    tool: str
    arguments: dict[str, Any]
    run_id: str
    call_id: str | None
    thread_id: str | None
    status: str
    created: float
    reviewer: str | None = None
    reason: str | None = None


_COLUMNS = "id, tool, arguments, run_id, call_id, thread_id, status, created, reviewer, reason"


def _row(row: Any) -> PendingApproval:
    return PendingApproval(
        id=row[0],
        tool=row[1],
        arguments=json.loads(row[2]),
        run_id=row[3],
        call_id=row[4],
        thread_id=row[5],
        status=row[6],
        created=row[7],
        reviewer=row[8],
        reason=row[9],
    )
