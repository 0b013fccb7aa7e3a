"""Fake platforms for the gateway's fast tier (tests/fakes): a fresh one per test."""

from __future__ import annotations

import pytest

from tests.fakes.platform import FakePlatform
from tests.fakes.profiles import FORUM


@pytest.fixture
def forum() -> FakePlatform:
    """A forum-shaped platform named "devto": posts auto, comments and likes human."""
    return FakePlatform(FORUM)
