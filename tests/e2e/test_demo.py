"""`gwanjong demo`, the README's main command, as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.terminal import PtyCommand

pytestmark = pytest.mark.e2e


def test_demo_runs_the_pipeline_and_exits_zero() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gwanjong_gateway", "demo"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "80"},  # an 80-column terminal
    )
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-3000:]
    assert "Tools the model sees" in out and "scout" in out and "total" in out
    assert "Opportunities" in out
    assert "-> posted" in out and "-> handoff" in out and "duplicate (never twice)" in out
    # Issue 21: the Dev.to post was always refused by the author cool-down, and said nothing
    [post] = [line for line in out.splitlines() if "strike(action='post') ->" in line]
    assert "-> posted https://dev.to/" in post, out[-3000:]
    # ...but only once a person approved it (writes = live): the demo shows the dialog
    asked = out.index("a person is asked")
    assert asked < out.index("strike(action='post') ->") and "Five tools instead" in out[asked:]
    # Six platforms: Mastodon writes where summoned and refuses a #nobot author; Hacker
    # News refuses every write with its guideline (rich folds lines at 80 columns).
    flat = " ".join(out.split())
    assert (
        "scout(topic='MCP gateway design') across devto, bluesky, twitter, reddit, mastodon, hackernews"
        in flat
    )
    assert "[mastodon] summoned: @quiet_quinn mentions you: comment is never -> refused" in flat
    assert "has #nobot in their profile" in flat
    assert "-> posted https://sandbox.social/@gwanjong_bot/" in flat
    assert "[hackernews] summoned:" in flat and "HN is for conversation between humans" in flat
    assert "Demo complete:" in out
    assert "Traceback" not in out + proc.stderr
    assert "Deleted the demo's gateway.toml and state" in out  # says so
    wide = [line for line in out.splitlines() if len(line) > 80]
    assert wide == [], "\n".join(wide)


@pytest.mark.anyio
async def test_ctrl_c_stops_the_demo_in_one_line_and_cleans_up() -> None:
    argv = [sys.executable, "-m", "gwanjong_gateway", "demo"]
    with PtyCommand(argv, {**os.environ, "COLUMNS": "80", "TERM": "dumb"}) as cmd:
        await cmd.wait_for("1b. scout")
        cmd.type("\x03")
        code, text = await cmd.exit_code(), cmd.screen() + cmd.errors()
    assert code == 130, text
    assert "gwanjong: stopped" in text and "Traceback" not in text, text
    assert "Deleted the demo's gateway.toml and state" in text
