"""A read-only state_dir: status and scout (the inbox too) still answer, saying what cannot
be saved; strike refuses with the reason (a write it cannot record is never sent).

Tests run as root here, where chmod 0500 stops nothing. The state_dir is instead its own
tmpfs, filled while writable and then remounted read-only: the kernel refuses every write
(EROFS) whoever asks. Where mounting is not allowed (not root, no CAP_SYS_ADMIN) the test
skips, saying why."""

from __future__ import annotations

import gc
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import TWEETS
from tests.mcp import call


def _mount(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mount", *args], capture_output=True, text=True, check=False)


def tmpfs(tmp_path: Path, size: str, why: str) -> Iterator[Path]:
    """An empty writable tmpfs of ``size`` as the state_dir; a skip saying ``why`` where
    mounting is not allowed."""
    where = tmp_path / "state"
    where.mkdir()
    done = _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where))
    if done.returncode != 0:
        pytest.skip(f"{why}: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@pytest.fixture
def state(tmp_path: Path) -> Iterator[Path]:
    """`remount_ro(state)` makes it read-only."""
    yield from tmpfs(tmp_path, "16m", "cannot mount a tmpfs for a read-only state_dir")


def remount_ro(where: Path) -> None:
    # A gateway that has stopped may leave a closed-over SQLite handle for the collector
    # (a connection kept by a cycle of frames): collect first, or the remount is "busy".
    gc.collect()
    done = _mount("-o", "remount,ro", str(where))
    assert done.returncode == 0, done.stderr
    with pytest.raises(OSError):  # really read-only, even for root
        (where / "probe").write_text("x")


def text_of(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.stdio  # mounts a tmpfs (a process)
@pytest.mark.anyio
async def test_a_read_only_state_dir_answers_and_strike_refuses(state: Path) -> None:
    fake = FakePlatform(TWEETS)
    remount_ro(state)  # never written yet: still answers
    async with Client(fake_gateway(state, fake, writes="dry-run")) as client:
        status = await call(client, "status")
        assert "read-only" in status.get("strike_record", ""), status
        scouted = await call(client, "scout", source="mentions")
        notes = " ".join(str(v) for v in scouted.get("errors", {}).values())
        if scouted["opportunities"]:
            assert "cursor not saved" in notes, scouted
    assert _mount("-o", "remount,rw", str(state)).returncode == 0
    async with Client(fake_gateway(state, fake, writes="dry-run")) as client:
        await call(client, "status")  # the record and the usage log now exist
    remount_ro(state)
    async with Client(fake_gateway(state, fake, writes="dry-run")) as client:
        status = await call(client, "status")
        assert "platforms" in status and "twitter" in status["platforms"], status
        scouted = await call(client, "scout", source="mentions")
        assert "opportunities" in scouted, scouted
        assert scouted["opportunities"], scouted
        assert "cursor not saved" in scouted["errors"]["twitter"], scouted  # said once, here
        oid = scouted["opportunities"][0]["id"]
        await call(client, "draft", opportunity_id=oid)  # reads only
        result = await client.call_tool(
            "strike",
            {"opportunity_id": oid, "action": "comment", "content": "Guard each await."},
            raise_on_error=False,
        )
        answer = text_of(result) + str(result.structured_content or "")
        assert "read-only" in answer and "cannot be written" in answer, answer
        assert "posted" not in str(result.structured_content or ""), answer
