"""Ranking scouted posts: 0.70 * relevance + 0.20 * engagement + 0.10 * freshness, each in
[0, 1].

Relevance is BM25 (scout.bm25) of the topic against title (twice), tags and body over the
batch's best; CJK runs also yield character bigrams, so no language-specific tokenizer is
needed. Engagement is log(1 + likes + 2 * comments) over the batch's maximum (replies make
a better place to take part); freshness halves every 48 hours. Posts sharing no word with
the topic only fill the list, and their reason says so.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from gwanjong_gateway.scout.bm25 import bm25_scores
from gwanjong_shared.contract.models import Post

_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u9fff\uac00-\ud7af]")
_STOP = frozenset(
    (
        *("a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "i", "in"),
        *("is", "it", "of", "on", "or", "that", "the", "this", "to", "we", "what", "with"),
        "you",
    )
)
HALF_LIFE_H = 48.0


def tokens(text: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        if _CJK.search(word):
            out.append(word)
            out.extend(word[i : i + 2] for i in range(len(word) - 1))
        elif word not in _STOP and len(word) > 1:
            out.append(word)
    return out


# Query parameters that only say where a click came from; the rest (`item?id=4`) can
# name the post itself and are kept.
_TRACKING = frozenset(
    {"fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "ref", "ref_src", "ref_url"}
    | {"si", "igshid", "_ga", "yclid", "twclid"}
)


def _tracking(key: str) -> bool:
    key = key.lower()
    return key in _TRACKING or key.startswith(("utm", "hsa_", "pk_", "mtm_"))


def normalize_url(url: str) -> str:
    """The same post reached by different links dedupes to one key."""
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.").removeprefix("m.").removeprefix("old.")
    path = parts.path.rstrip("/") or "/"
    kept = sorted(
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _tracking(k)
    )
    return urlunsplit(("https", host, path, urlencode(kept), ""))


def opportunity_id(post: Post) -> str:
    """Short and stable: the same post gets the same id in every scout."""
    digest = hashlib.sha1(f"{post.platform}:{post.id}".encode()).hexdigest()[:6]
    return f"{post.platform}-{digest}"


@dataclass(frozen=True)
class Ranked:
    post: Post
    score: float
    relevance: float
    reason: str


def _age_hours(post: Post, now: datetime) -> float | None:
    if not post.published_at:
        return None
    try:
        when = datetime.fromisoformat(post.published_at)  # "Z" too, since 3.11
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (now - when).total_seconds() / 3600)


def rank(topic: str, posts: list[Post], now: datetime | None = None) -> list[Ranked]:
    if not posts:
        return []
    now = now or datetime.now(UTC)
    docs = [tokens(f"{p.title} {p.title} {' '.join(p.tags)} {p.body}") or ["\u2205"] for p in posts]
    query = tokens(topic)
    relevance = [0.0] * len(posts)
    if query:
        scores = bm25_scores(query, docs)
        best = max(scores)
        if best > 0:
            relevance = [float(s) / best for s in scores]
    eng_raw = [math.log1p(p.likes + 2 * p.comments_count) for p in posts]
    eng_max = max(eng_raw) or 1.0
    ranked: list[Ranked] = []
    query_set = set(query)
    for post, doc, rel, eng in zip(posts, docs, relevance, eng_raw, strict=True):
        age = _age_hours(post, now)
        fresh = 0.5 ** (age / HALF_LIFE_H) if age is not None else 0.5
        score = 0.70 * rel + 0.20 * (eng / eng_max) + 0.10 * fresh
        matched = sorted(query_set & set(doc), key=len, reverse=True)[:3]
        about = (
            f"mentions {', '.join(matched)}"
            if rel > 0 and matched
            else "no topic words: trending only"
        )
        when = f"{age:.0f} h old" if age is not None else "age unknown"
        reason = f"{about}; {post.likes} likes, {post.comments_count} comments; {when}"
        ranked.append(Ranked(post, round(score, 3), rel, reason))
    ranked.sort(key=lambda r: r.score, reverse=True)
    return ranked


def select(ranked: list[Ranked], limit: int) -> list[Ranked]:
    """The best `limit`, relevant ones first; unrelated trending posts only fill gaps."""
    return sorted(ranked, key=lambda r: r.relevance <= 0)[:limit]  # stable: order kept


def dedupe(posts: list[Post]) -> list[Post]:
    """One post per link on each platform: a url is the platform's word (a federated
    post may name its own), so one platform's post never hides another's."""
    first: dict[tuple[str, str], Post] = {}
    for post in posts:
        first.setdefault((post.platform, normalize_url(post.url) if post.url else post.id), post)
    return list(first.values())
