"""``agent-sdk approvals`` end to end, over both stores (issue 31): the real command in a
subprocess against a SQLite file and against a real PostgreSQL server, on approvals an
executor left pending. A person lists, shows, approves or denies; the executor's rerun does
what was decided, once. Every failure is one line on stderr, never a traceback, and nothing
from the store reaches the terminal unescaped."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from typing import Any

import pytest

from agent_sdk import CallContext, DeferredApproval, ErrorKind, Executor, Registry, ToolOutcome

CTX = CallContext(run_id="run-1", thread_id="thread-1", call_id="call-1")


def approvals(
    *args: str, store: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m agent_sdk approvals ARGS [--store STORE]``; never a traceback."""
    command = [sys.executable, "-m", "agent_sdk", "approvals", *args]
    if store is not None:
        command += ["--store", store]
    environment = {k: v for k, v in os.environ.items() if k != "AGENT_SDK_APPROVALS"}
    out = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=120,
        env={**environment, "AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD": "1", **(env or {})},
    )
    assert "Traceback" not in out.stderr, out.stderr
    if out.returncode == 0:
        assert out.stderr == "", out.stderr
    return out


def one_line_error(out: subprocess.CompletedProcess[str], *expected: str) -> str:
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("agent-sdk: "), out.stderr
    for text in expected:
        assert text in out.stderr, out.stderr
    return out.stderr


def terminal_safe(text: str) -> bool:
    """No character a terminal acts on, line breaks aside."""
    return all(c == "\n" or c.isprintable() for c in text)


class Payments:
    """An executor whose ``pay`` needs a deferred approval in the store at ``target``."""

    def __init__(self, target: str) -> None:
        self.port = DeferredApproval(target)
        self.ran: list[tuple[int, str]] = []
        registry = Registry()

        @registry.tool(confirm=True)
        def pay(amount: int, to: str) -> str:
            self.ran.append((amount, to))
            return f"paid {amount} to {to}"

        self.executor = Executor(registry, approval=self.port)

    def pay(self, amount: int, to: str, ctx: CallContext = CTX) -> ToolOutcome:
        return asyncio.run(self.executor.run("pay", {"amount": amount, "to": to}, ctx))

    def pending(self, amount: int, to: str, ctx: CallContext = CTX) -> str:
        outcome = self.pay(amount, to, ctx)
        assert outcome.error is not None and outcome.error.kind is ErrorKind.APPROVAL_PENDING
        return str(outcome.error.approval_id)


@pytest.fixture
def payments(approval_store_target: str) -> Any:
    app = Payments(approval_store_target)
    yield app
    app.port.store.close()


def rows(listing: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line) for line in listing.splitlines()]


def test_list_show_approve_and_the_rerun_runs_once(
    payments: Payments, approval_store_target: str
) -> None:
    store = approval_store_target
    first = payments.pending(500, "acct-1")
    second = payments.pending(7, "acct-2", CTX.evolve(call_id="call-2"))

    listing = approvals("list", store=store)
    assert listing.returncode == 0
    header, *entries = rows(listing.stdout)
    assert header == ["ID", "STATUS", "TOOL", "ARGUMENTS", "RUN", "CALL", "AGE"]
    assert [e[:6] for e in entries] == [
        [first, "pending", "pay", '{"amount": 500, "to": "acct-1"}', "run-1", "call-1"],
        [second, "pending", "pay", '{"amount": 7, "to": "acct-2"}', "run-1", "call-2"],
    ]
    assert all(re.fullmatch(r"\d+s", e[6]) for e in entries), entries

    shown = approvals("show", first, store=store)
    assert shown.returncode == 0
    for line in (
        f"id:        {first}",
        "status:    pending",
        "tool:      pay",
        "run:       run-1",
        "call:      call-1",
        "thread:    thread-1",
        '    "amount": 500,',
        '    "to": "acct-1"',
    ):
        assert line in shown.stdout.splitlines(), shown.stdout

    approved = approvals("approve", first, "--reviewer", "ann", store=store)
    assert approved.returncode == 0
    assert approved.stdout == f"{first} approved by ann: pay in run run-1\n"
    assert payments.ran == [], "approving runs nothing: the executor's rerun does"
    rerun = payments.pay(500, "acct-1")
    assert rerun.ok and rerun.text == "paid 500 to acct-1"
    replay = payments.pay(500, "acct-1")
    assert replay.error is not None and "already used" in replay.error.message
    assert payments.ran == [(500, "acct-1")]

    # Only the other one is still pending; the first is used, by ann.
    assert [e[0] for e in rows(approvals("list", store=store).stdout)[1:]] == [second]
    used = rows(approvals("list", "--status", "used", store=store).stdout)[1:]
    assert [(e[0], e[1]) for e in used] == [(first, "used")]
    assert "reviewer:  ann" in approvals("show", first, store=store).stdout

    # A used approval cannot be decided again, either way.
    for action in ("approve", "deny"):
        one_line_error(
            approvals(action, first, "--reviewer", "bob", store=store),
            f"approval {first} was already resolved (used by ann)",
        )
    assert payments.port.store.get(first).status == "used"  # type: ignore[union-attr]


