"""The fake forum for the console's fast tests (as tests/gateway has it)."""

from __future__ import annotations

import pytest

from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM


@pytest.fixture
def forum() -> FakePlatform:
    return FakePlatform(FORUM)
