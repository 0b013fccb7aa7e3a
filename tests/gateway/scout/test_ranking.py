from __future__ import annotations

from datetime import UTC, datetime

from gwanjong_gateway.scout.ranking import (
    dedupe,
    normalize_url,
    opportunity_id,
    rank,
    select,
    tokens,
)
from gwanjong_shared.contract.models import Post

NOW = datetime(2026, 11, 29, tzinfo=UTC)


def post(
    pid: str,
    title: str,
    body: str = "",
    likes: int = 0,
    comments: int = 0,
    url: str = "",
    platform: str = "devto",
) -> Post:
    return Post(
        id=pid,
        platform=platform,
        title=title,
        body=body,
        likes=likes,
        comments_count=comments,
        url=url or f"https://example.com/{pid}",
        published_at="2026-11-28T12:00:00Z",
    )


def test_relevance_beats_popularity() -> None:
    posts = [
        post("1", "Ten CSS tricks", "flexbox grid", likes=900, comments=300),
        post(
            "2",
            "Rust async cancellation pitfalls",
            "tokio select! drops futures",
            likes=5,
            comments=1,
        ),
        post("3", "Why I love Rust", "ownership and borrowing", likes=50, comments=10),
    ]
    ranked = rank("rust async cancellation", posts, NOW)
    assert [r.post.id for r in ranked][:2] == ["2", "3"]
    assert ranked[0].relevance == 1.0 and "cancellation" in ranked[0].reason


def test_keyword_counting_would_be_fooled_bm25_is_not() -> None:
    # A post that repeats one common word many times must not beat one that matches the
    # whole topic: BM25 saturates term frequency and weighs rare words more.
    spam = post("spam", "python python python python python python", "python " * 50)
    good = post("good", "Python packaging with uv workspaces", "lock files and editable members")
    ranked = rank("python packaging workspaces", [spam, good], NOW)
    assert ranked[0].post.id == "good"


def test_korean_topic_matches_inflected_words() -> None:
    posts = [post("ko", "파이썬 비동기로 크롤러 만들기"), post("en", "Async crawlers in Python")]
    assert rank("비동기", posts, NOW)[0].post.id == "ko"
    assert "비동" in tokens("비동기로")


def test_unrelated_posts_only_fill_gaps() -> None:
    posts = [post("a", "Rust async"), post("b", "Gardening tips", likes=1000, comments=500)]
    chosen = select(rank("rust", posts, NOW), 1)
    assert [r.post.id for r in chosen] == ["a"]
    both = select(rank("rust", posts, NOW), 5)
    assert [r.post.id for r in both] == ["a", "b"] and "trending only" in both[1].reason


def test_dedupe_by_normalized_url_keeps_significant_query_parameters() -> None:
    a = post("1", "Same", url="https://www.reddit.com/r/rust/comments/abc/x/?utm=1")
    b = post("2", "Same", url="https://old.reddit.com/r/rust/comments/abc/x")
    c = post("3", "Other", url="https://reddit.com/r/rust/comments/def/")
    assert [p.id for p in dedupe([a, b, c])] == ["1", "3"]
    assert normalize_url("HTTPS://Dev.to/a/b/") == "https://dev.to/a/b"
    hn4 = post("4", "t", url="https://news.example.com/item?id=4")
    hn5 = post("5", "t", url="https://news.example.com/item?id=5")
    tracked = post(
        "4b", "t", url="https://www.news.example.com/item?utm_source=x&id=4&fbclid=abc&ref_src=tw"
    )
    assert [p.id for p in dedupe([hn4, hn5, tracked])] == ["4", "5"]
    assert (
        normalize_url("https://a.dev/p?b=2&a=1&utm_medium=m&gclid=z") == "https://a.dev/p?a=1&b=2"
    )


def test_opportunity_ids_are_short_and_stable() -> None:
    p = post("at://did:plc:abc/app.bsky.feed.post/3k", "t", platform="bluesky")
    assert opportunity_id(p) == opportunity_id(p)
    assert opportunity_id(p).startswith("bluesky-")
    assert len(opportunity_id(p)) == 14
