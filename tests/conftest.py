"""Fixtures for the whole suite: one sandbox process per test run, anyio on asyncio; the
tiers (tests/tiers.py): the fast tier by default, every tier with --all-tiers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from gwanjong_sandbox.control import SandboxControl, start_sandbox
from tests import tiers


def pytest_addoption(parser: pytest.Parser) -> None:
    tiers.add_option(parser)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    return True if tiers.skip_dir(collection_path, config) else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tiers.select(items, config)


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def sandbox_session() -> Iterator[SandboxControl]:
    with start_sandbox() as control:
        yield control


@pytest.fixture
def sandbox(sandbox_session: SandboxControl) -> Iterator[SandboxControl]:
    """The shared sandbox, reset to its seed before and after each test that uses it."""
    sandbox_session.reset()
    yield sandbox_session
    sandbox_session.reset()
