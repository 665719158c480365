"""Run ids for runs without an SDK trace: one per run's Usage object, never a freed one's."""

from __future__ import annotations

import gc

from agents import RunContextWrapper, Usage
from agents.tracing import set_tracing_disabled

from agent_sdk_openai_agents import _context


def test_one_run_one_id_and_a_freed_runs_id_is_forgotten():
    set_tracing_disabled(True)
    try:
        usage = Usage()
        first = _context.conversation_id(RunContextWrapper(context=None, usage=usage))
        assert _context.conversation_id(RunContextWrapper(context=None, usage=usage)) == first
        key = id(usage)
        del usage
        gc.collect()
        assert key not in _context._fallback_ids
    finally:
        set_tracing_disabled(False)


class _Unreferenceable:
    """A usage object without __weakref__ (a future SDK's slotted Usage)."""

    __slots__ = ("requests",)

    def __init__(self) -> None:
        self.requests = 0


def test_a_usage_that_cannot_be_weakly_referenced_is_never_kept():
    set_tracing_disabled(True)
    try:
        usage = _Unreferenceable()
        wrapper = RunContextWrapper(context=None, usage=usage)  # type: ignore[arg-type]
        _context.conversation_id(wrapper)
        # Kept, its id could outlive it and name a later run: fail closed instead.
        assert id(usage) not in _context._fallback_ids
    finally:
        set_tracing_disabled(False)
