"""Handles are bound to the principal: in team mode (tokens), a second member presenting the
first one's opportunity id gets what a made-up id gets, a clear error, and nothing of the
first member's. Driven by langchain-mcp-adapters' default `get_tools()` over HTTP (a new MCP
session for every call; the bearer token is the only header), so nothing but the handle and
the token connects the calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gwanjong_sandbox.control import SandboxControl
from tests.external.py.harness import drive, tokens, write_config
from tests.external.tools import client_python
from tests.gateway.http_gateway import http_gateway

pytestmark = pytest.mark.e2e


def guessed(handle: str) -> str:
    """An id of the same shape that scout never gave anyone: its last character changed."""
    return handle[:-1] + ("B" if handle[-1] != "B" else "C")


def test_another_members_handle_reaches_nothing(sandbox: SandboxControl, tmp_path: Path) -> None:
    python = client_python("langchain")
    config = write_config(tmp_path, sandbox, auth={"mode": "tokens"})
    token = tokens(tmp_path, "alice", "bob")

    def as_user(user: str, *args: str) -> dict[str, Any]:
        over = ("--transport", "http", "--url", url, "--token", token[user])
        return drive(python, "drive_langchain.py", *over, *args)

    with http_gateway(config, log_level="WARNING") as gateway:
        url = gateway.url
        alice = as_user("alice", "--scenario", "scout")
        handle = alice["handle"]
        chosen = alice["scout"]["opportunities"][0]
        bobs = as_user("bob", "--scenario", "draft", "--handle", handle)["draft"]
        made_up = as_user("bob", "--scenario", "draft", "--handle", guessed(handle))["draft"]
        bob_strikes = as_user("bob", "--scenario", "strike", "--handle", handle)["strike"]
        # the handle is alive: its owner drafts it, in a session of her own
        hers = as_user("alice", "--scenario", "draft", "--handle", handle)["draft"]

    assert "error" in bobs and "error" in made_up and "error" in bob_strikes, (bobs, bob_strikes)
    # A clear error: a kind first, then what to do (scout gives ids of one's own).
    kind = bobs["error"].split(":", 1)[0]
    assert kind.isidentifier() and "scout" in bobs["error"], bobs
    # Nothing tells Bob the id is someone's: the same answer as an id nobody was given.
    assert bobs["error"].replace(handle, "<id>") == made_up["error"].replace(
        guessed(handle), "<id>"
    ), (bobs, made_up)
    for text in (bobs["error"], bob_strikes["error"]):
        assert chosen["title"] not in text and chosen["url"] not in text, text
    assert "error" not in hers, hers
    assert (hers["opportunity_id"], hers["url"]) == (handle, chosen["url"])
    assert sandbox.writes() == []
