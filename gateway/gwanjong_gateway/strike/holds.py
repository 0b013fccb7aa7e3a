"""Why approving an approval now would only be refused: read by `review list/show`, the
console and the chain alike, without the chain's machinery (no platform, no FastMCP)."""

from __future__ import annotations

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules import policy
from gwanjong_gateway.rules.approvals import Approval, Hold


def hold_of(store: StrikeStore, config: GatewayConfig, a: Approval, now: float) -> Hold | None:
    """Why approving ``a`` now would only be refused (run in the record's worker thread):
    writes to its platform paused, or a limit (author cool-down, daily cap, minimum
    interval) the claim would meet. The same checks as the chain's, read without claiming."""
    paused = store.paused(a.platform)
    if paused:
        return Hold(f"writes to {a.platform} are paused: {paused}", None)
    row = {
        "platform": a.platform,
        "target": a.target,
        "action": a.action,
        "author": a.author,
        "principal": a.principal,
        "intent_key": a.intent_key,
        "content": a.text,
    }
    request = policy.claim_request(config, row, config.gateway.writes != "dry-run")
    verdict = store.decide(request, now, insert=False)
    if not verdict.refusal or verdict.retry_after is None:
        return None  # free to go, or a refusal no wait ends (approving closes it)
    return Hold(verdict.refusal, now + verdict.retry_after)


def holds(
    store: StrikeStore, config: GatewayConfig, pending: list[Approval], now: float
) -> dict[int, Hold]:
    """`hold_of` of each open approval, in one trip to the record's thread."""
    found = ((a.id, hold_of(store, config, a, now)) for a in pending if a.open_at(now))
    return {i: h for i, h in found if h is not None}
