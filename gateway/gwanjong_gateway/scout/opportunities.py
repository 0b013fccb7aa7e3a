"""scout and draft: find the discussions worth joining, then prepare one of them.

No MCP server code here: the functions take the upstreams and return plain data, so the
server module stays a thin layer of tool definitions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import cast

import anyio

from gwanjong_gateway.config import GatewayConfig
from gwanjong_gateway.platforms.client import PlatformClient, ensure_profiles
from gwanjong_gateway.platforms.upstreams import Upstreams
from gwanjong_gateway.rules.policy import disclosure_for, is_opted_out, is_ours
from gwanjong_gateway.scout.acted import Acted
from gwanjong_gateway.scout.fence import NOTICE, fence
from gwanjong_gateway.scout.guides import approach, guide
from gwanjong_gateway.scout.late import Late, Read, key_of, still_coming, wait_within
from gwanjong_gateway.scout.mood import thread_mood
from gwanjong_gateway.scout.ranking import dedupe, opportunity_id, rank, select
from gwanjong_gateway.scout.scout_results import (
    DraftResult,
    Found,
    LimitView,
    RuleView,
    StrikeView,
    TopComment,
)
from gwanjong_gateway.scout.state import DraftContext, Opportunity
from gwanjong_shared.contract import Action, Capabilities, Limit, LimitName, Unit, Validation
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import Comment, Post
from gwanjong_shared.contract.text import measure
from gwanjong_shared.contract.untrusted import one_line

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
    acted: Acted,
    topic: str,
    platforms: list[str],
    limit: int,
    opt_out: list[str],
    progress: Progress | None = None,
    *,
    late: Late | None = None,
    within_s: float | None = None,
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
) -> tuple[list[Opportunity], dict[str, str]]:
    """Trending and search on every platform at once; merged, deduplicated, ranked.

    `within_s`: answer with what arrived by then (None: wait for every platform); the
    slower platforms are named in the errors as still coming and their reads stay in
    `late` for the next scout on the same topic (scout/late.py)."""
    found: list[Post] = []
    errors: dict[str, str] = {}
    done = 0
    timeout = upstreams.config.gateway.call_timeout_s
    late = late if late is not None else Late()

    async def one(platform: str) -> Read:
        got = Read()
        client = PlatformClient(upstreams, platform)  # each call within call_timeout_s
        searched: list[Post] = []

        async def fetch(tool: str, read: Callable[[], Awaitable[list[Post]]]) -> None:
            try:
                posts = await read()
            except PlatformError as exc:
                got.problems.append(f"{tool}: {exc}")
                return
            got.posts.extend(posts)
            searched.extend(posts if tool == "search" else [])

        # Each call waits for a starting server within its own call time, and a server
        # that is down answers at once (its circuit breaker), so no platform holds scout.
        with anyio.move_on_after(timeout + 1) as scope:  # a hung server must not hold scout
            async with anyio.create_task_group() as tg:
                tg.start_soon(fetch, "search", partial(client.search, topic, PER_PLATFORM))
                tg.start_soon(fetch, "trending", partial(client.trending, PER_PLATFORM))
            await ensure_profiles(upstreams, [platform])  # whom we write as: see without_ours
        if scope.cancelled_caught:
            got.problems.append(f"no answer within {timeout:g} s")
        return without_ours(upstreams, platform, got, searched)

    reads = {p: late.read(key_of(topic, p), partial(one, p)) for p in platforms}

    async def arrive(platform: str, got: Read) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            await progress(done, len(platforms), f"{platform}: {len(got.posts)} posts")

    await wait_within(reads, within_s, sleep, arrive)
    for platform, task in reads.items():
        if not task.done():
            errors[platform] = still_coming(within_s)
            continue
        late.take(key_of(topic, platform))
        got = task.result()
        if got.problems and not got.posts:
            errors[platform] = "; ".join(got.problems)
        elif got.problems:
            errors[platform] = "partial: " + "; ".join(got.problems)
        if got.ours:  # said, or a scout for words we wrote about looks empty for no reason
            note = f"only our own posts matched the topic ({got.ours}): never offered"
            errors[platform] = f"{errors[platform]}; {note}" if platform in errors else note
        found.extend(got.posts)

    unique = dedupe(found)
    held = await acted([(p.platform, p.id) for p in unique])
    fresh = [
        p
        for p in unique
        if (p.platform, p.id) not in held
        and not is_opted_out(opt_out, p.platform, p.author, upstreams.profiles)
    ]
    chosen = select(rank(topic, fresh), limit)
    return [Opportunity(opportunity_id(r.post), r.post, r.score, r.reason) for r in chosen], errors


def without_ours(upstreams: Upstreams, platform: str, got: Read, searched: list[Post]) -> Read:
    """`got` without our own account's posts (search lists our newest first, to read an
    unsure write back), counting search's when they were all it found. Whom we write as
    (capabilities) is asked after the reads: their usage check asked it first (prices),
    so it costs a call only when that got no answer, once per platform; unknown: none."""
    mine = {p.id for p in got.posts if is_ours(platform, p.author, upstreams.profiles)}
    got.posts = [p for p in got.posts if p.id not in mine]
    if searched and all(p.id in mine for p in searched):
        got.ours = len(searched)
    return got


def net_limits(
    limits: Mapping[LimitName, Limit], footer: str, lengths: Mapping[str, int]
) -> dict[str, LimitView]:
    """What the model may write: the disclosure footer is appended to bodies and
    comments, so its length (`lengths`, by unit) comes off their limits (titles keep
    theirs). A unit nobody could count weighs the footer's chars twice (no unit weighs
    a char more)."""
    out: dict[str, LimitView] = {}
    for name, limit in limits.items():
        shown = LimitView(max=limit.max, unit=limit.unit)
        if footer and name != "title":
            used = lengths.get(limit.unit, 2 * len(footer))
            shown = LimitView(max=max(0, limit.max - used), unit=limit.unit, footer=used)
        out[name] = shown
    return out


async def _footer_lengths(
    client: PlatformClient, limits: Mapping[LimitName, Limit], footer: str, post_id: str
) -> dict[str, int]:
    """The footer's length in each unit its limits count in: here, or by the platform's
    own counter for a unit only it can count (one `validate`, only when one is in use)."""
    units: set[Unit] = {limit.unit for limit in limits.values()} if footer else set()
    lengths: dict[str, int] = {}
    for unit in units:
        with contextlib.suppress(ValueError):  # a unit only the platform can count
            lengths[unit] = measure(footer, unit)
    if len(lengths) < len(units):
        with contextlib.suppress(PlatformError):
            verdict = await client.validate("write_comment", footer, post_id=post_id)
            lengths[verdict.length.unit] = verdict.length.used
    return lengths


def compress(opportunity: Opportunity) -> Found:
    """The short form the model sees for each scouted post. `title` and `url` are
    platform text (the tool description says so): cleaned, single-line, bounded."""
    post = opportunity.post
    return Found(
        id=opportunity.ref,
        platform=post.platform,
        title=one_line(post.title or post.body[: TITLE_CHARS * 4], TITLE_CHARS),
        url=one_line(post.url, URL_CHARS),
        score=opportunity.score,
        comments_count=post.comments_count,
        reason=one_line(opportunity.reason, 200),
        summoned=True if opportunity.summoned else None,
    )


UNTRUSTED_FIELDS = (
    " Quoted from the platform: title, author, url, post, top_comments[].author and .text."
)


async def draft(
    upstreams: Upstreams, opportunity: Opportunity, config: GatewayConfig
) -> tuple[DraftResult, DraftContext]:
    """Everything the model needs to write one good reply, with platform text fenced, and
    what strike needs of it (the post as draft saw it, the platform's rules and footer)."""
    post = opportunity.post
    platform, post_id = post.platform, post.id
    client = PlatformClient(upstreams, platform)
    got: dict[str, object] = {}  # what draft's concurrent reads brought back, by key
    failures: dict[str, PlatformError] = {}

    async def guard(key: str, read: Awaitable[object]) -> None:
        try:
            got[key] = await read
        except PlatformError as exc:
            failures[key] = exc

    async with anyio.create_task_group() as tg:
        tg.start_soon(guard, "post", client.get_post(post_id))
        tg.start_soon(guard, "comments", client.get_comments(post_id, 100))
        tg.start_soon(guard, "caps", client.capabilities())
        tg.start_soon(
            guard, "comment_rule", client.validate("write_comment", "draft", post_id=post_id)
        )
        tg.start_soon(guard, "upvote_rule", client.validate("upvote", "", post_id=post_id))
    caps = cast(Capabilities | None, got.get("caps"))
    comments = cast(list[Comment], got.get("comments", []))

    gone = failures.get("post")
    if gone is not None and gone.kind is ErrorKind.NOT_FOUND:
        raise PlatformError(
            ErrorKind.NOT_FOUND,
            f"the post behind {opportunity.ref} is gone ({gone}). Run scout again.",
        )
    full = cast(Post | None, got.get("post")) or post
    if opportunity.summoned:  # the link (and a hand-off) opens the mention
        full = full.model_copy(update={"url": post.url})
    mood = thread_mood([c.body for c in comments if c.body])
    top = sorted(comments, key=lambda c: c.likes, reverse=True)[:TOP_COMMENTS]

    def rule(key: str, action: Action) -> RuleView:
        base = caps.actions.get(action) if caps is not None else None
        verdict = cast(Validation | None, got.get(key))
        if verdict is not None:  # the platform's answer for this target; its problems say why
            program = verdict.allowed in ("auto", "approved")  # no problem: the rule's reason
            reason = (base.reason if base else "") if program else "; ".join(verdict.problems)
            return RuleView(allowed=verdict.allowed, reason=one_line(reason, 400))
        if base is not None:
            return RuleView(allowed=base.allowed, reason=one_line(base.reason, 400))
        why = failures.get(key) or failures.get("caps") or "could not check"
        return RuleView(allowed="unknown", reason=one_line(str(why), 400))

    strike_rules = {
        "comment": rule("comment_rule", "write_comment"),
        "upvote": rule("upvote_rule", "upvote"),
        "post": rule("post_rule", "write_post"),  # no per-target check for new posts
    }
    source = f"{platform} post {post_id}"
    # The footer after the capabilities answer above: the platform may have just named it.
    disclosure = disclosure_for(config, platform, upstreams.profiles)
    limits = caps.limits if caps is not None else {}
    lengths = await _footer_lengths(client, limits, disclosure, post_id)
    shown = DraftResult(
        opportunity_id=opportunity.ref,
        platform=platform,
        url=one_line(full.url, URL_CHARS),
        title=one_line(full.title, TITLE_CHARS),
        author=one_line(full.author, NAME_CHARS),
        untrusted=NOTICE.format(source=platform) + UNTRUSTED_FIELDS,
        post=fence(full.body, source, POST_CHARS),
        top_comments=[
            TopComment(
                author=one_line(c.author, NAME_CHARS) or "[deleted]",
                likes=c.likes,
                depth=c.depth,
                text=fence(c.body, f"{platform} comment {c.id}", COMMENT_CHARS),
            )
            for c in top
        ],
        comments_total=len(comments),
        mood=mood,
        approach=approach(full.title, full.body, mood, len(comments)),
        guide=guide(upstreams.profiles.of(platform)),
        limits=net_limits(limits, disclosure, lengths),
        strike=StrikeView(
            writes=config.gateway.writes,
            disclosure_appended=disclosure or None,
            actions=strike_rules,
        ),
        next=f"Write your reply, then strike(opportunity_id={opportunity.ref!r}, action='comment', content=...).",
        warnings={k: one_line(str(v), 300) for k, v in failures.items()} if failures else None,
    )
    context = DraftContext(
        opportunity=replace(opportunity, post=full),
        capabilities=caps,
        validation={"comment": strike_rules["comment"], "upvote": strike_rules["upvote"]},
        shown=shown.model_dump(mode="json"),  # the record keeps what the model saw
    )
    return shown, context
