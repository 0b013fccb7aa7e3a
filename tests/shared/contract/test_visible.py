"""The one renderer of what a person sees (`contract.visible`), against the hostile corpus."""

from __future__ import annotations

import unicodedata

import pytest

from gwanjong_shared.contract.visible import hidden, line, problems, refusal, show, terminal
from tests.hostile_approvals import CORPUS, HIDDEN_ORDER, PASSING, REFUSED, TAIL, assert_seen


def test_tag_characters_are_marked_and_their_hidden_words_read() -> None:
    s = show(CORPUS["tags"])
    assert s.text == f'Great point about async cancellation.⟦55 tag characters: "{HIDDEN_ORDER}"⟧'
    assert s.hidden == 55
    assert s.warning().startswith("55 invisible characters, marked ⟦…⟧: U+E0000–U+E007F TAG")


def test_every_control_and_bidi_control_is_a_mark_never_raw() -> None:
    s = show(CORPUS["osc52"] + CORPUS["cursor"] + CORPUS["bidi"])
    assert "\x1b" not in s.text and "\x07" not in s.text and "\x9b" not in s.text
    assert "\u202e" not in s.text and "\u202c" not in s.text
    assert "⟦U+001B⟧]52;c;" in s.text and "⟦U+001B⟧[2A⟦U+001B⟧[2K" in s.text
    assert "⟦U+009B⟧2J" in s.text and "⟦U+202E⟧gro.elpmaxe⟦U+202C⟧" in s.text
    assert s.hidden == 7
    assert "U+202E RIGHT-TO-LEFT OVERRIDE ×1" in s.warning()


def test_the_categories_come_from_unicode_not_a_list() -> None:
    # every code point of these categories, whatever it is, draws as a mark
    sample = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cc", "Cf")]
    assert all(hidden(c) for c in sample if c not in "\n\t")
    # default-ignorables outside those categories: a variation selector, a Hangul filler,
    # the combining grapheme joiner; private use and unassigned code points
    for c in ("\ufe01", "\u3164", "\u034f", "\ue000", "\U000e0100", "\u0378", "\u2028"):
        assert hidden(c), f"U+{ord(c):04X}"
    assert not hidden("a") and not hidden("\n") and not hidden("\t") and not hidden("한")


def test_a_printable_character_that_draws_nothing_is_marked_by_name() -> None:
    """U+1D159 MUSICAL SYMBOL NULL NOTEHEAD is a symbol (So), not default-ignorable, yet
    fonts draw it empty: a name or a line of them looks blank. It is marked and named."""
    s = show("ann\U0001d159\U0001d159 says hi")
    assert s.text == "ann⟦U+1D159⟧⟦U+1D159⟧ says hi" and s.hidden == 2
    assert "U+1D159 MUSICAL SYMBOL NULL NOTEHEAD ×2" in s.warning()
    assert line("\U0001d159" * 3) == "⟦U+1D159⟧" * 3  # a "blank" name is not blank
    # U+2800 BRAILLE PATTERN BLANK stays a space (folded in runs, braille text needs it)
    assert not hidden("\u2800") and hidden("\U0001d159")


def test_emoji_sequences_are_drawn_and_not_warned() -> None:
    s = show(CORPUS["emoji"])
    assert s.text == CORPUS["emoji"] and s.hidden == 0 and s.warning() == ""
    # a joiner between letters, or a variation selector after a letter, is marked
    assert show("a\u200db\ufe0f").text == "a⟦U+200D⟧b⟦U+FE0F⟧"


def test_a_selector_after_a_digit_is_marked_unless_it_builds_a_keycap() -> None:
    """0-9, '#' and '*' are Emoji only as keycap bases: a selector after one draws the
    plain digit, so the extra character is marked; a keycap (digit, U+FE0F, U+20E3) is drawn and is not."""
    s = show("Step 1\ufe0f of 3, #\ufe0e and *\ufe0f")
    assert s.text == "Step 1⟦U+FE0F⟧ of 3, #⟦U+FE0E⟧ and *⟦U+FE0F⟧" and s.hidden == 3
    assert "U+FE0F VARIATION SELECTOR-16 ×2" in s.warning()
    keycaps = "press 1\ufe0f\u20e3 or #\ufe0f\u20e3, *\ufe0f\u20e3"
    assert show(keycaps).text == keycaps and show(keycaps).hidden == 0
    # a joiner after such a selector joins nothing: it is marked too
    assert show("1\ufe0f\u200d\U0001f4bb").text == "1⟦U+FE0F⟧⟦U+200D⟧\U0001f4bb"


def test_a_run_of_blank_lines_is_counted_and_the_tail_is_in_sight() -> None:
    s = show(CORPUS["blank_tail"])
    assert s.text == f"Thanks for sharing.\n⟦4,200 blank lines⟧\n{TAIL}"
    assert s.folded == 4200 and s.hidden == 0
    assert show("a\n\n\nb").text == "a\n\n\nb"  # two blank lines stay as they are
    assert show("a" + " " * 40 + "b").text == "a⟦40 spaces⟧b"
    # lines of U+2800 BRAILLE PATTERN BLANK draw nothing either
    assert show("a" + "\n\u2800" * 50 + "\nb").text == "a\n⟦50 blank lines⟧\nb"
    assert show(CORPUS["blank_tail"], fold=False).text == CORPUS["blank_tail"]


def test_nothing_is_cut_unless_a_list_asks_and_then_it_says_so() -> None:
    assert show(CORPUS["long"]).text == CORPUS["long"]
    cut = show(CORPUS["long"], max_chars=400)
    assert len(cut.text) == 400 and cut.more == 10_000 - 400
    listed = show(CORPUS["blank_tail"], max_chars=200)  # a list sees past the blank run
    assert listed.more == 0 and listed.text.endswith(TAIL)


def test_one_line_fields_are_marked_and_bounded() -> None:
    assert line("ali\u00adce\x1b[2J\nnext") == "ali⟦U+00AD⟧ce⟦U+001B⟧[2J next"
    assert line("x" * 500, 20) == "x" * 19 + "…"


@pytest.mark.parametrize("name", list(CORPUS))
def test_terminal_lines_carry_no_raw_control(name: str) -> None:
    out = "\n".join(terminal(CORPUS[name]))
    assert not any(unicodedata.category(c) == "Cc" for c in out if c != "\n")
    assert_seen(out, CORPUS[name])


@pytest.mark.parametrize("name", list(REFUSED))
def test_refusal_names_the_character_and_where_it_is(name: str) -> None:
    first, at = REFUSED[name]
    why = refusal(CORPUS[name])
    assert why.startswith(f"the text carries {first}")
    assert f"at character {at}" in why and "remove" in why


@pytest.mark.parametrize("name", PASSING)
def test_emoji_blank_lines_and_long_texts_pass(name: str) -> None:
    assert problems(CORPUS[name]) == [] and refusal(CORPUS[name]) == ""


def test_crlf_and_lone_cr_are_refused_newline_and_tab_pass() -> None:
    assert refusal("a\tb\nc") == ""
    assert "U+000D (a control character) at character 2" in refusal("a\r\nb")
    # bidi marks (LRM, RLM) are marked for the person but needed by mixed-direction text
    assert refusal("שלום\u200e ok") == "" and show("שלום\u200e ok").hidden == 1