def test_deny_with_a_reason_is_what_the_model_sees(
    payments: Payments, approval_store_target: str
) -> None:
    store = approval_store_target
    apr = payments.pending(900, "acct-9")
    denied = approvals(
        "deny", apr, "--reason", "wrong account, use acct-2", "--reviewer", "bob", store=store
    )
    assert denied.returncode == 0
    assert denied.stdout == f"{apr} denied by bob: pay in run run-1\n"
    outcome = payments.pay(900, "acct-9")
    assert outcome.error is not None and outcome.error.kind is ErrorKind.APPROVAL_DENIED
    assert "wrong account, use acct-2" in outcome.text
    assert payments.ran == []
    shown = approvals("show", apr, store=store).stdout
    assert "status:    denied" in shown and "reason:    wrong account, use acct-2" in shown
    one_line_error(
        approvals("approve", apr, store=store),
        f"approval {apr} was already resolved (denied by bob)",
    )
    assert payments.pay(900, "acct-9").error is not None and payments.ran == []
    assert approvals("list", store=store).stdout == "no pending approvals\n"


def test_an_unknown_id_is_one_line(payments: Payments, approval_store_target: str) -> None:
    store = approval_store_target
    apr = payments.pending(1, "acct-1")
    for action in ("show", "approve", "deny"):
        one_line_error(approvals(action, "apr_missing", store=store), "no approval with id")
    assert payments.port.store.get(apr).status == "pending"  # type: ignore[union-attr]


def test_the_environment_names_the_store(payments: Payments, approval_store_target: str) -> None:
    apr = payments.pending(3, "acct-3")
    env = {"AGENT_SDK_APPROVALS": approval_store_target}
    listing = approvals("list", env=env)
    assert listing.returncode == 0 and apr in listing.stdout
    assert approvals("approve", apr, "--reviewer", "ann", env=env).returncode == 0
    assert payments.pay(3, "acct-3").ok and payments.ran == [(3, "acct-3")]
    one_line_error(
        approvals("list"), "no approval store: pass --store PATH_OR_DSN or set AGENT_SDK_APPROVALS"
    )


def test_control_characters_are_printed_escaped(
    payments: Payments, approval_store_target: str
) -> None:
    store = approval_store_target
    hostile = "acct\x1b[2J\x1b]0;owned\x07\u009b31m\nnext line"
    ctx = CTX.evolve(call_id="call\x1b[1A", run_id="run\r-1")
    apr = payments.pending(5, hostile, ctx)
    shown = approvals("show", apr, store=store)
    assert shown.returncode == 0 and terminal_safe(shown.stdout), repr(shown.stdout)
    assert '"to": "acct\\u001b[2J\\u001b]0;owned\\u0007\\u009b31m\\nnext line"' in shown.stdout
    assert "run:       run\\u000d-1" in shown.stdout
    listed = approvals("list", store=store)
    assert listed.returncode == 0 and terminal_safe(listed.stdout), repr(listed.stdout)
    listing = listed.stdout.splitlines()
    assert len(listing) == 2, listing  # the argument's line break did not break the row
    assert "call\\u001b[1A" in listing[1] and "run\\u000d-1" in listing[1]

    # What a reviewer typed comes back escaped too, in output and in errors.
    reviewer = "eve\x1b[2J"
    denied = approvals("deny", apr, "--reviewer", reviewer, store=store)
    assert denied.returncode == 0 and terminal_safe(denied.stdout)
    assert "denied by eve\\u001b[2J" in denied.stdout
    error = one_line_error(approvals("approve", apr, store=store), "denied by eve\\u001b[2J")
    assert terminal_safe(error), repr(error)
    error = one_line_error(approvals("show", "apr_\x1b[2J", store=store), "no approval with id")
    assert terminal_safe(error), repr(error)


def test_a_store_that_is_not_there_is_one_line(postgres_server: Any, tmp_path: Any) -> None:
    port = postgres_server.port
    wrong = f"postgresql://postgres:hunter2secret@127.0.0.1:{port}/no_such_db"
    error = one_line_error(
        approvals("list", store=wrong), "postgresql://postgres:***@127.0.0.1", "no_such_db"
    )
    assert "hunter2secret" not in error
    unreachable = "postgresql://ann:hunter2secret@127.0.0.1:1/approvals"
    error = one_line_error(approvals("approve", "apr_x", store=unreachable), "is unreachable")
    assert "hunter2secret" not in error and "ann:***@" in error
    keyword = f"postgresql:///no_such_db?host=127.0.0.1&port={port}&password=hunter2secret"
    error = one_line_error(approvals("list", store=keyword), "password=***")
    assert "hunter2secret" not in error
    # A mistyped SQLite path is refused, not created empty (which would show nothing pending).
    missing = tmp_path / "typo.db"
    one_line_error(approvals("list", store=str(missing)), f"no approval store at {missing}")
    assert not missing.exists()
