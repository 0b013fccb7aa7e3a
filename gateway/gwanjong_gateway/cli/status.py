"""`gwanjong status`: what waits for the person, each platform's write health as the record
last knew it, the write mode, and how notifications went. Reads the record only: no
platform is started or asked (that is `gwanjong doctor`), so it answers at once."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from contextlib import closing

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.notify.deliver import Retry
from gwanjong_gateway.notify.events import ago
from gwanjong_gateway.notify.redact import shown
from gwanjong_gateway.record.records import open_store
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_shared.contract.visible import line as one_line


def _waiting(store: StrikeStore, config: GatewayConfig, now: float) -> list[str]:
    lines: list[str] = []
    approvals = store.approvals(now, True, None, 1000)
    if approvals:
        oldest = min(a.created_at for a in approvals)
        soonest = min(a.expires_at for a in approvals)
        lines.append(
            f"  {len(approvals)} approvals (oldest {ago(now - oldest)} ago; the first expires "
            f"in {ago(soonest - now)}): `gwanjong review`, or the console's /approvals"
        )
    handed = now - config.review.handoff_expire_after_s  # before that: expired, if not swept
    handoffs = [h for h in store.open_handoffs(None, 1000) if h.created_at >= handed]
    if handoffs:
        oldest = min(h.created_at for h in handoffs)
        lines.append(
            f"  {len(handoffs)} hand-offs to post by hand (oldest {ago(now - oldest)} ago): "
            "the console's /handoffs"
        )
    unsure = [r for r in store.unsettled() if r.needs_person]
    if unsure:
        oldest = min(r.created_at for r in unsure)
        lines.append(
            f"  {len(unsure)} unsure writes for you to settle (oldest {ago(now - oldest)} ago): "
            "`gwanjong history --resolve`, or the console's /history?status=unknown"
        )
    return lines or ["  nothing"]


def _health(store: StrikeStore, config: GatewayConfig, now: float) -> list[str]:
    known = {name: (failures, paused, at) for name, failures, paused, at in store.health_rows()}
    lines: list[str] = []
    for name in config.enabled():
        if name not in known:
            lines.append(f"  {name}: no write recorded yet")
            continue
        failures, paused, at = known[name]
        if paused:
            lines.append(
                f"  {name}: writes PAUSED ({one_line(paused)}); resume in the console's /usage"
            )
        elif failures:
            lines.append(f"  {name}: {failures} write failures in a row, last {ago(now - at)} ago")
        else:
            lines.append(f"  {name}: ok (last write {ago(now - at)} ago)")
    return lines or ["  no platform enabled"]


def _variable(url: str) -> str:
    """`${VAR}` of a URL that starts with one, `…` for whatever is written after it."""
    var = re.match(r"\$\{[^}]*\}", url)
    return "" if var is None else var[0] + ("…" if len(url) > var.end() else "")


def _notify(store: StrikeStore, config: GatewayConfig, now: float) -> list[str]:
    section = config.notify
    if not section.urls:
        return ["notifications: off (set [notify] urls in gateway.toml)"]
    # `${VAR}` stays unexpanded here: status shows where, never what the URL holds
    where = ", ".join(_variable(u) or shown(u) for u in section.urls)
    lines = [f"notifications: to {where}, at most every {section.every_s:g} s"]
    last = store.last_notice()
    if last is None:
        lines.append("  none sent yet")
        return lines
    if last.sent_at:
        lines.append(f"  last sent {ago(now - last.sent_at)} ago: {last.summary}")
    elif now - last.claimed_at <= Retry().longest_s:
        lines.append(f"  last one ({last.summary}) is being sent")
    else:  # no delivery lasts this long: the process that sent it stopped mid-send
        lines.append(
            f"  last one ({last.summary}), {ago(now - last.claimed_at)} ago, was never "
            "confirmed sent: the gateway stopped while sending it"
        )
    if last.error:
        lines.append(f"  delivery error: {one_line(last.error, 300)}")
    return lines


def print_status(config: GatewayConfig, clock: Callable[[], float] = time.time) -> int:
    now = clock()
    try:
        store = open_store(config)
    except Exception as exc:  # the type only: a URL's password stays out
        print(
            f"gwanjong status: the record cannot be opened ({type(exc).__name__}); "
            "`gwanjong doctor` says why",
            file=sys.stderr,
        )
        return 1
    with closing(store):
        lines = [
            f"writes: {config.gateway.writes}",
            "waiting for you:",
            *_waiting(store, config, now),
            "platforms (as the record last knew them; `gwanjong doctor` checks them):",
            *_health(store, config, now),
            *_notify(store, config, now),
        ]
    print("\n".join(lines))
    return 0
