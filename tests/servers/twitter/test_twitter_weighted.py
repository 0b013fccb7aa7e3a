"""X's weighted length, checked against twitter-text's published conformance cases.

twitter-text-parser 3.0.0 (the last release) cannot be imported on current setups (its emoji
module needs setuptools' ``pkg_resources``), so ``gwanjong_twitter.weighted`` implements the
v3 rules; these cases come
from twitter-text's ``conformance/validate.yml`` (WeightedTweetsWithDiscountedEmojiCounterTest
and the ``lengths`` section), the very long ones rebuilt from their description.
"""

from __future__ import annotations

import pytest

from gwanjong_twitter.weighted import extract_urls, parse, weighted_length

CONFORMANCE = [
    ("Hi http://test.co", 26, True),
    ("http://test.co", 23, True),
    ("285 chars-" + "xxxxxxxxxx-" * 25, 285, False),
    ("285 chars- http://www.twitter.com/jack " + "xxxxxxxxxx-" * 24, 299, False),
    ("xxxxxxxxxx-" * 24 + " http://www.twitter.com/jack ", 289, False),
    ("https://www.twitter.com/aloha " * 10, 240, True),
    ("故人西辞黄鹤楼，烟花三月下扬州。孤帆远影碧空尽，唯见长江天际流。" * 5, 320, False),
    ("😷" * 160, 320, False),
    ("the" + "故人西辞黄鹤楼，烟花三月下扬州。孤帆远影碧空尽，唯见长江天际流。" * 5, 323, False),
    ("ÁB", 2, True),
    ("A\ufb2c", 4, True),  # שּׁ is normalised into 3 code points
    ("282 chars-" + "xxxxxxxxxx-" * 24 + "xxxxxÁx", 281, False),
    ("H🐱☺👨\u200d👩\u200d👧\u200d👦", 7, True),
    ("😷👾😡🔥💩", 10, True),
    ("🙋🏽👨\u200d🎤", 4, True),
    (
        "This is a tweet with general punctuation characters: \u2000\u2001\u2002\u2003\u2004\u2005"
        "\u2006\u2007\u2008\u2009\u200a\u200b ‐ ‑ ‒ – — ― ‖  ‗ ‘ ’ ‚ ‛ “ ” „ ‟ ′ ″ ‴ ‵ ‶ ‷",
        110,
        True,
    ),
    ("randomurlrandomurlrandomurlrandomurlrandomurlrandomurlrandomurls.com", 68, True),
    (
        "あいうえおかきくけこ" * 12 + " http://" + "あいうえおかきくけこ" * 5 + "あいう.com",
        358,
        False,
    ),
    ("あいうえおかきくけこ" * 12 + " http://" + "あいうえおかきくけこ" * 5 + "あい.com", 264, True),
    ("This is a test.", 15, True),
    ("http://test.com", 23, True),
    ("https://test.com", 23, True),
    ("test.com", 23, True),
    ("Test https://test.com test https://test.com test.com test", 86, True),
    ("저찀쯿쿿", 8, True),
    ("", 0, False),
]


@pytest.mark.parametrize(("text", "length", "valid"), CONFORMANCE, ids=range(len(CONFORMANCE)))
def test_conformance(text: str, length: int, valid: bool) -> None:
    parsed = parse(text)
    assert parsed.weighted_length == length
    assert parsed.valid is valid


def test_a_label_over_63_characters_is_not_a_url() -> None:
    prefix = "Long url with invalid domain labels and a short url: "
    text = prefix + "https://" + "somesuperlongurl" * 40 + ".com/foo https://validurl.com"
    # Only the short URL is one; the long "URL" counts character by character.
    assert [u for _s, _e, u in extract_urls(text)] == ["https://validurl.com"]
    assert weighted_length(text) == len(text) - len("https://validurl.com") + 23


@pytest.mark.parametrize(
    ("text", "urls"),
    [
        (
            "see example.com/path/to/resource?search=foo&lang=en now",
            ["example.com/path/to/resource?search=foo&lang=en"],
        ),
        ("www.example.com and foo.co.jp", ["www.example.com", "foo.co.jp"]),
        ("ftp://www.example.com/", []),  # preceded by "/": not a URL
        ("no url in foo.notatld", []),
        ("HTTPS://www.ExaMPLE.COM/index.html", ["HTTPS://www.ExaMPLE.COM/index.html"]),
        ("http://example.com/Русские_слова", ["http://example.com/Русские_слова"]),
        ("trailing punctuation https://x.com/status/1.", ["https://x.com/status/1"]),
        # a domain takes the most labels a TLD still follows; "_" only before its last label
        ("go to a.com.zz.nope now", ["a.com"]),
        ("see https://a.x.y.com.q-.org/p", ["https://a.x.y.com"]),
        ("http://a_b.example.com/x http://example.a_b.com", ["http://a_b.example.com/x"]),
    ],
)
def test_url_extraction(text: str, urls: list[str]) -> None:
    assert [u for _s, _e, u in extract_urls(text)] == urls


@pytest.mark.parametrize(
    ("text", "length"),
    [
        ("👩‍💻", 2),  # a ZWJ sequence is one emoji
        ("🏳️‍🌈", 2),
        ("🇰🇷", 2),  # a flag (two regional indicators)
        ("1️⃣", 2),  # a keycap
        ("👍🏽", 2),  # a skin tone is part of its emoji
        ("©", 1),  # text-style symbol without VS16
        ("©️", 2),
        ("한국어", 6),
        ("e\u0301", 1),  # NFC: é
        ("a\r\nb", 3),  # CRLF is one newline
    ],
)
def test_emoji_and_scripts(text: str, length: int) -> None:
    assert weighted_length(text) == length
