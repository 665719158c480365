"""What the approval gate decided for one call, and the bounded place where a decision made
early waits for its call.

The gate decides a call once (``ApprovalGate.decide``): it validates the arguments, runs the
confirm rule, asks the policies and the port, and mints the token. The executor runs what the
gate handed it and never asks again. Some frameworks let an integration see a call before it
runs (openai-agents' ``needs_approval``, a turn's tool batch); the decision made there is kept
here, keyed by the call, until the framework runs the call.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from agent_sdk.approval.tokens import ApprovalToken
    from agent_sdk.context import CallContext
    from agent_sdk.errors import ToolError
    from agent_sdk.spec import ToolSpec


@dataclass(slots=True)
class Admission:
    """The gate's decision for one call, handed to the executor.

    ``error`` set: the call must not run (invalid arguments, denied, pending, a failing port);
    the executor reports it. Otherwise ``validated`` is what runs: the arguments validated
    once and, where anyone could still change them (parsed objects a framework handed us,
    a decision kept until the call runs), a private copy taken at validation, so what was
    approved is what runs. ``token`` is the one-use proof the port approved exactly this call
    (None when no approval was needed); the executor consumes it before the handler runs.
    """

    spec: ToolSpec
    ctx: CallContext
    validated: BaseModel | None = None
    token: ApprovalToken | None = None
    error: ToolError | None = None
    digest: str | None = None
    arguments: Any = None
    """What the decision was made on (in the form ``comparable`` gives), for a kept decision."""

    @property
    def pending(self) -> bool:
        return self.error is not None and self.error.approval_id is not None


def comparable(arguments: Any) -> Any:
    """Arguments in a form that compares equal for the same call: parsed JSON text, a plain
    dict of a mapping, anything else as it is (and then only equal to itself)."""
    if isinstance(arguments, (str, bytes, bytearray)):
        try:
            return json.loads(arguments)
        except (ValueError, RecursionError):
            return arguments
    if isinstance(arguments, Mapping):
        return dict(arguments)
    return arguments


def call_key(spec: ToolSpec, ctx: CallContext) -> tuple[str, str | None, str | None, str]:
    """A call as the run, conversation and framework name it: run ids are random (or the
    framework's own conversation id), so a key from another run or conversation never
    matches; within one, a newer decision for the same call id replaces the older one."""
    return (ctx.run_id, ctx.thread_id, ctx.call_id, spec.name)


class EarlyDecisions:
    """Decisions made before their call runs, keyed by call, bounded in number and age.

    A decision is taken once, by the call it was made for, with the same spec and the same
    arguments; anything else leaves it (an evicted or expired one drops its token).
    """

    def __init__(self, *, limit: int = 4096, ttl: float = 600.0) -> None:
        self.limit = limit
        self.ttl = ttl
        self._kept: OrderedDict[tuple[Any, ...], tuple[Admission, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)

    def keep(self, admission: Admission) -> list[Admission]:
        """Keep ``admission`` for its call; return the decisions it pushed out (whose tokens
        the caller discards)."""
        key = call_key(admission.spec, admission.ctx)
        now = time.monotonic()
        dropped: list[Admission] = []
        with self._lock:
            old = self._kept.pop(key, None)
            if old is not None:
                dropped.append(old[0])
            self._kept[key] = (admission, now + self.ttl)
            while len(self._kept) > self.limit:
                dropped.append(self._kept.popitem(last=False)[1][0])
            while self._kept:
                first_key = next(iter(self._kept))
                if self._kept[first_key][1] >= now:
                    break
                dropped.append(self._kept.pop(first_key)[0])
        return dropped

    def take(
        self, spec: ToolSpec, arguments: Any, ctx: CallContext
    ) -> tuple[Admission | None, Admission | None]:
        """(the kept decision for this very call, or None; a kept one that no longer fits, to
        be discarded)."""
        if not self._kept:  # the common case: nothing decided early
            return None, None
        with self._lock:
            found = self._kept.pop(call_key(spec, ctx), None)
        if found is None:
            return None, None
        admission, expires = found
        if (
            admission.spec is not spec
            or expires < time.monotonic()
            or admission.arguments != comparable(arguments)
        ):
            return None, admission
        return admission, None
