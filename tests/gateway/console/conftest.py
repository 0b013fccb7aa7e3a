"""A console over a gateway with the fake forum and writes on "confirm" (helpers.gateway),
open for the test: the MCP client, the console app and a browser's plain HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakes.platform import FakePlatform
from tests.gateway.console.helpers import Served, gateway, serving


@pytest.fixture
async def s(forum: FakePlatform, tmp_path: Path) -> AsyncIterator[Served]:
    gw, mcp = gateway(tmp_path, forum)
    async with serving(gw, mcp) as served:  # type: ignore[arg-type]
        yield served
