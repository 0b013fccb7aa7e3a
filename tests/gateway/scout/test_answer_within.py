"""scout answers within `[gateway] answer_within_s` (agent frameworks give a tool call about
5 s): what arrived by then, the slower platforms named as still coming, and their reads
kept for the next scout on the same topic. The deadline is the fake clock's gated sleep:
the test decides when it passes, nothing depends on the machine's speed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_gateway.gateway import Gateway
from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import SOCIAL, TWEETS
from tests.gateway.helpers import gateway_of
from tests.mcp import call

pytestmark = pytest.mark.anyio
TOPIC = "rust async"


async def only_x_still_reading(gw: Gateway) -> None:
    """Until bluesky's read has arrived and X's alone hangs. Waiting for every task to block
    is not enough: a read hops through worker threads (the record, the usage log), and a task
    waiting on a thread counts as blocked while the thread still works (seen under load)."""
    while gw.late.pending() != 1:
        await anyio.sleep(0.01)  # polls a condition; fail_after bounds it, not the speed
    await anyio.wait_all_tasks_blocked()


@asynccontextmanager
async def x_late(
    tmp_path: Path,
    hung: list[str],
    social: FakePlatform | None = None,
    tables: dict[str, Any] | None = None,
    **scout: Any,
) -> AsyncIterator[tuple[Client[Any], FakePlatform, dict[str, Any]]]:
    """A scout (``scout``: its arguments) while X hangs on ``hung``: answered when
    answer_within_s (4 s, the fake clock) passes, with bluesky's part alone and X still
    coming. Yields the open client, X and that first answer."""
    social, tweets = social or FakePlatform(SOCIAL), FakePlatform(TWEETS)
    for op in hung:
        tweets.hang(op)
    clock = FakeClock(gated=True)
    settings = {"answer_within_s": 4}
    gw, mcp = gateway_of(tmp_path, social, tweets, clock=clock, settings=settings, tables=tables)
    gw.sleep = clock.sleep
    first: dict[str, Any] = {}
    with anyio.fail_after(60):  # a guard against a hang, not a measurement
        async with Client(mcp) as client:

            async def read() -> None:
                first.update(await call(client, "scout", **scout))

            async with anyio.create_task_group() as tg:
                tg.start_soon(read)
                await only_x_still_reading(gw)
                await clock.pass_one()  # answer_within_s passes
            assert clock.slept == [4]
            assert {o["platform"] for o in first["opportunities"]} == {"bluesky"}
            assert first["errors"]["twitter"].startswith("still coming: ")
            assert "bluesky" not in first["errors"]
            yield client, tweets, first
            tweets.release()


async def test_a_slow_platform_is_named_still_coming_and_kept_for_the_next_scout(
    tmp_path: Path,
) -> None:
    hung = ["search", "trending"]
    async with x_late(tmp_path, hung, topic=TOPIC, limit=20) as (client, tweets, _first):
        tweets.release()  # X answers after the first scout gave up waiting
        await anyio.wait_all_tasks_blocked()
        calls = len(tweets.asked("search", "trending"))
        second = await call(client, "scout", topic=TOPIC, limit=20)
        assert "twitter" not in second["errors"]
        assert "twitter" in {o["platform"] for o in second["opportunities"]}
        assert len(tweets.asked("search", "trending")) == calls  # the kept read, not a new one
        # Taken once: the scout after asks X again.
        await call(client, "scout", topic=TOPIC, limit=20)
        assert len(tweets.asked("search", "trending")) == calls + 2


async def test_a_slow_inbox_is_named_still_coming_and_kept_for_the_next_read(
    tmp_path: Path,
) -> None:
    inbox = {"source": "mentions", "limit": 25}
    async with x_late(tmp_path, ["mentions"], **inbox) as (client, tweets, _first):
        tweets.release()  # X answers after the first read gave up waiting
        await anyio.wait_all_tasks_blocked()
        asked = len(tweets.asked("mentions"))
        second = await call(client, "scout", **inbox)
        assert second["errors"] == {}
        assert {o["platform"] for o in second["opportunities"]} == {"twitter"}
        assert len(tweets.asked("mentions")) == asked  # the kept listing, not a new one
        # Taken once, and its cursor moved: the next read asks X again and lists nothing new.
        third = await call(client, "scout", **inbox)
        assert len(tweets.asked("mentions")) == asked + 1
        assert third["opportunities"] == []


async def test_with_an_opt_out_list_the_inbox_learns_profiles_beside_its_reads(
    tmp_path: Path,
) -> None:
    social = FakePlatform(SOCIAL)
    social.add_post("ask", "A question", "@gwanjong.bsky.social hi", author="nope", summons=True)
    # X's profile (its opt-out spellings) never comes
    async with x_late(
        tmp_path,
        ["capabilities"],
        social,
        tables={"safety": {"opt_out": ["@nope"]}},
        source="mentions",
        limit=25,
    ) as (_client, _tweets, first):
        assert not any(o["title"] == "A question" for o in first["opportunities"])  # opted out
