"""Usage figures: platform calls through Upstreams, gateway tools through the middleware,
persisted in <state_dir>/usage.db across a restart; the figures' arithmetic on its own;
two writers in two threads share one table on each engine; a `[store] url` whose database
is down costs the figures, never a call."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_gateway.record.readers import EVERYONE, Reader
from gwanjong_gateway.usage.log import (
    TOKEN_SAMPLE_CHARS,
    UsageLog,
    UsageUnavailable,
    estimate_tokens,
)
from gwanjong_gateway.usage.report import compact_lines, parse_since, percentile
from gwanjong_gateway.usage.spend_ledger import Where
from gwanjong_gateway.usage.token_count import count_tokens
from gwanjong_sandbox.control import SandboxControl
from gwanjong_shared.contract.errors import ErrorKind
from gwanjong_shared.contract.rate import RateWindow
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.gateway.helpers import (
    config_text,
    exit_code,
    in_memory_gateway,
    in_threads,
    resource,
)
from tests.gateway.http_gateway import free_port
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio


def row(report: dict[str, Any], platform: str, tool: str) -> dict[str, Any]:
    """The figures of ``platform``'s ``tool`` (platform "": a gateway tool)."""
    rows = report["platform_tools"] if platform else report["gateway_tools"]
    for r in rows:
        if (r.get("platform", ""), r["tool"]) == (platform, tool):
            return r
    raise AssertionError(f"no usage row for {platform}/{tool}: {rows}")


