"""Exactly one write when answers are lost: a slow write past the timeout, a platform
server killed mid-write, the gateway killed after sending, and read-back lag. Each runs
through a real gateway process, the real platform server and the sandbox, and ends with
exactly one write in the sandbox's write log."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_gateway.rules.ledger import StrikeStatus
from gwanjong_sandbox.control import SandboxControl
from tests.e2e.procs import alive, find
from tests.e2e.strikes import history, live_config, scout_draft, server_timeout, strike
from tests.e2e.test_chain import gateway, gateway_pid
from tests.mcp import approves, call, until
from tests.platforms import needs

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio]
SAFETY = {"safety": {"settle_window_s": 20}}
POST = {"title": "Once only", "content": "Exactly once, whatever the network does."}


async def settled_as_posted(
    client: Client[Any], oid: str, action: str, content: str, title: str = ""
) -> None:
    """Retry until the answer is a duplicate of a posted record (never a second write)."""

    async def posted() -> bool:
        again = await strike(client, oid, action, content, title)
        assert "error" not in again, again
        assert again["status"] == "duplicate", again
        return bool(again["earlier"]["status"] == "posted")

    await until(posted, seconds=90, every=1.0)


async def until_pending(tmp_path: Path) -> None:
    """Once the claim is recorded, the request is on its way."""

    async def pending() -> bool:
        return any(r.status == StrikeStatus.PENDING for r in history(tmp_path))

    await until(pending, seconds=60, every=0.1)


async def until_received(sandbox: SandboxControl, platform: str, write: str) -> None:
    """The sandbox holds the whole write (a POST to a path ending in ``write``, held by a
    slow_write fault): a kill from now on cannot stop it landing. A fixed wait after the
    claim could kill too early or, on a loaded machine, after the held write had already
    been answered; a kill after its first bytes but before its whole body is no write."""

    def received() -> bool:
        paths = sandbox.request_paths()
        return any(
            k.startswith(f"{platform} POST ")
            and k.endswith(" held")
            and k.removesuffix(" held").rstrip("/").endswith(write)
            for k in paths
        )

    await until(received, seconds=60, every=0.05)


def may_be_written(answer: dict[str, Any]) -> None:
    text = answer.get("error") or answer.get("reason", "")
    assert "may already be written" in text, answer
    assert "Nothing was written" not in text


async def test_slow_write_past_the_timeout_then_an_immediate_retry(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("devto")
    short = server_timeout(sandbox, "devto", 2)
    cfg = live_config(tmp_path, sandbox, ["devto"], tables=SAFETY, others=short)
    async with Client(gateway(cfg), timeout=90, elicitation_handler=approves) as client:
        oid = await scout_draft(client, "devto", "rust async", "Rust async")
        # Received now, applied 4 s later: the server's 2 s timeout gives up first.
        sandbox.fault("devto", kind="slow_write", seconds=4, match="/api/articles")
        first = await strike(client, oid, "post", POST["content"], POST["title"])
        assert first["error"].startswith("timeout"), first
        may_be_written(first)
        retry = await strike(client, oid, "post", POST["content"], POST["title"])
        assert retry["status"] == "duplicate", retry
        may_be_written(retry)
        assert "checking again in" in retry["reason"]
        await settled_as_posted(client, oid, "post", POST["content"], POST["title"])
    assert len(sandbox.writes("devto")) == 1
    assert [r.status for r in history(tmp_path) if r.action == "post"] == [StrikeStatus.POSTED]


async def test_platform_server_killed_mid_write(sandbox: SandboxControl, tmp_path: Path) -> None:
    needs("reddit")
    cfg = live_config(
        tmp_path,
        sandbox,
        ["reddit"],
        settings={"call_timeout_s": 30},
        tables=SAFETY,
        platform={"min_interval_s": 0, "isolation": "process"},
        others=server_timeout(sandbox, "reddit", 30),
    )
    text = "Guards around each await fixed it for us."
    async with Client(gateway(cfg), timeout=90, elicitation_handler=approves) as client:
        oid = await scout_draft(client, "reddit", "rust async cancellation", "Rust async")
        sandbox.fault("reddit", kind="slow_write", seconds=10, match="/api/comment")
        answers: list[dict[str, Any]] = []
        async with anyio.create_task_group() as tg:

            async def write() -> None:
                answers.append(await strike(client, oid, "comment", text))

            tg.start_soon(write)
            await until_received(sandbox, "reddit", "/api/comment")
            [server] = find(gateway_pid(), "gwanjong_reddit")
            os.kill(server, signal.SIGKILL)
        [first] = answers
        assert first.get("error", "").startswith("unavailable"), first
        may_be_written(first)
        retry = await strike(client, oid, "comment", text)
        assert retry["status"] == "duplicate", retry
        await settled_as_posted(client, oid, "comment", text)
    assert len(sandbox.writes("reddit")) == 1


async def test_gateway_killed_after_sending_restarted_and_retried(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("devto")
    cfg = live_config(
        tmp_path,
        sandbox,
        ["devto"],
        settings={"call_timeout_s": 30},
        tables=SAFETY,
        others=server_timeout(sandbox, "devto", 60),
    )
    async with Client(gateway(cfg), timeout=90, elicitation_handler=approves) as client:
        oid = await scout_draft(client, "devto", "rust async", "Rust async")
        sandbox.fault("devto", kind="slow_write", seconds=5, match="/api/articles")
        gw = gateway_pid()
        async with anyio.create_task_group() as tg:

            async def doomed() -> None:
                with contextlib.suppress(Exception):  # the gateway dies under this call
                    await strike(client, oid, "post", POST["content"], POST["title"])

            tg.start_soon(doomed)
            await until_received(sandbox, "devto", "/api/articles")
            os.kill(gw, signal.SIGKILL)
            await until(lambda: not alive(gw), seconds=30)
            tg.cancel_scope.cancel()
    assert sandbox.writes("devto") == []  # not landed yet: the restart comes first
    async with Client(gateway(cfg), timeout=90, elicitation_handler=approves) as client:
        oid = await scout_draft(client, "devto", "rust async", "Rust async")
        retry = await strike(client, oid, "post", POST["content"], POST["title"])
        assert retry["status"] == "duplicate", retry
        # The journal replay made the killed write `unknown` at start, so it may already
        # be read back (posted) by now; either way it is held, never "nothing written".
        if retry["earlier"]["status"] != "posted":
            may_be_written(retry)
        assert "Nothing was written" not in str(retry)
        await settled_as_posted(client, oid, "post", POST["content"], POST["title"])
    assert len(sandbox.writes("devto")) == 1


@pytest.mark.parametrize(
    ("platform", "action", "match"),
    [
        ("reddit", "comment", "/api/comment"),
        ("bluesky", "post", "createRecord"),  # the AppView lags the PDS, which is read
        ("twitter", "post", "/2/tweets"),  # X's search index lags
        ("mastodon", "post", "/api/v1/statuses"),
    ],
)
async def test_read_back_lag(
    sandbox: SandboxControl, tmp_path: Path, platform: str, action: str, match: str
) -> None:
    needs(platform)
    short = server_timeout(sandbox, platform, 2)  # the late answer outlasts it
    cfg = live_config(tmp_path, sandbox, [platform], tables=SAFETY, others=short)
    text = "Structured concurrency made our shutdown path boring, in a good way."
    async with Client(gateway(cfg), timeout=90, elicitation_handler=approves) as client:
        oid = await scout_draft(client, platform, "rust async cancellation", "Rust async")
        # Applied at once, answered too late, and invisible to reads for 5 s.
        sandbox.fault(platform, kind="lag", seconds=5)
        sandbox.fault(platform, kind="hang_after", seconds=4, match=match, method="POST")
        first = await strike(client, oid, action, text)
        if platform == "bluesky":  # read back from our repo on the PDS, which has it at once
            assert first["status"] == "posted", first
        else:
            assert first["error"].startswith("timeout"), first
            may_be_written(first)
            assert len(sandbox.writes(platform)) == 1
            retry = await strike(client, oid, action, text)
            assert retry["status"] == "duplicate", retry
            may_be_written(retry)
            await settled_as_posted(client, oid, action, text)
    assert len(sandbox.writes(platform)) == 1


async def test_same_post_text_from_two_opportunities(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("devto")
    cfg = live_config(tmp_path, sandbox, ["devto"], tables={"safety": {"author_cooldown_days": 7}})
    body = (
        "Cancellation safety in async Rust is mostly about what happens between two awaits. "
        "We shipped a gateway that forwards requests to four backends, and every bug we hit "
        "in the first month came from a future dropped halfway through a critical section. "
        "Three habits fixed it: keep state changes after the last await, wrap multi-step "
        "updates in a guard that restores the old value on drop, and test shutdown paths "
        "with loom before trusting them in production."
    )  # 75 words: one changed word keeps the 3-shingle Jaccard similarity above 0.9
    async with Client(gateway(cfg), timeout=90, elicitation_handler=approves) as client:
        first = await scout_draft(client, "devto", "rust async", "Rust async")
        second = await scout_draft(client, "devto", "tokio loom testing", "loom")
        assert first != second
        posted = await strike(client, first, "post", body, "Lessons from a gateway")
        assert posted["status"] == "posted", posted
        again = await strike(client, second, "post", "  " + body.upper() + " ", "Other title")
        assert again["status"] == "duplicate" and again["earlier"]["record"] == posted["record"]
        near = body.replace("Three habits", "Three HABITS!").replace("month", "months")
        close = await strike(client, second, "post", near, "A third title")
        assert close["status"] == "duplicate", close
        other = await strike(client, second, "post", "A different article entirely.", "New")
        assert other["status"] == "posted", other
    assert len(sandbox.writes("devto")) == 2


async def test_a_corrupt_record_over_stdio(sandbox: SandboxControl, tmp_path: Path) -> None:
    needs("devto")
    cfg = live_config(tmp_path, sandbox, ["devto"], tables=SAFETY)
    db = tmp_path / "state" / "gwanjong.db"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"\x00garbage, not SQLite\n" * 500)
    async with Client(gateway(cfg), timeout=90, elicitation_handler=approves) as client:
        oid = await scout_draft(client, "devto", "rust async", "Rust async")
        said: list[str] = []

        async def record_answered() -> bool:
            # status waits 0.8 s of real time for the record (a real process: no clock
            # to step); on a loaded machine one call can say "did not answer", the next not
            said.append((await call(client, "status"))["strike_record"])
            return "did not answer within" not in said[-1]

        await until(record_answered)
        assert str(db) in said[-1], said
        answer = await strike(client, oid, "post", POST["content"], POST["title"])
        assert answer["error"].startswith(f"unavailable: the strike record {db}"), answer
        assert "gwanjong doctor --repair" in answer["error"] and "mv " not in answer["error"]
    assert sandbox.writes("devto") == []
