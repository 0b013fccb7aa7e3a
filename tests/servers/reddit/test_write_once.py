"""Reddit (asyncpraw on aiohttp) sends a write once, whatever happens to its answer; its reads are still
read again where its stack retries them (kit/once.py, docs/develop/contract.md)."""

from __future__ import annotations

from typing import Any

import pytest

from gwanjong_sandbox.control import SandboxControl
from tests.servers.write_once import LOST, lost_write_is_sent_once, read_facing, sign_in_lost

pytestmark = [pytest.mark.anyio, pytest.mark.sandbox]


@LOST
async def test_a_write_whose_answer_is_lost_is_sent_once(
    sandbox: SandboxControl, kind: str, fields: dict[str, Any]
) -> None:
    await lost_write_is_sent_once(sandbox, "reddit", kind, fields)


async def test_a_read_facing_a_5xx_is_still_retried(sandbox: SandboxControl) -> None:
    sent, result = await read_facing(sandbox, "reddit", "status", status=502)
    assert not result.is_error and sent == 2  # asyncprawcore's retry (REDDIT_RETRIES)


async def test_a_read_whose_connection_dropped_is_read_again(sandbox: SandboxControl) -> None:
    sent, result = await read_facing(sandbox, "reddit", "apply_then_drop")
    assert not result.is_error and sent == 2  # aiohttp resends an idempotent request


async def test_a_sign_in_whose_answer_is_lost_is_not_a_write(sandbox: SandboxControl) -> None:
    await sign_in_lost(sandbox, "reddit", "/api/v1/access_token")
