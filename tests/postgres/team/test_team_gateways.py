"""Done-when for a team: two authenticated HTTP gateway processes (alice, bob) on one
PostgreSQL record, striking at once against the sandbox with `daily.comment = 1`.
Exactly one write lands, the cap holds across both processes, and the audit names who
approved each strike. Scout's handles live in the record too, so a workflow moves between
replicas freely, and another user's handle reaches nothing on either."""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from gwanjong_sandbox.control import SandboxControl
from tests.e2e.strikes import E2E, scout_draft, strike
from tests.gateway.helpers import config_file
from tests.gateway.http_gateway import RunningGateway, cli, client, http_gateway
from tests.platforms import SPECS

pytestmark = [pytest.mark.anyio, pytest.mark.e2e, pytest.mark.stdio]
# Two Reddit posts by the same author (ferris_fan).
TARGETS = [("rust async cancellation", "Rust async"), ("tokio loom testing", "loom")]


def team(tmp: Path, sandbox: SandboxControl, pg_url: str) -> tuple[Path, Path, dict[str, str]]:
    """Two gateways' configs (own state dirs, one record) and both users' tokens."""
    paths = []
    for name in ("a", "b"):
        (tmp / name).mkdir()
        path = config_file(
            tmp / name,
            ["reddit"],
            settings=E2E,
            tables={
                "safety": {"author_cooldown_days": 0},
                "auth": {"mode": "tokens"},
                "store": {"url": pg_url},
            },
            platform={"min_interval_s": 0, "daily": {"comment": 1}},
            sandbox=sandbox.url,
        )
        paths.append(path)
    tokens = {}
    for user in ("alice", "bob"):
        done = cli(paths[0], "token", "add", user)
        assert done.returncode == 0, done.stderr
        tokens[user] = done.stdout.strip()
    # both replicas accept both users (a team shares its token file, like its database)
    (tmp / "b" / "state").mkdir(exist_ok=True)
    shutil.copy2(tmp / "a" / "state" / "tokens.json", tmp / "b" / "state" / "tokens.json")
    return paths[0], paths[1], tokens


@contextlib.contextmanager
def replicas(a: Path, b: Path) -> Iterator[tuple[RunningGateway, RunningGateway]]:
    with http_gateway(a, log_level="INFO") as ga, http_gateway(b, log_level="INFO") as gb:
        yield ga, gb


def session(url: str, token: str) -> Any:
    return client(url, token)  # no session key: handles carry the workflow


def audit(path: Path) -> list[dict[str, Any]]:
    done = cli(path, "history", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("same_target", [True, False], ids=["same-target", "one-author"])
async def test_two_gateways_on_one_postgres_write_once_name_the_approver_and_share_handles(
    sandbox: SandboxControl, tmp_path: Path, pg_url: str, same_target: bool
) -> None:
    if "reddit" not in SPECS:
        pytest.skip("reddit is not in this run (GWANJONG_TEST_PLATFORMS)")
    a, b, tokens = team(tmp_path, sandbox, pg_url)
    sandbox.fault("reddit", kind="latency", ms=200)  # widen the window between check and write
    with replicas(a, b) as (ga, gb):
        bob_target = TARGETS[0] if same_target else TARGETS[1]
        async with session(ga.url, tokens["alice"]) as alice, session(gb.url, tokens["bob"]) as bob:
            oids = [
                await scout_draft(alice, "reddit", *TARGETS[0]),
                await scout_draft(bob, "reddit", *bob_target),
            ]
            # another user's handle reaches nothing, on either replica
            stolen = await bob.call_tool(
                "strike",
                {"opportunity_id": oids[0], "action": "comment", "content": "bob says: hi."},
                raise_on_error=False,
            )
            text = stolen.content[0].text  # type: ignore[union-attr]
            assert stolen.is_error and "not one you scouted" in text, text
        # each workflow moves to the other replica (the handles live in the record)
        async with session(gb.url, tokens["alice"]) as alice, session(ga.url, tokens["bob"]) as bob:
            answers: dict[str, dict[str, Any]] = {}

            async def one(user: str, c: Any, oid: str) -> None:
                answers[user] = await strike(c, oid, "comment", f"{user} says: guard each await.")

            async with anyio.create_task_group() as tg:
                tg.start_soon(one, "alice", alice, oids[0])
                tg.start_soon(one, "bob", bob, oids[1])
        logs = ga.log() + gb.log()
    statuses = sorted(x.get("status", x.get("error", "")) for x in answers.values())
    assert statuses == (["duplicate", "posted"] if same_target else ["posted", "refused"]), answers
    winner = next(u for u, x in answers.items() if x.get("status") == "posted")
    loser = "bob" if winner == "alice" else "alice"
    if not same_target:
        assert "Daily cap reached: 1 of 1" in answers[loser]["reason"], answers
    assert len(sandbox.writes("reddit")) == 1
    # one record, in PostgreSQL: both replicas show the same audit; no SQLite file
    rows = audit(a)
    assert rows == audit(b)
    assert not (tmp_path / "a" / "state" / "gwanjong.db").exists()
    assert not (tmp_path / "b" / "state" / "gwanjong.db").exists()
    posted = [r for r in rows if r["status"] == "posted"]
    assert [(r["by"], r["content"].split()[0]) for r in posted] == [(winner, winner)], rows
    assert posted[0]["policy"][0] == "mode=live"  # who asked is a column, not a decision
    if not same_target:  # the refusal is recorded too, with who asked
        assert [r["by"] for r in rows if r["status"] == "refused"] == [loser], rows
    assert tokens["alice"] not in logs and tokens["bob"] not in logs
    assert pg_url.rsplit("/", 1)[1] not in json.dumps(answers)  # no database details shown
