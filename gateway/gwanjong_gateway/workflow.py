"""scout and draft: find the discussions worth joining, then prepare one of them.

No MCP server code here: the functions take the upstreams and return plain data, so the
server module stays a thin layer of tool definitions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import anyio

from gwanjong_gateway.fence import NOTICE, fence
from gwanjong_gateway.guides import approach, guide
from gwanjong_gateway.mood import thread_mood
from gwanjong_gateway.policy import is_opted_out
from gwanjong_gateway.ranking import dedupe, opportunity_id, rank, select
from gwanjong_gateway.state import DraftContext, Opportunity
from gwanjong_gateway.upstreams import Upstreams
from gwanjong_shared.models import Comment, Post
from gwanjong_shared.text import measure
from gwanjong_shared.untrusted import one_line

Progress = Callable[[float, float, str], Awaitable[None]]
PER_PLATFORM = 10
POST_CHARS = 1200
COMMENT_CHARS = 300
TOP_COMMENTS = 5
TITLE_CHARS = 120  # titles and names are untrusted: short, single-line, cleaned
NAME_CHARS = 60
URL_CHARS = 300


async def scout(
    upstreams: Upstreams,
    acted: set[tuple[str, str]],
    topic: str,
    platforms: list[str],
    limit: int,
    opt_out: list[str],
    progress: Progress | None = None,
) -> tuple[list[Opportunity], dict[str, str]]:
    """Trending and search on every platform at once; merged, deduplicated, ranked."""
    found: list[Post] = []
    errors: dict[str, str] = {}
    done = 0
    timeout = upstreams.config.gateway.call_timeout_s

    async def one(platform: str) -> None:
        nonlocal done
        posts: list[Post] = []
        problems: list[str] = []

        async def fetch(tool: str, args: dict[str, Any]) -> None:
            outcome = await upstreams.call(platform, tool, args, timeout)
            if outcome.ok:
                posts.extend(Post.model_validate(p) for p in outcome.data.get("posts", []))
            else:
                problems.append(f"{tool}: {outcome.error}")

        # Each call waits for a starting server within its own call time, and a server
        # that is down answers at once (its circuit breaker), so no platform holds scout.
        with anyio.move_on_after(timeout + 1) as scope:  # a hung server must not hold scout
            async with anyio.create_task_group() as tg:
                tg.start_soon(fetch, "search", {"query": topic, "limit": PER_PLATFORM})
                tg.start_soon(fetch, "trending", {"limit": PER_PLATFORM})
        if scope.cancelled_caught:
            problems.append(f"no answer within {timeout:g} s")
        if problems and not posts:
            errors[platform] = "; ".join(problems)
        elif problems:
            errors[platform] = "partial: " + "; ".join(problems)
        found.extend(posts)
        done += 1
        if progress is not None:
            await progress(done, len(platforms), f"{platform}: {len(posts)} posts")

    async with anyio.create_task_group() as tg:
        for platform in platforms:
            tg.start_soon(one, platform)

    fresh = [
        p
        for p in dedupe(found)
        if (p.platform, p.id) not in acted and not is_opted_out(opt_out, p.platform, p.author)
    ]
    chosen = select(rank(topic, fresh), limit)
    return [Opportunity(opportunity_id(r.post), r.post, r.score, r.reason) for r in chosen], errors


def net_limits(limits: dict[str, Any], footer: str) -> dict[str, Any]:
    """What the model may write: the disclosure footer is appended to bodies and
    comments, so its length comes off their limits (titles keep theirs)."""
    if not footer:
        return limits
    out: dict[str, Any] = {}
    for name, limit in limits.items():
        if name == "title" or not isinstance(limit, dict) or "max" not in limit:
            out[name] = limit
            continue
        used = _footer_length(footer, str(limit.get("unit", "chars")))
        out[name] = {**limit, "max": max(0, int(limit["max"]) - used), "footer": used}
    return out


def _footer_length(footer: str, unit: str) -> int:
    if unit == "weighted_chars":  # X: most non-Latin characters and emoji count twice
        return sum(2 if ord(ch) > 0x10FF else 1 for ch in footer)
    try:
        return measure(footer, unit)  # type: ignore[arg-type]
    except ValueError:
        return len(footer)


def compress(opportunity: Opportunity) -> dict[str, Any]:
    """The short form the model sees for each scouted post. `title` and `url` are
    platform text (the tool description says so): cleaned, single-line, bounded."""
    post = opportunity.post
    shown: dict[str, Any] = {
        "id": opportunity.id,
        "platform": post.platform,
        "title": one_line(post.title or post.body[: TITLE_CHARS * 4], TITLE_CHARS),
        "url": one_line(post.url, URL_CHARS),
        "score": opportunity.score,
        "comments_count": post.comments_count,
        "reason": one_line(opportunity.reason, 200),
    }
    if opportunity.summoned:
        shown["summoned"] = True
    return shown


UNTRUSTED_FIELDS = (
    " Quoted from the platform: title, author, url, post, top_comments[].author and .text."
)


async def draft(
    upstreams: Upstreams, opportunity: Opportunity, mode: str, disclosure: str
) -> tuple[dict[str, Any], DraftContext]:
    """Everything the model needs to write one good reply, with platform text fenced."""
    post = opportunity.post
    platform, post_id = post.platform, post.id
    results: dict[str, Any] = {}
    failures: dict[str, str] = {}

    async def get(key: str, tool: str, args: dict[str, Any]) -> None:
        outcome = await upstreams.call(platform, tool, args)
        if outcome.ok:
            results[key] = outcome.data
        else:
            failures[key] = outcome.error

    async with anyio.create_task_group() as tg:
        tg.start_soon(get, "post", "get_post", {"post_id": post_id})
        tg.start_soon(get, "comments", "get_comments", {"post_id": post_id, "limit": 100})
        tg.start_soon(get, "caps", "capabilities", {})
        tg.start_soon(
            get,
            "comment_rule",
            "validate",
            {"action": "write_comment", "body": "draft", "post_id": post_id},
        )
        tg.start_soon(
            get, "upvote_rule", "validate", {"action": "upvote", "body": "", "post_id": post_id}
        )

    if "post" in failures and failures["post"].startswith("not_found"):
        raise LookupError(
            f"not_found: the post behind {opportunity.id} is gone ({failures['post']}). Run scout again."
        )
    full = Post.model_validate(results["post"]) if "post" in results else post
    if opportunity.summoned:  # the link (and a hand-off) opens the mention
        full = full.model_copy(update={"url": post.url})
    comments = [Comment.model_validate(c) for c in results.get("comments", {}).get("comments", [])]
    caps = results.get("caps") or {}
    mood = thread_mood([c.body for c in comments if c.body])
    top = sorted(comments, key=lambda c: c.likes, reverse=True)[:TOP_COMMENTS]

    def rule(key: str, action: str) -> dict[str, Any]:
        if key in results:
            v = results[key]
            reason = (
                "; ".join(v.get("problems", []))
                if v.get("allowed") != "auto"
                else caps.get("actions", {}).get(action, {}).get("reason", "")
            )
            return {"allowed": v["allowed"], "reason": one_line(reason, 400)}
        base = caps.get("actions", {}).get(action)
        if base:
            return {"allowed": base.get("allowed"), "reason": one_line(base.get("reason", ""), 400)}
        why = failures.get(key) or failures.get("caps") or "could not check"
        return {"allowed": "unknown", "reason": one_line(why, 400)}

    strike_rules = {
        "comment": rule("comment_rule", "write_comment"),
        "upvote": rule("upvote_rule", "upvote"),
        "post": rule("post_rule", "write_post"),  # no per-target check for new posts
    }
    source = f"{platform} post {post_id}"
    shown: dict[str, Any] = {
        "opportunity_id": opportunity.id,
        "platform": platform,
        "url": one_line(full.url, URL_CHARS),
        "title": one_line(full.title, TITLE_CHARS),
        "author": one_line(full.author or "", NAME_CHARS),
        "untrusted": NOTICE.format(source=platform) + UNTRUSTED_FIELDS,
        "post": fence(full.body, source, POST_CHARS),
        "top_comments": [
            {
                "author": one_line(c.author, NAME_CHARS) or "[deleted]",
                "likes": c.likes,
                "depth": c.depth,
                "text": fence(c.body, f"{platform} comment {c.id}", COMMENT_CHARS),
            }
            for c in top
        ],
        "comments_total": len(comments),
        "mood": {
            "label": mood.label,
            "compound": mood.compound,
            "positive": mood.positive,
            "negative": mood.negative,
            "neutral": mood.neutral,
        },
        "approach": approach(full.title, full.body, mood, len(comments)),
        "guide": guide(platform, caps),
        "limits": net_limits(caps.get("limits", {}), disclosure),
        "strike": {
            "writes": mode,
            "disclosure_appended": disclosure or None,
            "actions": strike_rules,
        },
        "next": f"Write your reply, then strike(opportunity_id={opportunity.id!r}, action='comment', content=...).",
    }
    if failures:
        shown["warnings"] = {k: one_line(v, 300) for k, v in failures.items()}
    context = DraftContext(
        opportunity=replace(opportunity, post=full),
        capabilities=caps,
        validation={"comment": strike_rules["comment"], "upvote": strike_rules["upvote"]},
        shown=shown,
    )
    return shown, context
