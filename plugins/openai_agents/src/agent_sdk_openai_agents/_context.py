"""CallContext binding from the Agents SDK's run state.

The SDK has no run id. Its trace id names a run (and survives a RunState round trip), so it
is the conversation id we hand to ``bind_call``; ``bind_call`` still gives an active
``run_scope`` or a parent call precedence.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from agents import RunContextWrapper
from agents.tool_context import ToolContext
from agents.tracing import gen_trace_id, get_current_trace

from agent_sdk.integration import CallContext, bind_call

_NO_OP_IDS = frozenset({"no-op", ""})

# Per-run ids for runs without an SDK trace (tracing disabled), keyed by the run's Usage
# object: the SDK shares that one object between a run's context wrapper and every
# ToolContext it creates, so the needs_approval policy and the tool bind the same id.
_fallback_ids: dict[int, str] = {}
_fallback_lock = threading.Lock()


def sdk_trace_id() -> str | None:
    """The id of the active SDK trace, or None when tracing is off (a no-op trace)."""
    trace = get_current_trace()
    trace_id = getattr(trace, "trace_id", None) if trace is not None else None
    if not trace_id or trace_id in _NO_OP_IDS:
        return None
    return str(trace_id)


def conversation_id(wrapper: RunContextWrapper[Any] | None) -> str:
    """The SDK's id for the run ``wrapper`` belongs to.

    The active trace's id; with tracing disabled ``RunConfig.trace_id`` when the tool context
    carries one; else an id generated once per run. A run resumed from a RunState with SDK
    tracing off is a new run then: its paused calls are asked again (never run on another
    run's approval). Open ``run_scope(run_id)`` around the run and its resumption to keep
    one run id (``bind_call`` gives the scope precedence); call ids alone cannot name a run
    (some servers reuse them).
    """
    trace_id = sdk_trace_id()
    if trace_id is not None:
        return trace_id
    usage = getattr(wrapper, "usage", None)
    if usage is None:
        return gen_trace_id()
    key = id(usage)
    with _fallback_lock:
        known = _fallback_ids.get(key)
        if known is not None:
            return known
        config = getattr(wrapper, "run_config", None) if isinstance(wrapper, ToolContext) else None
        chosen = getattr(config, "trace_id", None) or gen_trace_id()
        _fallback_ids[key] = chosen
    try:
        weakref.finalize(usage, _forget, key)
    except TypeError:
        # A Usage that cannot be weakly referenced would keep its entry after it is freed,
        # and a later run's Usage at the same address would get this run's id: keep none
        # (each look-up is then a new run, so its paused calls are asked again).
        _forget(key)
    return chosen


def _forget(key: int) -> None:
    with _fallback_lock:
        _fallback_ids.pop(key, None)


def bind_tool_context(wrapper: RunContextWrapper[Any], call_id: str | None = None) -> CallContext:
    """The CallContext of the tool call ``wrapper`` (a ToolContext) or ``call_id`` describes."""
    if call_id is None and isinstance(wrapper, ToolContext):
        call_id = wrapper.tool_call_id
    run = conversation_id(wrapper)
    extra: dict[str, Any] = {"framework": "openai-agents"}
    if isinstance(wrapper, ToolContext):
        agent = getattr(wrapper, "agent", None)
        if agent is not None:
            extra["agent"] = getattr(agent, "name", None)
    return bind_call(call_id=call_id, conversation_id=run, extra=extra)