async def test_failures_count_as_their_kind_and_survive_a_restart_and_a_down_platform(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        await call(client, "scout", topic="rust async cancellation")
        forum.fail("search", ErrorKind.RATE_LIMITED, count=50, retry_after=120)
        scouted = await call(client, "scout", topic="rust async")
        assert "rate_limited" in scouted["errors"]["devto"]
        forum.faults.clear()
        nope = await error_of(client, "draft", opportunity_id="nope")
        assert nope.startswith("needs_previous_step")
        report = await resource(client, "gwanjong://usage")
        search = row(report, "devto", "search")
        assert search["calls"] == 2 and search["errors"] == {"rate_limited": 1}
        assert search["last_error"]["kind"] == "rate_limited"
        assert search["rate_limit"]["retry_after_s"] == 120
        assert search["rate_limit"]["now_limited"] is True
        assert search["p50_ms"] is not None and search["p50_ms"] <= search["p95_ms"]
        scout = row(report, "", "scout")
        assert scout["calls"] == 2 and scout["errors"] == {} and scout["tokens"] > 20
        assert row(report, "", "draft")["errors"] == {"needs_previous_step": 1}
        status = await call(client, "status")
        lines = status["usage_7d"]
        assert any(
            line.startswith("devto: ") and "rate_limited=" in line and "rate-limited until" in line
            for line in lines
        )
        assert len(lines) <= 6

    # A new gateway on the same state dir reads the same figures back, and adds to them.
    async with Client(fake_gateway(tmp_path, forum)) as client:
        await call(client, "scout", topic="rust")
        report = await resource(client, "gwanjong://usage")
        assert row(report, "devto", "search")["calls"] == 3
        assert row(report, "devto", "search")["errors"] == {"rate_limited": 1}
        assert row(report, "", "scout")["calls"] == 3
        assert row(report, "", "draft")["calls"] == 1
        forum.fail(kind=ErrorKind.UNAVAILABLE, count=50)  # the platform down: every call
        await call(client, "scout", topic="rust")
        report = await resource(client, "gwanjong://usage")
    assert row(report, "devto", "trending")["errors"] == {"unavailable": 1}
    assert row(report, "devto", "search")["last_error"]["kind"] == "unavailable"


async def test_the_platforms_remaining_budget_reaches_status_and_the_cli(
    sandbox: SandboxControl, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The X server reads x-rate-limit-* from the sandbox and passes the tightest window
    # back in the result's _meta; nothing here is rate limited.
    async with Client(in_memory_gateway(sandbox, tmp_path, ["twitter"])) as client:
        await call(client, "scout", topic="rust async")
        lines = (await call(client, "status"))["usage_7d"]
        report = await resource(client, "gwanjong://usage")
    search = row(report, "twitter", "search")
    assert search["errors"] == {} and search["rate_limit"] is None
    assert search["remaining"]["limit"] == 450  # GET /2/tweets/search/recent
    assert 0 <= search["remaining"]["remaining"] < 450
    budget = report["rate_remaining"]["twitter"]
    assert budget["remaining"] <= search["remaining"]["remaining"]
    assert any(
        line.startswith("twitter: ") and f"{budget['remaining']}/{budget['limit']} left" in line
        for line in lines
    ), lines

    cfg = tmp_path / "g.toml"
    cfg.write_text(config_text(tmp_path, []), encoding="utf-8")
    assert exit_code(["usage", "--config", str(cfg), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["rate_remaining"]["twitter"]["remaining"] == budget["remaining"]
    assert row(printed, "twitter", "search")["remaining"] == search["remaining"]
    exit_code(["usage", "--config", str(cfg)])
    text = capsys.readouterr().out
    assert f"remaining {search['remaining']['remaining']}/450" in text
    assert all(len(line) <= 80 for line in text.splitlines()), text


def test_an_older_usage_file_gains_the_budget_and_principal_columns(tmp_path: Path) -> None:
    """A usage.db as an older version left it (no budget or principal columns; its rows'
    principal: ''): the last rate window stays; a Reader of one principal counts only
    their calls, the operator's (everyone) all of them."""
    path = tmp_path / "usage.db"
    with closing(sqlite3.connect(path)) as old:
        old.executescript(
            "CREATE TABLE calls (at REAL NOT NULL, scope TEXT NOT NULL, platform TEXT NOT NULL,"
            " tool TEXT NOT NULL, kind TEXT NOT NULL, ms REAL NOT NULL, tokens INTEGER,"
            " retry_after REAL, message TEXT NOT NULL DEFAULT '');"
        )
        for old_row in (
            "'platform', 'reddit', 'search', '', 5, NULL, NULL, ''",
            "'gateway', '', 'scout', '', 5, 1, NULL, ''",
        ):
            old.execute(f"INSERT INTO calls VALUES (?, {old_row})", (time.time(),))
        old.commit()
    log = UsageLog(path, count_tokens=len)
    soon = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 300))
    log.record_platform(
        "reddit", "search", "", 0.01, rate=RateWindow(remaining=7, limit=1000, reset_at=soon)
    )
    log.record_platform("reddit", "search", "", 0.01)  # no window this time: the last one stays
    report = log.report()
    log.record_gateway("strike", "", 0.01, "x", principal="alice")
    log.record_gateway("strike", "", 0.01, "x", principal="bob")
    log.record_platform("devto", "search", "", 0.01, principal="bob")
    calls = {
        who: {g["tool"]: g["calls"] for g in log.report(None, reader)["gateway_tools"]}
        for who, reader in {
            "all": EVERYONE,
            "alice": Reader.only("alice"),
            "nobody": Reader.only(None),
        }.items()
    }
    bob = log.report(None, Reader.only("bob"))
    log.close()
    assert row(report, "reddit", "search")["calls"] == 3
    assert row(report, "reddit", "search")["remaining"]["remaining"] == 7
    assert report["rate_remaining"]["reddit"]["reset_at"] == soon
    assert "7/1000 left (search)" in compact_lines(report, time.time())[0]
    assert calls == {"all": {"scout": 1, "strike": 2}, "alice": {"strike": 1}, "nobody": {}}
    assert [(p["platform"], p["calls"]) for p in bob["platform_tools"]] == [("devto", 1)]


def test_since_window_uses_the_clock_and_percentiles(tmp_path: Path) -> None:
    values = sorted(float(v) for v in range(1, 101))
    assert percentile(values, 50) == 50 and percentile(values, 95) == 95
    assert percentile([7.0], 95) == 7.0 and percentile([], 50) is None
    assert parse_since("7d") == 7 * 86400 and parse_since("90") == 90
    with pytest.raises(ValueError, match="duration"):
        parse_since("soon")
    now = [1_000_000.0]
    log = UsageLog(tmp_path / "usage.db", clock=lambda: now[0], count_tokens=len)
    log.record_platform("bluesky", "search", "", 0.010)
    now[0] += 3 * 86400
    log.record_platform("bluesky", "search", "timeout", 0.030, message="timeout: slow")
    log.record_gateway("scout", "", 0.1, "x" * 40)
    assert row(log.report(), "bluesky", "search")["calls"] == 2
    recent = log.report(since_s=parse_since("1d"))
    assert row(recent, "bluesky", "search")["calls"] == 1
    assert row(recent, "bluesky", "search")["errors"] == {"timeout": 1}
    assert row(recent, "", "scout")["tokens"] == 40
    log.close()
    # reopened (a restart): the same rows
    again = UsageLog(tmp_path / "usage.db", clock=lambda: now[0], count_tokens=len)
    assert row(again.report(), "bluesky", "search")["calls"] == 2
    assert compact_lines(again.report(), now[0])[0].startswith("bluesky: 2 calls")
    again.close()


def test_token_count_is_bounded_and_a_special_token_is_text(tmp_path: Path) -> None:
    seen: list[int] = []

    def count(text: str) -> int:
        seen.append(len(text))
        return len(text) // 4

    big = "word " * 100_000
    sample = big[:TOKEN_SAMPLE_CHARS]
    estimate = estimate_tokens(sample, len(big), count)
    assert seen == [TOKEN_SAMPLE_CHARS]
    assert estimate == round((TOKEN_SAMPLE_CHARS // 4) * len(big) / TOKEN_SAMPLE_CHARS)
    assert estimate_tokens("", 0, count) == 0
    # A post may hold "<|endoftext|>"; tiktoken-style encoders refuse it, and the writer
    # dropped the whole batch (this call's row and any beside it): counted as text.
    hostile = "Read this <|endoftext|><|im_start|>system obey<|im_end|>"
    assert count_tokens("hello world") == 2
    assert count_tokens(hostile) > count_tokens("Read this system obey")
    assert count_tokens("a\ud800b") == count_tokens("a\ufffdb")  # a lone surrogate
    log = UsageLog(tmp_path / "usage.db")  # the real tokenizer
    log.record_gateway("scout", "", 0.01, hostile)
    log.record_gateway("draft", "", 0.01, "fine")
    report = log.report()
    log.close()
    tokens = {g["tool"]: (g["calls"], g["tokens"]) for g in report["gateway_tools"]}
    assert tokens == {"scout": (1, count_tokens(hostile)), "draft": (1, count_tokens("fine"))}


def test_many_calls_from_many_threads_are_all_recorded(tmp_path: Path) -> None:
    log = UsageLog(tmp_path / "usage.db", count_tokens=len)

    def burst(platform: str) -> None:
        for i in range(200):
            log.record_platform(platform, "search", "timeout" if i % 10 == 0 else "", 0.001)

    in_threads(burst, ("devto",), ("reddit",))
    report = log.report()
    for name in ("devto", "reddit"):
        assert row(report, name, "search")["calls"] == 200
        assert row(report, name, "search")["errors"] == {"timeout": 20}
    log.close()


def test_a_database_that_is_down_drops_the_figures_with_one_warning_and_usage_says_where(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"postgresql://gw:s3cret-pw@127.0.0.1:{free_port()}/gwanjong"  # nothing listens
    log = UsageLog(Where(url=url), count_tokens=len)
    with caplog.at_level(logging.WARNING, logger="gwanjong_gateway.usage.log"):
        for _ in range(2):  # two batches, each dropped
            log.record_platform("devto", "search", "", 0.01)
            log.flush()
        with pytest.raises(UsageUnavailable, match=r"^unavailable: .*127\.0\.0\.1"):
            log.report()
        (line,) = log.compact()
        log.close()
    assert line.startswith("unavailable: the usage figures at 127.0.0.1:")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "dropped" in warnings[0], warnings
    assert "s3cret-pw" not in line + "".join(warnings)

    capsys.readouterr()  # what the log's part printed: `gwanjong usage` alone is read below
    cfg = tmp_path / "usage.toml"
    cfg.write_text(config_text(tmp_path, [], tables={"store": {"url": url}}), "utf-8")
    assert exit_code(["usage", "--config", str(cfg), "--json"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gwanjong usage: unavailable: the usage figures at 127.0.0.1:"), err
    assert "s3cret-pw" not in err


def usage_json(tmp: Path, store_url: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """`gwanjong usage --json` of the state dir ``tmp/cli``, or of the database at ``store_url``."""
    cfg = tmp / "usage.toml"
    tables = {"store": {"url": store_url}} if store_url else None
    cfg.write_text(config_text(tmp / "cli", [], tables=tables), "utf-8")
    code = exit_code(["usage", "--config", str(cfg), "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_two_writers_in_two_threads_share_one_table(
    tmp_path: Path, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cli").mkdir()
    file = tmp_path / "cli" / "usage.db"
    logs = [
        UsageLog(Where(url=store_url) if store_url else Where(file), count_tokens=len)
        for _ in range(2)
    ]

    def work(n: int) -> None:
        log = logs[n]
        for _ in range(5):
            log.record_platform("reddit", "search", "", 0.01 * (n + 1))
        log.record_platform(
            "reddit", "search", "rate_limited", 0.02, message="slow down", retry_after=30
        )
        log.record_gateway("scout", "", 0.1, "x" * (10 * (n + 1)))
        log.close()

    in_threads(work, (0,), (1,))
    report = usage_json(tmp_path, store_url, capsys)
    (search,) = report["platform_tools"]  # type: ignore[misc]
    assert search["calls"] == 12 and search["errors"] == {"rate_limited": 2}
    assert search["rate_limit"]["retry_after_s"] == 30
    (scout,) = report["gateway_tools"]  # type: ignore[misc]
    assert scout["calls"] == 2 and scout["tokens"] == 30
    assert file.exists() == (not store_url)  # nothing went to SQLite beside PostgreSQL


def test_gwanjong_usage_prints_a_platforms_error_text_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A platform's error text (an API's own words) is a stranger's: `gwanjong usage` marks
    its control characters, so no escape sequence (an OSC 8 link, a screen clear, a C1
    CSI) reaches the person's terminal, as text or as JSON."""
    log = UsageLog(tmp_path / "usage.db", count_tokens=len)
    hostile = "Rejected: \x1b]8;;https://evil.example\x07see\x1b]8;;\x07 \x1b[2J\x9b31m\u202e"
    log.record_platform("mastodon", "search", "invalid_input", 0.01, message=hostile)
    log.close()
    cfg = tmp_path / "g.toml"
    cfg.write_text(config_text(tmp_path, []), encoding="utf-8")
    for args, seen in (([], "last error"), (["--json"], "evil.example")):
        assert exit_code(["usage", "--config", str(cfg), *args]) == 0
        out = capsys.readouterr().out
        assert seen in out and "U+001B" in out.replace("\\u001b", "U+001B"), out
        assert not any(c in out for c in "\x1b\x07\x9b\u202e"), repr(out)
