"""`gwanjong review show|list` and `gwanjong history` against the hostile corpus: the whole
text, every hidden character a mark with a warning, and never a raw control character on
the terminal (no ESC, OSC 52, CSI, C1 or bidi control)."""

from __future__ import annotations

import io
import json
import unicodedata
from contextlib import closing
from pathlib import Path

import pytest

from gwanjong_gateway.cli.history import format_strike, print_history
from gwanjong_gateway.cli.review import view
from gwanjong_gateway.cli.review.term import Terminal
from gwanjong_gateway.config import parse
from gwanjong_gateway.record.store import StrikeStore
from gwanjong_gateway.rules.ledger import Strike, StrikeStatus
from tests.gateway.helpers import config_text
from tests.gateway.rows import strike_of
from tests.gateway.rows import strike_row as stored
from tests.hostile_approvals import CORPUS, REFUSED, approval_with, assert_seen, with_footer

NOW = 2000.0


def printed(*lines: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    Terminal(stdin=None, stdout=out, stderr=err).out(*lines)
    return out.getvalue()


def no_raw_control(out: str) -> None:
    raw = [c for c in out if c != "\n" and unicodedata.category(c) in ("Cc", "Cf")]
    # the emoji's zero-width joiner is drawn as part of its glyph, on purpose
    assert all(c == "\u200d" for c in raw), [f"U+{ord(c):04X}" for c in raw]


@pytest.mark.parametrize("name", list(CORPUS))
def test_review_show_prints_the_whole_text_marked(name: str) -> None:
    text = with_footer(CORPUS[name])
    a = approval_with(text, title="Notes" + CORPUS["osc52"][10:13])
    out = printed(*view.details(a, NOW))
    no_raw_control(out)
    assert_seen(out, text)
    assert ("WARNING (text):" in out) == (name in REFUSED)
    assert "WARNING (title): 1 invisible character" in out
    plain = f"{len(text):,} characters, counted here (not by the platform)"
    assert f"({plain}: that is the whole text, nothing is cut)" in out


@pytest.mark.parametrize("name", list(CORPUS))
def test_review_list_marks_and_says_it_quotes_one_line_and_its_json_escapes(name: str) -> None:
    a = approval_with(CORPUS[name], principal="\x1bx")
    out = printed(*view.table([view.approval_item(a, NOW)], NOW, decided=False))
    no_raw_control(out)
    assert "⟦U+001B⟧x" in out
    assert "`show ID` prints all of it" in out
    # the JSON keeps the values and carries no raw control
    a = approval_with(CORPUS[name], principal="\u200bmallory\u202e\x9b")
    out = printed(view.escaped_json([view.approval_item(a, NOW).data]))
    no_raw_control(out)
    assert "\u202e" not in out and "\\u202e" in out  # escaped, not marked: the same value
    (item,) = json.loads(out)
    assert item["by"] == "\u200bmallory\u202e\x9b"


def strike_row(**fields: object) -> Strike:
    at: dict[str, object] = {"created_at": NOW, "updated_at": NOW}
    where = {"target": "p1", "target_url": "https://dev.to/alice/p1", "opportunity": "devto:p1"}
    return strike_of(
        id=3, intent_key="k", author="alice", status=StrikeStatus.HANDOFF, **where, **at, **fields
    )


@pytest.mark.parametrize("name", list(CORPUS))
def test_history_prints_stored_model_text_with_marks_only(name: str) -> None:
    """The model's content, a URL it gave, a platform's reason and a principal from before
    names were refused, stored raw, printed inert (the model wrote `\\x1b]52;...` into a
    hand-off's URL)."""
    row = strike_row(
        content=CORPUS[name],
        result_url="https://x.test/1" + CORPUS["osc52"][10:],
        reason="The platform said: " + CORPUS["cursor"],
        principal="mallory\x1b]0;owned\x07\x1b[2J\u202e\nby=admin",
    )
    out = "\n".join(format_strike(row, 80))
    no_raw_control(out)
    assert "⟦U+001B⟧]52;c;" in out and "⟦U+001B⟧[2A" in out
    marked = "by mallory⟦U+001B⟧]0;owned⟦U+0007⟧⟦U+001B⟧[2J⟦U+202E⟧ by=admin"
    assert marked in " ".join(out.split()), out
    assert ("WARNING:" in out) == (name in REFUSED)
    if name == "blank_tail":
        assert "⟦4,200 blank lines⟧" in out and "(tail)" in out


def test_history_json_escapes_what_the_model_stored(tmp_path: Path) -> None:
    with closing(StrikeStore(tmp_path / "gwanjong.db")) as store:
        stored(
            store,
            target="1",
            action="post",
            content=CORPUS["osc52"] + "\x9b2J\u202e",
            status="posted",
        )
    out = io.StringIO()
    config = parse(config_text(tmp_path, []))
    assert print_history(config, None, None, 10, as_json=True, out=out) == 0
    no_raw_control(out.getvalue())
    assert json.loads(out.getvalue())[0]["content"] == CORPUS["osc52"] + "\x9b2J\u202e"
