"""`gwanjong review list` and `review show`: read the record and print, nothing more. No
platform, no FastMCP, no gateway (`run.py` has the commands that decide), so they answer
about as fast as `gwanjong --help` (bench/start/cli.py). A record that cannot be read goes
up as its `unavailable` answer (`review_command.run` says it, exit 2)."""

from __future__ import annotations

from contextlib import closing

from gwanjong_gateway.cli.review import view
from gwanjong_gateway.cli.review.term import Review
from gwanjong_gateway.record.records import Records
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_gateway.rules.refs import Kind, Ref, approval_ref, handoff_ref
from gwanjong_gateway.strike.holds import holds


async def show(r: Review, ref: Ref) -> int:
    handoff = ref.kind is Kind.HANDOFF
    if r.nothing_recorded():
        noun = "hand-off" if handoff else "approval"
        return r.term.fail(f"There is no {noun} {ref} (nothing is recorded yet).")
    return await (show_handoff(r, ref.id) if handoff else show_approval(r, ref.id))


async def list_waiting(
    r: Review, everything: bool, as_json: bool, principal: str | None, limit: int
) -> int:
    now = r.clock()
    items: list[view.Item] = []
    if not r.nothing_recorded():
        with closing(Records.for_config(r.config)) as records:
            approvals = await records.run(
                StrikeStore.approvals, now, not everything, principal, limit
            )
            after = r.config.review.handoff_expire_after_s
            await records.run(StrikeStore.expire_handoffs, now - after, now)
            handoffs = await records.run(
                StrikeStore.history, None, StrikeStatus.HANDOFF, limit, principal
            )
            held = await records.run(holds, r.config, approvals, now)
        items = [view.approval_item(a, now, held.get(a.id)) for a in approvals]
        items += [view.handoff_item(h, after, now) for h in handoffs]
    # waiting: the oldest first (it expires first); with --all, the newest first
    items.sort(key=lambda i: (i.created_at, i.kind, i.data["id"]), reverse=everything)
    r.term.out(
        view.escaped_json([i.data for i in items])
        if as_json
        else "\n".join(view.table(items, now, everything))
    )
    return 0


async def show_approval(r: Review, approval_id: int) -> int:
    now = r.clock()
    with closing(Records.for_config(r.config)) as records:
        approval = await records.run(StrikeStore.approval, approval_id)
        held = await records.run(holds, r.config, [approval] if approval else [], now)
    if approval is None:
        return r.term.fail(
            f"There is no approval {approval_ref(approval_id)}; `gwanjong review list` shows "
            "those waiting."
        )
    r.term.out(*view.details(approval, now, held.get(approval.id)))
    return 0


async def show_handoff(r: Review, record_id: int) -> int:
    h = handoff_ref(record_id)
    with closing(Records.for_config(r.config)) as records:
        row = await records.run(StrikeStore.get, record_id)
    if row is None:
        return r.term.fail(f"There is no hand-off {h}; `gwanjong review list` shows those waiting.")
    if row.status is not StrikeStatus.HANDOFF:
        return r.term.fail(
            f"Hand-off {h} is {row.status}, not waiting for a person; `gwanjong history` shows it."
        )
    r.term.out(*view.handoff_details(row))
    return 0
