"""Refused credentials, through the real gateway over MCP with a fake platform: the
`setup` check and `status` read the same `credentials_state` from `capabilities`."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from gwanjong_shared.contract.errors import ErrorKind
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.mcp import call

pytestmark = pytest.mark.anyio


async def test_refused_credentials_fail_the_check_and_status_agrees(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, forum), timeout=120) as client:
        forum.fail("capabilities", ErrorKind.AUTH, count=20)  # the account lookup: a 401
        checked = (await call(client, "setup", action="check", platform="devto"))["check"]
        devto = checked["devto"]
        assert devto["ok"] is False and devto["credentials"] == "refused", devto
        assert "refused the credentials" in devto["next"]
        assert "gwanjong setup devto" in devto["next"]
        assert devto["actions"]  # the rules still answer
        platform = (await call(client, "status"))["platforms"]["devto"]["platform"]
        assert platform["state"] == "auth failed", platform

        forum.faults.clear()  # new keys: the platform accepts them, and both say so
        checked = (await call(client, "setup", action="check", platform="devto"))["check"]
        assert checked["devto"]["ok"] is True and checked["devto"]["credentials"] == "accepted"
        assert "next" not in checked["devto"]
        platform = (await call(client, "status"))["platforms"]["devto"]["platform"]
        assert platform["state"] == "reachable", platform


async def test_an_unreachable_platform_leaves_the_credentials_unknown(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, forum), timeout=120) as client:
        forum.fail("capabilities", ErrorKind.UNAVAILABLE, count=20)
        devto = (await call(client, "setup", action="check", platform="devto"))["check"]["devto"]
        assert devto["ok"] is True and devto["credentials"] == "unknown", devto
        platform = (await call(client, "status"))["platforms"]["devto"]["platform"]
        assert platform["state"] == "unreachable", platform
