"""The `gwanjong review` commands that decide: approve, decline, done, dismiss (`read.py`
has list and show; `cli/review/review_command.py` parses and wires them).

Exit codes: 0 done; 1 refused, expired, already decided, not found, or the write failed
(one line on stderr says which); 2 the record cannot be read at all.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from pathlib import Path

from gwanjong_gateway.cli.review import view
from gwanjong_gateway.cli.review.term import APPROVE_WORD, Review
from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.rules.approvals import Channel
from gwanjong_gateway.rules.outgoing import Edit, parse_tags
from gwanjong_gateway.rules.refs import approval_ref, handoff_ref
from gwanjong_gateway.strike.desk import StrikeDesk
from gwanjong_gateway.strike.results import (
    Declined,
    DryRun,
    Handoff,
    Posted,
    StrikeResult,
)
from gwanjong_shared.contract.errors import PlatformError
from gwanjong_shared.contract.visible import link

#: the longest --text-file read (the platform's own length limit applies after)
MAX_EDIT_BYTES = 1_000_000


async def dispatch(r: Review, args: argparse.Namespace, item: int) -> int:
    """Run the deciding command ``args`` on ``item``, the approval or hand-off it names."""
    command = args.review_command
    if command == "approve":
        tags = None if args.tags is None else parse_tags(args.tags)
        return await approve(r, item, args.text_file, args.title, tags)
    by = r.login()

    async def act(desk: StrikeDesk) -> int:
        if command == "decline":
            reason = args.reason.strip()
            result = await desk.decide(
                item, "decline", Channel.TERMINAL, by=by, who=None, reason=reason
            )
            return outcome(r, item, result)
        if command == "done":
            posted = await desk.handoffs.done(item, args.url, by=by)
            h = handoff_ref(posted.record)
            r.term.out(f"Hand-off {h} recorded as posted by a person: {posted.url}")
            return 0
        row = await desk.handoffs.dismiss(item, by=by)
        h = handoff_ref(row.id)
        r.term.out(f"Hand-off {h} dismissed: it left the queue (`gwanjong history` keeps it).")
        return 0

    if command not in ("decline", "done", "dismiss"):
        raise ValueError(f"unknown review command {command!r}")
    noun = (
        f"approval {approval_ref(item)}"
        if command == "decline"
        else f"hand-off {handoff_ref(item)}"
    )
    return await _on_desk(r, noun, act)


def _read_edit(path: Path) -> str:
    """The --text-file's text; OSError or ValueError with what went wrong."""
    with path.open("rb") as f:
        data = f.read(MAX_EDIT_BYTES + 1)
    if len(data) > MAX_EDIT_BYTES:
        raise ValueError(f"it is over {MAX_EDIT_BYTES} bytes")
    # a file saved on Windows ends its lines in CRLF: normalised, as every edit box does
    # (a lone CR stays, and the chain refuses it by name)
    return data.decode("utf-8").replace("\r\n", "\n")


async def approve(
    r: Review,
    approval_id: int,
    text_file: Path | None,
    title: str | None = None,
    tags: tuple[str, ...] | None = None,
) -> int:
    why = r.term.why_no_person()
    if why:
        return r.term.fail(f"needs a person at a terminal: {why}. Run it yourself in one.")
    text: str | None = None
    if text_file is not None and not r.nothing_recorded():
        try:
            text = _read_edit(text_file)
        except (OSError, ValueError) as exc:
            return r.term.fail(f"cannot read --text-file {text_file}: {exc}")
    by = r.login()

    async def decide(desk: StrikeDesk) -> int:
        edit: Edit | None = Edit(text, title, tags)
        approval = await desk.approving.open_for(approval_id, None, None)
        # an edit is checked before the question (the platform's footer learned first)
        use = await desk.edit_for(approval, by, Channel.TERMINAL, edit)
        edited = desk.approving.write_for(approval, edit) if use.edited else None
        held = await desk.approving.hold(approval)
        if held is not None:  # approving would only be refused: not even asked
            left = await desk.approving.left(approval_id, approval_ref(approval_id))
            return r.term.fail(f"Approval {approval_ref(approval_id)}: {held.said()}. {left}")
        if edited is None:
            edit = None  # no edit, or the same write as approved
        now = r.clock()
        r.term.out(
            *(view.details(approval, now) if edited is None else view.edit_view(approval, edited))
        )
        r.term.out("")
        typed = r.term.ask(
            f"Type {APPROVE_WORD} to send it now (approval {approval_ref(approval.id)}, approved by {by}); "
            "anything else stops: "
        )
        if typed != APPROVE_WORD:  # it may have expired while the person read
            left = await desk.approving.left(approval_id, approval_ref(approval_id))
            return r.term.fail(f"Not approved. {left}")
        result = await desk.decide(
            approval_id, "approve", Channel.TERMINAL, by=by, who=None, edit=edit
        )
        return outcome(r, approval_id, result)

    return await _on_desk(r, f"approval {approval_ref(approval_id)}", decide)


async def _on_desk(r: Review, item: str, act: Callable[[StrikeDesk], Awaitable[int]]) -> int:
    """``act`` on the desk of a gateway of this process's own; a refusal said on stderr."""
    if r.nothing_recorded():
        return r.term.fail(f"There is no {item} (nothing is recorded yet).")
    gw = Gateway(r.config, transports=r.transports, wall=r.clock)
    try:
        return await act(gw.desk)
    except PlatformError as exc:
        return r.term.fail(exc.message)
    finally:
        await gw.aclose()


def outcome(r: Review, approval_id: int, result: StrikeResult) -> int:
    """What the decision came to, for the person; 0 when it did what they asked."""
    if isinstance(result, Posted):
        r.term.out(
            f"Posted: {result.url or '(no link given)'} (approval {approval_ref(approval_id)}, record {result.record})"
        )
        return 0
    if isinstance(result, Handoff):
        h = handoff_ref(result.record)
        r.term.out(
            f"Handed off (hand-off {h}): {result.reason}",
            f"Post it by hand at {link(result.open) if result.open else 'the platform'}, then: "
            f"gwanjong review done {h} --url URL",
        )
        return 0
    if isinstance(result, Declined):
        r.term.out(
            f"Declined: nothing was sent (approval {approval_ref(approval_id)}, record {result.record})."
        )
        return 0
    if isinstance(result, DryRun):
        return r.term.fail(
            f'writes = "dry-run": nothing was sent; approval {approval_ref(approval_id)} still waits.'
        )
    # refused (a wait says when, and that the approval still waits), a duplicate (or,
    # never, still pending)
    return r.term.fail(result.reason)
