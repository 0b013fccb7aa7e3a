"""A write leaves once when the platform applies it and its answer is lost: a proxy's 5xx
after the write, or the connection dropped after the write (the sandbox's
``apply_then_status`` and ``apply_then_drop``, armed once on the write endpoint, so a write
any layer resent would be applied twice). For each platform and each fault, through a real
gateway process, the real platform server and SDK and the sandbox: exactly one write in the
sandbox's log, the strike answers posted (settled by read-back) or unsure with the record,
never "nothing was written", and a later strike on the same target is a duplicate. Then the
same with the platform server in its own process, and through two gateways sharing one
PostgreSQL record."""

from __future__ import annotations

import contextlib
import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.strikes import clients, history, live_config, scout_draft, session, strike
from tests.e2e.test_chain import gateway
from tests.gateway.http_gateway import cli
from tests.gateway.http_gateway import http_gateway as logged_gateway
from tests.mcp import approves, until
from tests.platforms import needs

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio]
# The write is visible at once, so the first read-back settles it; a short window keeps a
# regression (a read-back that cannot find it) quick to show.
SAFETY = {"safety": {"settle_window_s": 5}}
TITLE = "Once only"
# platform -> (action, scout topic, title of the target, write endpoint). Bluesky and X
# answer only posts that summoned us (the "summons-me" thread).
CASES = {
    "devto": ("post", "rust async", "Rust async", "/api/articles"),
    "reddit": ("comment", "rust async cancellation", "Rust async", "/api/comment"),
    "bluesky": ("comment", "MCP gateway design feedback", "feedback", "repo.createRecord"),
    "twitter": ("comment", "MCP gateway design feedback", "feedback", "/2/tweets"),
}
# An untitled post is read back by searching its text's start: X and Bluesky match whole
# words, so the query must not end inside one (character 60 falls in "acknowledgements").
UNTITLED = {
    "bluesky": ("post", "MCP gateway design feedback", "feedback", "repo.createRecord"),
    "twitter": ("post", "MCP gateway design feedback", "feedback", "/2/tweets"),
}
#: a titled new post on Reddit, whose search lists it minutes late (the sandbox's too)
LATE = {"reddit": ("post", "rust async cancellation", "Rust async", "/api/submit")}
LONG = "A post sent once, whatever the network does, with acknowledgements to everyone."
FAULTS = {
    "5xx-after-write": ("apply_then_status", {"status": 502}),
    "dropped": ("apply_then_drop", {}),
}


def text_for(platform: str) -> str:
    return f"Sent once to {platform}, whatever the network does."


async def lose_the_answer(
    client: Client[Any],
    sandbox: SandboxControl,
    platform: str,
    fault: str,
    again_on: Client[Any] | None = None,
    untitled: bool = False,
    cases: dict[str, tuple[str, str, str, str]] | None = None,
) -> int:
    """One strike whose answer the sandbox loses, then the same strike again (on
    ``again_on``, another gateway, if given); checks both answers, returns the record."""
    action, topic, title, path = (cases or (UNTITLED if untitled else CASES))[platform]
    kind, fields = FAULTS[fault]
    oid = await scout_draft(client, platform, topic, title)
    sandbox.fault(platform, kind, method="POST", match=path, count=1, **fields)
    content, heading = (LONG, "") if untitled else (text_for(platform), TITLE)
    first = await strike(client, oid, action, content, heading)
    if "error" in first:  # unsure: held, with its record, and read back later
        text = first["error"]
        assert text.split(":")[0] in ("unavailable", "timeout"), first
        assert "may already be written" in text and "Nothing was written" not in text, first
        record = int(re.findall(r"record (\d+)", text)[0])
    else:  # settled at once by the read-back
        assert first["status"] == "posted", first
        record = int(first["record"])
    again = await strike(again_on or client, oid, action, content, heading)
    assert again.get("status") == "duplicate", again
    assert int(again["earlier"]["record"]) == record, again
    return record


