"""An approval binds every value that reaches the handler (issue 15, item 3).

A token or a deferred approval is bound to a digest of the validated arguments as JSON; a
secret dumps as a mask and an excluded field not at all, so an approval for
``otp=111111, account=savings-1`` also covered ``otp=999999, account=ATTACKER-ACCT``.
Confirm tools with such fields are refused when the tool is defined, with a clear error.

Sets dump in hash order, which ``PYTHONHASHSEED`` changes from one process to the next: their
members are sorted wherever a digest, a deferred-approval key or a reviewer's view is made
(issue 27, finding 5)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, Field, Secret, SecretBytes, SecretStr

from agent_sdk import (
    ApprovalRequest,
    CallbackApproval,
    ConfigurationError,
    DeferredApproval,
    Executor,
    ToolSpec,
)


async def pay(**kwargs: object) -> str:
    return "paid"


class WithSecret(BaseModel):
    otp: SecretStr
    amount: int


class WithExcluded(BaseModel):
    account: str = Field(exclude=True)
    amount: int


class Inner(BaseModel):
    pin: SecretBytes


class Nested(BaseModel):
    card: Inner
    amount: int


class Generic(BaseModel):
    token: Secret[int]


@pytest.mark.parametrize(
    ("model", "field"),
    [
        (WithSecret, "otp (a secret)"),
        (WithExcluded, "account (excluded from dumps)"),
        (Nested, "card.pin (a secret)"),
        (Generic, "token (a secret)"),
    ],
)
@pytest.mark.parametrize("confirm", [True, lambda args: True], ids=["always", "predicate"])
def test_confirm_tools_with_unbindable_fields_are_refused(model, field, confirm):
    with pytest.raises(ConfigurationError) as err:
        ToolSpec(name="pay", description="d", handler=pay, input_model=model, confirm=confirm)
    assert field in str(err.value) and "approval cannot bind" in str(err.value)


@pytest.mark.parametrize("model", [WithSecret, WithExcluded, Nested, Generic])
def test_tools_without_approval_may_have_them(model):
    ToolSpec(name="pay", description="d", handler=pay, input_model=model)


# -- sets bind the same in every process (issue 27, finding 5) -------------------------------
LABELS = [f"label-{n:02d}" for n in range(16)]
WORKER = r"""
import asyncio, json, sys

from pydantic import BaseModel

from agent_sdk import CallContext, DeferredApproval, Executor, ToolSpec
from agent_sdk.spec import arguments_digest


class Inner(BaseModel):
    tags: frozenset[str]


class Args(BaseModel):
    labels: set[str]
    pairs: frozenset[tuple[str, int]]
    inner: Inner


ran = []


async def tag(labels, pairs, inner):
    ran.append(sorted(labels))
    return "tagged"


spec = ToolSpec(name="tag", description="t", handler=tag, input_model=Args, confirm=True)
arguments = json.loads(sys.argv[2])
port = DeferredApproval(sys.argv[1])
ctx = CallContext(run_id="run-restarted", call_id="call-1")
outcome = asyncio.run(Executor(approval=port).run_spec(spec, arguments, ctx))
print(json.dumps({
    "text": outcome.text,
    "ran": ran,
    "reviewer_sees": [p.arguments for p in port.pending()],
    "digest": arguments_digest("tag", spec.validate(arguments)),
    "order": list(spec.validate(arguments).labels),
    # A port asked directly with Python sets (not through the gate) keys them the same.
    "key": DeferredApproval.call_key(
        "tag", {"labels": set(arguments["labels"])}, run_id="r", call_id="c"
    ),
}))
"""


def run_worker(tmp_path: Path, seed: int, arguments: dict[str, Any]) -> dict[str, Any]:
    script = tmp_path / "worker.py"
    script.write_text(WORKER, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "approvals.db"), json.dumps(arguments)],
        env={**os.environ, "PYTHONHASHSEED": str(seed)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_an_approved_set_argument_runs_after_a_restart_with_another_hash_seed(tmp_path):
    arguments = {
        "labels": LABELS,
        "pairs": [[label, n] for n, label in enumerate(LABELS)],
        "inner": {"tags": LABELS},
    }
    first = run_worker(tmp_path, 1, arguments)
    (pending,) = first["reviewer_sees"]
    assert json.loads(first["text"])["error"]["kind"] == "approval-pending"
    # The reviewer sees the members in order, whatever the process's hash seed.
    assert pending["labels"] == LABELS and pending["inner"]["tags"] == LABELS
    assert pending["pairs"] == [[label, n] for n, label in enumerate(LABELS)]
    (entry,) = DeferredApproval(tmp_path / "approvals.db").pending()
    DeferredApproval(tmp_path / "approvals.db").resolve(entry.id, approved=True, reviewer="ann")

    second = run_worker(tmp_path, 2, arguments)
    assert second["order"] != first["order"], "the two seeds must order the set differently"
    assert second["digest"] == first["digest"]
    assert second["key"] == first["key"]
    assert second["text"] == "tagged" and second["ran"] == [LABELS]
    assert second["reviewer_sees"] == []  # no new pending entry for the same call


class Owner(BaseModel):
    model_config = ConfigDict(frozen=True)
    name: str


class Shapes(BaseModel):
    model_config = ConfigDict(serialize_by_alias=True)
    numbers: set[int]
    owners: set[Owner]  # a Python-mode dump of this raises: the walk follows the objects
    by_key: dict[str, frozenset[str]]
    aliased: set[str] = Field(alias="Aliased")


def test_the_reviewer_sees_every_set_in_order():
    seen: list[dict[str, Any]] = []

    def reviewer(request: ApprovalRequest) -> bool:
        seen.append(request.arguments)
        return True

    async def shapes(**kwargs: Any) -> str:
        return "ok"

    spec = ToolSpec(
        name="shapes", description="s", handler=shapes, input_model=Shapes, confirm=True
    )
    owners = [{"name": label} for label in reversed(LABELS)]
    arguments = {
        "numbers": [100, 9, 10, -1, 2**40],
        "owners": owners,
        "by_key": {"k": list(reversed(LABELS))},
        "Aliased": list(reversed(LABELS)),
    }
    outcome = asyncio.run(Executor(approval=CallbackApproval(reviewer)).run_spec(spec, arguments))
    assert outcome.text == "ok"
    assert seen == [
        {
            "numbers": [-1, 9, 10, 100, 2**40],
            "owners": [{"name": label} for label in LABELS],
            "by_key": {"k": LABELS},
            "Aliased": LABELS,
        }
    ]
