"""The platform's `validate` is asked before the target's lock (`checks.early_rules`), so a
slow platform holds up no other strike on that target; its answer, or its error, still
counts where `platform_rules` stands in the chain (a failed validate:
tests/gateway/record/test_strike_record.py; nothing asked for a duplicate:
test_strike_chain.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.fakes.platform import FakePlatform
from tests.gateway.strike.test_strike_chain import (
    OPEN_FORUM,
    Bench,
    accept,
    bench_for,
    context,
    wire,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
async def dry(tmp_path: Path) -> AsyncIterator[Bench]:
    async for b in bench_for(tmp_path, FakePlatform(OPEN_FORUM), writes="dry-run"):
        yield b


async def test_a_strike_inside_validate_holds_no_lock(dry: Bench) -> None:
    """The first strike is stuck in the platform's validate; a second on the same target
    is answered meanwhile, its own validate asked once."""
    fake = dry.fake
    held = fake.gate("validate")
    got: dict[str, Any] = {}

    async def strike(name: str, text: str) -> None:
        got[name] = wire(await dry.desk.strike(context(fake), "comment", text, "", accept))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(strike, "first", "First.")
            await held.reached.wait()
            assert len(dry.desk._locks) == 0  # validating, it holds nothing
            await strike("second", "Second.")
            assert "first" not in got
            held.go.set()
    assert got["second"]["status"] == got["first"]["status"] == "dry_run"
    assert got["second"]["would"]["arguments"]["body"].startswith("Second.")
    assert fake.asked() == ["validate", "validate"]  # each asked once, none under the lock
