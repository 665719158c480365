"""Approval ports: who decides whether a confirm call may run, and what they answer."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from agent_sdk.errors import ApprovalError, ConfigurationError
from agent_sdk.threads import REVIEWER_THREADS


@dataclass(frozen=True)
class ApprovalRequest:
    """What a reviewer sees: the tool, the validated arguments, and which call asks."""

    tool: str
    arguments: dict[str, Any]
    call_id: str | None
    run_id: str
    thread_id: str | None = None
    path: tuple[str, ...] = ()


@dataclass(frozen=True)
class Decision:
    """A port's answer. ``pending_id`` set means: not decided yet, ask again later."""

    approved: bool
    reason: str | None = None
    reviewer: str | None = None
    arguments: dict[str, Any] | None = None
    pending_id: str | None = None

    @classmethod
    def approve(cls, *, reviewer: str | None = None, reason: str | None = None) -> Decision:
        return cls(True, reason=reason, reviewer=reviewer)

    @classmethod
    def deny(cls, reason: str | None = None, *, reviewer: str | None = None) -> Decision:
        return cls(False, reason=reason, reviewer=reviewer)

    @classmethod
    def pending(cls, approval_id: str) -> Decision:
        return cls(False, pending_id=approval_id)


@runtime_checkable
class ApprovalPort(Protocol):
    """Decides whether a confirm call may run."""

    async def request(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        call_id: str | None,
        run_id: str,
        thread_id: str | None = None,
        path: tuple[str, ...] = (),
    ) -> Decision: ...


class AutoApprove:
    """Approves every call (for tests and trusted tools)."""

    async def request(self, tool: str, arguments: dict[str, Any], **_: Any) -> Decision:
        return Decision.approve(reviewer="auto")


class DenyAll:
    """Denies every call that needs approval."""

    def __init__(self, reason: str = "approvals are switched off") -> None:
        self.reason = reason

    async def request(self, tool: str, arguments: dict[str, Any], **_: Any) -> Decision:
        return Decision.deny(self.reason, reviewer="deny-all")


Reviewer = Callable[[ApprovalRequest], "Decision | bool | Awaitable[Decision | bool]"]


class CallbackApproval:
    """Asks a function. It gets an ApprovalRequest and returns a Decision or a bool.

    An async reviewer is awaited; a sync one runs on agent-sdk's reviewer threads (it may
    block on a terminal prompt) with the caller's context, never on the threads that run
    sync tools.
    """

    def __init__(self, reviewer: Reviewer) -> None:
        if not callable(reviewer):
            raise ConfigurationError("CallbackApproval needs a callable reviewer")
        self.reviewer = reviewer
        self._is_async = inspect.iscoroutinefunction(reviewer)

    async def request(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        call_id: str | None,
        run_id: str,
        thread_id: str | None = None,
        path: tuple[str, ...] = (),
    ) -> Decision:
        req = ApprovalRequest(tool, dict(arguments), call_id, run_id, thread_id, tuple(path))
        if self._is_async:
            answer = await self.reviewer(req)  # type: ignore[misc]
        else:
            answer = await REVIEWER_THREADS.run(self.reviewer, req)
            if inspect.isawaitable(answer):
                answer = await answer
        if isinstance(answer, bool):
            return Decision(answer, reason=None if answer else "denied by the reviewer")
        if isinstance(answer, Decision):
            return answer
        raise ApprovalError(
            f"reviewer returned {type(answer).__name__}; return a Decision or a bool"
        )
