"""One error family for everything a model, a host or a plugin author can see go wrong."""

from __future__ import annotations

import json
from enum import Enum
from typing import Any


class ErrorKind(str, Enum):
    """What went wrong with a tool call, as the model sees it in ``{"error": {"kind": ...}}``."""

    TOOL_ARGS_INVALID = "tool-args-invalid"
    TOOL_FAILED = "tool-failed"
    TOOL_TIMEOUT = "tool-timeout"
    TOOL_NOT_FOUND = "tool-not-found"
    APPROVAL_DENIED = "approval-denied"
    APPROVAL_PENDING = "approval-pending"
    DEPTH_EXCEEDED = "depth-exceeded"
    RECURSION = "recursion"
    BUDGET_EXHAUSTED = "budget-exhausted"


class AgentSDKError(Exception):
    """Base class of every exception this SDK raises."""


class ConfigurationError(AgentSDKError, ValueError):
    """A tool, agent tool or option was configured wrongly; raised at configuration time."""


class IntegrationError(AgentSDKError):
    """An integration is missing or broken, or its framework is missing or outside its range."""


class ApprovalError(AgentSDKError):
    """An approval could not be resolved (unknown id, already resolved, bad store)."""


class ToolError(AgentSDKError):
    """A tool call that did not produce a value.

    ``kind`` says what went wrong, ``message`` says it in words the model can act on, and
    ``cause`` keeps the original exception for the host (it never reaches the model).
    ``detail`` is a value-free summary for traces (no argument values, no reviewer's words):
    while content capture is off, a span shows the kind, the detail and the cause's type,
    never the message, which may quote the arguments.
    """

    detail: str | None = None  # a class default: errors pickled without one still have it

    def __init__(
        self,
        kind: ErrorKind | str,
        message: str,
        *,
        tool: str | None = None,
        cause: BaseException | None = None,
        approval_id: str | None = None,
        detail: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = ErrorKind(kind)
        self.message = message
        self.tool = tool
        self.cause = cause
        self.approval_id = approval_id
        self.detail = detail
        if cause is not None:
            self.__cause__ = cause

    def __reduce__(self) -> tuple[Any, ...]:
        # Copyable and picklable (frameworks deep-copy results): rebuild from the fields.
        return (_rebuild, (type(self), dict(self.__dict__)))

    def to_model(self) -> dict[str, Any]:
        """The structure the model sees: ``{"error": {"kind": ..., "message": ...}}``."""
        return {"error": {"kind": self.kind.value, "message": self.message}}

    def to_model_text(self) -> str:
        return json.dumps(self.to_model(), ensure_ascii=False)

    def __repr__(self) -> str:
        return f"ToolError(kind={self.kind.value!r}, message={self.message!r})"


class HierarchyLimitError(ToolError):
    """The run's model-call budget is spent. Raised, not returned: continuing only spends more."""

    def __init__(self, message: str, *, tool: str | None = None, detail: str | None = None) -> None:
        super().__init__(ErrorKind.BUDGET_EXHAUSTED, message, tool=tool, detail=detail)


def _rebuild(cls: type[ToolError], state: dict[str, Any]) -> ToolError:
    error = cls.__new__(cls)
    Exception.__init__(error, state.get("message", ""))
    error.__dict__.update(state)
    return error
