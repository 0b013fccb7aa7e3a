"""scout: find opportunities on the enabled platforms (or in the inbox) and mint the
handles the model gets for them."""

from __future__ import annotations

import contextlib
from typing import Literal

from fastmcp import Context

from gwanjong_gateway.scout import handles, inbox
from gwanjong_gateway.scout import opportunities as scouting
from gwanjong_gateway.scout.acted import acted_in
from gwanjong_gateway.scout.scout_results import ScoutResult
from gwanjong_gateway.scout.state import Opportunity
from gwanjong_gateway.tools.served import Served
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.untrusted import one_line
from gwanjong_shared.pipeline import Stored


async def scout(
    served: Served,
    ctx: Context,
    topic: str,
    platforms: list[str] | None,
    limit: int,
    source: Literal["topic", "mentions"],
) -> Stored[ScoutResult]:
    gw, config = served.gw, served.config
    topic = topic.strip()
    if not topic and source == "topic":
        raise PlatformError(
            ErrorKind.INVALID_INPUT,
            "topic is empty. Give a few words, e.g. scout(topic='rust async'), or read the "
            "inbox with scout(source='mentions').",
        )
    names = served.known(platforms)
    found: list[Opportunity] = []
    errors: dict[str, str] = {}
    within_s = config.gateway.answer_within_s
    acted = acted_in(gw.records, tolerant=True)  # a busy or broken record: none
    with gw.records.one_wait():  # a frozen record costs scout one deadline, not three
        # a write the record lost is held again; a busy or broken record: scout still works
        with contextlib.suppress(PlatformError):
            await gw.desk.journal.ready()
            await gw.desk.handoffs.sweep()  # an expired hand-off offers its target again
        if source == "mentions":
            started = gw.mono()
            found, errors = await inbox.inbox(
                gw.upstreams,
                acted,
                gw.cursors,
                names,
                limit,
                config.safety.opt_out,
                late=gw.late,
                within_s=within_s,
                sleep=gw.sleep,
            )
            # the inbox and a topic after it answer within the one deadline
            within_s = max(0.0, within_s - (gw.mono() - started))
        if topic and len(found) < limit:
            more, topic_errors = await scouting.scout(
                gw.upstreams,
                acted,
                topic,
                names,
                limit,
                config.safety.opt_out,
                ctx.report_progress,
                late=gw.late,
                within_s=within_s,
                sleep=gw.sleep,
            )
            seen = {o.id for o in found}
            found += [o for o in more if o.id not in seen][: limit - len(found)]
            for name, error in topic_errors.items():
                errors[name] = f"{errors[name]}; {error}" if name in errors else error
    found = handles.minted(found)  # the ids the model gets are handles
    result = ScoutResult(
        opportunities=[scouting.compress(o) for o in found],
        errors={name: one_line(text, 300) for name, text in errors.items()},
    )
    if not found:
        result.hint = (
            "Nothing new in the inbox: scout a topic instead."
            if source == "mentions"
            else "Nothing found: try other words, or check status() for platforms that are down."
        )
    return Stored(result, store={"opportunities": {o.handle: o for o in found}})