def one_write(sandbox: SandboxControl, platform: str, untitled: bool = False) -> None:
    action = "write_post" if untitled or CASES[platform][0] == "post" else "write_comment"
    writes = [w for w in sandbox.writes(platform) if w["action"] == action]
    assert len(writes) == 1, f"{platform}: the write was sent {len(writes)} times"


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("platform", sorted(CASES))
async def test_a_lost_answer_leaves_one_write(
    sandbox: SandboxControl, tmp_path: Path, platform: str, fault: str
) -> None:
    needs(platform)
    cfg = live_config(tmp_path, sandbox, [platform], tables=SAFETY)
    async with Client(gateway(cfg), timeout=90, elicitation_handler=approves) as client:
        record = await lose_the_answer(client, sandbox, platform, fault)
    one_write(sandbox, platform)
    [row] = [r for r in history(tmp_path) if r.id == record]
    assert row.status in (StrikeStatus.POSTED, StrikeStatus.UNKNOWN), row


@pytest.mark.parametrize("platform", sorted(UNTITLED))
async def test_a_lost_untitled_post_is_found_by_its_words(
    sandbox: SandboxControl, tmp_path: Path, platform: str
) -> None:
    needs(platform)
    cfg = live_config(tmp_path, sandbox, [platform], tables=SAFETY)
    async with Client(gateway(cfg), timeout=90, elicitation_handler=approves) as client:
        record = await lose_the_answer(client, sandbox, platform, "dropped", untitled=True)
        await until(lambda: _status(tmp_path, record) is not StrikeStatus.UNKNOWN, seconds=60)
    one_write(sandbox, platform, untitled=True)
    assert _status(tmp_path, record) is StrikeStatus.POSTED


@pytest.mark.parametrize("platform", sorted(LATE))
async def test_a_lost_post_is_found_though_search_lists_it_late(
    sandbox: SandboxControl, tmp_path: Path, platform: str
) -> None:
    """Read back by search alone, a post that landed was absent through the settle window:
    settled `failed`, and the next strike would send it again."""
    needs(platform)
    cfg = live_config(tmp_path, sandbox, [platform], tables=SAFETY)
    async with Client(gateway(cfg), timeout=90) as client:
        record = await lose_the_answer(client, sandbox, platform, "dropped", cases=LATE)
        await until(lambda: _status(tmp_path, record) is not StrikeStatus.UNKNOWN, seconds=60)
    assert len([w for w in sandbox.writes(platform) if w["action"] == "write_post"]) == 1
    assert _status(tmp_path, record) is StrikeStatus.POSTED


def _status(tmp_path: Path, record: int) -> StrikeStatus:
    return next(r.status for r in history(tmp_path) if r.id == record)


@pytest.mark.parametrize("fault", sorted(FAULTS))
async def test_a_lost_answer_leaves_one_write_from_a_server_process(
    sandbox: SandboxControl, tmp_path: Path, fault: str
) -> None:
    needs("reddit")
    cfg = live_config(
        tmp_path,
        sandbox,
        ["reddit"],
        tables=SAFETY,
        platform={"min_interval_s": 0, "isolation": "process"},
    )
    async with Client(gateway(cfg), timeout=90, elicitation_handler=approves) as client:
        await lose_the_answer(client, sandbox, "reddit", fault)
    one_write(sandbox, "reddit")


@pytest.mark.postgres
@pytest.mark.parametrize("fault", sorted(FAULTS))
async def test_two_gateways_on_one_postgres_send_it_once(
    sandbox: SandboxControl, tmp_path: Path, pg_url: str, fault: str
) -> None:
    """The write's answer is lost on one gateway; the same strike on the other, sharing the
    record, is a duplicate, and nothing is sent again. Both gateways' settle loops see the
    unsure row, but one settles it: one "settled" line over both logs."""
    needs("reddit")
    cfg = live_config(tmp_path, sandbox, ["reddit"], tables=SAFETY)
    cfg.write_text(cfg.read_text() + f'\n[store]\nurl = "{pg_url}"\n')
    name = str(uuid.uuid4())

    def posted(record: int) -> bool:
        done = cli(cfg, "history", "--json")
        assert done.returncode == 0, done.stderr
        [row] = [r for r in json.loads(done.stdout) if r["record"] == record]
        return bool(row["status"] == "posted" and row["url"])

    with contextlib.ExitStack() as stack:
        running = [stack.enter_context(logged_gateway(cfg, log_level="INFO")) for _ in range(2)]
        transports = (session(r.url, name) for r in running)
        async with clients(*transports) as (first, second):
            record = await lose_the_answer(first, sandbox, "reddit", fault, again_on=second)
            await until(lambda: posted(record), seconds=90, every=1.0)
        logs = "".join(r.log() for r in running)
    one_write(sandbox, "reddit")
    assert logs.count(f"record {record}: settled as posted here") == 1, logs
