"""Mastodon (Mastodon.py over requests) sends a write once, whatever happens to its answer;
a read's 5xx stays an ordinary read failure (kit/once.py, docs/develop/contract.md)."""

from __future__ import annotations

from typing import Any

import pytest

from gwanjong_sandbox.control import SandboxControl
from tests.servers.write_once import (
    LOST,
    lost_write_is_sent_once,
    read_facing,
    read_failed_as_a_read,
)

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]


@LOST
async def test_a_write_whose_answer_is_lost_is_sent_once(
    sandbox: SandboxControl, kind: str, fields: dict[str, Any]
) -> None:
    await lost_write_is_sent_once(sandbox, "mastodon", kind, fields)


async def test_a_read_facing_a_5xx_fails_as_a_read(sandbox: SandboxControl) -> None:
    """requests resends nothing here (max_retries=0), reads included."""
    sent, result = await read_facing(sandbox, "mastodon", "status", status=502)
    assert sent == 1
    read_failed_as_a_read(result)
