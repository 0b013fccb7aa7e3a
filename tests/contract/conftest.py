"""The contract suite's cases: every PlatformSpec in tests/platforms.py (and each of its
variants), served in-memory over the MCP protocol, talking real HTTP to the sandbox."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastmcp import Client

from gwanjong_sandbox.control import SandboxControl
from tests.platforms import SPECS, PlatformSpec

CASES = [
    pytest.param((spec, variant), id=f"{spec.name}-{variant}" if variant else spec.name)
    for spec in SPECS.values()
    for variant in [None, *spec.variants]
]

#: for a test of what no variant changes: each platform once (overrides the spec fixture)
EACH = pytest.mark.parametrize("spec", list(SPECS.values()), ids=list(SPECS))


@pytest.fixture(params=CASES)
def case(request: pytest.FixtureRequest) -> tuple[PlatformSpec, str | None]:
    return request.param


@pytest.fixture
def spec(case: tuple[PlatformSpec, str | None]) -> PlatformSpec:
    return case[0]


@pytest.fixture
def overrides(case: tuple[PlatformSpec, str | None]) -> dict[str, str]:
    """The env of this case's variant (none for the plain server)."""
    spec, variant = case
    return spec.variants[variant] if variant else {}


@pytest.fixture
async def client(
    spec: PlatformSpec, overrides: dict[str, str], sandbox: SandboxControl
) -> AsyncIterator[Client[Any]]:
    async with Client(spec.build(sandbox.url, **overrides)) as c:
        yield c


@pytest.fixture
def ids(spec: PlatformSpec, sandbox: SandboxControl) -> dict[str, str]:
    return sandbox.ids(spec.name)
