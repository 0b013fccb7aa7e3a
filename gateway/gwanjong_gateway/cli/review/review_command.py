"""`gwanjong review`: where a person decides, at a terminal on the gateway's machine.

`list` and `show` read the record; `approve` and `decline` go through `StrikeDesk.decide`
(the one entry for a person's decision) on a `Gateway` of this process's own, so an
approval is executed here, through the whole strike chain, whether or not a gateway
process is running: the record (SQLite or PostgreSQL) consumes the approval in the
claim's transaction, so two approvers, or a gateway and a terminal, never write twice.
`done` closes the hand-off it names (`HandOffs.done`), `dismiss` drops it (`HandOffs.dismiss`).
Approvals are named `a7`, hand-offs `h12` (`rules/refs.py`); a bare number is taken only
where it cannot mean the other kind.

`approve` needs a person: stdin and stdout must be a terminal and the person types
`approve`. A model with a shell that pipes an answer in is refused; this is a speed bump
against a tricked tool call, not a boundary against someone who controls the machine's
user account (they can edit the record itself).

Everything is injectable for tests: the platform transports (in-process servers), the
wall clock, the terminal's streams and the login name.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gwanjong_gateway.cli.options import command, count, principal_and_json
from gwanjong_gateway.cli.review.term import Review, Terminal
from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.rules.approvals import operator_name

__all__ = ["Terminal", "add_review", "run"]


async def run(
    args: argparse.Namespace,
    config: GatewayConfig,
    transports: dict[str, Any] | None = None,
    clock: Callable[[], float] = time.time,
    term: Terminal | None = None,
    login: Callable[[], str] = operator_name,
) -> int:
    """Run the parsed `review` command ``args``; its exit code."""
    from gwanjong_gateway.cli.review import ids, read
    from gwanjong_gateway.record.records import platform_error

    r = Review(config, term or Terminal(), transports, clock, login)
    command = args.review_command
    try:
        if command == "list":
            return await read.list_waiting(r, args.all, args.json, args.principal, args.limit)
        ref = await ids.resolve(r, command, args.id, getattr(args, "handoff", False))
        if command == "show":
            return await read.show(r, ref)
    except ids.NotAnId as exc:
        return r.term.fail(str(exc))
    except Exception as exc:  # the record's `unavailable` answer, said; any other goes up
        error = platform_error(exc)
        if error is None:
            raise
        return r.term.fail(error.message, 2)
    from gwanjong_gateway.cli.review import run as decide  # the gateway's machinery

    return await decide.dispatch(r, args, ref.id)


def _review(args: argparse.Namespace) -> int:
    """The console script's entry (wired in `cli/main.py`)."""
    import anyio

    from gwanjong_gateway.config.load import load
    from gwanjong_shared.kit.logs import configure_logging
    from gwanjong_shared.kit.quiet import quiet_fastmcp

    term = Terminal()
    if args.review_command == "approve":
        why = term.why_no_person()  # before anything else: a pipe learns nothing more
        if why:
            return term.fail(f"needs a person at a terminal: {why}. Run it yourself in one.")
    # approving may start platform servers: their credentials must be there
    config, _ = load(args.config, check_env=args.review_command == "approve")
    if args.review_command == "approve":  # the only one that starts platform servers
        quiet_fastmcp()
    configure_logging(args.log_level)
    try:
        return anyio.run(run, args, config, None, time.time, term)
    except KeyboardInterrupt:  # Ctrl-C: at the question nothing was sent; later, maybe
        return term.fail(
            "interrupted. Nothing is sent before you type approve; if it was already "
            "sending, `gwanjong history` shows how the write settles (never twice).",
            130,
        )


def add_review(sub: Any) -> None:
    """Register `review` on the CLI's subparsers."""
    r = command(
        sub, "review", "approve or decline writes waiting for a person; close hand-offs", _review
    )
    rsub = r.add_subparsers(dest="review_command", required=True, help="what to do")
    ls = command(rsub, "list", "pending approvals and hand-offs, oldest first", _review)
    principal_and_json(ls, "approvals and hand-offs", "a table")
    ls.add_argument("--all", action="store_true", help="decided approvals too (newest first)")
    ls.add_argument("--limit", type=count, default=50, help="at most this many of each kind")
    show = command(
        rsub, "show", "one approval or hand-off in full: the exact text, where, why", _review
    )
    show.add_argument("id", help="a7 (an approval) or h12 (a hand-off); see review list")
    show.add_argument("--handoff", action="store_true", help="ID is a hand-off's (as h<ID>)")
    ap = command(rsub, "approve", "approve at this terminal, and make the write now", _review)
    ap.add_argument("id", help="the approval's ID (a7)")
    ap.add_argument(
        "--text-file",
        type=Path,
        metavar="F",
        help="send this file's text instead (the full final text, disclosure footer kept)",
    )
    ap.add_argument("--title", metavar="T", help="a new post: send this title instead")
    ap.add_argument(
        "--tags",
        metavar="a,b",
        help="a new post: send exactly these tags (comma-separated; '' for none)",
    )
    de = command(rsub, "decline", "decline: nothing is sent", _review)
    de.add_argument("id", help="the approval's ID (a7)")
    de.add_argument("--reason", default="", help="why, for the record")
    done = command(rsub, "done", "you posted a hand-off by hand: record it with its URL", _review)
    done.add_argument("--url", required=True, help="the http(s) link of what you posted")
    dismiss = command(
        rsub,
        "dismiss",
        "you will not post a hand-off: it leaves the queue (kept in history)",
        _review,
    )
    for p in (done, dismiss):
        p.add_argument("id", help="the hand-off's ID (h12, see review list)")
