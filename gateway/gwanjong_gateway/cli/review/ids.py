"""Which approval or hand-off a `gwanjong review` command means: `a7` or `h12`
(`rules/refs.py`). A bare number is taken only where it cannot be the other kind: one
that names both a waiting approval and a waiting hand-off is refused with "did you mean
a2 or h2?", and one that names only the kind this command does not take says which
command does (`review decline 2` once declined approval 2 meant for hand-off 2)."""

from __future__ import annotations

from contextlib import closing

from gwanjong_gateway.cli.review.term import Review
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_gateway.rules.refs import Kind, Ref, parse_ref

#: what each command takes
TAKES = {
    "show": (Kind.APPROVAL, Kind.HANDOFF),
    "approve": (Kind.APPROVAL,),
    "decline": (Kind.APPROVAL,),
    "done": (Kind.HANDOFF,),
    "dismiss": (Kind.HANDOFF,),
}


class NotAnId(Exception):
    """The id cannot be taken; the message says what to type instead."""


async def waiting(r: Review, number: int) -> tuple[bool, bool]:
    """Whether approval ``number`` and hand-off ``number`` wait for a person."""
    if r.nothing_recorded():
        return False, False  # nothing recorded (and reading must not make a record)
    with closing(Records.for_config(r.config)) as records:
        approval = await records.run(StrikeStore.approval, number)
        row = await records.run(StrikeStore.get, number)
    open_approval = approval is not None and approval.open_at(r.clock())
    return open_approval, row is not None and row.status is StrikeStatus.HANDOFF


def _other(command: str, ref: Ref) -> str:
    if ref.kind is Kind.HANDOFF:
        return (
            f"`review {command}` takes an approval (a<number>); {ref} is a hand-off: "
            f"`gwanjong review done {ref} --url URL` or `gwanjong review dismiss {ref}`."
        )
    return (
        f"`review {command}` takes a hand-off (h<number>); {ref} is an approval: "
        f"`gwanjong review approve {ref}` or `gwanjong review decline {ref}`."
    )


async def resolve(r: Review, command: str, text: str, handoff: bool = False) -> Ref:
    """The item ``text`` names for ``command``; raises NotAnId saying what to type."""
    try:
        ref = parse_ref(text)
    except ValueError as exc:
        raise NotAnId(str(exc)) from None
    takes = TAKES[command]
    if ref.kind is None and handoff:
        ref = Ref(Kind.HANDOFF, ref.id)
    if ref.kind is None:
        a, h = await waiting(r, ref.id)
        if a and h:
            raise NotAnId(
                f"{ref.id} names both approval a{ref.id} and hand-off h{ref.id}, each waiting: "
                f"did you mean a{ref.id} or h{ref.id}?"
            )
        kind = Kind.APPROVAL if a else Kind.HANDOFF if h else takes[0]
        ref = Ref(kind, ref.id)
    if ref.kind not in takes:
        raise NotAnId(_other(command, ref))
    return ref
