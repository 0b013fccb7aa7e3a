"""Fixtures for the whole suite: one sandbox process per test run, anyio on asyncio."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gwanjong_sandbox.control import SandboxControl, start_sandbox


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
