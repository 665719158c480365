"""``agent-sdk approvals``: a person reviews pending deferred approvals and decides.

The store is ``--store PATH_OR_DSN`` or ``AGENT_SDK_APPROVALS``: a SQLite file, or a
``postgresql://`` DSN shared by many hosts. Everything shown comes from the store, which
holds what models asked for: control characters are printed escaped, never as themselves,
in errors too (an "already resolved" error names the reviewer another person typed).
"""

from __future__ import annotations

import argparse
import functools
import getpass
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent_sdk.errors import ApprovalError

if TYPE_CHECKING:
    from agent_sdk.approval.store import ApprovalStore, PendingApproval

ENV = "AGENT_SDK_APPROVALS"
STATUSES = ("pending", "approved", "denied", "used", "all")
ARGUMENTS_WIDTH = 60


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Register ``approvals`` and its actions on the ``agent-sdk`` parser."""
    store = argparse.ArgumentParser(add_help=False, parents=[common])
    store.add_argument(
        "--store",
        metavar="PATH_OR_DSN",
        help=f"a SQLite file or a postgresql:// DSN (default: ${ENV})",
    )
    approvals = sub.add_parser(
        "approvals",
        parents=[common],
        help="review and decide pending deferred approvals",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = approvals.add_subparsers(dest="approvals_command", required=True)
    listing = actions.add_parser("list", parents=[store], help="list approvals (pending ones)")
    listing.add_argument("--status", choices=STATUSES, default="pending")
    listing.set_defaults(func=_escaped(cmd_list))
    show = actions.add_parser("show", parents=[store], help="show one approval in full")
    show.add_argument("id")
    show.set_defaults(func=_escaped(cmd_show))
    for name, approved in (("approve", True), ("deny", False)):
        decide = actions.add_parser(
            name, parents=[store], help=f"{name} a pending approval (once: it cannot be changed)"
        )
        decide.add_argument("id")
        decide.add_argument("--reason", help="why (the model sees it when denied)")
        decide.add_argument("--reviewer", help="who decides (default: your user name)")
        decide.set_defaults(func=_escaped(cmd_decide), approved=approved)


def open_cli_store(target: str | None) -> ApprovalStore:
    from agent_sdk.approval.postgres import is_dsn
    from agent_sdk.approval.store import open_store

    target = target or os.environ.get(ENV)
    if not target:
        raise ApprovalError(f"no approval store: pass --store PATH_OR_DSN or set {ENV}")
    if not is_dsn(target) and not Path(target).is_file():
        # A reviewer's typo must not create an empty store that shows nothing pending.
        raise ApprovalError(f"no approval store at {target}")
    return open_store(target)


def cmd_list(args: argparse.Namespace) -> int:
    store = open_cli_store(args.store)
    try:
        entries = store.list(None if args.status == "all" else args.status)
    finally:
        store.close()
    if not entries:
        print(f"no {'' if args.status == 'all' else args.status + ' '}approvals")
        return 0
    now = time.time()
    rows = [
        [
            e.id,
            e.status,
            printable(e.tool),
            _shorten(printable(_arguments(e)), ARGUMENTS_WIDTH),
            printable(e.run_id),
            printable(e.call_id or "-"),
            age(now - e.created),
        ]
        for e in entries
    ]
    header = ["ID", "STATUS", "TOOL", "ARGUMENTS", "RUN", "CALL", "AGE"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    store = open_cli_store(args.store)
    try:
        entry = store.get(args.id)
    finally:
        store.close()
    if entry is None:
        raise ApprovalError(f"no approval with id {args.id!r}")
    print(describe(entry))
    return 0


def cmd_decide(args: argparse.Namespace) -> int:
    reviewer = args.reviewer or _user()
    store = open_cli_store(args.store)
    try:
        entry = store.resolve(
            args.id, approved=args.approved, reviewer=reviewer, reason=args.reason
        )
    finally:
        store.close()
    by = f" by {printable(entry.reviewer)}" if entry.reviewer else ""
    print(
        f"{entry.id} {entry.status}{by}: {printable(entry.tool)} in run {printable(entry.run_id)}"
    )
    return 0


def _escaped(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``command`` whose ApprovalError reaches the terminal with its control characters
    escaped: the message may quote the store (a reviewer's name, an id as typed)."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except ApprovalError as exc:
            raise ApprovalError(printable(str(exc))) from None

    return run


def describe(entry: PendingApproval) -> str:
    lines = [
        f"id:        {entry.id}",
        f"status:    {entry.status}",
        f"tool:      {printable(entry.tool)}",
        f"run:       {printable(entry.run_id)}",
        f"call:      {printable(entry.call_id or '-')}",
        f"thread:    {printable(entry.thread_id or '-')}",
        f"age:       {age(time.time() - entry.created)}",
    ]
    if entry.reviewer:
        lines.append(f"reviewer:  {printable(entry.reviewer)}")
    if entry.reason:
        lines.append(f"reason:    {printable(entry.reason)}")
    arguments = json.dumps(entry.arguments, indent=2, sort_keys=True, ensure_ascii=False)
    lines += ["arguments:", *("  " + printable(line) for line in arguments.splitlines())]
    return "\n".join(lines)


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on (escape sequences, C1
    controls, line breaks) written as its escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


def age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def _arguments(entry: PendingApproval) -> str:
    return json.dumps(entry.arguments, sort_keys=True, ensure_ascii=False)


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _user() -> str | None:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no user name in the environment or the password database
        return None
