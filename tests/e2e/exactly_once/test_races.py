"""Limits are claims: two sessions of one HTTP gateway, or two gateways sharing one
state_dir, strike at once on two posts by the same author. Exactly one is posted; the
other is refused with the true reason (cap, interval or cool-down)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.e2e.strikes import clients, http_gateway, live_config, scout_draft, session, strike
from tests.e2e.test_chain import gateway
from tests.platforms import needs

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio]

# rule -> (the platform's table, [safety], what the refusal must say)
RULES: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "cap": (
        {"min_interval_s": 0, "daily": {"comment": 1}},
        {"author_cooldown_days": 0},
        "Daily cap reached: 1 of 1",
    ),
    "interval": ({"min_interval_s": 60}, {"author_cooldown_days": 0}, "Too soon"),
    "cooldown": (
        {"min_interval_s": 0},
        {"author_cooldown_days": 7},
        "the author cool-down is 7 days",
    ),
}
# Two Reddit posts by the same author (ferris_fan).
TARGETS = [("rust async cancellation", "Rust async"), ("tokio loom testing", "loom")]


async def race(pair: list[Client[Any]]) -> list[dict[str, Any]]:
    oids = [
        await scout_draft(client, "reddit", topic, title)
        for client, (topic, title) in zip(pair, TARGETS, strict=True)
    ]
    answers: list[dict[str, Any]] = [{}, {}]

    async def one(i: int) -> None:
        answers[i] = await strike(
            pair[i], oids[i], "comment", f"Reply number {i}: guard each await."
        )

    async with anyio.create_task_group() as tg:
        for i in range(2):
            tg.start_soon(one, i)
    return answers


def check(answers: list[dict[str, Any]], expected: str, sandbox: SandboxControl) -> None:
    statuses = sorted(a.get("status", a.get("error", "")) for a in answers)
    assert statuses == ["posted", "refused"], answers
    refused = next(a for a in answers if a.get("status") == "refused")
    assert expected in refused["reason"], refused
    assert len(sandbox.writes("reddit")) == 1


@pytest.mark.parametrize(
    "how", ["two-gateways-on-one-state-dir", "two-sessions-of-one-http-gateway"]
)
@pytest.mark.parametrize("rule", sorted(RULES))
async def test_two_racers(sandbox: SandboxControl, tmp_path: Path, rule: str, how: str) -> None:
    needs("reddit")
    table, safety, expected = RULES[rule]
    cfg = live_config(tmp_path, sandbox, ["reddit"], tables={"safety": safety}, platform=table)
    sandbox.fault("reddit", kind="latency", ms=200)  # widen the window between check and write
    if how == "two-gateways-on-one-state-dir":
        async with clients(gateway(cfg), gateway(cfg)) as pair:
            check(await race(pair), expected, sandbox)
        return
    with http_gateway(cfg) as url:
        async with clients(session(url), session(url)) as pair:
            check(await race(pair), expected, sandbox)
