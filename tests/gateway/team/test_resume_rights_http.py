"""Resuming a platform's paused writes is the operator's or an approver's, on every
surface: a member's `setup(check)` over team HTTP leaves them paused and says who may
resume (the console refuses the same member); an approver's check resumes them. Saving
the team's platform credentials (whom every member's writes go out as) is theirs too."""

from __future__ import annotations

from pathlib import Path

import pytest

from gwanjong_gateway.config.load import read_dotenv
from gwanjong_gateway.record.store import StrikeStore
from tests.fakes.platform import FakePlatform
from tests.gateway.team_gateway import team_gateway
from tests.mcp import call, error_of

pytestmark = pytest.mark.anyio
PAUSE = "3 write failures in a row; last: auth"


async def test_only_the_operator_or_an_approver_resumes_paused_writes(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with team_gateway(tmp_path, forum, tables={"review": {"approvers": ["bob"]}}) as team:
        records = team.gateway.records
        for _ in range(3):
            await records.run(StrikeStore.record_failure, "devto", "auth", 3)
        assert await records.run(StrikeStore.paused, "devto") == PAUSE
        async with team.client("alice") as alice:
            checked = (await call(alice, "setup", action="check", platform="devto"))["check"]
        assert checked["devto"]["writes_resumed"] is False
        assert "only the operator or an approver" in checked["devto"]["next"]
        assert await records.run(StrikeStore.paused, "devto") == PAUSE  # still paused
        async with team.client("carol") as carol:  # an auditor reads all, resumes nothing
            checked = (await call(carol, "setup", action="check", platform="devto"))["check"]
        assert checked["devto"]["writes_resumed"] is False
        async with team.client("bob") as bob:
            checked = (await call(bob, "setup", action="check", platform="devto"))["check"]
        assert checked["devto"]["writes_resumed"] is True
        assert await records.run(StrikeStore.paused, "devto") == ""


async def test_only_the_operator_or_an_approver_saves_the_teams_credentials(
    forum: FakePlatform, tmp_path: Path
) -> None:
    settings = {"model_may_save_credentials": True}  # refused for who asks, not the opt-in
    tables = {"review": {"approvers": ["bob"]}}
    async with team_gateway(tmp_path, forum, tables=tables, settings=settings) as team:
        async with team.client("alice") as alice:
            for credentials in ({"DEVTO_API_KEY": "alices-key"}, None):  # hers, or a page
                refused = await error_of(
                    alice, "setup", action="save", platform="devto", credentials=credentials
                )
                assert refused.startswith("not_supported: The devto credentials are the team's")
                assert "only the operator or an approver" in refused
        assert not (tmp_path / ".env").exists()
        async with team.client("bob") as bob:
            saved = await call(
                bob, "setup", action="save", platform="devto", credentials={"DEVTO_API_KEY": "k"}
            )
    assert saved["saved"] == ["DEVTO_API_KEY"]
    assert read_dotenv(tmp_path / ".env") == {"DEVTO_API_KEY": "k"}  # only the approver's
