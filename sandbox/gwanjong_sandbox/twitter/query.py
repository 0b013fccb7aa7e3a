"""X search operators (the subset the servers and tests use): parse a query into a predicate."""

from __future__ import annotations

import functools
import re

from gwanjong_sandbox.twitter.model import WORD

# -- X search operators (the subset the servers and tests use) ---------------------------

_TOKEN = re.compile(r'\s*(\(|\)|-?"[^"]*"|-?[^\s()]+)')


def parse_query(query: str):  # type: ignore[no-untyped-def]
    tokens = [m.group(1) for m in _TOKEN.finditer(query) if m.group(1).strip()]
    if not tokens:
        raise ValueError("empty query")
    pos = 0

    def or_expr():  # type: ignore[no-untyped-def]
        nonlocal pos
        parts = [and_expr()]
        while pos < len(tokens) and tokens[pos] == "OR":
            pos += 1
            parts.append(and_expr())
        return lambda t, w: any(p(t, w) for p in parts)

    def and_expr():  # type: ignore[no-untyped-def]
        nonlocal pos
        parts = []
        while pos < len(tokens) and tokens[pos] not in (")", "OR"):
            parts.append(unary())
        if not parts:
            raise ValueError("dangling operator")
        return lambda t, w: all(p(t, w) for p in parts)

    def unary():  # type: ignore[no-untyped-def]
        nonlocal pos
        token = tokens[pos]
        if token == "(":
            pos += 1
            inner = or_expr()
            if pos >= len(tokens) or tokens[pos] != ")":
                raise ValueError("unbalanced parentheses")
            pos += 1
            return inner
        pos += 1
        if token.startswith("-") and len(token) > 1:
            positive = term(token[1:])
            return lambda t, w: not positive(t, w)
        return term(token)

    matcher = or_expr()
    if pos != len(tokens):
        raise ValueError("unbalanced parentheses")
    return matcher


@functools.lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    # Searched texts repeat across requests: tokenise each once (keeps a search ~1 ms).
    return frozenset(w.lower() for w in WORD.findall(text))


def _has_word(text: str, word: str) -> bool:
    word = word.lower()
    if not word.isascii():  # CJK has no spaces: X matches inside words
        return word in text.lower()
    return word in _words(text)


def term(token: str):  # type: ignore[no-untyped-def]
    if token.startswith('"') and token.endswith('"') and len(token) >= 2:
        phrase = token[1:-1].lower()
        return lambda t, w: phrase in t.text.lower()
    key, _, value = token.partition(":")
    if key == "filter" and value:  # the web search spelling (filter:replies) of is:reply
        key = "is"
        value = {"replies": "reply", "quote": "quote", "nativeretweets": "retweet"}.get(
            value, value
        )
    if value and key in (
        "from",
        "to",
        "conversation_id",
        "is",
        "lang",
        "in_reply_to_tweet_id",
        "quotes_of_tweet_id",
    ):
        if key == "from":
            return lambda t, w: w.users[t.author_id].username.lower() == value.lower().lstrip("@")
        if key == "to":
            return lambda t, w: (
                bool(t.reply_to_user) and w.users[t.reply_to_user].username.lower() == value.lower()
            )
        if key == "conversation_id":
            return lambda t, w: t.conversation_id == value
        if key == "in_reply_to_tweet_id":
            return lambda t, w: t.reply_to == value
        if key == "quotes_of_tweet_id":
            return lambda t, w: t.quoted == value
        if key == "lang":
            return lambda t, w: t.lang == value
        if value == "reply":
            return lambda t, w: t.reply_to is not None
        if value == "quote":
            return lambda t, w: t.quoted is not None
        if value in ("retweet", "verified", "nullcast"):
            return lambda t, w: False
        raise ValueError(f"unknown operator is:{value}")
    if token.startswith("#") and len(token) > 1:
        tag = token[1:].lower()
        return lambda t, w: any(h.lower() == tag for _s, _e, h in t.hashtags())
    if token.startswith("@") and len(token) > 1:
        name = token[1:].lower()
        return lambda t, w: any(m.lower() == name for _s, _e, m in t.mentions())
    return lambda t, w: _has_word(t.text, token)


# -- OAuth 1.0a ---------------------------------------------------------------------------
