"""The exception behind a model-visible error, kept for the host by run and call id.

The model only ever sees ``{"error": {"kind", "message"}}``; the host asks
``tool_error(call_id)`` (the framework's own tool call id) for the ToolError, whose
``.cause`` is the handler's original exception. One way for every integration.

Servers reuse call ids (``call_1`` in every conversation), so a failure is kept under its
run and call id, and a later success of the same call in the same run forgets it: a host
never gets another run's error, nor one for a call that succeeded since.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from agent_sdk.context import current_context
from agent_sdk.errors import ToolError

MAX_KEPT = 4096

_failures: OrderedDict[tuple[str, str], ToolError] = OrderedDict()  # (run id, call id)
# The run of each call id's latest failure, for a host that asks outside any run; an entry
# only while that failure is kept, so it is bounded by MAX_KEPT too.
_latest_run: dict[str, str] = {}
_lock = threading.Lock()


def _run_of(run_id: str | None) -> str | None:
    if run_id is not None:
        return run_id
    ctx = current_context()
    return ctx.run_id if ctx is not None else None


def record_failure(call_id: str | None, error: ToolError, *, run_id: str | None = None) -> None:
    """Keep ``error`` for ``call_id`` in the run ``run_id`` (default: the current
    context's); the last MAX_KEPT failures of the process are kept."""
    if not call_id:
        return
    run = _run_of(run_id) or ""
    key = (run, call_id)
    with _lock:
        _failures[key] = error
        _failures.move_to_end(key)
        _latest_run[call_id] = run
        while len(_failures) > MAX_KEPT:
            (old_run, old_call), _ = _failures.popitem(last=False)
            if _latest_run.get(old_call) == old_run:
                del _latest_run[old_call]


def record_success(call_id: str | None, *, run_id: str | None = None) -> None:
    """The call ``call_id`` of the run ``run_id`` (default: the current context's)
    succeeded: forget a failure kept for it, and its id is no longer a failure's for a
    host that asks outside any run."""
    if not call_id or not _failures:
        return
    run = _run_of(run_id) or ""
    with _lock:
        _failures.pop((run, call_id), None)
        _latest_run.pop(call_id, None)


def tool_error(call_id: str | None, *, run_id: str | None = None) -> ToolError | None:
    """The ToolError of a failed call (by the framework's tool call id), with ``.cause``
    holding the handler's original exception; None for a call that did not fail.

    The call is looked up in the run ``run_id``, by default the current context's (a host
    inside its ``run_scope``); outside any run, the latest call with that id answers."""
    if not call_id:
        return None
    run = _run_of(run_id)
    with _lock:
        if run is None:
            run = _latest_run.get(call_id)
            if run is None:
                return None
        return _failures.get((run, call_id))
