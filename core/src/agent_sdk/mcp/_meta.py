"""What agent-sdk sends in an MCP request's ``params._meta`` and reads back from a result's
``_meta``, and the parsing of both, which trusts neither side.

Request ``_meta`` (next to the MCP SDK's own ``traceparent``/``tracestate``, which it writes
from the current span): ``"agent-sdk/run"`` is a JSON object

- ``run_id``: str, 1-128 of ``[A-Za-z0-9_.:-]``;
- ``path``: list of at most 32 tool names (1-64 of ``[A-Za-z0-9_-]``), the sub-agents the
  call runs inside (the depth is its length);
- ``max_depth``: int >= 1, the caller's depth limit;
- ``budget``: int >= 0 or absent, the model calls the caller lets this call spend;
- ``call_id``: str or absent (as ``run_id``), the caller's id of this tool call (the
  server's approvals key a call by run id, call id, tool and arguments).

A claim only ever tightens the server's own limits. A claim that is not an object, or whose
fields have the wrong type, refuses the call (``ClaimError``); numbers out of range are
clamped towards the tighter end; a path segment that is not a tool name becomes ``"?"``
(its depth still counts). Baggage is never read as a claim.

Result ``_meta``: ``"agent-sdk/usage"`` (``input_tokens``, ``output_tokens``,
``model_calls``, ``input_chars``: ints >= 0, what this call cost on the server, its
sub-agents included) and, on an error result, ``"agent-sdk/error"`` (``kind``: an
``ErrorKind`` value; ``approval_id``: str, when a confirm call waits for the server's
reviewer). Tool listings mark agent tools with ``"agent-sdk/agent": true`` in the tool's
``_meta``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_sdk.errors import ErrorKind
from agent_sdk.names import TOOL_NAME
from agent_sdk.response import Usage

RUN_KEY = "agent-sdk/run"
USAGE_KEY = "agent-sdk/usage"
ERROR_KEY = "agent-sdk/error"
AGENT_KEY = "agent-sdk/agent"

RUN_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
APPROVAL_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
MAX_PATH = 32
MAX_NUMBER = 10**9
"""A claimed budget or depth above this is clamped to it (and then to the server's own)."""
MAX_CLAIM_BYTES = 4096
"""A run claim whose JSON is longer than this is refused (a path of 32 long names fits)."""
USAGE_FIELDS = ("input_tokens", "output_tokens", "model_calls", "input_chars")


class ClaimError(ValueError):
    """The caller's run claim is malformed: the call is refused, saying why."""


@dataclass(frozen=True)
class RunClaim:
    """What a caller says about the run a call belongs to (already checked and clamped)."""

    run_id: str
    path: tuple[str, ...]
    max_depth: int
    budget: int | None = None
    call_id: str | None = None

    def to_meta(self) -> dict[str, Any]:
        claim: dict[str, Any] = {
            "run_id": self.run_id,
            "path": list(self.path),
            "max_depth": self.max_depth,
        }
        if self.budget is not None:
            claim["budget"] = self.budget
        if self.call_id is not None:
            claim["call_id"] = self.call_id
        return claim


def read_claim(meta: Mapping[str, Any] | None) -> RunClaim | None:
    """The run claim in a request's ``_meta``; None when there is none; ClaimError when it
    is malformed."""
    if not meta or RUN_KEY not in meta:
        return None
    raw = meta[RUN_KEY]
    if not isinstance(raw, Mapping):
        raise ClaimError(f"'{RUN_KEY}' must be an object")
    try:
        size = len(json.dumps(raw, default=str))
    except (TypeError, ValueError, RecursionError):
        raise ClaimError(f"'{RUN_KEY}' is not JSON") from None
    if size > MAX_CLAIM_BYTES:
        raise ClaimError(f"'{RUN_KEY}' is {size} bytes; at most {MAX_CLAIM_BYTES} are accepted")
    run_id = raw.get("run_id")
    if not isinstance(run_id, str) or not RUN_ID.match(run_id):
        raise ClaimError("run_id must be 1-128 of letters, digits, '_', '.', ':' or '-'")
    path = raw.get("path", [])
    if not isinstance(path, list) or not all(isinstance(p, str) for p in path):
        raise ClaimError("path must be a list of strings")
    if len(path) > MAX_PATH:
        raise ClaimError(f"path has {len(path)} segments; at most {MAX_PATH} are accepted")
    max_depth = _whole(raw.get("max_depth"), "max_depth")
    if max_depth is None:
        raise ClaimError("max_depth is required")
    budget = _whole(raw.get("budget"), "budget")
    call_id = raw.get("call_id")
    if call_id is not None and (not isinstance(call_id, str) or not RUN_ID.match(call_id)):
        raise ClaimError("call_id must be 1-128 of letters, digits, '_', '.', ':' or '-'")
    return RunClaim(
        run_id=run_id,
        path=tuple(p if TOOL_NAME.match(p) else "?" for p in path),
        max_depth=min(max(max_depth, 1), MAX_NUMBER),
        budget=None if budget is None else min(max(budget, 0), MAX_NUMBER),
        call_id=call_id,
    )


def _whole(value: object, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClaimError(f"{name} must be a whole number")
    return value


def usage_meta(usage: Usage) -> dict[str, int]:
    return {name: getattr(usage, name) for name in USAGE_FIELDS}


def read_usage(meta: Mapping[str, Any] | None) -> Usage:
    """The usage a server reported; fields that are missing or not whole numbers count 0,
    others are clamped to 0..10^9."""
    raw = meta.get(USAGE_KEY) if meta else None
    usage = Usage()
    if isinstance(raw, Mapping):
        for name in USAGE_FIELDS:
            value = raw.get(name)
            if isinstance(value, int) and not isinstance(value, bool):
                setattr(usage, name, min(max(value, 0), MAX_NUMBER))
    return usage


def error_meta(kind: ErrorKind, approval_id: str | None) -> dict[str, str]:
    error = {"kind": kind.value}
    if approval_id is not None:
        error["approval_id"] = approval_id
    return error


def read_error(meta: Mapping[str, Any] | None) -> tuple[ErrorKind, str | None]:
    """The error kind and approval id a server reported; ``tool-failed`` for a kind that
    is missing or unknown, no approval id for one that is malformed."""
    raw = meta.get(ERROR_KEY) if meta else None
    if not isinstance(raw, Mapping):
        return ErrorKind.TOOL_FAILED, None
    try:
        kind = ErrorKind(raw.get("kind"))
    except ValueError:
        kind = ErrorKind.TOOL_FAILED
    approval_id = raw.get("approval_id")
    if not isinstance(approval_id, str) or not APPROVAL_ID.match(approval_id):
        approval_id = None
    return kind, approval_id
