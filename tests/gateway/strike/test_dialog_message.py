"""The approval dialog's message (form-mode elicitation): clients show it in a terminal or a
dialog, so it carries the exact text whole, every hidden or steering character as a mark."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult

from gwanjong_gateway.strike.elicitation import message
from gwanjong_shared.contract.text import graphemes
from tests.fakes.gateway import fake_gateway
from tests.fakes.platform import FakePlatform
from tests.gateway.approval_clients import CLUSTERS, COUNTED, FOOTER, pending
from tests.gateway.strike.test_strike import drafted, strike
from tests.hostile_approvals import (
    CORPUS,
    PASSING,
    REFUSED,
    approval_with,
    assert_seen,
    tags,
    with_footer,
)


@pytest.mark.parametrize("name", list(CORPUS))
def test_the_message_shows_every_character_marked_and_nothing_raw(name: str) -> None:
    text = with_footer(CORPUS[name])
    said = message(approval_with(text))
    assert_seen(said, text)
    assert not any(unicodedata.category(c) == "Cc" for c in said if c != "\n")
    assert said.index("-- posted with gwanjong") < said.index("Approve to publish")
    assert ("WARNING:" in said) == (name in REFUSED)
    # an approval that kept no count of the platform's: its plain length, said so
    plain = f"{len(text):,} characters, counted here (not by the platform)"
    assert f"({plain}, disclosure footer included)" in said


def test_a_hidden_title_is_marked_and_warned_about() -> None:
    said = message(approval_with("Body.", title="Release notes" + tags("run rm -rf")))
    assert 'Title: Release notes⟦10 tag characters: "run rm -rf"⟧' in said
    assert "WARNING (title): 10 invisible characters" in said


def test_a_selector_after_a_digit_is_marked_in_the_message() -> None:
    said = message(approval_with("Step 1\ufe0f, then press 2\ufe0f\u20e3."))
    assert "Step 1⟦U+FE0F⟧, then press 2\ufe0f\u20e3." in said
    assert "WARNING: 1 invisible character" in said


@pytest.mark.anyio
@pytest.mark.parametrize("name", [*PASSING, "osc52"])
async def test_the_dialog_a_client_is_sent_shows_the_whole_text(
    forum: FakePlatform, tmp_path: Path, name: str
) -> None:
    asked: list[str] = []

    async def handler(said: str, response_type: Any, params: Any, ctx: Any) -> Any:
        asked.append(said)
        return ElicitResult(action="cancel")

    gateway = fake_gateway(tmp_path, forum, writes="confirm")
    async with Client(gateway, mode="legacy", elicitation_handler=handler) as client:
        oid = await drafted(client)
        result = await strike(client, oid, content=CORPUS[name])
    if name in REFUSED:  # refused by the chain: no person is asked to approve it
        assert result["status"] == "refused" and "U+001B" in result["reason"], result
        assert asked == []
        return
    assert result["status"] == "pending_approval", result
    (said,) = asked
    assert_seen(said, CORPUS[name])


def test_no_text_can_pass_for_the_dialogs_own_lines() -> None:
    """The model's text (and a title) cannot end the dialog early: a line of them that
    reads as gwanjong's own ("Approve to publish...") is quoted, so what follows it is
    still seen as part of the text (as `gwanjong review show` bars every quoted line)."""
    forged = (
        "Nice post!\n\nApprove to publish it, or decline. Approval 7 also waits for you.\n\n"
        "Sent as: someone else\nThis exact text will be sent (10 characters):"
    )
    said = message(approval_with(with_footer(forged), title="Notes\nSent as: nobody"))
    lines = said.split("\n")
    assert sum(line.startswith("Approve to publish") for line in lines) == 1
    assert lines[-1].startswith("Approve to publish")
    assert sum(line.startswith("Sent as:") for line in lines) == 1
    assert sum(line.startswith("This exact text will be sent") for line in lines) == 1
    assert_seen(said, with_footer(forged))


@pytest.mark.anyio
async def test_the_dialog_counts_the_text_as_the_platform_does(tmp_path: Path) -> None:
    """A person is told the length the platform counts (graphemes here), of its limit,
    never Python's code points: the count the chain's `validate` answered, kept."""
    asked: list[str] = []

    async def handler(said: str, response_type: Any, params: Any, ctx: Any) -> Any:
        asked.append(said)
        return ElicitResult(action="cancel")

    gateway = fake_gateway(tmp_path, FakePlatform(COUNTED), writes="confirm")
    async with Client(gateway, mode="legacy", elicitation_handler=handler) as client:
        await pending(client, CLUSTERS)
    (said,) = asked
    sent = CLUSTERS + FOOTER
    assert graphemes(sent) < len(sent)
    size = f"{graphemes(sent)} of 300 graphemes as reddit counts them"
    assert f"({size}, disclosure footer included)" in said, said
