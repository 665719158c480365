"""Deferred approvals under crashes (issue 9, part 4).

A real process asks for an approval, approves it and retries the call (the whole lifecycle
of one deferred approval) and is killed with SIGKILL at each step: before the pending entry
is persisted, in the middle of its commit, after it, in the middle of the approval's commit,
after the approval, while the retry spends it, after that, and during the approved run. A
restarted process then completes the lifecycle. The tool runs at most once, and exactly
once when the approval was not spent by the killed process. Several processes resolving one
``apr_`` id, retrying one approved call, and writing to one SQLite file at once serialise.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

WORKER = textwrap.dedent(
    """
    import asyncio, json, os, signal, sys, time
    from agent_sdk import ApprovalError, CallContext, DeferredApproval, Executor, Registry
    from agent_sdk.approval import SQLiteApprovalStore

    db, log, role = sys.argv[1], sys.argv[2], sys.argv[3]
    kill_at = os.environ.get("KILL_AT", "")
    go = os.environ.get("GO_FILE")

    def die(step):
        if kill_at == step:
            os.kill(os.getpid(), signal.SIGKILL)

    def note(line):
        with open(log, "a") as f:
            f.write(line + "\\n")
            f.flush()
            os.fsync(f.fileno())

    registry = Registry()

    @registry.tool(confirm=True)
    def pay(amount: int) -> str:
        note(f"start {amount} {os.getpid()}")
        die("in-handler")
        note(f"done {amount} {os.getpid()}")
        return "paid"

    # Kill points inside the store: around its methods, and in the middle of a COMMIT
    # (the trace callback runs as SQLite starts the statement).
    # DeferredApproval persists a request and uses an approval in one transaction (claim):
    # after it, the entry is either newly pending ("after-persist") or used ("after-consume").
    original_claim = SQLiteApprovalStore.claim

    def claim(self, key, record):
        die("before-persist")
        entry, used = original_claim(self, key, record)
        die("after-consume" if used else "after-persist")
        return entry, used

    SQLiteApprovalStore.claim = claim
    port = DeferredApproval(db)
    state = {"tx": []}
    commit_kills = {"commit-persist": "INSERT OR IGNORE", "commit-approve": "SET status = 'approved'",
                    "commit-consume": "SET status = 'used'"}

    def trace(statement):
        if statement == "BEGIN IMMEDIATE":
            state["tx"] = []
        elif statement == "COMMIT":
            needle = commit_kills.get(kill_at)
            if needle and any(needle in s for s in state["tx"]):
                os.kill(os.getpid(), signal.SIGKILL)
        else:
            state["tx"].append(statement)

    port.store._conn.set_trace_callback(trace)
    ex = Executor(registry, approval=port)
    ctx = CallContext(run_id="run-crash", thread_id="t", call_id="call-crash")

    def run():
        outcome = asyncio.run(ex.run("pay", {"amount": 7}, ctx))
        return {"ok": outcome.ok, "text": outcome.text,
                "kind": outcome.error.kind.value if outcome.error else None,
                "apr": outcome.error.approval_id if outcome.error else None}

    def wait_for_go():
        if go:
            deadline = time.monotonic() + 60
            while not os.path.exists(go) and time.monotonic() < deadline:
                time.sleep(0.005)

    out = {"steps": []}
    if role == "lifecycle":
        first = run(); out["steps"].append(first)
        if first["apr"]:
            try:
                port.resolve(first["apr"], approved=True, reviewer="crash-test")
                out["steps"].append({"resolved": first["apr"]})
            except ApprovalError as exc:
                out["steps"].append({"resolve_error": str(exc)})
            die("after-approve")
            out["steps"].append(run())
        out["steps"].append(run())  # a replay: must never run again
    elif role == "request":
        out["steps"].append(run())
    elif role == "resolve":
        apr = sys.argv[4]
        wait_for_go()
        try:
            port.resolve(apr, approved=True, reviewer=f"p{os.getpid()}")
            out["won"] = True
        except ApprovalError as exc:
            out["won"] = False
            out["error"] = str(exc)
        out["steps"].append(run())
        # Many writers: own approvals, created, resolved and spent.
        mine = 0
        for i in range(int(sys.argv[5])):
            c = ctx.evolve(call_id=f"w{os.getpid()}-{i}")
            o = asyncio.run(ex.run("pay", {"amount": 1000 + i}, c))
            port.resolve(o.error.approval_id, approved=True)
            mine += asyncio.run(ex.run("pay", {"amount": 1000 + i}, c)).ok
        out["mine"] = mine
    print(json.dumps(out))
    """
)

KILL_POINTS = [
    "before-persist",
    "commit-persist",
    "after-persist",
    "commit-approve",
    "after-approve",
    "commit-consume",
    "after-consume",
    "in-handler",
]
# Points after which the killed process had already spent the approval: the call never
# completes (at most once); everywhere else the restarted process completes it exactly once.
SPENT = {"after-consume", "in-handler"}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KILL_AT", "GO_FILE")}
    env["AGENT_SDK_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the worker needs no framework
    env.update(extra)
    return env


def _spawn(tmp_path: Path, role: str, *args: str, **env: str) -> subprocess.Popen[str]:
    script = tmp_path / "worker.py"
    if not script.exists():
        script.write_text(WORKER)
    return subprocess.Popen(
        [
            sys.executable,
            str(script),
            str(tmp_path / "approvals.db"),
            str(tmp_path / "ran.log"),
            role,
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(**env),
    )


def _finish(proc: subprocess.Popen[str], *, killed: bool = False) -> dict[str, Any]:
    out, err = proc.communicate(timeout=120)
    if killed:
        assert proc.returncode == -signal.SIGKILL, (proc.returncode, err[-2000:])
        return {}
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _ran(tmp_path: Path) -> tuple[int, int]:
    log = tmp_path / "ran.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return sum(line.startswith("start") for line in lines), sum(
        line.startswith("done") for line in lines
    )


def _check_store(tmp_path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(tmp_path / "approvals.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        rows = conn.execute("SELECT key, status FROM approvals").fetchall()
    assert len({k for k, _ in rows}) == len(rows), "one entry per call"
    return rows


def _lifecycle_after_kill(tmp_path: Path, kill_at: str) -> dict[str, Any]:
    _finish(_spawn(tmp_path, "lifecycle", KILL_AT=kill_at), killed=True)
    _check_store(tmp_path)
    restarted = _finish(_spawn(tmp_path, "lifecycle"))
    rows = _check_store(tmp_path)
    starts, done = _ran(tmp_path)
    return {"steps": restarted["steps"], "rows": rows, "starts": starts, "done": done}


@pytest.mark.parametrize("kill_at", KILL_POINTS)
def test_killed_at_each_step_the_tool_runs_at_most_once(tmp_path: Path, kill_at: str) -> None:
    result = _lifecycle_after_kill(tmp_path, kill_at)
    steps = [s for s in result["steps"] if "ok" in s]
    oks = [s for s in steps if s["ok"]]
    assert result["starts"] <= 1 and result["done"] <= 1, result
    assert len(oks) == result["done"], "a success the model saw is a run that completed"
    assert not steps[-1]["ok"], "the replay after completion must not run again"
    if kill_at in SPENT:
        assert result["done"] == 0 and oks == []
        assert "already used" in steps[-1]["text"], steps[-1]
        assert [s for _, s in result["rows"]] == ["used"]
    elif kill_at == "commit-consume":
        # Killed while committing the spend: either it was rolled back (the restart runs the
        # call once) or it was durable (the approval is spent, the call never ran).
        assert result["done"] in (0, 1) and result["starts"] == result["done"]
    else:
        assert result["starts"] == result["done"] == 1, result
        assert [s for _, s in result["rows"]] == ["used"]
        assert "already used" in steps[-1]["text"]


def test_processes_resolving_one_id_and_writing_at_once(tmp_path: Path, long_run: bool) -> None:
    """One approval, N processes: one resolution wins, the rest get a clear error; the
    approved call runs once across all of them; each also writes its own approvals."""
    first = _finish(_spawn(tmp_path, "request"))
    apr = first["steps"][0]["apr"]
    assert apr and apr.startswith("apr_")
    procs_n, per_proc = (8, 100) if long_run else (4, 15)
    go = tmp_path / "go"
    procs = [
        _spawn(tmp_path, "resolve", apr, str(per_proc), GO_FILE=str(go)) for _ in range(procs_n)
    ]
    time.sleep(1.0)  # let them start; the go file releases all of them together
    go.write_text("go")
    results = [_finish(p) for p in procs]
    winners = [r for r in results if r["won"]]
    assert len(winners) == 1, results
    for loser in (r for r in results if not r["won"]):
        assert f"approval {apr} was already resolved (" in loser["error"]
        assert " by p" in loser["error"], loser["error"]
    shared = [r["steps"][0] for r in results]
    assert sum(s["ok"] for s in shared) == 1, shared
    assert all("already used" in s["text"] for s in shared if not s["ok"])
    assert sum(r["mine"] for r in results) == procs_n * per_proc
    rows = _check_store(tmp_path)
    assert len(rows) == 1 + procs_n * per_proc and {s for _, s in rows} == {"used"}
    starts, done = _ran(tmp_path)
    assert starts == done == 1 + procs_n * per_proc


@pytest.mark.long
def test_killed_at_every_commit_of_the_lifecycle(tmp_path: Path) -> None:
    """Long variant: kill at the n-th SQL statement of the lifecycle, for every n."""
    hook = "def trace(statement):\n"
    assert hook in WORKER
    worker = WORKER.replace(
        hook,
        "counter = {'n': 0}\n" + hook + "    counter['n'] += 1\n"
        "    if kill_at.startswith('stmt-') and counter['n'] == int(kill_at[5:]):\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n",
    )
    n = 1
    while True:
        case = tmp_path / f"n{n}"
        case.mkdir()
        (case / "worker.py").write_text(worker)
        proc = _spawn(case, "lifecycle", KILL_AT=f"stmt-{n}")
        out, err = proc.communicate(timeout=120)
        if proc.returncode == 0:
            break  # the lifecycle has fewer statements than n
        assert proc.returncode == -signal.SIGKILL, err[-2000:]
        restarted = _finish(_spawn(case, "lifecycle"))
        starts, done = _ran(case)
        _check_store(case)
        assert starts <= 1 and done <= 1 and starts == done, (n, restarted)
        n += 1
    assert n > 10
