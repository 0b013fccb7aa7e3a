"""The one-approval page and the app card against the hostile corpus: the whole text, every
hidden character marked and counted, nothing cut, nothing raw outside the edit box."""

from __future__ import annotations

import pytest

from gwanjong_gateway.channels.apps import card_view
from gwanjong_gateway.channels.page import one_approval_page
from gwanjong_gateway.web import STATIC
from tests.hostile_approvals import CORPUS, REFUSED, approval_with, assert_seen, with_footer

NOW = 2000.0


@pytest.mark.parametrize("name", list(CORPUS))
def test_the_page_shows_the_whole_text_marked(name: str) -> None:
    text = with_footer(CORPUS[name])
    a = approval_with(text)
    for page in (
        one_approval_page(a, NOW, "0" * 64),
        one_approval_page(a, NOW, message="Declined."),
    ):
        shown = page.split("<textarea", 1)[0]  # the edit box holds the raw text to edit
        assert_seen(shown, text, escaped=True)
        assert ("invisible character" in shown) == (name in REFUSED)
        assert "more characters" not in shown and "not shown" not in shown
    # a long text scrolls in its box: the box is bounded, never cut
    assert '<pre class="platform" id="exact">' in page
    rule = (STATIC / "console.css").read_text().split("pre.platform {", 1)[1].split("}", 1)[0]
    assert "max-height" in rule and "overflow: auto" in rule


def test_the_title_is_marked_and_warned_about() -> None:
    a = approval_with("Body.", title="Notes\u202e\u200b")
    page = one_approval_page(a, NOW, "0" * 64)
    assert "Notes⟦U+202E⟧⟦U+200B⟧" in page and "Title: 2 invisible characters" in page


@pytest.mark.parametrize("name", list(CORPUS))
def test_the_card_is_given_the_rendered_text_and_its_warning(name: str) -> None:
    text = with_footer(CORPUS[name])
    card = card_view(approval_with(text, title="T\u202e"), "tok")
    assert card["text"] == text  # the exact text, for the edit box
    assert_seen(card["shown"]["text"], text)
    assert bool(card["shown"]["warning"]) == (name in REFUSED)
    assert card["shown"]["title"] == "T⟦U+202E⟧" and card["shown"]["title_warning"]


def test_the_card_names_a_replys_target_when_the_platform_gave_no_link() -> None:
    """A post the platform gave no URL for is still the target: the card (whose script
    says "a new post" for an empty target) names its id, as `review show` does."""
    card = card_view(approval_with("Reply.", target_url=""), "tok")
    assert card["shown"]["target"] == "p1"
    assert card["target"] == ""  # no link to open


def test_the_pages_problem_is_marked_too() -> None:
    """Why a decision was refused can quote a platform (a pause's "last: <its error>"):
    drawn as every other text, each hidden character a mark, none raw."""
    why = "Blocked: writes to devto are paused: 3 write failures in a row; last: ok\u202edab\u200b"
    page = one_approval_page(approval_with("Reply."), NOW, "0" * 64, problem=why)
    assert "\u202e" not in page and "\u200b" not in page
    assert "last: ok⟦U+202E⟧dab⟦U+200B⟧" in page
