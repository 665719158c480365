"""The exception behind a model-visible error, kept for the host by call id.

The model only ever sees ``{"error": {"kind", "message"}}``; the host asks
``tool_error(call_id)`` (the framework's own tool call id) for the ToolError, whose
``.cause`` is the handler's original exception. One way for every integration.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from agent_sdk.errors import ToolError

MAX_KEPT = 4096

_failures: OrderedDict[str, ToolError] = OrderedDict()
_lock = threading.Lock()


def record_failure(call_id: str | None, error: ToolError) -> None:
    """Keep ``error`` for ``call_id`` (the last MAX_KEPT failures of the process)."""
    if not call_id:
        return
    with _lock:
        _failures[call_id] = error
        _failures.move_to_end(call_id)
        while len(_failures) > MAX_KEPT:
            _failures.popitem(last=False)


def tool_error(call_id: str | None) -> ToolError | None:
    """The ToolError of a failed call (by the framework's tool call id), with ``.cause``
    holding the handler's original exception; None for a call that did not fail."""
    with _lock:
        return _failures.get(call_id or "")
