"""``tool_error(call_id)`` answers for the run that asks (issue 27, finding 6).

Servers reuse tool call ids (``call_1`` in every conversation), so the exception kept for a
failed call is keyed by run and call id: a host never gets another run's error (with its
cause's data), and a later success of the same call id in the same run clears it. Outside
any run, ``tool_error(call_id)`` answers for the latest call with that id (as before), and
the store stays bounded."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_sdk import (
    DenyAll,
    ErrorKind,
    Executor,
    ToolError,
    ToolSpec,
    bind_call,
    run_scope,
    tool_error,
)
from agent_sdk.failures import MAX_KEPT
from agent_sdk.integration import record_failure


class Ledger:
    """A tool that fails for the accounts it is told to fail for (the cause holds data)."""

    def __init__(self) -> None:
        self.calls = 0
        self.spec = ToolSpec.from_function(self.post, name="post")
        self.confirmed = ToolSpec.from_function(self.post, name="post_confirmed", confirm=True)

    def post(self, account: str, fail: bool = False) -> str:
        self.calls += 1
        if fail:
            raise KeyError(f"account {account} is frozen")
        return f"posted to {account}"


LEDGER = Ledger()


def call(run_id: str, call_id: str, *, fail: bool, spec: ToolSpec | None = None, **kw: Any) -> Any:
    """One tool call as a plugin makes it: in the run, bound to the framework's call id."""

    async def main() -> Any:
        async with run_scope(run_id):
            ctx = bind_call(call_id=call_id, conversation_id=f"conv-{run_id}")
            executor = Executor(**kw)
            arguments = {"account": f"{run_id}-IBAN", "fail": fail}
            return await executor.run_spec(spec or LEDGER.spec, arguments, ctx)

    return asyncio.run(main())


def error_in(run_id: str, call_id: str) -> ToolError | None:
    """What a host asks in the run's context."""

    async def main() -> ToolError | None:
        async with run_scope(run_id):
            return tool_error(call_id)

    return asyncio.run(main())


def test_a_host_never_gets_another_runs_error_for_a_reused_call_id():
    assert not call("run-a", "call_1", fail=True).ok
    assert call("run-b", "call_1", fail=False).ok
    assert error_in("run-b", "call_1") is None, "run-a's error reached run-b's host"
    kept = error_in("run-a", "call_1")
    assert kept is not None and "run-a-IBAN" in str(kept.cause)
    assert tool_error("call_1", run_id="run-a") is kept  # the run named explicitly
    assert tool_error("call_1", run_id="run-b") is None
    # Outside any run: the latest call with that id, which succeeded.
    assert tool_error("call_1") is None


def test_each_run_gets_its_own_error_for_the_same_call_id():
    for run_id in ("run-c", "run-d"):
        assert not call(run_id, "call_7", fail=True).ok
    for run_id in ("run-c", "run-d"):
        kept = error_in(run_id, "call_7")
        assert kept is not None and f"{run_id}-IBAN" in str(kept.cause), (run_id, kept)
    latest = tool_error("call_7")  # outside any run: the latest failure
    assert latest is not None and "run-d-IBAN" in str(latest.cause)


def test_a_later_success_of_the_same_call_id_in_the_same_run_clears_it():
    assert not call("run-e", "call_2", fail=True).ok
    assert error_in("run-e", "call_2") is not None
    assert call("run-e", "call_2", fail=False).ok
    assert error_in("run-e", "call_2") is None
    assert tool_error("call_2") is None


def test_a_refusal_kept_by_the_gate_is_per_run_too():
    before = LEDGER.calls
    denied = call("run-f", "call_3", fail=False, spec=LEDGER.confirmed, approval=DenyAll())
    assert denied.error is not None and denied.error.kind is ErrorKind.APPROVAL_DENIED
    assert LEDGER.calls == before, "a denied call never runs"
    kept = error_in("run-f", "call_3")
    assert kept is not None and kept.kind is ErrorKind.APPROVAL_DENIED
    assert error_in("run-g", "call_3") is None
    assert call("run-f", "call_3", fail=False).ok  # the same id, run again, succeeds
    assert error_in("run-f", "call_3") is None


def test_the_store_is_bounded():
    error = ToolError(ErrorKind.TOOL_FAILED, "boom")
    for i in range(MAX_KEPT + 100):
        record_failure(f"bulk-{i}", error, run_id=f"bulk-run-{i % 7}")
    assert tool_error("bulk-0", run_id="bulk-run-0") is None  # the oldest were dropped
    assert tool_error("bulk-0") is None
    newest = [tool_error(f"bulk-{i}") for i in range(100, MAX_KEPT + 100)]
    assert all(e is error for e in newest)


@pytest.mark.parametrize("call_id", [None, ""])
def test_a_call_without_an_id_is_never_kept(call_id):
    assert not call("run-h", call_id, fail=True).ok
    assert tool_error(call_id) is None and error_in("run-h", call_id) is None
