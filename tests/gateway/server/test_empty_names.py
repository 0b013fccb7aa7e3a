"""An empty name is a mistake the caller can fix, not a search for nothing or a dump of a
union's branches: each comes back as `invalid_input` saying what to send instead."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.mcp import error_of

pytestmark = pytest.mark.anyio


async def test_an_empty_platform_name_or_handoff_is_refused_saying_what_to_send(
    forum: FakePlatform, tmp_path: Path
) -> None:
    async with Client(fake_gateway(tmp_path, forum)) as client:
        for names in ([""], ["  "], ["devto", ""]):
            text = await error_of(client, "scout", topic="rust", platforms=names)
            assert text.startswith("invalid_input: "), text
            assert "devto" in text and "leave platforms out" in text, text
            assert "other words" not in text
        # an empty or wrong handoff says what to send, once, not per branch of its union
        for handoff in ("", "nope", 1.5, ["post"], 2**63):  # no OverflowError from SQLite
            confirm = {"action": "confirm_handoff", "content": "https://x", "handoff": handoff}
            text = await error_of(client, "strike", opportunity_id="devto-1", **confirm)
            assert text.startswith("invalid_input: "), text
            assert "handoff" in text and "record" in text and "leave" in text, text
            assert "literal[" not in text and ".int" not in text  # no union branches by name
