"""The fixtures the desk's tests share: the open forum, desks over one record."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.clock import FakeClock
from tests.fakes.platform import FakePlatform
from tests.gateway.strike.test_approvals import Desks, desks_for
from tests.gateway.strike.test_strike_chain import OPEN_FORUM


@pytest.fixture
def fake() -> FakePlatform:
    return FakePlatform(OPEN_FORUM)


@pytest.fixture
async def desks(tmp_path: Path, fake: FakePlatform, clock: FakeClock) -> AsyncIterator[Desks]:
    async for d in desks_for(tmp_path, fake, clock):
        yield d
