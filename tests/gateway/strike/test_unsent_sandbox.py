"""A write refused before anything left for the platform (the server's write hold file
cannot be used) is a failure the model may act on at once, through the real gateway, the
real Reddit server (asyncpraw over HTTP) and the sandbox: it was answered `unavailable`,
which alone says the write may have landed, so the gateway held it as unknown, told the
model it "may already be written", and kept its target from a retry until a read-back
settled it. The error now says, as data, that nothing was sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.gateway.helpers import in_memory_gateway
from tests.gateway.rows import history
from tests.gateway.strike.test_strike_platforms import drafted, strike
from tests.platforms import SPECS, needs

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]  # the whole file: see tests/tiers.py


async def test_a_write_refused_before_it_left_is_failed_not_unknown(
    sandbox: SandboxControl, tmp_path: Path
) -> None:
    needs("reddit")
    unusable = tmp_path / "hold-is-a-folder"
    unusable.mkdir()  # SQLite cannot open a folder: the hold refuses, nothing is sent
    reddit = SPECS["reddit"].build(sandbox.url, REDDIT_HOLD_FILE=str(unusable))
    gateway = in_memory_gateway(
        sandbox, tmp_path, ["reddit"], platform={"min_interval_s": 0}, servers={"reddit": reddit}
    )
    async with Client(gateway) as client:
        oid = await drafted(client, "reddit", "rust async cancellation", "Rust async")
        result = await strike(client, oid, "Guards around each await fixed it for us.")
    assert sandbox.writes("reddit") == []
    said = result["error"]
    assert said.startswith("unavailable: The write hold file") and "nothing was sent" in said
    assert "Nothing was written (record 1)" in said and "may already be" not in said, said
    [row] = history(tmp_path)
    assert row.status == "failed", row
